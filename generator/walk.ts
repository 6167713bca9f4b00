/**
 * Iterating over every subschema of a schema, with its JSON pointer.
 *
 * Iterative, never recursive: a hostile contract may nest deeper than the call stack allows.
 */
import { escapePointerToken } from "./errors.js";
import type { JsonSchema, SchemaObject } from "./schema.js";

/** Keywords whose value is one subschema (2020-12, 2019-09 and draft-07 together). */
const SINGLE = [
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
const LIST = ["allOf", "anyOf", "items", "oneOf", "prefixItems"] as const;

/** Keywords whose value maps names to subschemas (`dependencies` maps to a schema or to an array of names). */
const MAP = ["$defs", "definitions", "dependentSchemas", "patternProperties", "properties", "dependencies"] as const;

/** One subschema met by {@link subschemas}. */
export interface Visit {
  schema: JsonSchema;
  /** JSON pointer from the schema the walk started at. */
  pointer: string;
  /** The object holding this subschema and the keyword it sits under ("" for the start). */
  keyword: string;
  /** Number of schema levels above this one. */
  depth: number;
}

/** Whether a value is a schema object (not a boolean schema, not an array). */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The direct subschemas of one schema object, with the pointer tokens that lead to each. */
export function* children(schema: SchemaObject): Generator<{ tokens: string[]; keyword: string; schema: JsonSchema }> {
  for (const keyword of SINGLE) {
    const value = schema[keyword];
    if (isSchemaObject(value) || typeof value === "boolean") yield { tokens: [keyword], keyword, schema: value };
  }
  for (const keyword of LIST) {
    const value = schema[keyword];
    if (!Array.isArray(value)) continue;
    for (const [i, item] of value.entries()) {
      if (isSchemaObject(item) || typeof item === "boolean")
        yield { tokens: [keyword, String(i)], keyword, schema: item };
    }
  }
  for (const keyword of MAP) {
    const value = schema[keyword];
    if (!isSchemaObject(value)) continue;
    for (const name of Object.keys(value)) {
      const item = value[name];
      if (isSchemaObject(item) || typeof item === "boolean") yield { tokens: [keyword, name], keyword, schema: item };
    }
  }
}

/** Every subschema of `root`, the root first, depth-first in document order. */
export function* subschemas(root: JsonSchema, pointer = ""): Generator<Visit> {
  const stack: Visit[] = [{ schema: root, pointer, keyword: "", depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    yield visit;
    if (!isSchemaObject(visit.schema)) continue;
    const next = [...children(visit.schema)].map((child) => ({
      schema: child.schema,
      pointer: visit.pointer + child.tokens.map((t) => `/${escapePointerToken(t)}`).join(""),
      keyword: child.keyword,
      depth: visit.depth + 1,
    }));
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i] as Visit);
  }
}

/** The value at a JSON pointer inside `document`, or `undefined` when nothing is there. */
export function valueAt(document: unknown, pointer: string): unknown {
  if (pointer === "") return document;
  if (!pointer.startsWith("/")) return undefined;
  let node = document;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isSchemaObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/** A JSON pointer written in a URI fragment is percent-encoded (RFC 6901 section 6); a bad escape is taken literally. */
export function fragmentToPointer(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
