/**
 * The Ajv instance that compiles one contract schema into standalone code.
 *
 * Every option here was measured against the official JSON Schema Test Suite (see `test/conformance/`); the
 * comments say which cases each one decides.
 */
import { Ajv, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Dialect, JsonSchema, ResolvedSchema } from "../schema.js";
import { multipleOfKeyword } from "./multiple-of.js";
import { isSchemaObject, SchemaIndex } from "./schema-index.js";
import { uniqueItemsKeyword } from "./unique-items.js";

/** Whether `format` only annotates (the 2020-12 default, section 7.2.1) or is checked. */
export type FormatMode = "annotate" | "assert";

/** The Ajv options toolgate compiles with, shared by the generator and the conformance tests. */
export function compilerOptions(formats: FormatMode): Options {
  return {
    // Property names such as `toString` or `constructor` must not be found on the prototype of a parsed object.
    ownProperties: true,
    // Stop at the first error: the gate reports where validation failed, not every failure.
    allErrors: false,
    // Patterns are ECMA-262 regular expressions with the `u` flag, as the spec asks (2020-12 core, section 6.4).
    unicodeRegExp: true,
    // Unknown keywords (`x-*`, vendor annotations) are valid JSON Schema and carry no assertion; Ajv's strict mode
    // would also reject valid 2020-12 patterns (`strictTuples`, `strictRequired`), so it is off as a whole.
    strict: false,
    // Format is an annotation unless the contract asks for assertion.
    validateFormats: formats === "assert",
    // Nothing to print at build time: refusals are reported through the pipeline.
    logger: false,
    // The gate reports where validation failed (instancePath, schemaPath, keyword), never Ajv's English message:
    // leaving messages out makes each validator smaller and faster to load.
    messages: false,
    code: { source: true, esm: true, lines: true },
  };
}

/**
 * A fresh Ajv instance for one dialect, with toolgate's keyword fixes (`multipleOf`, `uniqueItems`) and the full
 * format set.
 *
 * @param tracksEvaluation whether the generated code records evaluated properties and items. Only
 *   `unevaluatedProperties` and `unevaluatedItems` read that record, and Ajv's bookkeeping has faults of its own
 *   (`patternProperties` beside a failed `anyOf` branch throws a TypeError at run time), so it is off for schemas
 *   that never read it.
 */
export function createCompiler(dialect: Dialect, formats: FormatMode, tracksEvaluation = true): Ajv {
  const options = compilerOptions(formats);
  const ajv =
    dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
  // Ajv2019 and Ajv2020 force the option on in their constructors; compilation reads it afterwards.
  if (!tracksEvaluation) (ajv.opts as { unevaluated?: boolean }).unevaluated = false;
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword(multipleOfKeyword);
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword(uniqueItemsKeyword);
  // ajv-formats registers its validators with standalone code that imports them from its `formats` module;
  // the module rewrite maps that import onto `toolgate/runtime`.
  addFormats.default(ajv, { mode: "full" });
  return ajv;
}

/** Whether any schema the index holds reads the record of evaluated locations (`unevaluated*`, 2019-09 on). */
export function readsEvaluatedLocations(index: SchemaIndex): boolean {
  if (index.dialect === "draft-07") return false;
  return index.nodes.some(
    (n) => isSchemaObject(n.schema) && ("unevaluatedProperties" in n.schema || "unevaluatedItems" in n.schema),
  );
}

/**
 * An Ajv instance with a resolved schema and its documents added, configured exactly as the validator stage
 * compiles it; the schema is registered under its `baseUri`.
 */
export function compilerFor(schema: ResolvedSchema, formats: FormatMode, index = new SchemaIndex(schema)): Ajv {
  const ajv = createCompiler(schema.dialect, formats, readsEvaluatedLocations(index));
  for (const uri of Object.keys(schema.documents).sort()) {
    if (uri !== schema.baseUri) ajv.addSchema(schema.documents[uri] as JsonSchema as object, uri);
  }
  ajv.addSchema(schema.root as object, schema.baseUri);
  return ajv;
}
