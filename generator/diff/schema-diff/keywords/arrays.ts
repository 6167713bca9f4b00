/**
 * Arrays: the tuple (`prefixItems`, draft-07 `items` array) position by position, the schema of the items after it,
 * `contains`, and `unevaluatedItems`.
 */
import { acceptsAnything, appliesInPlace, type Flat, type Located, subschema, tuple } from "../flat.js";
import { type Comparison, type KeywordRule, optional } from "../rule.js";
import { compareUnevaluated } from "./unevaluated.js";

/** The schema of items after the tuple: `items`, draft-07 `additionalItems`, else `unevaluatedItems`, else `true`. */
function restItems(flat: Flat): Located {
  const items = flat.keys.get("items");
  if (items !== undefined && !Array.isArray(items.value)) return subschema(flat, "items");
  if (items !== undefined && flat.keys.has("additionalItems")) return subschema(flat, "additionalItems");
  if (items !== undefined) return { schema: true, at: `${items.at}/additionalItems` };
  if (flat.keys.has("unevaluatedItems") && !appliesInPlace(flat) && !flat.keys.has("contains"))
    return subschema(flat, "unevaluatedItems");
  return subschema(flat, "items");
}

/** Two versions of an item schema, where `false` (no item allowed) is a change of its own. */
function item(c: Comparison, was: Located, is: Located, path: string, what: string): void {
  if (was.schema === false && is.schema !== false)
    c.add({
      kind: "items-allowed",
      direction: "wider",
      summary: `${what} allowed`,
      pointer: is.at,
      before: false,
      after: is.schema,
      path,
    });
  else if (is.schema === false && was.schema !== false)
    c.add({
      kind: "items-refused",
      direction: "narrower",
      summary: `${what} refused`,
      pointer: is.at,
      before: was.schema,
      after: false,
      path,
    });
  else if (!(acceptsAnything(was.schema) && acceptsAnything(is.schema))) c.child(was, is, path);
}

/** Items: each tuple position (against the other side's rest where it has none), then the rest. */
export const items: KeywordRule = {
  keywords: ["items", "prefixItems", "additionalItems"],
  compare(c) {
    const [tb, ta] = [tuple(c.before), tuple(c.after)];
    const [rb, ra] = [restItems(c.before), restItems(c.after)];
    for (let i = 0; i < Math.max(tb.length, ta.length); i++) {
      item(c, tb[i] ?? rb, ta[i] ?? ra, `${c.path}/${i}`, `item ${i}`);
    }
    item(c, rb, ra, `${c.path}/*`, "items");
  },
};

/** `contains`, and then `unevaluatedItems` where it is not the rest of the items. */
export const contains: KeywordRule = {
  keywords: ["contains", "unevaluatedItems"],
  compare(c) {
    const { before: b, after: a } = c;
    // Under `maxContains`, more items matching `contains` may be too many: a change inside is both ways. Beside
    // `unevaluatedItems` too: Ajv (which the generated validators come from) does not count `contains: {}` as
    // evaluating the items it matches, so there a wider `contains` can refuse more.
    const counted = ["maxContains", "unevaluatedItems"].some((k) => b.keys.has(k) || a.keys.has(k));
    optional(c, "contains", `${c.path}/*`, { exclusive: counted });
    compareUnevaluated(c, "unevaluatedItems", `${c.path}/*`);
  },
};
