/**
 * How the check stage reads a bundled schema: located schemas, the keywords of each JSON type, and the small
 * questions the walker asks of one schema object (which types it admits, its tuple, its pattern properties, where
 * a `#/…` reference leads). Pure functions of the schema; none of them bounds anything.
 */

import { isSchema, isSchemaObject } from "../schema/guards.js";
import { pointerOf, pointerTokens } from "../schema/pointer.js";
import type { JsonSchema, SchemaObject } from "../schema/shapes.js";
import { valueAt } from "../schema/walk.js";
import type { JsonType } from "./size.js";

/** A schema object that applies at some pointer. */
export interface Located {
  pointer: string;
  node: SchemaObject;
}

/** A located schema of either form. */
export interface LocatedSchema {
  pointer: string;
  node: JsonSchema;
}

/** Keywords that constrain strings, arrays and objects: a schema object with none of them (and no type) is open. */
const STRING_KEYWORDS = ["maxLength", "minLength", "pattern", "format", "contentEncoding", "contentMediaType"];
const ARRAY_KEYWORDS = [
  "items",
  "prefixItems",
  "additionalItems",
  "maxItems",
  "minItems",
  "uniqueItems",
  "contains",
  "unevaluatedItems",
];
const OBJECT_KEYWORDS = [
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "required",
  "maxProperties",
  "minProperties",
  "propertyNames",
  "dependentRequired",
];
const KEYWORDS_BY_TYPE: Partial<Record<JsonType, string[]>> = {
  string: STRING_KEYWORDS,
  array: ARRAY_KEYWORDS,
  object: OBJECT_KEYWORDS,
};

/** Whether a value is a count a keyword such as `maxItems` may hold: a non-negative integer. */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Whether the schema at `outer` contains the one at `inner` (pointer prefix by whole reference tokens). */
export function containsPointer(outer: string, inner: string): boolean {
  return outer === "" || inner === outer || inner.startsWith(`${outer}/`);
}

/** Whether the `type` keyword admits the JSON type (`integer` values are numbers). */
export function typeAdmits(type: unknown, t: JsonType): boolean {
  if (type === undefined) return true;
  const names = Array.isArray(type) ? type : [type];
  return names.some((name) => name === t || (t === "number" && name === "integer"));
}

/** Whether a schema object says anything about which values are valid beyond annotations. */
export function constrainsAnything(node: SchemaObject): boolean {
  if (node.type !== undefined || node.enum !== undefined || Object.hasOwn(node, "const")) return true;
  return [...STRING_KEYWORDS, ...ARRAY_KEYWORDS, ...OBJECT_KEYWORDS].some((k) => node[k] !== undefined);
}

/** The conjunct where a fix for type `t` belongs: the first that names the type, else the first with its keywords. */
export function anchorFor(t: JsonType, conjuncts: Located[]): Located | undefined {
  const keywords = KEYWORDS_BY_TYPE[t] ?? [];
  return (
    conjuncts.find((c) => c.node.type !== undefined && typeAdmits(c.node.type, t)) ??
    conjuncts.find((c) => keywords.some((k) => c.node[k] !== undefined)) ??
    conjuncts[0]
  );
}

/** The tuple part of an array schema: `prefixItems` (2019-09 on) or array-form `items` (draft-07, 2019-09). */
export function tupleOf(node: SchemaObject): { keyword: "prefixItems" | "items"; list: unknown[] } | undefined {
  if (Array.isArray(node.prefixItems)) return { keyword: "prefixItems", list: node.prefixItems };
  if (Array.isArray(node.items)) return { keyword: "items", list: node.items };
  return undefined;
}

/** Whether `unevaluatedProperties: false` closes the object (no `additionalProperties` beside it takes over). */
export function closesByUnevaluated(node: SchemaObject): boolean {
  return node.unevaluatedProperties === false && node.additionalProperties === undefined;
}

/** The `patternProperties` of a schema, each pattern with its located subschema, in document order. */
export function patternEntries(c: LocatedSchema): Array<{ pattern: string; schema: LocatedSchema }> {
  if (!isSchemaObject(c.node) || !isSchemaObject(c.node.patternProperties)) return [];
  const out: Array<{ pattern: string; schema: LocatedSchema }> = [];
  for (const [pattern, sub] of Object.entries(c.node.patternProperties)) {
    if (isSchema(sub))
      out.push({ pattern, schema: { pointer: pointerOf(c.pointer, "patternProperties", pattern), node: sub } });
  }
  return out;
}

/** Resolve a `#/…` JSON-pointer reference (RFC 6901, percent-decoded as a URI fragment) inside the schema. */
export function resolvePointer(root: JsonSchema, ref: string): LocatedSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  const node = valueAt(root, fragment);
  if (!isSchema(node)) return undefined;
  // Memo keys are canonical pointers: re-escape what the fragment decoded.
  return { pointer: pointerOf("", ...(pointerTokens(fragment) ?? [])), node };
}
