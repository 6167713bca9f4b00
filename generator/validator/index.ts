/**
 * The validator stage: each contract schema becomes a precompiled standalone Ajv validator, emitted as real ESM
 * that needs no schema compilation, no `eval` and no `require` at run time.
 *
 * `compileValidators` either returns each validator's code, for `assembleModule`, or refuses: a schema using a feature Ajv validates wrongly
 * (see `unsupported.ts`), or one Ajv cannot compile, yields refusals naming the keyword and its pointer. Refusals
 * are judged on the schema as written; what Ajv compiles has nullable `anyOf` pairs folded into a nullable `type`
 * where that keeps every verdict (see `nullable-fold.ts`), and large nested objects and arrays compiled into functions
 * of their own, so that a first call compiles only the levels it reaches (see `split.ts`).
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import { pointerOf } from "../schema/pointer.js";
import type { ResolvedSchema } from "../schema/shapes.js";
import { compilerFor, type FormatMode } from "./compiler.js";
import { assertExportName, exportedAs, type StandaloneValidator } from "./esm-module.js";
import { foldNullable } from "./nullable-fold.js";
import { exponentialRecursion } from "./recursion-cost.js";
import { SchemaIndex } from "./schema-index.js";
import { registerParts, splitNested } from "./split.js";
import { stableUris } from "./stable-uris.js";
import { findUnsupportedFeatures, unassertableFormats } from "./unsupported.js";

export type { FormatMode } from "./compiler.js";
export { assembleModule, type StandaloneValidator } from "./esm-module.js";

/** One validator to generate. */
export interface ValidatorRequest {
  /** Export name in the module, e.g. "validateResult" / "validateInput". */
  exportName: string;
  /** The schema with everything it references loaded. */
  schema: ResolvedSchema;
  /** Whether `format` only annotates (the 2020-12 default) or is asserted. */
  formats: FormatMode;
}

/** Why the generator will not emit a validator for a schema, and where. */
export interface Refusal {
  /** JSON pointer inside the contract file: the schema's pointer plus the pointer inside the schema. */
  pointer: string;
  reason: string;
}

/**
 * Each requested validator's standalone code, ready for `assembleModule`; or the reasons the generator must refuse.
 * A schema compiled before (the same object, the same format mode) is not compiled again: the catalog's module of
 * result validators reuses what each tool's module compiled.
 */
export function compileValidators(
  requests: readonly ValidatorRequest[],
): { validators: StandaloneValidator[] } | { refusals: Refusal[] } {
  const names = new Set<string>();
  for (const { exportName } of requests) {
    assertExportName(exportName);
    if (names.has(exportName)) throw new TypeError(`two validators are named ${exportName}`);
    names.add(exportName);
  }
  const refusals: Refusal[] = [];
  const validators: StandaloneValidator[] = [];
  for (const request of requests) {
    const compiled = compiledBefore(request);
    if ("refusals" in compiled) refusals.push(...compiled.refusals);
    else validators.push(exportedAs(compiled, request.exportName));
  }
  if (refusals.length > 0) return { refusals };
  return { validators };
}

/** What each schema compiled to, by format mode; weak, so a generator run keeps it only as long as its models. */
const compiledSchemas = new WeakMap<ResolvedSchema, Map<FormatMode, StandaloneValidator | { refusals: Refusal[] }>>();

function compiledBefore(request: ValidatorRequest): StandaloneValidator | { refusals: Refusal[] } {
  const byMode = compiledSchemas.get(request.schema) ?? new Map();
  compiledSchemas.set(request.schema, byMode);
  const known = byMode.get(request.formats);
  if (known !== undefined) return known;
  const compiled = compileValidator(request);
  byMode.set(request.formats, compiled);
  return compiled;
}

/** Standalone code for one request, or why it is refused. */
function compileValidator(request: ValidatorRequest): StandaloneValidator | { refusals: Refusal[] } {
  const schema = stableUris(request.schema);
  const index = new SchemaIndex(schema);
  const refusals = [
    ...findUnsupportedFeatures(index),
    ...(request.formats === "assert" ? unassertableFormats(index) : []),
    ...exponentialRecursion(index),
  ].map(
    ({ node, tokens, reason }): Refusal =>
      node.document === index.root.document
        ? { pointer: pointerOf(schema.pointer + node.pointer, ...tokens), reason }
        : { pointer: schema.pointer, reason: `in ${node.document}#${pointerOf(node.pointer, ...tokens)}: ${reason}` },
  );
  if (refusals.length > 0) return { refusals: dedupe(refusals) };

  try {
    // Inside the try: a schema nested deeper than the call stack allows is refused, as Ajv's own overflow would be.
    const folded = foldNullable(schema, index).schema;
    const foldedIndex = folded === schema ? index : new SchemaIndex(folded);
    const split = splitNested(folded, foldedIndex);
    const ajv = compilerFor(split.schema, request.formats, foldedIndex);
    registerParts(ajv, split.schema.baseUri, split.parts);
    const code = standaloneModule.default(ajv, { [request.exportName]: schema.baseUri });
    return { exportName: request.exportName, code };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { refusals: [{ pointer: schema.pointer, reason: `Ajv cannot compile this schema: ${message}` }] };
  }
}

function dedupe(refusals: Refusal[]): Refusal[] {
  const seen = new Set<string>();
  return refusals.filter((r) => {
    const key = `${r.pointer}\n${r.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
