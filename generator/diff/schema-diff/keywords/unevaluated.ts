/**
 * `unevaluatedProperties`/`unevaluatedItems`, and what a schema evaluates for them: the one pair of keywords whose
 * meaning depends on the subschemas around it.
 */
import { compareText } from "../../../contract/load.js";
import { isSchemaObject } from "../../../schema/guards.js";
import type { SchemaObject } from "../../../schema/shapes.js";
import { acceptsAnything, appliesInPlace, canonical, type Flat, type Located, subschema, tuple } from "../flat.js";
import type { Comparison, KeywordRule } from "../rule.js";

/**
 * Under an enclosing `unevaluatedProperties`/`unevaluatedItems`, which properties and items a schema evaluates is
 * part of its meaning: `additionalProperties`, `patternProperties`, `items`, `prefixItems` and `contains` appearing
 * or going away change what the enclosing keyword judges, which may accept or refuse more.
 */
export const evaluation: KeywordRule = {
  keywords: [],
  compare({ before: b, after: a, unevaluated, add }) {
    if (!unevaluated) return;
    const evaluates = (flat: Flat) =>
      canonical({
        additionalProperties: flat.keys.has("additionalProperties"),
        patternProperties: isSchemaObject(flat.keys.get("patternProperties")?.value)
          ? Object.keys(flat.keys.get("patternProperties")?.value as SchemaObject).sort(compareText)
          : [],
        items: flat.keys.has("items"),
        prefixItems: tuple(flat).length,
        contains: flat.keys.has("contains"),
      });
    if (evaluates(b) !== evaluates(a)) {
      add({
        kind: "evaluation-changed",
        direction: "different",
        summary: "what an enclosing unevaluated keyword sees changed",
      });
    }
  },
};

/**
 * `unevaluatedProperties`/`unevaluatedItems` where it is not already compared as the additional schema: beside
 * in-place applicators it refuses what none of them evaluated. Where everything is evaluated anyway (an
 * `additionalProperties`, an `items`) it has no effect, and counts as absent.
 */
export function compareUnevaluated(
  c: Comparison,
  keyword: "unevaluatedProperties" | "unevaluatedItems",
  path: string,
): void {
  const effective = (flat: Flat): Located => {
    const moot =
      keyword === "unevaluatedProperties"
        ? flat.keys.has("additionalProperties") || !appliesInPlace(flat)
        : (flat.keys.has("items") && !Array.isArray(flat.keys.get("items")?.value)) ||
          flat.keys.has("additionalItems") ||
          !(appliesInPlace(flat) || flat.keys.has("contains"));
    return moot ? { schema: true, at: `${flat.at}/${keyword}` } : subschema(flat, keyword);
  };
  const [eb, ea] = [effective(c.before), effective(c.after)];
  if (eb.schema === false && ea.schema !== false)
    c.add({
      kind: `${keyword}-opened`,
      direction: "wider",
      summary: `${keyword} no longer refuses what is not evaluated`,
      pointer: ea.at,
      before: false,
      after: ea.schema,
    });
  else if (ea.schema === false && eb.schema !== false)
    c.add({
      kind: `${keyword}-closed`,
      direction: "narrower",
      summary: `${keyword} refuses what is not evaluated`,
      pointer: ea.at,
      before: eb.schema,
      after: false,
    });
  else if (eb.schema !== false && !(acceptsAnything(eb.schema) && acceptsAnything(ea.schema))) c.child(eb, ea, path);
}
