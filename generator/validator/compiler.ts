/**
 * The Ajv instance that compiles one contract schema into standalone code.
 *
 * Every option here was measured against the official JSON Schema Test Suite (see `test/conformance/`); the
 * comments say which cases each one decides.
 */

import { formatValidators } from "@toolgate/runtime/formats";
import { Ajv, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { normalizeId } from "ajv/dist/compile/resolve.js";
import addFormats from "ajv-formats";
import { isSchemaObject } from "../schema/guards.js";
import type { Dialect, JsonSchema, ResolvedSchema } from "../schema/shapes.js";
import { enumKeyword } from "./enum.js";
import { multipleOfKeyword } from "./multiple-of.js";
import { SchemaIndex } from "./schema-index.js";
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
 * A fresh Ajv instance for one dialect, with toolgate's keyword fixes (`multipleOf`, `uniqueItems`, long `enum`s)
 * and the full format set.
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
  ajv.removeKeyword("enum");
  ajv.addKeyword(enumKeyword);
  // ajv-formats registers its validators with standalone code that imports them from its `formats` module;
  // the module rewrite maps that import onto `@toolgate/runtime`.
  addFormats.default(ajv, { mode: "full" });
  // Standalone code inlines a pattern format's regular expression and calls any other format through
  // `@toolgate/runtime/formats`. The runtime's checks replace ajv-formats' where they are not patterns (`url` is a
  // linear check there, not ajv-formats' quadratic pattern), so a validator compiled in process decides as the
  // generated one does.
  for (const [name, check] of Object.entries(formatValidators)) {
    if (!(check instanceof RegExp)) ajv.addFormat(name, check as Parameters<Ajv["addFormat"]>[1]);
  }
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
 *
 * The instance is shared: the next call may reset it, so take what you need from it (standalone code, a compiled
 * validator) before calling again. Validators already compiled keep working after a reset.
 */
export function compilerFor(schema: ResolvedSchema, formats: FormatMode, index = new SchemaIndex(schema)): Ajv {
  const tracksEvaluation = readsEvaluatedLocations(index);
  const uris = Object.keys(schema.documents)
    .filter((uri) => uri !== schema.baseUri)
    .sort();
  const documents: Array<[string, unknown]> = [
    ...uris.map((uri): [string, unknown] => [uri, schema.documents[uri]]),
    [schema.baseUri, schema.root],
  ];
  const ajv = sharesWarmState(schema.dialect, documents)
    ? warmCompiler(schema.dialect, formats, tracksEvaluation)
    : createCompiler(schema.dialect, formats, tracksEvaluation);
  for (const [uri, document] of documents) ajv.addSchema(document as JsonSchema as object, uri);
  return ajv;
}

/**
 * The meta-schema every new instance compiles first: `addSchema` validates a schema object against its `$schema`,
 * the dialect's own meta-schema when it names none.
 */
const DEFAULT_META: Record<Dialect, string> = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
};

/**
 * Whether a warm instance compiles these documents exactly as a new one would. A new instance compiles the
 * dialect's meta-schema when the first schema object is added (to validate it) and nothing else before the
 * schema itself; a warm one has compiled just that. Any other course (no schema object at all, so no meta-schema
 * compiled; or a document naming another meta-schema, compiled in between) takes a new instance.
 */
function sharesWarmState(dialect: Dialect, documents: ReadonlyArray<[string, unknown]>): boolean {
  const objects = documents.map(([, document]) => document).filter(isSchemaObject);
  if (objects.length === 0) return false;
  return objects.every((document) => {
    const meta = (document as { $schema?: unknown }).$schema;
    return meta === undefined || (typeof meta === "string" && normalizeId(meta) === DEFAULT_META[dialect]);
  });
}

/** The parts of an Ajv instance that compiling a schema changes (Ajv keeps them private). */
interface CompilerState {
  schemas: { [key: string]: unknown };
  refs: { [key: string]: unknown };
  _cache: Map<unknown, unknown>;
  _compilations: Set<unknown>;
  scope: {
    _names: { [prefix: string]: { prefix: string; index: number } | undefined };
    _values: { [prefix: string]: Map<unknown, unknown> | undefined };
    _scope: { [prefix: string]: unknown[] | undefined };
  };
}

/** An instance whose meta-schema is compiled, and how to take it back to that state. */
interface WarmCompiler {
  ajv: Ajv;
  reset: () => void;
}

const warmCompilers = new Map<string, WarmCompiler>();

/**
 * An instance with the dialect's meta-schema compiled and nothing else added, reused across schemas.
 *
 * Compiling the meta-schema costs far more than compiling a typical tool schema, and a new instance compiles it for
 * every validator. Reuse must not change one byte of output: the standalone code names its values after counters
 * shared by the whole instance (`validate20`, `schema31`, `func70`), so each use starts from a copy of the state
 * right after the meta-schema compiled: the same counters, values, schemas and cache a new instance has at that
 * point. A schema added before is gone, so it can neither clash with a later schema's `$id` nor be reused by it.
 */
function warmCompiler(dialect: Dialect, formats: FormatMode, tracksEvaluation: boolean): Ajv {
  const key = `${dialect} ${formats} ${tracksEvaluation}`;
  let warm = warmCompilers.get(key);
  if (warm === undefined) {
    const ajv = createCompiler(dialect, formats, tracksEvaluation);
    if (ajv.getSchema(DEFAULT_META[dialect]) === undefined) throw new Error(`no meta-schema for ${dialect}`);
    warm = { ajv, reset: snapshot(ajv as unknown as CompilerState) };
    warmCompilers.set(key, warm);
  } else {
    warm.reset();
  }
  return warm.ajv;
}

/** Records an instance's state; the returned function puts it back. */
function snapshot(state: CompilerState): () => void {
  const schemas = { ...state.schemas };
  const refs = { ...state.refs };
  const cache = new Map(state._cache);
  const names = Object.entries(state.scope._names).map(([prefix, group]) => [prefix, group?.index ?? 0] as const);
  const values = Object.entries(state.scope._values).map(([prefix, map]) => [prefix, new Map(map)] as const);
  const stored = Object.entries(state.scope._scope).map(([prefix, list]) => [prefix, [...(list ?? [])]] as const);
  // Defined, not assigned: a key such as `__proto__` must stay a key.
  const replace = <T>(target: { [key: string]: T }, entries: ReadonlyArray<readonly [string, T]>) => {
    for (const key of Object.keys(target)) delete target[key];
    for (const [key, value] of entries) {
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    }
  };
  return () => {
    replace(state.schemas, Object.entries(schemas));
    replace(state.refs, Object.entries(refs));
    state._cache.clear();
    for (const [key, value] of cache) state._cache.set(key, value);
    state._compilations.clear();
    replace(
      state.scope._names,
      names.map(([prefix, index]) => [prefix, { prefix, index }] as const),
    );
    replace(
      state.scope._values,
      values.map(([prefix, map]) => [prefix, new Map(map)] as const),
    );
    // New arrays: a validator compiled before the reset read its values when it was created and keeps them.
    replace(
      state.scope._scope,
      stored.map(([prefix, list]) => [prefix, [...list]] as const),
    );
  };
}
