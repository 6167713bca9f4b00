/**
 * The dialect of a schema, and keywords used in the form of another dialect.
 *
 * MCP's rule: a schema without `$schema` is JSON Schema 2020-12. A schema that names 2019-09 or draft-07 is judged by
 * that dialect. A keyword written in another dialect's form is refused rather than silently ignored: under 2020-12 an
 * `items` array (draft-07's tuple form) would otherwise validate nothing at all.
 */

import { dialectNamed } from "../schema/dialects.js";
import { isSchemaObject } from "../schema/guards.js";
import type { Dialect, JsonSchema } from "../schema/shapes.js";
import { subschemas } from "../schema/walk.js";
import { ContractError } from "./errors.js";

/** The dialect a schema declares, or 2020-12. Throws for a dialect toolgate does not support. */
export function dialectOf(schema: JsonSchema, file: string, pointer: string): Dialect {
  if (!isSchemaObject(schema) || schema.$schema === undefined) return "2020-12";
  const declared = schema.$schema;
  const dialect = dialectNamed(declared);
  if (dialect !== undefined) return dialect;
  throw new ContractError(
    file,
    `${pointer}/$schema`,
    `unsupported dialect ${JSON.stringify(declared)}: use JSON Schema 2020-12 (or declare 2019-09 or draft-07)`,
  );
}

/**
 * Keywords written in another dialect's form, as contract errors. Only forms whose meaning silently changes are
 * refused; keywords a dialect merely does not know are ignored by every validator, as the specification says.
 */
export function dialectMisuse(schema: JsonSchema, dialect: Dialect, file: string, pointer: string): ContractError[] {
  const errors: ContractError[] = [];
  for (const visit of subschemas(schema, pointer)) {
    const node = visit.schema;
    if (!isSchemaObject(node)) continue;
    if (dialect === "2020-12" && Array.isArray(node.items)) {
      errors.push(
        new ContractError(
          file,
          `${visit.pointer}/items`,
          "`items` is an array (the draft-07 tuple form), which JSON Schema 2020-12 does not allow: " +
            "write the tuple as `prefixItems` (and the rest as `items`), or declare draft-07 in `$schema`",
        ),
      );
    }
    if (dialect !== "2020-12" && node.prefixItems !== undefined) {
      errors.push(
        new ContractError(
          file,
          `${visit.pointer}/prefixItems`,
          `\`prefixItems\` is JSON Schema 2020-12, but this schema declares ${dialect}, where it means nothing: ` +
            "write the tuple as an `items` array, or declare 2020-12",
        ),
      );
    }
    if (dialect === "draft-07" && (node.$dynamicRef !== undefined || node.unevaluatedProperties !== undefined)) {
      const keyword = node.$dynamicRef !== undefined ? "$dynamicRef" : "unevaluatedProperties";
      errors.push(
        new ContractError(
          file,
          `${visit.pointer}/${keyword}`,
          `\`${keyword}\` does not exist in draft-07, so it would be ignored: declare 2020-12 in \`$schema\``,
        ),
      );
    }
  }
  return errors;
}
