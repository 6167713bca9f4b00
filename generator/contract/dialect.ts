/**
 * The dialect of a schema, and keywords used in the form of another dialect.
 *
 * MCP's rule: a schema without `$schema` is JSON Schema 2020-12. A schema that names 2019-09 or draft-07 is judged by
 * that dialect. A keyword written in another dialect's form is refused rather than silently ignored: under 2020-12 an
 * `items` array (draft-07's tuple form) would otherwise validate nothing at all.
 *
 * One exception is read as written: a schema without `$schema` that uses draft-07's tuple form and nothing only
 * 2019-09 or 2020-12 know. Older schema converters (zod-to-json-schema's default target among them) write exactly
 * that, and servers built on the MCP SDK v1 publish it: the SDK validates with Ajv's draft-07 class, so the server
 * and its clients read the tuple as a tuple. Such a schema is read as draft-07, with a warning that names the
 * tuple's pointer; declaring `$schema` silences it.
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

/** Keywords only 2019-09 or 2020-12 define: a schema holding one was not written for draft-07. */
const NEWER_KEYWORDS = [
  "prefixItems",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentSchemas",
  "dependentRequired",
  "$defs",
  "$anchor",
  "$vocabulary",
  "minContains",
  "maxContains",
] as const;

/** The dialect a schema is read in: {@link dialectOf}, and for an undeclared draft-07 tuple form, the warning. */
export interface ReadDialect {
  dialect: Dialect;
  /** Why a schema without `$schema` is read as draft-07: the pointer of its first tuple, and the reason. */
  warning?: { pointer: string; message: string } | undefined;
}

/**
 * The dialect a schema is read in: the one it declares, else draft-07 when it is written in draft-07's forms (an
 * `items` array, and no keyword only later dialects define), else 2020-12. Throws for a dialect toolgate does not
 * support.
 */
export function readDialect(schema: JsonSchema, file: string, pointer: string): ReadDialect {
  if (isSchemaObject(schema) && schema.$schema !== undefined) return { dialect: dialectOf(schema, file, pointer) };
  let tuple: string | undefined;
  for (const visit of subschemas(schema, pointer)) {
    const node = visit.schema;
    if (!isSchemaObject(node)) continue;
    if (NEWER_KEYWORDS.some((keyword) => Object.hasOwn(node, keyword))) return { dialect: "2020-12" };
    if (tuple === undefined && Array.isArray(node.items)) tuple = `${visit.pointer}/items`;
  }
  if (tuple === undefined) return { dialect: "2020-12" };
  return {
    dialect: "draft-07",
    warning: {
      pointer: tuple,
      message:
        "`items` is an array (the draft-07 tuple form) in a schema that declares no `$schema`: read as draft-07, " +
        "as the MCP SDK v1 validates it (MCP reads a schema without `$schema` as 2020-12, where this tuple would " +
        'check nothing); declare "$schema": "http://json-schema.org/draft-07/schema#" to say so, or write the ' +
        "tuple as `prefixItems`",
    },
  };
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
