/**
 * Keyword tables: which keywords hold subschemas, in every dialect together (for walks that must not miss one) and by
 * dialect (for the validator's index, which resolves references the way the dialect does).
 */
import type { Dialect } from "./shapes.js";

/** Keywords whose value is one subschema (2020-12, 2019-09 and draft-07 together). */
export const SINGLE = [
  "additionalItems",
  "additionalProperties",
  "contains",
  "contentSchema",
  "else",
  "if",
  "items",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;

/** Keywords whose value is an array of subschemas (`items` too, in its draft-07 tuple form). */
export const LIST = ["allOf", "anyOf", "items", "oneOf", "prefixItems"] as const;

/** Keywords whose value maps names to subschemas (`dependencies` maps to a schema or to an array of names). */
export const MAP = [
  "$defs",
  "definitions",
  "dependentSchemas",
  "patternProperties",
  "properties",
  "dependencies",
] as const;

/** Keywords whose value is one subschema, by dialect: 2019-09 has them all. */
export const SINGLE_SUBSCHEMA: Record<Dialect, readonly string[]> = {
  // `additionalItems` became `items` (with `prefixItems` for the tuple).
  "2020-12": SINGLE.filter((keyword) => keyword !== "additionalItems"),
  "2019-09": SINGLE,
  // `contentSchema` and the `unevaluated*` keywords came with 2019-09.
  "draft-07": SINGLE.filter(
    (keyword) => keyword !== "contentSchema" && keyword !== "unevaluatedItems" && keyword !== "unevaluatedProperties",
  ),
};

/** Keywords whose value is an array of subschemas, by dialect (`items` in its tuple form before 2020-12). */
export const SUBSCHEMA_LIST: Record<Dialect, readonly string[]> = {
  "2020-12": ["allOf", "anyOf", "oneOf", "prefixItems"],
  "2019-09": ["allOf", "anyOf", "oneOf", "items"],
  "draft-07": ["allOf", "anyOf", "oneOf", "items"],
};

/** Keywords whose value maps names to subschemas, by dialect (`dependencies` also maps to arrays of names). */
export const SUBSCHEMA_MAP: Record<Dialect, readonly string[]> = {
  "2020-12": ["$defs", "definitions", "dependentSchemas", "patternProperties", "properties"],
  "2019-09": ["$defs", "definitions", "dependentSchemas", "patternProperties", "properties"],
  "draft-07": ["definitions", "dependencies", "patternProperties", "properties"],
};
