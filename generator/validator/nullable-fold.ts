/**
 * The nullable fold: a pre-pass of the validator stage that rewrites `anyOf: [{type: T, …}, {type: "null"}]` into
 * `type: [T, "null"]` beside the branch's keywords, where the two provably accept the same instances.
 *
 * Ajv compiles each `anyOf` branch as a block of its own that collects the failed branch's errors before trying the
 * next one; `type: [T, "null"]` is one type check. Contracts written from Python or TypeScript types (an optional
 * field as "T or null") hold this shape by the dozen, so the fold makes the generated code smaller and faster to load
 * and to run. Only the validator is compiled from the folded schema: types, views and the checker read the contract
 * as written.
 *
 * Why the fold keeps the verdict (for an instance x, with S the schema holding the `anyOf`, A the typed branch and N
 * the null branch): before, S accepts x when S's other keywords accept it and A or N does; after, when S's other
 * keywords accept it, its type is one of A's types or null, and A's keywords accept it.
 *
 * - x is null: N accepts it; A's keywords each apply to one non-null type only, so they accept it too.
 * - x has one of A's types: N rejects it, so both sides ask exactly what A asks.
 * - anything else: A's `type` and N reject it before; the folded `type` rejects it after.
 *
 * That argument holds only under these conditions, each checked below:
 *
 * - N holds nothing but `type: "null"` (or `const`/`enum` of null) and annotations; A holds `type` (type names
 *   only), annotations, `format`, and keywords that apply to one kind of value other than null (`maxLength`,
 *   `minimum`, `properties`, `items`, …). A `$ref`, `$id`, anchor, `enum`, `not`, applicator or unknown keyword in
 *   either branch stops the fold.
 * - S has no `type` of its own and none of A's keywords; and where A has a keyword of objects (or of arrays), S has
 *   none of that kind: those read each other within one schema object (`additionalProperties` reads `properties`,
 *   `items` reads `prefixItems`, `minContains` reads `contains`), so A's must not land beside S's.
 * - No `unevaluatedProperties` or `unevaluatedItems` anywhere in the schema or its documents: what a branch
 *   evaluates is an annotation those keywords read, and the fold moves it.
 * - No `$ref` (or `$dynamicRef`, `$recursiveRef`) points into the `anyOf`: the fold removes those locations.
 * - The folded schema has no feature `unsupported.ts` refuses, as the unfolded one had none.
 *
 * Annotations of the two branches are left out of the folded schema: they never change a verdict.
 * Error locations change where a fold applies: a value that fails the folded type reports `type` at `…/type`
 * instead of `anyOf` at `…/anyOf`, and one that fails a keyword of A reports it without the `/anyOf/<i>` step.
 */
import { isSchemaObject } from "../schema/guards.js";
import { escapePointerToken } from "../schema/pointer.js";
import type { Dialect, JsonSchema, ResolvedSchema, SchemaObject } from "../schema/shapes.js";
import { childSchemas, SchemaIndex, withoutFragment } from "./schema-index.js";
import { findUnsupportedFeatures } from "./unsupported.js";

/** Keywords that never change a verdict (2020-12 meta-data vocabulary, and `$comment`). */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  "$comment",
  "default",
  "deprecated",
  "description",
  "examples",
  "readOnly",
  "title",
  "writeOnly",
]);

/** The type names `type` takes. */
const TYPE_NAMES: ReadonlySet<string> = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

/** The kinds of value a keyword can be specific to (an integer is a number). */
type ValueKind = "array" | "number" | "object" | "string";

/** Keywords that assert something only about a value of one kind, by kind; every other value, null included, passes. */
const KEYWORDS_OF_KIND: Readonly<Record<ValueKind, readonly string[]>> = {
  string: ["maxLength", "minLength", "pattern"],
  number: ["exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"],
  object: [
    "additionalProperties",
    "dependentRequired",
    "maxProperties",
    "minProperties",
    "patternProperties",
    "properties",
    "propertyNames",
    "required",
  ],
  array: ["contains", "items", "maxContains", "maxItems", "minContains", "minItems", "prefixItems", "uniqueItems"],
};

const KIND_OF_KEYWORD: ReadonlyMap<string, ValueKind> = new Map(
  (Object.keys(KEYWORDS_OF_KIND) as ValueKind[]).flatMap((kind) =>
    KEYWORDS_OF_KIND[kind].map((keyword): [string, ValueKind] => [keyword, kind]),
  ),
);

/**
 * Keywords of objects and of arrays read each other within one schema object (`additionalProperties` reads
 * `properties` and `patternProperties`, `items` reads `prefixItems`, `minContains` reads `contains`, and before
 * 2020-12 `additionalItems` reads `items`): a branch's keyword of that kind must not land beside any of these.
 */
const READ_BESIDE: Readonly<Record<"array" | "object", ReadonlySet<string>>> = {
  object: new Set(["dependencies", "dependentSchemas"]),
  array: new Set(["additionalItems"]),
};

/**
 * `format` checks one kind of value (strings, or numbers for `int32`, `double`, …) and passes every other, null
 * included.
 */
const FORMAT = "format";

/** Where a fold was made: the document and the JSON pointer (in the input) of the schema that held the `anyOf`. */
export interface NullableFold {
  document: string;
  pointer: string;
}

/** A folded copy of a resolved schema, and where it was folded; the input is returned unchanged if nothing folds. */
export interface FoldedSchema {
  schema: ResolvedSchema;
  folds: NullableFold[];
}

/** What folding one document needs to know. */
interface FoldContext {
  dialect: Dialect;
  document: string;
  /** JSON pointers (in this document) that a reference points to: no fold may remove them. */
  referenced: readonly string[];
  folds: NullableFold[];
}

/**
 * The schema with every nullable `anyOf` folded where the module comment's conditions hold; a copy, sharing the
 * untouched parts with the input, which is never changed.
 * @param index the index of `schema` (the one the stage built to check it)
 */
export function foldNullable(schema: ResolvedSchema, index: SchemaIndex = new SchemaIndex(schema)): FoldedSchema {
  if (hasUnevaluatedKeywords(index)) return { schema, folds: [] };
  const referenced = referencedLocations(index);
  const folds: NullableFold[] = [];
  const foldDocument = (document: string, root: JsonSchema): JsonSchema =>
    foldSchema(root, "", { dialect: schema.dialect, document, referenced: referenced.get(document) ?? [], folds });

  const rootDocument = withoutFragment(schema.baseUri);
  const root = foldDocument(rootDocument, schema.root);
  let documents = schema.documents;
  for (const uri of Object.keys(schema.documents).sort()) {
    const document = schema.documents[uri] as JsonSchema;
    if (withoutFragment(uri) === rootDocument) continue;
    const folded = foldDocument(withoutFragment(uri), document);
    if (folded !== document) {
      if (documents === schema.documents) documents = { ...schema.documents };
      Object.defineProperty(documents, uri, { value: folded, enumerable: true, writable: true, configurable: true });
    }
  }
  if (folds.length === 0) return { schema, folds };
  const folded: ResolvedSchema = { ...schema, root, documents };
  // The conditions keep the verdict; this keeps the stage's other promise: nothing Ajv gets wrong is compiled.
  if (findUnsupportedFeatures(new SchemaIndex(folded)).length > 0) return { schema, folds: [] };
  return { schema: folded, folds };
}

/** `unevaluated*` anywhere, whatever the dialect: the fold moves the annotations those keywords read. */
function hasUnevaluatedKeywords(index: SchemaIndex): boolean {
  return index.nodes.some(
    (node) =>
      isSchemaObject(node.schema) && ("unevaluatedProperties" in node.schema || "unevaluatedItems" in node.schema),
  );
}

/** The locations references point to, by document: read statically, as `SchemaIndex` resolves them. */
function referencedLocations(index: SchemaIndex): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
      const reference = node.schema[keyword];
      if (typeof reference !== "string") continue;
      const target = index.resolveReference(reference, node);
      if (target === undefined) continue;
      const list = targets.get(target.document) ?? [];
      list.push(target.pointer);
      targets.set(target.document, list);
    }
  }
  return targets;
}

/** One schema, its subschemas folded first (so an inner fold is in place when the outer one is judged). */
function foldSchema(schema: JsonSchema, pointer: string, context: FoldContext): JsonSchema {
  if (!isSchemaObject(schema)) return schema;
  let copy: SchemaObject | undefined;
  const copiedContainers = new Set<string>();
  for (const { tokens, child } of childSchemas(schema, context.dialect)) {
    const childPointer = pointer + tokens.map((token) => `/${escapePointerToken(token)}`).join("");
    const folded = foldSchema(child, childPointer, context);
    if (folded === child) continue;
    copy ??= { ...schema };
    const [keyword, entry] = tokens as [string, string | undefined];
    if (entry === undefined) {
      ownEntry(copy, keyword, folded);
      continue;
    }
    if (!copiedContainers.has(keyword)) {
      const container = copy[keyword];
      ownEntry(copy, keyword, Array.isArray(container) ? [...container] : { ...(container as object) });
      copiedContainers.add(keyword);
    }
    ownEntry(copy[keyword] as Record<string, unknown>, entry, folded);
  }
  const current = copy ?? schema;
  const folded = foldHere(current, pointer, context);
  if (folded === undefined) return current;
  context.folds.push({ document: context.document, pointer });
  return folded;
}

/** Sets an own property, even one named `__proto__` (an assignment would set the prototype instead). */
function ownEntry(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The folded form of one schema object, or undefined when its `anyOf` is not a nullable pair it may fold. */
function foldHere(schema: SchemaObject, pointer: string, context: FoldContext): SchemaObject | undefined {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2 || "type" in schema) return undefined;
  const nullAt = branches.findIndex(isNullBranch);
  if (nullAt < 0) return undefined;
  const branch = branches[1 - nullAt];
  if (!isSchemaObject(branch)) return undefined;
  const types = foldableBranch(branch, schema);
  if (types === undefined) return undefined;
  const anyOfPointer = `${pointer}/anyOf`;
  if (context.referenced.some((target) => target === anyOfPointer || target.startsWith(`${anyOfPointer}/`))) {
    return undefined;
  }
  const folded: SchemaObject = {};
  for (const key of Object.keys(schema)) if (key !== "anyOf") ownEntry(folded, key, schema[key]);
  ownEntry(folded, "type", [...types.filter((type) => type !== "null"), "null"]);
  for (const key of Object.keys(branch)) {
    if (key !== "type" && !ANNOTATIONS.has(key)) ownEntry(folded, key, branch[key]);
  }
  return folded;
}

/** Whether a branch accepts null and nothing else, and says no more than that (annotations aside). */
function isNullBranch(branch: unknown): boolean {
  if (!isSchemaObject(branch)) return false;
  const assertions = Object.keys(branch).filter((key) => !ANNOTATIONS.has(key));
  if (assertions.length !== 1) return false;
  const [keyword] = assertions as [string];
  const value = branch[keyword];
  if (keyword === "type")
    return value === "null" || (Array.isArray(value) && value.length === 1 && value[0] === "null");
  if (keyword === "const") return value === null;
  if (keyword === "enum") return Array.isArray(value) && value.length === 1 && value[0] === null;
  return false;
}

/**
 * The types of the typed branch, when every keyword it holds passes null and none would land beside a keyword of
 * `holder` (the schema holding the `anyOf`) that it would read, be read by, or duplicate; else undefined.
 */
function foldableBranch(branch: SchemaObject, holder: SchemaObject): string[] | undefined {
  const declared = branch.type;
  const types = typeof declared === "string" ? [declared] : declared;
  if (!Array.isArray(types) || types.length === 0 || new Set(types).size !== types.length) return undefined;
  if (!types.every((type) => typeof type === "string" && TYPE_NAMES.has(type))) return undefined;
  const assertions = Object.keys(branch).filter((key) => key !== "type" && !ANNOTATIONS.has(key));
  if (!assertions.every((key) => key === FORMAT || KIND_OF_KEYWORD.has(key))) return undefined;
  // `items` as an array is a tuple before 2020-12, read together with `additionalItems`: not a keyword of its own.
  if (Array.isArray(branch.items)) return undefined;
  const holderKeys = Object.keys(holder);
  if (assertions.some((key) => key in holder)) return undefined;
  const kinds = new Set(assertions.map((key) => KIND_OF_KEYWORD.get(key)));
  for (const kind of ["object", "array"] as const) {
    if (kinds.has(kind) && holderKeys.some((key) => KIND_OF_KEYWORD.get(key) === kind || READ_BESIDE[kind].has(key))) {
      return undefined;
    }
  }
  return types as string[];
}
