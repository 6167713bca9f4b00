/**
 * Type guards for parsed JSON and schemas. A contract is hostile input: every stage asks these before it reads a
 * keyword's value.
 */
import type { JsonSchema, SchemaObject } from "./shapes.js";

/** Whether a value is a schema object (not a boolean schema, not an array, not null): a JSON object. */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a value is a schema: a schema object or a boolean schema. */
export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "boolean" || isSchemaObject(value);
}
