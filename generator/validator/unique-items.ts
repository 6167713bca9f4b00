/**
 * The `uniqueItems` keyword (2020-12 validation, section 6.4.3), compiled without Ajv's shortcuts.
 *
 * When `items` declares scalar types, Ajv checks uniqueness through a plain object keyed by item and skips items of
 * another type. Both shortcuts give wrong verdicts: two `"__proto__"` strings never collide in a plain object, and in
 * 2020-12 `items` does not cover the items `prefixItems` takes, so duplicates there go unseen. This definition keys
 * scalars in a `Map` (no prototype, no skipped types) and compares objects and arrays by deep equality.
 */
import type { CodeKeywordDefinition, KeywordCxt } from "ajv";
import { _, str } from "ajv";
import { useFunc } from "ajv/dist/compile/util.js";
import equalModule from "ajv/dist/runtime/equal.js";

/**
 * Ajv's run-time `equal` (its `code` names the module the rewrite maps to `jsonEqual`). The module is CommonJS with
 * only `exports.default`: Node's ESM import puts it under `.default`, bundlers' interop hands it over directly.
 */
const equal = ((equalModule as unknown as { default?: unknown }).default ?? equalModule) as Parameters<
  typeof useFunc
>[1];

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
    const deepEqual = useFunc(gen, equal);
    const valid = gen.let("valid", true);
    const i = gen.let("i", _`${data}.length`);
    const j = gen.let("j");
    cxt.setParams({ i, j });
    const scalars = gen.const("scalars", _`new Map()`);
    const item = gen.let("item");
    const outer = gen.name("outer");
    gen.label(outer).for(_`;${i}--;`, () => {
      gen.assign(item, _`${data}[${i}]`);
      gen.if(
        _`${item} === null || typeof ${item} != "object"`,
        () => {
          // Map keys compare numbers by value (0 and -0 alike), as JSON Schema compares instances.
          gen.if(
            _`${scalars}.has(${item})`,
            () => {
              gen.assign(j, _`${scalars}.get(${item})`);
              gen.assign(valid, false).break(outer);
            },
            () => gen.code(_`${scalars}.set(${item}, ${i})`),
          );
        },
        () => {
          gen.for(_`${j} = ${data}.length; --${j} > ${i};`, () =>
            gen.if(_`${deepEqual}(${item}, ${data}[${j}])`, () => gen.assign(valid, false).break(outer)),
          );
        },
      );
    });
    cxt.pass(valid);
  },
};
