/**
 * The input argument that bounds how many items a call returns, so an `oversize` failure can tell the model what
 * to narrow (`<narrow>{"path":"/hits","items":400,"argument":"limit"}</narrow>`): a top-level property of the input
 * schema with one of the usual names of a page size and a numeric type. Read from the bundled schema, following
 * a top-level `$ref` once; absent when the input has none.
 */
import type { ResolvedSchema, SchemaObject } from "../schema/shapes.js";

/** Names of a page size, in the order a tie is decided (the first the schema has wins). */
const PAGE_SIZE_NAMES = [
  "limit",
  "pageSize",
  "page_size",
  "perPage",
  "per_page",
  "maxResults",
  "max_results",
  "maxItems",
  "max_items",
  "top",
  "first",
  "count",
  "size",
];

function objectAt(root: SchemaObject, ref: unknown): SchemaObject | undefined {
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === "object" && !Array.isArray(node) ? (node as SchemaObject) : undefined;
}

function isNumeric(schema: unknown, root: SchemaObject): boolean {
  const node = schema !== null && typeof schema === "object" && "$ref" in schema ? objectAt(root, schema.$ref) : schema;
  if (node === null || typeof node !== "object") return false;
  const type = (node as SchemaObject).type;
  const types = Array.isArray(type) ? type : [type];
  return types.includes("integer") || types.includes("number");
}

/** The input's page-size argument, or `undefined`. */
export function pageArgumentOf(input: ResolvedSchema | undefined): string | undefined {
  const root = input?.bundled;
  if (root === undefined || typeof root !== "object") return undefined;
  const top = "$ref" in root ? (objectAt(root, root.$ref) ?? root) : root;
  const properties = top.properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return undefined;
  return PAGE_SIZE_NAMES.find(
    (name) => Object.hasOwn(properties, name) && isNumeric((properties as Record<string, unknown>)[name], root),
  );
}
