/**
 * Pre-passes: small pure rules, each named by what it says, that rewrite one schema object into the 2020-12
 * vocabulary the lowering reads. Each takes a schema object and returns it unchanged or a shallow copy; none
 * mutates its input. They run on one node at a time (children are rewritten when the lowering reaches them), so
 * `#/…` pointers into the original document keep working.
 */
import type { Dialect, SchemaObject } from "../schema/shapes.js";

/** A pre-pass rule: `(schema object, dialect in effect) → schema object`. */
export type Rule = (schema: SchemaObject, dialect: Dialect) => SchemaObject;

function without(schema: SchemaObject, ...keys: string[]): SchemaObject {
  const copy: SchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!keys.includes(key))
      Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function withKey(schema: SchemaObject, key: string, value: unknown): SchemaObject {
  const copy = without(schema, key);
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** Keywords whose subschemas may evaluate properties or items of the same instance (for `unevaluated*`). */
const IN_PLACE_APPLICATORS = [
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
];

function hasInPlaceApplicator(schema: SchemaObject): boolean {
  return IN_PLACE_APPLICATORS.some((key) => Object.hasOwn(schema, key));
}

/**
 * Before 2019-09, `$ref` makes every sibling keyword ignored (draft-07 section 8.3): keep only `$ref` (and the
 * description, which is an annotation for the reader).
 * https://json-schema.org/draft-07/draft-handrews-json-schema-01#rfc.section.8.3
 */
export const refIgnoresSiblingsBefore201909: Rule = (schema, dialect) => {
  if (dialect !== "draft-07" || typeof schema.$ref !== "string") return schema;
  const kept: SchemaObject = { $ref: schema.$ref };
  if (typeof schema.description === "string") kept.description = schema.description;
  return kept;
};

/**
 * The array form of `items` is a tuple (draft-07, 2019-09): it becomes `prefixItems`, and `additionalItems`
 * becomes `items` (the rest). A 2020-12 schema that uses the old form is refused by the check stage; typing it as
 * the tuple its author meant is the useful reading. `additionalItems` without an array `items` does nothing.
 */
export const tupleItemsAsPrefixItems: Rule = (schema) => {
  if (!Array.isArray(schema.items)) {
    return Object.hasOwn(schema, "additionalItems") && !Object.hasOwn(schema, "prefixItems")
      ? without(schema, "additionalItems")
      : schema;
  }
  const copy = withKey(without(schema, "items", "additionalItems"), "prefixItems", schema.items);
  return Object.hasOwn(schema, "additionalItems") ? withKey(copy, "items", schema.additionalItems) : copy;
};

/**
 * `unevaluatedProperties` with no in-place applicator beside it sees exactly the keys that `properties` and
 * `patternProperties` did not: it acts as `additionalProperties`. With an applicator (which may evaluate more
 * keys), or when `additionalProperties` already evaluates every key, it is dropped: the object stays open, which
 * only widens.
 */
export const unevaluatedPropertiesAsAdditional: Rule = (schema) => {
  if (!Object.hasOwn(schema, "unevaluatedProperties")) return schema;
  const rest = without(schema, "unevaluatedProperties");
  if (Object.hasOwn(schema, "additionalProperties") || hasInPlaceApplicator(schema)) return rest;
  return withKey(rest, "additionalProperties", schema.unevaluatedProperties);
};

/**
 * `unevaluatedItems` with no in-place applicator (nor `contains`, which evaluates the items it matches) beside
 * it sees exactly the items `prefixItems` did not: it acts as `items`. Otherwise it is dropped (widens).
 */
export const unevaluatedItemsAsItems: Rule = (schema) => {
  if (!Object.hasOwn(schema, "unevaluatedItems")) return schema;
  const rest = without(schema, "unevaluatedItems");
  if (Object.hasOwn(schema, "items") || Object.hasOwn(schema, "contains") || hasInPlaceApplicator(schema)) {
    return rest;
  }
  return withKey(rest, "items", schema.unevaluatedItems);
};

/** The rules, in the order they apply. */
export const RULES: readonly Rule[] = [
  refIgnoresSiblingsBefore201909,
  tupleItemsAsPrefixItems,
  unevaluatedPropertiesAsAdditional,
  unevaluatedItemsAsItems,
];

/** One schema object in the vocabulary the lowering reads. */
export function normalizeSchema(schema: SchemaObject, dialect: Dialect): SchemaObject {
  return RULES.reduce((current, rule) => rule(current, dialect), schema);
}
