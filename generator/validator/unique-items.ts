/**
 * The `uniqueItems` keyword (2020-12 validation, section 6.4.3), compiled without Ajv's shortcuts.
 *
 * When `items` declares scalar types, Ajv checks uniqueness through a plain object keyed by item and skips items of
 * another type. Both shortcuts give wrong verdicts: two `"__proto__"` strings never collide in a plain object, and in
 * 2020-12 `items` does not cover the items `prefixItems` takes, so duplicates there go unseen. This definition keys
 * scalars in a `Map` (no prototype, no skipped types), and objects and arrays in another by their canonical text
 * (`jsonKey`: keys sorted, numbers by value), so the check is linear in the array instead of comparing every pair.
 */
import type { CodeKeywordDefinition, KeywordCxt } from "ajv";
import { _, str } from "ajv";
import { useFunc } from "ajv/dist/compile/util.js";
import { jsonKey } from "../../runtime/validators.js";

/**
 * The run-time `jsonKey` as Ajv's code generator takes a helper: the function, for validators compiled in process,
 * and the `require` the module rewrite maps onto `toolgate/runtime/validators` (see `esm-module.ts`).
 */
const jsonKeyFunc = Object.assign((value: unknown, identities: Map<unknown, number>) => jsonKey(value, identities), {
  code: 'require("toolgate/runtime/validators").jsonKey',
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
    const keyOf = useFunc(gen, jsonKeyFunc);
    const valid = gen.let("valid", true);
    const i = gen.let("i", _`${data}.length`);
    const j = gen.let("j");
    cxt.setParams({ i, j });
    // Scalars by value, objects and arrays by their canonical text: each item is looked at once, so the check is
    // linear in the array's size whatever its items hold.
    const scalars = gen.const("scalars", _`new Map()`);
    const composites = gen.const("composites", _`new Map()`);
    const identities = gen.const("identities", _`new Map()`);
    const item = gen.let("item");
    const seen = gen.let("seen");
    const outer = gen.name("outer");
    gen.label(outer).for(_`;${i}--;`, () => {
      gen.assign(item, _`${data}[${i}]`);
      // Map keys compare numbers by value (0 and -0 alike), as JSON Schema compares instances.
      gen.if(
        _`${item} === null || typeof ${item} != "object"`,
        () => gen.assign(seen, scalars),
        () => gen.assign(seen, composites).assign(item, _`${keyOf}(${item}, ${identities})`),
      );
      // One lookup per item: `get` answers both whether the item was seen and where (indexes are never undefined).
      gen.assign(j, _`${seen}.get(${item})`);
      gen.if(_`${j} !== undefined`, () => gen.assign(valid, false).break(outer));
      gen.code(_`${seen}.set(${item}, ${i})`);
    });
    cxt.pass(valid);
  },
};
