/**
 * The `multipleOf` keyword, compiled so that decimal divisors behave as the schema author reads them.
 *
 * JSON Schema defines `multipleOf` on exact numbers (2020-12 validation, section 6.2.1), but instances arrive as
 * binary doubles: `0.07 / 0.01` is `7.000000000000001`, so an exact check rejects 0.07 for `{"multipleOf": 0.01}`.
 * Ajv's `multipleOfPrecision` option fixes that with an absolute tolerance on the quotient, which breaks the other
 * way for large quotients (the tolerance is smaller than one rounding step, and an infinite quotient is accepted).
 * This definition replaces Ajv's keyword:
 *
 * - an integer divisor is checked exactly with `%` (both operands are exact doubles, and `%` on doubles is exact);
 * - a fractional divisor is checked on the quotient with a tolerance of a few rounding steps relative to the
 *   quotient (the divisor and the instance each carry one rounding error, the division adds one more);
 * - a quotient that overflows to Infinity falls back to the exact remainder.
 */
import type { CodeKeywordDefinition, KeywordCxt } from "ajv";
import { _, str } from "ajv";

/** How many rounding steps of the quotient still count as a whole multiple (see the module comment). */
const QUOTIENT_ROUNDING_STEPS = 4;

/** Ajv keyword definition for `multipleOf`; add it after `ajv.removeKeyword("multipleOf")`. */
export const multipleOfKeyword: CodeKeywordDefinition = {
  keyword: "multipleOf",
  type: "number",
  schemaType: "number",
  error: {
    message: ({ schemaCode }) => str`must be multiple of ${schemaCode}`,
    params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    const divisor = schema as number;
    if (Number.isInteger(divisor)) {
      cxt.fail(_`${data} % ${divisor} !== 0`);
      return;
    }
    const quotient = gen.const("quotient", _`${data} / ${divisor}`);
    const tolerance = QUOTIENT_ROUNDING_STEPS * Number.EPSILON;
    cxt.fail(
      _`Number.isFinite(${quotient}) ? Math.abs(Math.round(${quotient}) - ${quotient}) > ${tolerance} * Math.abs(${quotient}) : ${data} % ${divisor} !== 0`,
    );
  },
};
