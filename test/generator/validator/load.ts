/**
 * Writing generated validator modules where they can import `@toolgate/runtime`, and loading them.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Dialect, JsonSchema, ResolvedSchema } from "../../../generator/schema/shapes.js";
import type { FormatMode } from "../../../generator/validator/index.js";

export { ensureBuilt as ensureRuntimeBuilt } from "../../build.js";

import { emitValidators } from "./emit-module.js";

/** The repository root. */
export const REPO_ROOT = resolve(import.meta.dirname, "../../..");
/** Inside the repository, so `@toolgate/runtime` resolves through the workspace link in `node_modules`. */
const WORK_DIR = join(REPO_ROOT, ".tmp/validator");

/** A validator as generated: returns whether the value is valid and keeps Ajv's `errors`. */
export type GeneratedValidator = ((data: unknown) => boolean) & { errors?: unknown };

/** A resolved schema for tests: no other documents unless given. */
export function resolved(root: JsonSchema, options: Partial<ResolvedSchema> = {}): ResolvedSchema {
  const dialect: Dialect = options.dialect ?? "2020-12";
  return {
    dialect,
    root,
    baseUri: "https://toolgate.test/schema.json",
    documents: {},
    bundled: root,
    pointer: "/outputSchema",
    ...options,
  };
}

/** Write module code under a name derived from its content and import it. */
export async function importModule(code: string): Promise<Record<string, GeneratedValidator>> {
  mkdirSync(WORK_DIR, { recursive: true });
  const name = `${createHash("sha256").update(code).digest("hex").slice(0, 16)}.js`;
  const path = join(WORK_DIR, name);
  writeFileSync(path, code);
  return (await import(/* @vite-ignore */ pathToFileURL(path).href)) as Record<string, GeneratedValidator>;
}

/** Generate and load one validator for a schema; throws with the refusals if the stage refuses it. */
export async function generatedValidator(
  schema: ResolvedSchema,
  formats: FormatMode = "annotate",
): Promise<GeneratedValidator> {
  const emitted = emitValidators([{ exportName: "validate", schema, formats }]);
  if ("refusals" in emitted) throw new Error(`refused: ${JSON.stringify(emitted.refusals)}`);
  const module = await importModule(emitted.code);
  return module.validate as GeneratedValidator;
}
