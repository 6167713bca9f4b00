/**
 * A flattened schema (see `flatten.ts`) and what it says: its types, the values its `enum`/`const` allow, its tuple,
 * the subschema behind a keyword, whether it accepts anything. Every keyword rule asks these.
 */

import { isSchemaObject } from "../../schema/guards.js";
import { canonicalJson } from "../../schema/json.js";
import type { JsonSchema } from "../../schema/shapes.js";

/** A subschema and its JSON pointer in its bundled schema. */
export interface Located {
  schema: JsonSchema;
  at: string;
}

/** A keyword's value and the schema object it came from. */
export interface Keyword {
  value: unknown;
  at: string;
}

/** One schema with its `$ref` targets and mergeable `allOf` branches folded in. */
export interface Flat {
  /** Where the schema is. */
  at: string;
  /** Which schema objects were merged: two flats with the same identity are the same schema. */
  identity: string;
  /** A `false` schema is part of the conjunction: nothing is accepted. */
  never: boolean;
  keys: Map<string, Keyword>;
  properties: Map<string, Located>;
  /** Required names and the schema object that requires each. */
  required: Map<string, string>;
  /** `allOf` branches and `$ref` targets that could not be merged (a keyword in both with different values). */
  rest: Located[];
}

/** Canonical JSON text at any depth (iterative): two values are the same JSON exactly when their texts are. */
export function canonical(value: unknown): string {
  return canonicalJson(value, Number.POSITIVE_INFINITY);
}

/** Keywords that only describe: they change no validation result. */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/** Keywords that organise a schema rather than constrain values; definitions are compared where a `$ref` uses them. */
export const STRUCTURAL: ReadonlySet<string> = new Set([
  "$id",
  "$schema",
  "$anchor",
  "$dynamicAnchor",
  "$defs",
  "definitions",
  "$vocabulary",
]);

/** Every JSON Schema type, in the order changes list them. */
export const JSON_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];

/** The types a schema's `type` names, or undefined when it has none. */
export function typeSet(flat: Flat): Set<string> | undefined {
  const declared = flat.keys.get("type")?.value;
  if (typeof declared === "string") return new Set([declared]);
  if (Array.isArray(declared)) return new Set(declared.filter((t): t is string => typeof t === "string"));
  return undefined;
}

/** Whether a type set accepts every value of type `t` (every integer is a number). */
export function covers(types: Set<string> | undefined, t: string): boolean {
  return types === undefined || types.has(t) || (t === "integer" && types.has("number"));
}

/** The values `enum`/`const` allow, by canonical text, or undefined when neither keyword is there. */
export function valueSet(flat: Flat): Map<string, unknown> | undefined {
  const constant = flat.keys.get("const");
  const listed = flat.keys.get("enum");
  let values: Map<string, unknown> | undefined;
  if (listed !== undefined && Array.isArray(listed.value)) values = new Map(listed.value.map((v) => [canonical(v), v]));
  if (constant !== undefined) {
    const text = canonical(constant.value);
    values = values === undefined || values.has(text) ? new Map([[text, constant.value]]) : new Map();
  }
  // A listed value of a type the schema does not allow is never accepted: `type` and `enum` both apply.
  const types = typeSet(flat);
  if (values !== undefined && types !== undefined) {
    values = new Map([...values].filter(([, value]) => covers(types, valueType(value))));
  }
  return values;
}

/** The JSON Schema type of a JSON value; a whole number is an `integer` (which every `number` type covers). */
function valueType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether a schema accepts every value: `true`, or an object with nothing but descriptions in it. */
export function acceptsAnything(schema: JsonSchema): boolean {
  if (schema === true) return true;
  if (!isSchemaObject(schema)) return false;
  return Object.keys(schema).every((keyword) => ANNOTATIONS.has(keyword) || STRUCTURAL.has(keyword));
}

/** A keyword's value as a located subschema, or `fallback` where the keyword is absent. */
export function subschema(flat: Flat, keyword: string, fallback: JsonSchema = true): Located {
  const found = flat.keys.get(keyword);
  return found === undefined
    ? { schema: fallback, at: `${flat.at}/${keyword}` }
    : { schema: found.value as JsonSchema, at: `${found.at}/${keyword}` };
}

/** The tuple part of an array schema: `prefixItems`, or draft-07's `items` array. */
export function tuple(flat: Flat): Located[] {
  const prefix =
    flat.keys.get("prefixItems") ?? (Array.isArray(flat.keys.get("items")?.value) ? flat.keys.get("items") : undefined);
  if (prefix === undefined || !Array.isArray(prefix.value)) return [];
  const keyword = flat.keys.get("prefixItems") === prefix ? "prefixItems" : "items";
  return prefix.value.map((schema, i) => ({ schema: schema as JsonSchema, at: `${prefix.at}/${keyword}/${i}` }));
}

/**
 * Whether other subschemas apply at this same location (branches, conditionals, dependent schemas): then what
 * they declare counts as evaluated, and `unevaluated*` no longer means the same as `additionalProperties`/`items`.
 */
export function appliesInPlace(flat: Flat): boolean {
  return (
    flat.rest.length > 0 ||
    ["anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"].some((k) => flat.keys.has(k))
  );
}

/** Whether a schema constrains what its in-place applicators did not evaluate. */
export function hasUnevaluated(flat: Flat): boolean {
  return ["unevaluatedProperties", "unevaluatedItems"].some((k) => {
    const found = flat.keys.get(k);
    return found !== undefined && !acceptsAnything(found.value as JsonSchema);
  });
}
