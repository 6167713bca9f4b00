/**
 * Nested objects and arrays compiled into functions of their own, so a validator's first call compiles only the
 * levels it reaches.
 *
 * V8 compiles a function's body on the function's first call, the whole body at once. Ajv writes every subschema it
 * reaches without a `$ref` into one function, so the first validation of `{}` compiles the checks of every nested
 * property too. Here a large subschema that a property or an item of the instance meets, and that applies
 * subschemas of its own, becomes a part: in the schema Ajv compiles, its place holds a `$ref` to the part, and the
 * part is registered with the compiler as a schema already resolved, rooted where it was written. Ajv compiles a
 * `$ref` to a registered schema into a call of that schema's function and reports the function's errors as its own,
 * and Ajv starts the schema path of a compiled schema's errors at the schema's own path: every error keeps the
 * instance path, schema path, keyword and params it had with the subschema in place.
 *
 * A subschema stays in place when moving it could change what anything finds there: when a `$ref` points at it or
 * into it, or it lies below what a `$ref` points at (Ajv inlines a small target and reports its errors under the
 * reference; with a part inside, the target becomes a function of its own and reports from `#`), when it or a
 * subschema of it declares `$id`, `$anchor` or the like, or when any document resolves a reference dynamically
 * (`$dynamicRef`, `$recursiveRef`).
 */
import type { Ajv } from "ajv";
import { compileSchema, SchemaEnv } from "ajv/dist/compile/index.js";
import { normalizeId, resolveUrl } from "ajv/dist/compile/resolve.js";
import { escapeFragment } from "ajv/dist/compile/util.js";
import { isSchemaObject } from "../schema/guards.js";
import { escapePointerToken } from "../schema/pointer.js";
import type { Dialect, JsonSchema, ResolvedSchema, SchemaObject } from "../schema/shapes.js";
import { childSchemas, type SchemaIndex } from "./schema-index.js";

/** One subschema compiled as a function of its own. */
export interface SchemaPart {
  /** The `$ref` written in its place. */
  ref: string;
  /** The subschema, its own parts already replaced by their references. */
  schema: SchemaObject;
  /** Its schema path as Ajv reports errors under it (`#/properties/owner`). */
  schemaPath: string;
}

/** A schema to compile with its parts replaced by references, and the parts. */
export interface SplitSchema {
  schema: ResolvedSchema;
  parts: SchemaPart[];
}

/**
 * The smallest subschema worth a function of its own, in characters of the JSON text of its code-bearing keywords
 * ({@link CODE_KEYWORDS}) once its own parts are cut out. Each function costs its first call a compilation of its
 * own; measured on the corpus (bench/cold-start.js), smaller parts made a full first validation slower than they
 * made a first validation of `{}` faster.
 */
export const PART_MIN_LENGTH = 300;

/**
 * The keywords Ajv writes code for (validation, applicators, references, and `format`, checked when asserted). Only
 * they count toward a part's size: an annotation (`description`, `title`, `examples`, `default`, an `x-` keyword)
 * compiles to nothing, and a part cut for its annotations costs a call for every item and property it checks,
 * on every validation, and saves its first call nothing.
 */
export const CODE_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "enum",
  "const",
  "nullable",
  "required",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "dependencies",
  "dependentRequired",
  "dependentSchemas",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "unevaluatedProperties",
  "unevaluatedItems",
  "discriminator",
]);

/** Keywords whose subschemas apply to the instance's properties or items: where parts are cut. */
const CHILD_SINGLE = new Set(["additionalProperties", "items", "additionalItems"]);
const CHILD_LIST = new Set(["items", "prefixItems"]);
const CHILD_MAP = new Set(["properties", "patternProperties"]);
/**
 * Keywords whose subschemas apply to the instance itself, and whose subschemas Ajv compiles to stop at their first
 * error as a function does: parts are cut inside them. Under `anyOf`, `oneOf`, `not`, `if` or `contains` Ajv
 * gathers errors instead (one subschema may report two, a function only its first): nothing there is cut.
 */
const SAME_INSTANCE_LIST = new Set(["allOf"]);

/** Keywords that give a subschema an identity other schemas may find it by, or change how it is read. */
const IDENTITY_KEYWORDS = ["$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema", "id"];
/** Keywords of a reference resolved at run time, through the dynamic scope. */
const DYNAMIC_REFERENCES = ["$dynamicRef", "$recursiveRef"];

/** The prefix of every part's `$ref`: a plain-name fragment (no schema of the documents declares it). */
const PART_PREFIX = "toolgate-part-";
/** About the length of a part's reference in the JSON text of the schema that holds it. */
const PART_REF_LENGTH = `{"$ref":"#${PART_PREFIX}0"}`.length;

/** Which movable subschemas become parts: given the subschema (its own parts cut out) and the length of its text. */
export type PartChoice = (schema: SchemaObject, length: number, dialect: Dialect) => boolean;

/** A subschema checking a level below its own, {@link PART_MIN_LENGTH} long at least. */
export const largeNestedLevels: PartChoice = (schema, length, dialect) =>
  length >= PART_MIN_LENGTH && appliesSubschemas(schema, dialect);

/**
 * The root document with each large nested object or array schema in a part of its own; the schema unchanged, with
 * no parts, when nothing may be moved.
 * @param choice which movable subschemas become parts: {@link largeNestedLevels} unless a test cuts them all
 */
export function splitNested(schema: ResolvedSchema, index: SchemaIndex, choice = largeNestedLevels): SplitSchema {
  const found = pinnedPointers(index);
  if (found === undefined || !isSchemaObject(schema.root)) return { schema, parts: [] };
  const { pinned, targets } = found;
  const state: WalkState = {
    dialect: schema.dialect,
    pinned,
    targets,
    parts: [],
    taken: declaredNames(index),
    next: 0,
    choice,
  };
  const root = walk(schema.root, "", "#", state).schema;
  if (state.parts.length === 0) return { schema, parts: [] };
  return { schema: { ...schema, root }, parts: state.parts };
}

interface WalkState {
  dialect: Dialect;
  /** Every pointer in the root document that a reference resolves to, and each of its ancestors. */
  pinned: ReadonlySet<string>;
  /** Every pointer below the root that a reference resolves to: nothing at or below one is cut. */
  targets: ReadonlySet<string>;
  parts: SchemaPart[];
  /** Plain names the documents declare (anchors, fragment ids). */
  taken: ReadonlySet<string>;
  /** The number in the next part's reference. */
  next: number;
  choice: PartChoice;
}

/** A subschema after the walk: its copy with parts cut out, and what the walk learned of it. */
interface Walked {
  schema: JsonSchema;
  /** About the length of the copy's JSON text (the sum of its pieces, without separators): what stays in place. */
  length: number;
  /** Whether it or a subschema of it declares an identity ({@link IDENTITY_KEYWORDS}). */
  named: boolean;
}

/**
 * Walks a subschema bottom-up, cutting parts out of the places where they are cut.
 * @param pointer its JSON pointer in the root document
 * @param schemaPath its schema path as Ajv reports it; undefined below a keyword whose subschemas stay whole
 */
function walk(node: JsonSchema, pointer: string, schemaPath: string | undefined, state: WalkState): Walked {
  if (!isSchemaObject(node)) return { schema: node, length: String(node).length, named: false };
  let copy: SchemaObject | undefined;
  let length = codeLength(node);
  let named = IDENTITY_KEYWORDS.some((keyword) => typeof node[keyword] === "string");
  // Below a subschema with an identity of its own, references resolve against its base: nothing there is cut.
  const pathBelow = pointer === "" || (!named && !state.targets.has(pointer)) ? schemaPath : undefined;
  for (const { tokens, child } of childSchemas(node, state.dialect)) {
    const [keyword, name] = tokens as [string, string | undefined];
    const cutsChild =
      name === undefined ? CHILD_SINGLE.has(keyword) : CHILD_MAP.has(keyword) || CHILD_LIST.has(keyword);
    const cutsInside = cutsChild || (name !== undefined && SAME_INSTANCE_LIST.has(keyword));
    const childPointer = pointer + tokens.map((t) => `/${escapePointerToken(t)}`).join("");
    const childPath =
      pathBelow !== undefined && cutsInside
        ? `${pathBelow}/${keyword}${name === undefined ? "" : `/${escapeFragment(name)}`}`
        : undefined;
    const walked = walk(child, childPointer, childPath, state);
    named ||= walked.named;
    let replacement = walked.schema;
    if (
      cutsChild &&
      childPath !== undefined &&
      isSchemaObject(walked.schema) &&
      !walked.named &&
      !state.pinned.has(childPointer) &&
      state.choice(walked.schema, walked.length, state.dialect)
    ) {
      replacement = partRef(walked.schema, childPath, state);
      length += PART_REF_LENGTH;
    } else {
      length += walked.length;
    }
    if (replacement !== child) {
      copy ??= { ...node };
      setChild(copy, tokens, replacement);
    }
  }
  return { schema: copy ?? node, length, named };
}

/**
 * About the length of the JSON text a subschema's code-bearing keywords take, each subschema under them counted as
 * one character (the walk adds what it keeps of them).
 */
function codeLength(node: SchemaObject): number {
  let length = 2;
  for (const [keyword, value] of Object.entries(node)) {
    if (!CODE_KEYWORDS.has(keyword)) continue;
    length += keyword.length + 4 + JSON.stringify(value, (_key, inner) => (isSchemaObject(inner) ? 0 : inner)).length;
  }
  return length;
}

/** Registers a part and returns the schema that refers to it in its place. */
function partRef(schema: SchemaObject, schemaPath: string, state: WalkState): SchemaObject {
  while (state.taken.has(`${PART_PREFIX}${state.next}`)) state.next++;
  const ref = `#${PART_PREFIX}${state.next++}`;
  state.parts.push({ ref, schema, schemaPath });
  return { $ref: ref };
}

/** Puts a new subschema at `tokens` of a shallow copy, copying the keyword's own map or list first. */
function setChild(copy: SchemaObject, tokens: readonly string[], value: JsonSchema): void {
  const [keyword, name] = tokens as [string, string | undefined];
  if (name === undefined) {
    copy[keyword] = value;
    return;
  }
  const holder = copy[keyword];
  const own: Record<string, unknown> | unknown[] = Array.isArray(holder) ? [...holder] : { ...(holder as object) };
  // Defined, not assigned: a property named `__proto__` must stay a property.
  Object.defineProperty(own, name, { value, enumerable: true, writable: true, configurable: true });
  copy[keyword] = own as JsonSchema;
}

/** Whether a subschema applies subschemas of its own (definitions apart): checks of another level. */
function appliesSubschemas(schema: SchemaObject, dialect: Dialect): boolean {
  for (const { tokens } of childSchemas(schema, dialect)) {
    if (tokens[0] !== "$defs" && tokens[0] !== "definitions") return true;
  }
  return false;
}

/**
 * Each pointer in the root document that a reference of any document resolves to, with its ancestors; undefined
 * when a reference resolves dynamically or to nothing the index holds (then nothing is moved).
 */
function pinnedPointers(index: SchemaIndex): { pinned: Set<string>; targets: Set<string> } | undefined {
  const pinned = new Set<string>();
  const targets = new Set<string>();
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    if (DYNAMIC_REFERENCES.some((keyword) => keyword in (node.schema as SchemaObject))) return undefined;
    const reference = node.schema.$ref;
    if (typeof reference !== "string") continue;
    const target = index.resolveReference(reference, node);
    if (target === undefined) return undefined;
    if (target.document !== index.root.document) continue;
    targets.add(target.pointer);
    for (let at = target.pointer; ; at = at.slice(0, at.lastIndexOf("/"))) {
      pinned.add(at);
      if (at === "") break;
    }
  }
  return { pinned, targets };
}

/** Every plain name the documents declare, so that no part's reference is one of them. */
function declaredNames(index: SchemaIndex): Set<string> {
  const names = new Set<string>();
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    for (const keyword of IDENTITY_KEYWORDS) {
      const value = node.schema[keyword];
      if (typeof value === "string") names.add(value.slice(value.indexOf("#") + 1));
    }
  }
  return names;
}

/**
 * Makes the parts known to a compiler that holds the split schema under `baseUri`: each part's reference resolves
 * to the part, compiled on first use as a function whose errors start at the part's schema path.
 */
export function registerParts(ajv: Ajv, baseUri: string, parts: readonly SchemaPart[]): void {
  if (parts.length === 0) return;
  // Ajv keeps its schemas, and each schema's resolved references, in fields it does not declare.
  const { schemas, opts } = ajv as unknown as { schemas: Record<string, SchemaEnv | undefined>; opts: Ajv["opts"] };
  const root = schemas[normalizeId(baseUri)];
  if (root === undefined) throw new Error(`no schema ${baseUri} to register parts with`);
  for (const part of parts) {
    const env = new SchemaEnv({
      schema: part.schema,
      schemaId: "$id",
      root,
      baseId: root.baseId,
      schemaPath: part.schemaPath,
    });
    // Ajv looks a reference up here before resolving it, and compiles what it finds no further.
    Object.defineProperty(root.refs, resolveUrl(opts.uriResolver, root.baseId, part.ref), {
      enumerable: true,
      get: () => (env.validate === undefined ? compileSchema.call(ajv, env) : env),
    });
  }
}
