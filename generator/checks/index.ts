/**
 * The check stage: how large and how deep can a valid result be? Its one entry, `checkBounds`.
 *
 * `checkBounds` reads a bundled schema (every `$ref` a `#/…` pointer into it) and derives a sound upper bound on
 * the compact JSON text of any value the schema accepts, and on its nesting depth. Where no bound exists it says
 * why, as findings that point at the schema location to fix. The receive ceiling and the lock file's derived
 * bounds come from here, so the bound must never be below the size of a legitimate result.
 *
 * The analysis is an abstract interpretation over the six JSON types: each schema maps to, per type it admits,
 * an upper bound on bytes and on depth. Conjunctions (sibling keywords, `allOf`, a 2020-12 `$ref` beside other
 * keywords) are merged keyword by keyword, so `allOf: [{maxItems: 5}, {items: …}]` is bounded; disjunctions
 * (`anyOf`, `oneOf`) take the larger bound per type; `not`, `if`/`then`/`else`, `dependentSchemas` and `contains`
 * only ever narrow what is valid, so ignoring them keeps every bound sound (merely less tight).
 *
 * The stage in files: `size.ts` is the size algebra (sound step by step), `bounds-walk.ts` the walker that applies
 * it to a schema, `schema-reading.ts` and `evaluators.ts` what the walker asks of a schema object, `findings.ts` the
 * messages, and `pattern-bounds.ts` the reader that bounds a `pattern`. `safety.ts`, beside them, is the safety stage.
 */
import { dialectNamed } from "../schema/dialects.js";
import { isSchemaObject } from "../schema/guards.js";
import type { Dialect, JsonSchema } from "../schema/shapes.js";
import { BoundsWalker } from "./bounds-walk.js";
import { type Finding, noValidValue, sortFindings } from "./findings.js";
import { collapse } from "./size.js";

export type { Finding, FindingKind } from "./findings.js";
export { patternMaxBytes } from "./pattern-bounds.js";
export { FIXED_SIZE_FORMATS, MAX_BYTES_PER_CODE_POINT, MAX_BYTES_PER_CODE_UNIT, MAX_NUMBER_BYTES } from "./size.js";

/** What the checker derived about a schema's results. */
export interface BoundsReport {
  /** Every reason a bound is missing, sorted by pointer then kind; empty when `maxBytes` is a number. */
  findings: Finding[];
  /**
   * Largest legitimate result in bytes (UTF-8 JSON as a tool would send it, compact), when every part is bounded;
   * else null. See {@link checkBounds} for why it is an upper bound.
   */
  maxBytes: number | null;
  /** Deepest nesting of arrays/objects a valid value can have, when bounded (no recursion through $ref); else null. */
  maxDepth: number | null;
}

/** How the schema is read. Both settings have the defaults the rest of the pipeline uses. */
export interface CheckOptions {
  /**
   * `assert` when the generated validator checks `format` (x-toolgate `formats: "assert"`); only then does a
   * fixed-size format bound a string. Default `annotate`, the 2020-12 default: a format then proves nothing.
   */
  formats?: "annotate" | "assert";
  /**
   * The schema's dialect. Default: read from the root `$schema`, else 2020-12. It matters for `$ref`: before
   * 2019-09, keywords beside a `$ref` are ignored, so they must not tighten the bound.
   */
  dialect?: Dialect;
}

/**
 * Derive the size and depth bounds of a bundled schema, with a finding for every part that leaves them open.
 *
 * Why `maxBytes` is an upper bound on the compact JSON text of every valid value (no whitespace between tokens;
 * duplicate keys are not a legitimate result, as `JSON.parse` would drop all but one):
 * - `null` 4, `true` 4, `false` 5 bytes; a number at most {@link MAX_NUMBER_BYTES}.
 * - A string: 2 quotes plus, for an unknown string of at most n code points, 12·n ({@link MAX_BYTES_PER_CODE_POINT});
 *   for a known string (`enum`, `const`, a property name) 6 per UTF-16 unit ({@link MAX_BYTES_PER_CODE_UNIT}).
 *   A pattern bounds a string only when every alternative is anchored with `^…$` and every repetition has an upper
 *   bound; each matched character then counts 6 bytes, or 12 where it may lie outside the BMP.
 * - An array of at most n items: `[`, `]`, n−1 commas and the sum of the largest bound of each position.
 * - An object: braces, commas, and per key its name, a colon and its value. A closed object holds only the
 *   declared keys, so the bound sums them all (or the `maxProperties` largest); unknown keys are bounded only with
 *   `maxProperties` and bounded names (`propertyNames`, or anchored bounded `patternProperties`).
 * - `anyOf`/`oneOf` take the larger bound per type; every conjunct (siblings, `allOf`, `$ref`) must hold, so the
 *   smaller bound per type, and per keyword (the smallest `maxItems`, every schema for an item or property).
 * A bound is only ever replaced by a smaller one when a keyword that must hold proves it, and every keyword the
 * checker ignores can only make fewer values valid, so the result is never below a legitimate result's size.
 *
 * Pure: never mutates the schema. Terminates on recursive schemas: a `$ref` back into a schema being bounded is
 * reported as `nesting-unbounded`.
 */
export function checkBounds(schema: JsonSchema, options: CheckOptions = {}): BoundsReport {
  const walker = new BoundsWalker(schema, options.dialect ?? declaredDialect(schema), options.formats ?? "annotate");
  const bound = walker.evaluate("", schema);
  const extent = collapse(bound);
  if (extent === undefined) {
    return { findings: [noValidValue("")], maxBytes: 0, maxDepth: 0 };
  }
  return {
    findings: sortFindings([...extent.bytes.causes, ...extent.depth.causes]),
    maxBytes: Number.isFinite(extent.bytes.n) ? extent.bytes.n : null,
    maxDepth: Number.isFinite(extent.depth.n) ? extent.depth.n : null,
  };
}

/** The dialect a bundled schema declares at its root; 2020-12 when it declares none (MCP's rule). */
function declaredDialect(schema: JsonSchema): Dialect {
  return (isSchemaObject(schema) ? dialectNamed(schema.$schema) : undefined) ?? "2020-12";
}
