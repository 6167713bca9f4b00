/**
 * A schema as the comparison reads it: one set of keywords, with what its `$ref` points at and the branches of its
 * `allOf` merged in, so a definition moved behind a `$ref`, keys reordered or a file reformatted is no change at all.
 * A part whose keyword clashes with one already merged (or whose scoped keyword would then see other declarations)
 * stays apart, to be compared as an `allOf` branch of its own.
 */

import { isSchemaObject } from "../../schema/guards.js";
import { escapePointerToken, fragmentToPointer } from "../../schema/pointer.js";
import type { JsonSchema, SchemaObject } from "../../schema/shapes.js";
import { valueAt } from "../../schema/walk.js";
import { ANNOTATIONS, canonical, covers, type Flat, type Located, STRUCTURAL, typeSet } from "./flat.js";

/** Schema objects merged into one flat at the most: a longer chain of `$ref`s and `allOf`s is left as it is. */
const MAX_PARTS = 256;
/** Nullable forms folded inside one another at the most. */
const MAX_NULLABLE_DEPTH = 16;

/**
 * Merge a schema with what its `$ref` points at and its `allOf` branches, as one conjunction of keywords. A part
 * whose keyword clashes with one already merged stays apart in `rest`.
 */
export function flatten(start: Located, root: JsonSchema, depth = 0): Flat {
  const flat: Flat = {
    at: start.at,
    identity: "",
    never: false,
    keys: new Map(),
    properties: new Map(),
    required: new Map(),
    rest: [],
  };
  const identity: string[] = [];
  const seen = new Set<string>();
  const queue: Located[] = [start];
  let first = true;
  while (queue.length > 0 && seen.size < MAX_PARTS) {
    const part = queue.shift() as Located;
    if (seen.has(part.at)) continue;
    seen.add(part.at);
    const schema = part.schema;
    if (schema === false) {
      flat.never = true;
      continue;
    }
    if (!isSchemaObject(schema)) continue;
    if (!first && clashes(schema, flat)) {
      flat.rest.push(part);
      continue;
    }
    first = false;
    if (mergePart(flat, { schema, at: part.at }, root, queue)) identity.push(part.at);
  }
  if (depth < MAX_NULLABLE_DEPTH) mergeNullable(flat, root, depth, identity);
  flat.identity = identity.length === 0 ? start.at : identity.join("\u0000");
  if (identity.length > 0 && identity[0] !== start.at) flat.at = identity[0] as string;
  return flat;
}

/**
 * Merge one schema object's keywords into the flat, queueing its `$ref` target and `allOf` branches. Returns whether
 * the part constrains anything (a part of descriptions only is not part of the schema's identity).
 */
function mergePart(
  flat: Flat,
  part: { schema: SchemaObject; at: string },
  root: JsonSchema,
  queue: Located[],
): boolean {
  let constrains = false;
  for (const [keyword, value] of Object.entries(part.schema)) {
    if (keyword === "$ref" && typeof value === "string" && value.startsWith("#")) {
      const pointer = fragmentToPointer(value.slice(1));
      const target = valueAt(root, pointer);
      if (isSchemaObject(target) || typeof target === "boolean") {
        queue.push({ schema: target, at: pointer });
        continue;
      }
    }
    if (STRUCTURAL.has(keyword)) continue;
    if (!ANNOTATIONS.has(keyword)) constrains = true;
    if (keyword === "allOf" && Array.isArray(value)) {
      value.forEach((branch, i) => {
        queue.push({ schema: branch as JsonSchema, at: `${part.at}/allOf/${i}` });
      });
    } else if (keyword === "properties" && isSchemaObject(value)) {
      for (const [name, property] of Object.entries(value)) {
        flat.properties.set(name, {
          schema: property as JsonSchema,
          at: `${part.at}/properties/${escapePointerToken(name)}`,
        });
      }
    } else if (keyword === "required" && Array.isArray(value)) {
      for (const name of value)
        if (typeof name === "string" && !flat.required.has(name)) flat.required.set(name, part.at);
    } else if (!flat.keys.has(keyword)) {
      flat.keys.set(keyword, { value, at: part.at });
    }
  }
  return constrains;
}

/**
 * Read the nullable form `anyOf: [S, {type: "null"}]` (what zod and many MCP servers write) as S with `"null"` added
 * to its `type`, the form `type: [T, "null"]` takes: moving from one form to the other is no change. Only when the
 * result is the same set of values: S names its types, does not allow null itself and lists no `enum`/`const`, and
 * nothing else beside the `anyOf` constrains.
 */
function mergeNullable(flat: Flat, root: JsonSchema, depth: number, identity: string[]): void {
  const keyword = flat.keys.has("anyOf") ? "anyOf" : "oneOf";
  const found = flat.keys.get(keyword);
  if (found === undefined || !Array.isArray(found.value) || found.value.length !== 2) return;
  const constraining = [...flat.keys.keys()].filter((k) => !ANNOTATIONS.has(k));
  if (
    constraining.length !== 1 ||
    flat.properties.size > 0 ||
    flat.required.size > 0 ||
    flat.rest.length > 0 ||
    flat.never
  )
    return;
  const isNull = (branch: unknown) =>
    isSchemaObject(branch) &&
    branch.type === "null" &&
    Object.keys(branch).every((k) => k === "type" || ANNOTATIONS.has(k));
  const nullAt = found.value.findIndex(isNull);
  if (nullAt < 0) return;
  const other = { schema: found.value[1 - nullAt] as JsonSchema, at: `${found.at}/${keyword}/${1 - nullAt}` };
  const inner = flatten(other, root, depth + 1);
  const types = typeSet(inner);
  if (inner.never || types === undefined || covers(types, "null") || inner.keys.has("enum") || inner.keys.has("const"))
    return;
  const typeAt = inner.keys.get("type")?.at ?? other.at;
  flat.keys.delete(keyword);
  for (const [k, v] of inner.keys) if (!flat.keys.has(k)) flat.keys.set(k, v);
  flat.keys.set("type", { value: [...types, "null"], at: typeAt });
  for (const [name, property] of inner.properties) flat.properties.set(name, property);
  for (const [name, at] of inner.required) flat.required.set(name, at);
  flat.rest.push(...inner.rest);
  identity.push(inner.identity);
}

/** Whether a schema object has a keyword that the merged conjunction already holds with another value. */
function clashes(schema: SchemaObject, flat: Flat): boolean {
  if (scopesClash(schema, flat)) return true;
  for (const [keyword, value] of Object.entries(schema)) {
    if (
      keyword === "$ref" ||
      keyword === "allOf" ||
      keyword === "required" ||
      STRUCTURAL.has(keyword) ||
      ANNOTATIONS.has(keyword)
    ) {
      continue;
    }
    if (keyword === "properties" && isSchemaObject(value)) {
      for (const [name, property] of Object.entries(value)) {
        const known = flat.properties.get(name);
        if (known !== undefined && canonical(known.schema) !== canonical(property)) return true;
      }
      continue;
    }
    const known = flat.keys.get(keyword);
    if (known !== undefined && canonical(known.value) !== canonical(value)) return true;
  }
  return false;
}

/**
 * Whether merging would change what a scoped keyword sees. `additionalProperties` and `items` see only the
 * `properties`, `patternProperties` and `prefixItems` beside them; `unevaluatedProperties`/`unevaluatedItems` see
 * those of their own schema and its in-place applicators, but not of the schema around it. So a part is kept apart
 * when its scoped keyword would see the merged schema's declarations, or the merged schema's would see the part's.
 * (The merged schema's own `unevaluated*` may see the part's declarations: the part is one of its applicators.)
 */
function scopesClash(part: SchemaObject, flat: Flat): boolean {
  const has = (keyword: string) => flat.keys.has(keyword);
  const declaresProperties = (node: SchemaObject) =>
    node.properties !== undefined || node.patternProperties !== undefined;
  const flatProperties = flat.properties.size > 0 || has("patternProperties");
  const flatTuple = has("prefixItems") || Array.isArray(flat.keys.get("items")?.value);
  const partTuple = part.prefixItems !== undefined || Array.isArray(part.items);
  if (part.additionalProperties !== undefined && (flatProperties || has("additionalProperties"))) return true;
  if (has("additionalProperties") && declaresProperties(part)) return true;
  if (
    part.unevaluatedProperties !== undefined &&
    (flatProperties || has("additionalProperties") || has("unevaluatedProperties"))
  ) {
    return true;
  }
  const partRest = part.additionalItems !== undefined || (part.items !== undefined && !Array.isArray(part.items));
  const flatRest = has("additionalItems") || (has("items") && !Array.isArray(flat.keys.get("items")?.value));
  if (partRest && (flatTuple || flatRest)) return true;
  if (flatRest && partTuple) return true;
  if (part.unevaluatedItems !== undefined && (flatTuple || flatRest || has("unevaluatedItems") || has("contains")))
    return true;
  return false;
}
