/**
 * The `uniqueItems` keyword (2020-12 validation, section 6.4.3), compiled without Ajv's shortcuts.
 *
 * When `items` declares scalar types, Ajv checks uniqueness through a plain object keyed by item and skips items of
 * another type. Both shortcuts give wrong verdicts: two `"__proto__"` strings never collide in a plain object, and in
 * 2020-12 `items` does not cover the items `prefixItems` takes, so duplicates there go unseen. This definition keys
 * scalars in a `Map` (no prototype, no skipped types), and objects and arrays in a table by their canonical text
 * (`jsonKey`: keys sorted, numbers by value; see `firstDuplicate`), so the check is linear in the array instead of
 * comparing every pair.
 */

import { firstDuplicate } from "@toolgate/runtime/validators";
import type { CodeKeywordDefinition, KeywordCxt } from "ajv";
import { _, str } from "ajv";
import { useFunc } from "ajv/dist/compile/util.js";

/**
 * The run-time `firstDuplicate` as Ajv's code generator takes a helper: the function, for validators compiled in
 * process, and the `require` the module rewrite maps onto `@toolgate/runtime/validators` (see `esm-module.ts`).
 */
const firstDuplicateFunc = Object.assign((items: readonly unknown[]) => firstDuplicate(items), {
  code: 'require("@toolgate/runtime/validators").firstDuplicate',
});

/** Ajv keyword definition for `uniqueItems`; add it after `ajv.removeKeyword("uniqueItems")`. */
export const uniqueItemsKeyword: CodeKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    if (schema !== true) return;
    const duplicateOf = useFunc(gen, firstDuplicateFunc);
    // Each item is looked at once, scalars by value and objects and arrays by their canonical text, so the check is
    // linear in the array's size whatever its items hold.
    const pair = gen.const("pair", _`${duplicateOf}(${data})`);
    const valid = gen.const("valid", _`${pair} === undefined`);
    const i = gen.let("i");
    const j = gen.let("j");
    gen.if(_`!${valid}`, () => gen.assign(i, _`${pair}[0]`).assign(j, _`${pair}[1]`));
    cxt.setParams({ i, j });
    cxt.pass(valid);
  },
};
