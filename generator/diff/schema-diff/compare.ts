/**
 * Semantic comparison of two versions of one schema: which values does the new version accept that the old one did
 * not (`wider`), which does it refuse that the old one accepted (`narrower`)?
 *
 * Both bundled schemas (every `$ref` a `#/…` pointer) are walked in parallel: properties by name, `prefixItems` by
 * position, `items`, `additionalProperties`, `anyOf`/`oneOf` branches matched by content, `not` with the direction
 * turned round. Each schema is first flattened: what a `$ref` points at and the branches of `allOf` are merged into
 * one set of keywords, so a definition moved behind a `$ref`, keys reordered or a file reformatted is no change at
 * all, while a change inside a referenced definition is found wherever it is used. Keywords are compared as sets and
 * bounds (`type`, `enum`/`const`, `required`, numeric and length bounds, open or closed objects), never as text.
 *
 * The walk is iterative (a hostile contract may nest deeper than the call stack allows) and stops at a `$ref` cycle.
 */
import { escapePointerToken } from "../errors.js";
import { canonicalJson, compareText } from "../load.js";
import type { JsonSchema, SchemaObject } from "../schema.js";
import { fragmentToPointer, isSchemaObject, valueAt } from "../walk.js";
import type { Direction } from "./classes.js";

/** Canonical JSON text at any depth (iterative): two values are the same JSON exactly when their texts are. */
function canonical(value: unknown): string {
  return canonicalJson(value, Number.POSITIVE_INFINITY);
}

/** One semantic change between two versions of a schema. */
export interface SchemaChange {
  /** What changed, as a stable id: `enum-value-added`, `maxLength-raised`, `field-added`, `type-widened`, … */
  kind: string;
  /** What the change does to the set of accepted values. */
  direction: Direction;
  /** The instance location (JSON pointer into a value; `*` for every item or every other property). */
  path: string;
  /** JSON pointer into the schema: into the new version where the changed keyword is there, else into the old. */
  pointer: string;
  /** One line for a reader: `enum value added`. */
  summary: string;
  /** The old keyword value (or enum value, bound, schema); absent when the old version had none. */
  before?: unknown;
  /** The new keyword value; absent when the new version has none. */
  after?: unknown;
}

/** One version of a schema, as the comparison reads it. */
export interface SchemaVersion {
  /** The bundled schema: every `$ref` is a `#/…` pointer into it. */
  schema: JsonSchema;
  /** Whether `format` is asserted by the validator (`x-toolgate.formats: "assert"`) or only an annotation. */
  formatsAsserted: boolean;
}

/** Keywords that only describe: they change no validation result. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
]);

/** Keywords that organise a schema rather than constrain values; definitions are compared where a `$ref` uses them. */
const STRUCTURAL = new Set(["$id", "$schema", "$anchor", "$dynamicAnchor", "$defs", "definitions", "$vocabulary"]);

/** Validation keywords this module compares by meaning (the rest are compared as annotations). */
const COMPARED = new Set([
  "type",
  "enum",
  "const",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "pattern",
  "format",
  "uniqueItems",
  "additionalProperties",
  "unevaluatedProperties",
  "patternProperties",
  "propertyNames",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependentRequired",
  "dependencies",
]);

/**
 * Kinds of change that add or remove an in-place applicator, whose annotations `unevaluated*` reads; and the
 * `contains` counts, which decide (in Ajv) whether `contains` evaluates anything.
 */
const IN_PLACE_APPLICATOR =
  /^(anyOf|oneOf|allOf)-branch-|^(anyOf|oneOf|if|then|else|contains|dependent-schema)-(added|removed)$|^(min|max)Contains-/;

/** Count bounds: [lower keyword, upper keyword, the lower bound's value when absent]. */
const COUNT_BOUNDS: ReadonlyArray<readonly [string, string, number]> = [
  ["minLength", "maxLength", 0],
  ["minItems", "maxItems", 0],
  ["minProperties", "maxProperties", 0],
  ["minContains", "maxContains", 1],
];

/** Schema nesting followed before the rest of a branch is compared as text. */
const MAX_DEPTH = 1000;
/** Schema pairs compared before repeated pairs (a definition used in many places) are compared only once. */
const MAX_PAIRS = 20_000;

/** A subschema and its JSON pointer in its bundled schema. */
interface Located {
  schema: JsonSchema;
  at: string;
}

/** A keyword's value and the schema object it came from. */
interface Keyword {
  value: unknown;
  at: string;
}

/** One schema with its `$ref` targets and mergeable `allOf` branches folded in. */
interface Flat {
  /** Where the schema is. */
  at: string;
  /** Which schema objects were merged: two flats with the same identity are the same schema. */
  identity: string;
  /** A `false` schema is part of the conjunction: nothing is accepted. */
  never: boolean;
  keys: Map<string, Keyword>;
  properties: Map<string, Located>;
  /** Required names and the schema object that requires each. */
  required: Map<string, string>;
  /** `allOf` branches and `$ref` targets that could not be merged (a keyword in both with different values). */
  rest: Located[];
}

/** Two versions of one subschema to compare, and how they were reached. */
interface Pair {
  before: Located;
  after: Located;
  path: string;
  /** Under `not`: a wider subschema makes the whole narrower. */
  flipped: boolean;
  /**
   * Inside a `oneOf` whose branches may overlap: accepting more in here may make the whole accept less, so every
   * change in here is `different`.
   */
  exclusive: boolean;
  depth: number;
  /**
   * An enclosing schema has `unevaluatedProperties`/`unevaluatedItems` and this one applies in place (a branch, a
   * dependent schema): a property or item it declares is "evaluated" there, so declaring or dropping one may change
   * what the enclosing keyword refuses, in either direction.
   */
  unevaluated: boolean;
  /** The identities compared on the way here, to stop at a `$ref` cycle. */
  ancestors: Ancestry | undefined;
}

interface Ancestry {
  key: string;
  parent: Ancestry | undefined;
}

/** Compare two versions of a schema. Changes come in document order: a schema's own keywords, then its children. */
export function compareSchemas(before: SchemaVersion, after: SchemaVersion): SchemaChange[] {
  return new SchemaComparison(before, after).run();
}

class SchemaComparison {
  readonly changes: SchemaChange[] = [];
  readonly #stack: Pair[] = [];
  readonly #compared = new Set<string>();

  constructor(
    readonly before: SchemaVersion,
    readonly after: SchemaVersion,
  ) {}

  run(): SchemaChange[] {
    this.#stack.push({
      before: { schema: this.before.schema, at: "" },
      after: { schema: this.after.schema, at: "" },
      path: "",
      flipped: false,
      exclusive: false,
      depth: 0,
      unevaluated: false,
      ancestors: undefined,
    });
    while (this.#stack.length > 0) {
      const pair = this.#stack.pop() as Pair;
      const children: Pair[] = [];
      this.#comparePair(pair, children);
      for (let i = children.length - 1; i >= 0; i--) this.#stack.push(children[i] as Pair);
    }
    return this.changes;
  }

  #comparePair(pair: Pair, children: Pair[]): void {
    const b = flatten(pair.before, this.before.schema);
    const a = flatten(pair.after, this.after.schema);
    const key = `${b.identity}\n${a.identity}\n${pair.flipped}`;
    for (let up = pair.ancestors; up !== undefined; up = up.parent) if (up.key === key) return;
    if (this.#compared.size >= MAX_PAIRS && this.#compared.has(key)) return;
    this.#compared.add(key);

    const row = new Rows(this.changes, pair, b, a);
    if (pair.depth > MAX_DEPTH) {
      if (canonical(pair.before.schema) !== canonical(pair.after.schema)) {
        row.add(
          "too-deep-to-compare",
          "different",
          "schema nested too deeply to compare: changed",
          "",
          undefined,
          undefined,
        );
      }
      return;
    }
    if (b.never || a.never) {
      if (b.never && !a.never)
        row.add("values-allowed", "wider", "accepts values where it accepted none", "", false, pair.after.schema);
      if (a.never && !b.never)
        row.add("values-refused", "narrower", "accepts no value at all", "", pair.before.schema, false);
      return;
    }
    const enclosing = pair.unevaluated || hasUnevaluated(b) || hasUnevaluated(a);
    row.inPlace = enclosing;
    const child = (before: Located, after: Located, path: string, flipped = pair.flipped, exclusive = false): void => {
      children.push({
        before,
        after,
        path,
        flipped,
        // An in-place applicator under `unevaluated*` counts only while it passes: narrowing it can drop what it
        // evaluated and so refuse more, or (in Ajv) accept more. Every change in it goes both ways.
        exclusive: pair.exclusive || exclusive || (path === pair.path && enclosing),
        depth: pair.depth + 1,
        // Only an applicator in place (same instance location) is seen by the enclosing `unevaluated*`.
        unevaluated: path === pair.path && enclosing,
        ancestors: { key, parent: pair.ancestors },
      });
    };

    if (pair.unevaluated) compareEvaluation(row, b, a);
    compareTypes(row, b, a);
    compareValues(row, b, a);
    compareBounds(row, b, a);
    compareStrings(row, b, a, this.before.formatsAsserted, this.after.formatsAsserted);
    compareObject(row, b, a, pair.path, child);
    compareArray(row, b, a, pair.path, child);
    compareBranches(row, b, a, pair.path, child, pair.flipped, (l, side) => flatten(l, this[side].schema));
    compareAnnotations(row, b, a);
  }
}

/** Adds changes for one pair, with the pointer of the keyword in the newer version where it exists. */
class Rows {
  /** This schema sits under an enclosing (or has its own) `unevaluated*` keyword: see {@link Pair.unevaluated}. */
  inPlace = false;

  constructor(
    readonly out: SchemaChange[],
    readonly pair: Pair,
    readonly before: Flat,
    readonly after: Flat,
  ) {}

  /**
   * Record a change of a keyword of this schema.
   * @param keyword the keyword, for the pointer ("" for the schema itself)
   */
  add(
    kind: string,
    direction: Direction,
    summary: string,
    keyword: string,
    before: unknown,
    after: unknown,
    path = this.pair.path,
  ): void {
    const holder = keyword === "" ? undefined : (this.after.keys.get(keyword) ?? this.before.keys.get(keyword));
    const at = holder?.at ?? this.after.at;
    this.at(kind, direction, summary, keyword === "" ? at : `${at}/${keyword}`, before, after, path);
  }

  /** Record a change at an explicit schema pointer. */
  at(
    kind: string,
    direction: Direction,
    summary: string,
    pointer: string,
    before: unknown,
    after: unknown,
    path = this.pair.path,
  ): void {
    // An in-place applicator added or removed changes what `unevaluated*` sees, which can accept or refuse more.
    const evaluation = this.inPlace && IN_PLACE_APPLICATOR.test(kind);
    const exclusive = (this.pair.exclusive || evaluation) && (direction === "wider" || direction === "narrower");
    const turned = this.pair.flipped ? flip(direction) : direction;
    const change: SchemaChange = {
      kind,
      direction: exclusive ? "different" : turned,
      path,
      pointer,
      summary,
    };
    if (before !== undefined) change.before = before;
    if (after !== undefined) change.after = after;
    this.out.push(change);
  }
}

function flip(direction: Direction): Direction {
  return direction === "wider" ? "narrower" : direction === "narrower" ? "wider" : direction;
}

/**
 * Merge a schema with what its `$ref` points at and its `allOf` branches, as one conjunction of keywords. A part
 * whose keyword clashes with one already merged stays apart in `rest`.
 */
function flatten(start: Located, root: JsonSchema, depth = 0): Flat {
  const flat: Flat = {
    at: start.at,
    identity: "",
    never: false,
    keys: new Map(),
    properties: new Map(),
    required: new Map(),
    rest: [],
  };
  const identity: string[] = [];
  const seen = new Set<string>();
  const queue: Located[] = [start];
  let first = true;
  while (queue.length > 0 && seen.size < 256) {
    const part = queue.shift() as Located;
    if (seen.has(part.at)) continue;
    seen.add(part.at);
    const schema = part.schema;
    if (schema === false) {
      flat.never = true;
      continue;
    }
    if (!isSchemaObject(schema)) continue;
    if (!first && clashes(schema, flat)) {
      flat.rest.push(part);
      continue;
    }
    first = false;
    let constrains = false;
    for (const [keyword, value] of Object.entries(schema)) {
      if (keyword === "$ref" && typeof value === "string" && value.startsWith("#")) {
        const pointer = fragmentToPointer(value.slice(1));
        const target = valueAt(root, pointer);
        if (isSchemaObject(target) || typeof target === "boolean") {
          queue.push({ schema: target, at: pointer });
          continue;
        }
      }
      if (STRUCTURAL.has(keyword)) continue;
      if (!ANNOTATIONS.has(keyword)) constrains = true;
      if (keyword === "allOf" && Array.isArray(value)) {
        value.forEach((branch, i) => {
          queue.push({ schema: branch as JsonSchema, at: `${part.at}/allOf/${i}` });
        });
      } else if (keyword === "properties" && isSchemaObject(value)) {
        for (const [name, property] of Object.entries(value)) {
          flat.properties.set(name, {
            schema: property as JsonSchema,
            at: `${part.at}/properties/${escapePointerToken(name)}`,
          });
        }
      } else if (keyword === "required" && Array.isArray(value)) {
        for (const name of value)
          if (typeof name === "string" && !flat.required.has(name)) flat.required.set(name, part.at);
      } else if (!flat.keys.has(keyword)) {
        flat.keys.set(keyword, { value, at: part.at });
      }
    }
    if (constrains) identity.push(part.at);
  }
  if (depth < 16) mergeNullable(flat, root, depth, identity);
  flat.identity = identity.length === 0 ? start.at : identity.join("\u0000");
  if (identity.length > 0 && identity[0] !== start.at) flat.at = identity[0] as string;
  return flat;
}

/**
 * Read the nullable form `anyOf: [S, {type: "null"}]` (what zod and many MCP servers write) as S with `"null"` added
 * to its `type`, the form `type: [T, "null"]` takes: moving from one form to the other is no change. Only when the
 * result is the same set of values: S names its types, does not allow null itself and lists no `enum`/`const`, and
 * nothing else beside the `anyOf` constrains.
 */
function mergeNullable(flat: Flat, root: JsonSchema, depth: number, identity: string[]): void {
  const keyword = flat.keys.has("anyOf") ? "anyOf" : "oneOf";
  const found = flat.keys.get(keyword);
  if (found === undefined || !Array.isArray(found.value) || found.value.length !== 2) return;
  const constraining = [...flat.keys.keys()].filter((k) => !ANNOTATIONS.has(k));
  if (
    constraining.length !== 1 ||
    flat.properties.size > 0 ||
    flat.required.size > 0 ||
    flat.rest.length > 0 ||
    flat.never
  )
    return;
  const isNull = (branch: unknown) =>
    isSchemaObject(branch) &&
    branch.type === "null" &&
    Object.keys(branch).every((k) => k === "type" || ANNOTATIONS.has(k));
  const nullAt = found.value.findIndex(isNull);
  if (nullAt < 0) return;
  const other = { schema: found.value[1 - nullAt] as JsonSchema, at: `${found.at}/${keyword}/${1 - nullAt}` };
  const inner = flatten(other, root, depth + 1);
  const types = typeSet(inner);
  if (inner.never || types === undefined || covers(types, "null") || inner.keys.has("enum") || inner.keys.has("const"))
    return;
  const typeAt = inner.keys.get("type")?.at ?? other.at;
  flat.keys.delete(keyword);
  for (const [k, v] of inner.keys) if (!flat.keys.has(k)) flat.keys.set(k, v);
  flat.keys.set("type", { value: [...types, "null"], at: typeAt });
  for (const [name, property] of inner.properties) flat.properties.set(name, property);
  for (const [name, at] of inner.required) flat.required.set(name, at);
  flat.rest.push(...inner.rest);
  identity.push(inner.identity);
}

/** Whether a schema object has a keyword that the merged conjunction already holds with another value. */
function clashes(schema: SchemaObject, flat: Flat): boolean {
  if (scopesClash(schema, flat)) return true;
  for (const [keyword, value] of Object.entries(schema)) {
    if (
      keyword === "$ref" ||
      keyword === "allOf" ||
      keyword === "required" ||
      STRUCTURAL.has(keyword) ||
      ANNOTATIONS.has(keyword)
    ) {
      continue;
    }
    if (keyword === "properties" && isSchemaObject(value)) {
      for (const [name, property] of Object.entries(value)) {
        const known = flat.properties.get(name);
        if (known !== undefined && canonical(known.schema) !== canonical(property)) return true;
      }
      continue;
    }
    const known = flat.keys.get(keyword);
    if (known !== undefined && canonical(known.value) !== canonical(value)) return true;
  }
  return false;
}

/**
 * Under an enclosing `unevaluatedProperties`/`unevaluatedItems`, which properties and items a schema evaluates is
 * part of its meaning: `additionalProperties`, `patternProperties`, `items`, `prefixItems` and `contains` appearing
 * or going away change what the enclosing keyword judges, which may accept or refuse more.
 */
function compareEvaluation(row: Rows, b: Flat, a: Flat): void {
  const evaluates = (flat: Flat) =>
    canonical({
      additionalProperties: flat.keys.has("additionalProperties"),
      patternProperties: isSchemaObject(flat.keys.get("patternProperties")?.value)
        ? Object.keys(flat.keys.get("patternProperties")?.value as SchemaObject).sort(compareText)
        : [],
      items: flat.keys.has("items"),
      prefixItems: tuple(flat).length,
      contains: flat.keys.has("contains"),
    });
  if (evaluates(b) !== evaluates(a)) {
    row.add(
      "evaluation-changed",
      "different",
      "what an enclosing unevaluated keyword sees changed",
      "",
      undefined,
      undefined,
    );
  }
}

/** Whether a schema constrains what its in-place applicators did not evaluate. */
function hasUnevaluated(flat: Flat): boolean {
  return ["unevaluatedProperties", "unevaluatedItems"].some((k) => {
    const found = flat.keys.get(k);
    return found !== undefined && !acceptsAnything(found.value as JsonSchema);
  });
}

/**
 * Whether merging would change what a scoped keyword sees. `additionalProperties` and `items` see only the
 * `properties`, `patternProperties` and `prefixItems` beside them; `unevaluatedProperties`/`unevaluatedItems` see
 * those of their own schema and its in-place applicators, but not of the schema around it. So a part is kept apart
 * when its scoped keyword would see the merged schema's declarations, or the merged schema's would see the part's.
 * (The merged schema's own `unevaluated*` may see the part's declarations: the part is one of its applicators.)
 */
function scopesClash(part: SchemaObject, flat: Flat): boolean {
  const has = (keyword: string) => flat.keys.has(keyword);
  const declaresProperties = (node: SchemaObject) =>
    node.properties !== undefined || node.patternProperties !== undefined;
  const flatProperties = flat.properties.size > 0 || has("patternProperties");
  const flatTuple = has("prefixItems") || Array.isArray(flat.keys.get("items")?.value);
  const partTuple = part.prefixItems !== undefined || Array.isArray(part.items);
  if (part.additionalProperties !== undefined && (flatProperties || has("additionalProperties"))) return true;
  if (has("additionalProperties") && declaresProperties(part)) return true;
  if (
    part.unevaluatedProperties !== undefined &&
    (flatProperties || has("additionalProperties") || has("unevaluatedProperties"))
  ) {
    return true;
  }
  const partRest = part.additionalItems !== undefined || (part.items !== undefined && !Array.isArray(part.items));
  const flatRest = has("additionalItems") || (has("items") && !Array.isArray(flat.keys.get("items")?.value));
  if (partRest && (flatTuple || flatRest)) return true;
  if (flatRest && partTuple) return true;
  if (part.unevaluatedItems !== undefined && (flatTuple || flatRest || has("unevaluatedItems") || has("contains")))
    return true;
  return false;
}

/** Whether a schema accepts every value: `true`, or an object with nothing but descriptions in it. */
function acceptsAnything(schema: JsonSchema): boolean {
  if (schema === true) return true;
  if (!isSchemaObject(schema)) return false;
  return Object.keys(schema).every((keyword) => ANNOTATIONS.has(keyword) || STRUCTURAL.has(keyword));
}

/** A keyword's value as a located subschema, or `fallback` where the keyword is absent. */
function subschema(flat: Flat, keyword: string, fallback: JsonSchema = true): Located {
  const found = flat.keys.get(keyword);
  return found === undefined
    ? { schema: fallback, at: `${flat.at}/${keyword}` }
    : { schema: found.value as JsonSchema, at: `${found.at}/${keyword}` };
}

type ChildOf = (before: Located, after: Located, path: string, flipped?: boolean, exclusive?: boolean) => void;

// ---------------------------------------------------------------------------------------------------- type and values

const JSON_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];

function typeSet(flat: Flat): Set<string> | undefined {
  const declared = flat.keys.get("type")?.value;
  if (typeof declared === "string") return new Set([declared]);
  if (Array.isArray(declared)) return new Set(declared.filter((t): t is string => typeof t === "string"));
  return undefined;
}

/** Whether a type set accepts every value of type `t` (every integer is a number). */
function covers(types: Set<string> | undefined, t: string): boolean {
  return types === undefined || types.has(t) || (t === "integer" && types.has("number"));
}

function compareTypes(row: Rows, b: Flat, a: Flat): void {
  // With `enum`/`const` on both sides, the values each accepts (filtered by its type) say it all: see compareValues.
  if (valueSet(b) !== undefined && valueSet(a) !== undefined) return;
  const before = typeSet(b);
  const after = typeSet(a);
  if (before === undefined && after === undefined) return;
  const shown = (flat: Flat) => flat.keys.get("type")?.value;
  const added = JSON_TYPES.filter((t) => covers(after, t) && !covers(before, t));
  const removed = JSON_TYPES.filter((t) => covers(before, t) && !covers(after, t));
  if (before === undefined) {
    row.add("type-added", "narrower", "type constrained", "type", undefined, shown(a));
  } else if (after === undefined) {
    row.add("type-removed", "wider", "type constraint removed", "type", shown(b), undefined);
  } else if (added.length > 0 && removed.length > 0) {
    row.add("type-changed", "different", "type changed", "type", shown(b), shown(a));
  } else if (added.length > 0) {
    row.add("type-widened", "wider", `type widened (${added.join(", ")} accepted)`, "type", shown(b), shown(a));
  } else if (removed.length > 0) {
    row.add("type-narrowed", "narrower", `type narrowed (${removed.join(", ")} refused)`, "type", shown(b), shown(a));
  }
}

/** The values `enum`/`const` allow, by canonical text, or undefined when neither keyword is there. */
function valueSet(flat: Flat): Map<string, unknown> | undefined {
  const constant = flat.keys.get("const");
  const listed = flat.keys.get("enum");
  let values: Map<string, unknown> | undefined;
  if (listed !== undefined && Array.isArray(listed.value)) values = new Map(listed.value.map((v) => [canonical(v), v]));
  if (constant !== undefined) {
    const text = canonical(constant.value);
    values = values === undefined || values.has(text) ? new Map([[text, constant.value]]) : new Map();
  }
  // A listed value of a type the schema does not allow is never accepted: `type` and `enum` both apply.
  const types = typeSet(flat);
  if (values !== undefined && types !== undefined) {
    values = new Map([...values].filter(([, value]) => covers(types, valueType(value))));
  }
  return values;
}

/** The JSON Schema type of a JSON value; a whole number is an `integer` (which every `number` type covers). */
function valueType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function compareValues(row: Rows, b: Flat, a: Flat): void {
  const before = valueSet(b);
  const after = valueSet(a);
  const keyword = a.keys.has("const") || (!a.keys.has("enum") && b.keys.has("const")) ? "const" : "enum";
  const listed = (flat: Flat) => [...(valueSet(flat)?.values() ?? [])];
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    row.add(`${keyword}-added`, "narrower", `values restricted (${keyword} added)`, keyword, undefined, listed(a));
    return;
  }
  if (after === undefined) {
    const was = b.keys.has("const") ? "const" : "enum";
    row.add(`${was}-removed`, "wider", `value restriction removed (${was} removed)`, was, listed(b), undefined);
    return;
  }
  for (const [text, value] of [...after].sort(([x], [y]) => compareText(x, y))) {
    if (!before.has(text)) row.add("enum-value-added", "wider", "value added", keyword, undefined, value);
  }
  for (const [text, value] of [...before].sort(([x], [y]) => compareText(x, y))) {
    if (!after.has(text)) row.add("enum-value-removed", "narrower", "value removed", keyword, value, undefined);
  }
}

// ------------------------------------------------------------------------------------------------------------- bounds

/** A numeric bound: its value, whether it is exclusive, and the keyword that set it. */
interface NumericBound {
  value: number;
  exclusive: boolean;
  keyword: string;
}

/** The tightest lower (or upper) numeric bound of a schema. */
function numericBound(flat: Flat, side: "lower" | "upper"): NumericBound | undefined {
  const [inclusive, exclusive] = side === "lower" ? ["minimum", "exclusiveMinimum"] : ["maximum", "exclusiveMaximum"];
  const candidates: NumericBound[] = [];
  const inc = flat.keys.get(inclusive)?.value;
  if (typeof inc === "number") candidates.push({ value: inc, exclusive: false, keyword: inclusive });
  const exc = flat.keys.get(exclusive)?.value;
  if (typeof exc === "number") candidates.push({ value: exc, exclusive: true, keyword: exclusive });
  let best: NumericBound | undefined;
  for (const candidate of candidates) if (best === undefined || tightness(candidate, best, side) > 0) best = candidate;
  return best;
}

/** > 0 when bound `x` admits fewer values than `y`. */
function tightness(x: NumericBound, y: NumericBound, side: "lower" | "upper"): number {
  if (x.value !== y.value) return side === "lower" ? x.value - y.value : y.value - x.value;
  return Number(x.exclusive) - Number(y.exclusive);
}

function compareBounds(row: Rows, b: Flat, a: Flat): void {
  for (const side of ["lower", "upper"] as const) {
    const before = numericBound(b, side);
    const after = numericBound(a, side);
    const shown = (bound: NumericBound | undefined) =>
      bound === undefined ? undefined : { [bound.keyword]: bound.value };
    const name = side === "lower" ? "minimum" : "maximum";
    const keyword = after?.keyword ?? before?.keyword ?? name;
    if (before === undefined && after === undefined) continue;
    if (before === undefined) row.add(`${name}-added`, "narrower", `${name} added`, keyword, undefined, shown(after));
    else if (after === undefined)
      row.add(`${name}-removed`, "wider", `${name} removed`, keyword, shown(before), undefined);
    else {
      const order = tightness(after, before, side);
      if (order > 0)
        row.add(
          `${name}-${side === "lower" ? "raised" : "lowered"}`,
          "narrower",
          `${name} tightened`,
          keyword,
          shown(before),
          shown(after),
        );
      if (order < 0)
        row.add(
          `${name}-${side === "lower" ? "lowered" : "raised"}`,
          "wider",
          `${name} loosened`,
          keyword,
          shown(before),
          shown(after),
        );
    }
  }

  for (const [lower, upper, absentLower] of COUNT_BOUNDS) {
    const count = (flat: Flat, keyword: string) => {
      const value = flat.keys.get(keyword)?.value;
      return typeof value === "number" ? value : undefined;
    };
    const [lb, la] = [count(b, lower), count(a, lower)];
    const [before, after] = [lb ?? absentLower, la ?? absentLower];
    if (after > before) row.add(`${lower}-raised`, "narrower", `${lower} raised`, lower, lb, la);
    if (after < before) row.add(`${lower}-lowered`, "wider", `${lower} lowered`, lower, lb, la);

    const [ub, ua] = [count(b, upper), count(a, upper)];
    if (ub === undefined && ua !== undefined)
      row.add(`${upper}-added`, "narrower", `${upper} added`, upper, undefined, ua);
    else if (ub !== undefined && ua === undefined)
      row.add(`${upper}-removed`, "wider", `${upper} removed`, upper, ub, undefined);
    else if (ub !== undefined && ua !== undefined && ua !== ub) {
      if (ua < ub) row.add(`${upper}-lowered`, "narrower", `${upper} lowered`, upper, ub, ua);
      else row.add(`${upper}-raised`, "wider", `${upper} raised`, upper, ub, ua);
    }
  }

  const mb = b.keys.get("multipleOf")?.value;
  const ma = a.keys.get("multipleOf")?.value;
  const step = (value: unknown) => (typeof value === "number" && value > 0 ? value : undefined);
  const [sb, sa] = [step(mb), step(ma)];
  if (sb !== sa) {
    if (sb === undefined) row.add("multipleOf-added", "narrower", "multipleOf added", "multipleOf", undefined, ma);
    else if (sa === undefined)
      row.add("multipleOf-removed", "wider", "multipleOf removed", "multipleOf", mb, undefined);
    else if (isMultiple(sa, sb))
      row.add("multipleOf-narrowed", "narrower", "multipleOf made coarser", "multipleOf", mb, ma);
    else if (isMultiple(sb, sa)) row.add("multipleOf-widened", "wider", "multipleOf made finer", "multipleOf", mb, ma);
    else row.add("multipleOf-changed", "different", "multipleOf changed", "multipleOf", mb, ma);
  }

  const ub = b.keys.get("uniqueItems")?.value === true;
  const ua = a.keys.get("uniqueItems")?.value === true;
  if (!ub && ua)
    row.add(
      "uniqueItems-added",
      "narrower",
      "items must be unique",
      "uniqueItems",
      b.keys.get("uniqueItems")?.value,
      true,
    );
  if (ub && !ua)
    row.add("uniqueItems-removed", "wider", "items may repeat", "uniqueItems", true, a.keys.get("uniqueItems")?.value);
}

/** Whether `x` is a whole multiple of `y` (within floating-point error). */
function isMultiple(x: number, y: number): boolean {
  const ratio = x / y;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

// --------------------------------------------------------------------------------------------------- strings (text)

function compareStrings(row: Rows, b: Flat, a: Flat, assertedBefore: boolean, assertedAfter: boolean): void {
  const pb = b.keys.get("pattern")?.value;
  const pa = a.keys.get("pattern")?.value;
  if (pb === undefined && pa !== undefined)
    row.add("pattern-added", "narrower", "pattern added", "pattern", undefined, pa);
  else if (pb !== undefined && pa === undefined)
    row.add("pattern-removed", "wider", "pattern removed", "pattern", pb, undefined);
  else if (pb !== pa) row.add("pattern-changed", "different", "pattern changed", "pattern", pb, pa);

  const fb = b.keys.get("format")?.value;
  const fa = a.keys.get("format")?.value;
  const checkedBefore = assertedBefore && fb !== undefined;
  const checkedAfter = assertedAfter && fa !== undefined;
  if (!checkedBefore && checkedAfter) row.add("format-asserted", "narrower", "format now checked", "format", fb, fa);
  else if (checkedBefore && !checkedAfter)
    row.add("format-unchecked", "wider", "format no longer checked", "format", fb, fa);
  else if (checkedBefore && checkedAfter && fb !== fa)
    row.add("format-changed", "different", "format changed", "format", fb, fa);
  else if (fb !== fa)
    row.add("format-annotation-changed", "annotation", "format changed (not checked)", "format", fb, fa);
}

// ------------------------------------------------------------------------------------------------------------ objects

/** The schema for a property a version does not declare by name: a matching pattern, else the additional schema. */
function undeclared(flat: Flat, name: string): Located {
  const patterns = flat.keys.get("patternProperties");
  if (patterns !== undefined && isSchemaObject(patterns.value)) {
    for (const pattern of Object.keys(patterns.value).sort(compareText)) {
      if (matches(pattern, name)) {
        return {
          schema: patterns.value[pattern] as JsonSchema,
          at: `${patterns.at}/patternProperties/${escapePointerToken(pattern)}`,
        };
      }
    }
  }
  return additional(flat);
}

/** The schema of properties declared nowhere: `additionalProperties`, else `unevaluatedProperties`, else `true`. */
function additional(flat: Flat): Located {
  if (flat.keys.has("additionalProperties")) return subschema(flat, "additionalProperties");
  if (flat.keys.has("unevaluatedProperties") && !appliesInPlace(flat)) return subschema(flat, "unevaluatedProperties");
  return { schema: true, at: `${flat.at}/additionalProperties` };
}

/**
 * Whether other subschemas apply at this same location (branches, conditionals, dependent schemas): then what
 * they declare counts as evaluated, and `unevaluated*` no longer means the same as `additionalProperties`/`items`.
 */
function appliesInPlace(flat: Flat): boolean {
  return (
    flat.rest.length > 0 ||
    ["anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"].some((k) => flat.keys.has(k))
  );
}

/**
 * `unevaluatedProperties`/`unevaluatedItems` where it is not already compared as the additional schema: beside
 * in-place applicators it refuses what none of them evaluated. Where everything is evaluated anyway (an
 * `additionalProperties`, an `items`) it has no effect, and counts as absent.
 */
function compareUnevaluated(
  row: Rows,
  b: Flat,
  a: Flat,
  keyword: "unevaluatedProperties" | "unevaluatedItems",
  path: string,
  child: ChildOf,
): void {
  const effective = (flat: Flat): Located => {
    const moot =
      keyword === "unevaluatedProperties"
        ? flat.keys.has("additionalProperties") || !appliesInPlace(flat)
        : (flat.keys.has("items") && !Array.isArray(flat.keys.get("items")?.value)) ||
          flat.keys.has("additionalItems") ||
          !(appliesInPlace(flat) || flat.keys.has("contains"));
    return moot ? { schema: true, at: `${flat.at}/${keyword}` } : subschema(flat, keyword);
  };
  const [eb, ea] = [effective(b), effective(a)];
  if (eb.schema === false && ea.schema !== false)
    row.at(`${keyword}-opened`, "wider", `${keyword} no longer refuses what is not evaluated`, ea.at, false, ea.schema);
  else if (ea.schema === false && eb.schema !== false)
    row.at(`${keyword}-closed`, "narrower", `${keyword} refuses what is not evaluated`, ea.at, eb.schema, false);
  else if (eb.schema !== false && !(acceptsAnything(eb.schema) && acceptsAnything(ea.schema))) child(eb, ea, path);
}

function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, "u").test(name);
  } catch {
    return false;
  }
}

function compareObject(row: Rows, b: Flat, a: Flat, path: string, child: ChildOf): void {
  for (const name of [...new Set([...a.required.keys(), ...b.required.keys()])].sort(compareText)) {
    const fieldPath = `${path}/${escapePointerToken(name)}`;
    const [was, is] = [b.required.get(name), a.required.get(name)];
    if (was === undefined && is !== undefined)
      row.at("required-added", "narrower", "now required", `${is}/required`, false, true, fieldPath);
    if (was !== undefined && is === undefined)
      row.at(
        "required-removed",
        "wider",
        "no longer required",
        `${[...a.required.values()][0] ?? was}/required`,
        true,
        false,
        fieldPath,
      );
  }

  for (const name of [...new Set([...b.properties.keys(), ...a.properties.keys()])].sort(compareText)) {
    const fieldPath = `${path}/${escapePointerToken(name)}`;
    const was = b.properties.get(name);
    const is = a.properties.get(name);
    if (was !== undefined && is !== undefined) {
      child(was, is, fieldPath);
    } else if (is !== undefined) {
      const before = undeclared(b, name);
      if (before.schema === false)
        row.at("field-added", "wider", "field added on a closed object", is.at, undefined, is.schema, fieldPath);
      else if (acceptsAnything(before.schema)) {
        if (row.inPlace)
          row.at(
            "field-declared",
            "different",
            "field declared where an enclosing unevaluated keyword sees it",
            is.at,
            undefined,
            is.schema,
            fieldPath,
          );
        else if (!acceptsAnything(is.schema))
          row.at(
            "field-declared",
            "narrower",
            "field declared on an open object",
            is.at,
            undefined,
            is.schema,
            fieldPath,
          );
      } else child(before, is, fieldPath);
    } else if (was !== undefined) {
      const after = undeclared(a, name);
      if (after.schema === false)
        row.at(
          "field-removed",
          "narrower",
          "field removed from a closed object",
          was.at,
          was.schema,
          undefined,
          fieldPath,
        );
      else if (acceptsAnything(after.schema)) {
        if (row.inPlace)
          row.at(
            "field-undeclared",
            "different",
            "field no longer declared where an enclosing unevaluated keyword sees it",
            was.at,
            was.schema,
            undefined,
            fieldPath,
          );
        else if (!acceptsAnything(was.schema))
          row.at(
            "field-undeclared",
            "wider",
            "field no longer declared: any value accepted",
            was.at,
            was.schema,
            undefined,
            fieldPath,
          );
      } else child(was, after, fieldPath);
    }
  }

  const [ab, aa] = [additional(b), additional(a)];
  const keyword =
    a.keys.has("additionalProperties") || !a.keys.has("unevaluatedProperties")
      ? "additionalProperties"
      : "unevaluatedProperties";
  const closedBefore = ab.schema === false;
  const closedAfter = aa.schema === false;
  if (closedBefore && !closedAfter)
    row.at("object-opened", "wider", "object opened: other properties accepted", aa.at, false, aa.schema);
  else if (!closedBefore && closedAfter)
    row.add("object-closed", "narrower", "object closed: other properties refused", keyword, ab.schema, false);
  else if (!closedBefore && !closedAfter && !(acceptsAnything(ab.schema) && acceptsAnything(aa.schema)))
    child(ab, aa, `${path}/*`);
  compareUnevaluated(row, b, a, "unevaluatedProperties", `${path}/*`, child);

  const patterns = (flat: Flat) => {
    const value = flat.keys.get("patternProperties");
    return value !== undefined && isSchemaObject(value.value)
      ? { map: value.value, at: `${value.at}/patternProperties` }
      : undefined;
  };
  const [pb, pa] = [patterns(b), patterns(a)];
  for (const pattern of [...new Set([...Object.keys(pb?.map ?? {}), ...Object.keys(pa?.map ?? {})])].sort(
    compareText,
  )) {
    const was =
      pb !== undefined && Object.hasOwn(pb.map, pattern)
        ? { schema: pb.map[pattern] as JsonSchema, at: `${pb.at}/${escapePointerToken(pattern)}` }
        : undefined;
    const is =
      pa !== undefined && Object.hasOwn(pa.map, pattern)
        ? { schema: pa.map[pattern] as JsonSchema, at: `${pa.at}/${escapePointerToken(pattern)}` }
        : undefined;
    // A declared property whose name matches is constrained by the pattern too: taking the pattern away
    // loosens it, while names declared nowhere move between the pattern and the additional schema.
    const declaredMatch = [...b.properties.keys(), ...a.properties.keys()].some((name) => matches(pattern, name));
    if (was !== undefined && is !== undefined) child(was, is, `${path}/*`);
    else if (is !== undefined) {
      const before = additional(b);
      const summary = "properties matching a pattern constrained";
      if (before.schema === false) {
        row.at(
          "pattern-properties-added",
          declaredMatch ? "different" : "wider",
          "properties matching a pattern accepted",
          is.at,
          undefined,
          pattern,
        );
      } else if (acceptsAnything(before.schema))
        row.at("pattern-properties-added", "narrower", summary, is.at, undefined, pattern);
      else if (declaredMatch) row.at("pattern-properties-added", "different", summary, is.at, undefined, pattern);
      else child(before, is, `${path}/*`);
    } else if (was !== undefined) {
      const after = additional(a);
      const summary = "properties matching a pattern no longer constrained by it";
      if (after.schema === false) {
        row.at(
          "pattern-properties-removed",
          declaredMatch ? "different" : "narrower",
          "properties matching a pattern refused",
          was.at,
          pattern,
          undefined,
        );
      } else if (acceptsAnything(after.schema))
        row.at("pattern-properties-removed", "wider", summary, was.at, pattern, undefined);
      else if (declaredMatch) row.at("pattern-properties-removed", "different", summary, was.at, pattern, undefined);
      else child(was, after, `${path}/*`);
    }
  }

  optional(row, b, a, "propertyNames", path, child);
  compareDependencies(row, b, a, path, child);
}

/** `dependentRequired` (and draft-07 array `dependencies`): property → names required with it. */
function dependentRequired(flat: Flat): Map<string, { names: Set<string>; at: string }> {
  const out = new Map<string, { names: Set<string>; at: string }>();
  for (const keyword of ["dependentRequired", "dependencies"]) {
    const found = flat.keys.get(keyword);
    if (found === undefined || !isSchemaObject(found.value)) continue;
    for (const [name, value] of Object.entries(found.value)) {
      if (!Array.isArray(value)) continue;
      const names = out.get(name)?.names ?? new Set<string>();
      for (const other of value) if (typeof other === "string") names.add(other);
      out.set(name, { names, at: `${found.at}/${keyword}/${escapePointerToken(name)}` });
    }
  }
  return out;
}

/** `dependentSchemas` (and draft-07 schema `dependencies`): property → schema applied when it is present. */
function dependentSchemas(flat: Flat): Map<string, Located> {
  const out = new Map<string, Located>();
  for (const keyword of ["dependentSchemas", "dependencies"]) {
    const found = flat.keys.get(keyword);
    if (found === undefined || !isSchemaObject(found.value)) continue;
    for (const [name, value] of Object.entries(found.value)) {
      if (isSchemaObject(value) || typeof value === "boolean")
        out.set(name, { schema: value, at: `${found.at}/${keyword}/${escapePointerToken(name)}` });
    }
  }
  return out;
}

function compareDependencies(row: Rows, b: Flat, a: Flat, path: string, child: ChildOf): void {
  const [rb, ra] = [dependentRequired(b), dependentRequired(a)];
  for (const name of [...new Set([...rb.keys(), ...ra.keys()])].sort(compareText)) {
    const was = rb.get(name);
    const is = ra.get(name);
    const fieldPath = `${path}/${escapePointerToken(name)}`;
    for (const other of [...(is?.names ?? [])].sort(compareText)) {
      if (!was?.names.has(other))
        row.at(
          "dependent-required-added",
          "narrower",
          `requires ${JSON.stringify(other)} when present`,
          (is as { at: string }).at,
          undefined,
          other,
          fieldPath,
        );
    }
    for (const other of [...(was?.names ?? [])].sort(compareText)) {
      if (!is?.names.has(other))
        row.at(
          "dependent-required-removed",
          "wider",
          `no longer requires ${JSON.stringify(other)}`,
          (is ?? was)?.at ?? a.at,
          other,
          undefined,
          fieldPath,
        );
    }
  }
  const [sb, sa] = [dependentSchemas(b), dependentSchemas(a)];
  for (const name of [...new Set([...sb.keys(), ...sa.keys()])].sort(compareText)) {
    const was = sb.get(name);
    const is = sa.get(name);
    if (was !== undefined && is !== undefined) child(was, is, path);
    else if (is !== undefined && !acceptsAnything(is.schema))
      row.at(
        "dependent-schema-added",
        "narrower",
        `constrained when ${JSON.stringify(name)} is present`,
        is.at,
        undefined,
        is.schema,
      );
    else if (was !== undefined && !acceptsAnything(was.schema))
      row.at(
        "dependent-schema-removed",
        "wider",
        `no longer constrained when ${JSON.stringify(name)} is present`,
        was.at,
        was.schema,
        undefined,
      );
  }
}

/**
 * A keyword whose absence means "no constraint" (`propertyNames`, `contains`, `not`, `then`, `else`): added is
 * narrower, removed is wider, present in both is compared inside.
 */
function optional(
  row: Rows,
  b: Flat,
  a: Flat,
  keyword: string,
  path: string,
  child: ChildOf,
  flipped?: boolean,
  exclusive?: boolean,
): void {
  const was = b.keys.get(keyword);
  const is = a.keys.get(keyword);
  if (was === undefined && is === undefined) return;
  const [lb, la] = [subschema(b, keyword), subschema(a, keyword)];
  // `not: X` refuses more as X accepts more: adding `not: {}` refuses everything, adding `not: false` nothing.
  // `contains: true` still asks for one item (unless `minContains` is 0), and `maxContains` counts its matches.
  const constrains = (flat: Flat, schema: JsonSchema) =>
    keyword === "not"
      ? schema !== false
      : keyword === "contains"
        ? flat.keys.get("minContains")?.value !== 0 || flat.keys.has("maxContains")
        : !acceptsAnything(schema);
  const adds = constrains(a, la.schema);
  const removes = constrains(b, lb.schema);
  if (was === undefined) {
    if (adds) row.add(`${keyword}-added`, "narrower", `${keyword} added`, keyword, undefined, la.schema);
  } else if (is === undefined) {
    if (removes) row.add(`${keyword}-removed`, "wider", `${keyword} removed`, keyword, lb.schema, undefined);
  } else {
    child(lb, la, path, flipped, exclusive);
  }
}

// ------------------------------------------------------------------------------------------------------------- arrays

/** The tuple part of an array schema: `prefixItems`, or draft-07's `items` array. */
function tuple(flat: Flat): Located[] {
  const prefix =
    flat.keys.get("prefixItems") ?? (Array.isArray(flat.keys.get("items")?.value) ? flat.keys.get("items") : undefined);
  if (prefix === undefined || !Array.isArray(prefix.value)) return [];
  const keyword = flat.keys.get("prefixItems") === prefix ? "prefixItems" : "items";
  return prefix.value.map((schema, i) => ({ schema: schema as JsonSchema, at: `${prefix.at}/${keyword}/${i}` }));
}

/** The schema of items after the tuple: `items`, draft-07 `additionalItems`, else `unevaluatedItems`, else `true`. */
function restItems(flat: Flat): Located {
  const items = flat.keys.get("items");
  if (items !== undefined && !Array.isArray(items.value)) return subschema(flat, "items");
  if (items !== undefined && flat.keys.has("additionalItems")) return subschema(flat, "additionalItems");
  if (items !== undefined) return { schema: true, at: `${items.at}/additionalItems` };
  if (flat.keys.has("unevaluatedItems") && !appliesInPlace(flat) && !flat.keys.has("contains"))
    return subschema(flat, "unevaluatedItems");
  return subschema(flat, "items");
}

function compareArray(row: Rows, b: Flat, a: Flat, path: string, child: ChildOf): void {
  const [tb, ta] = [tuple(b), tuple(a)];
  const [rb, ra] = [restItems(b), restItems(a)];
  for (let i = 0; i < Math.max(tb.length, ta.length); i++) {
    item(row, tb[i] ?? rb, ta[i] ?? ra, `${path}/${i}`, child, `item ${i}`);
  }
  item(row, rb, ra, `${path}/*`, child, "items");
  // Under `maxContains`, more items matching `contains` may be too many: a change inside is both ways. Beside
  // `unevaluatedItems` too: Ajv (which the generated validators come from) does not count `contains: {}` as
  // evaluating the items it matches, so there a wider `contains` can refuse more.
  const counted = ["maxContains", "unevaluatedItems"].some((k) => b.keys.has(k) || a.keys.has(k));
  optional(row, b, a, "contains", `${path}/*`, child, undefined, counted);
  compareUnevaluated(row, b, a, "unevaluatedItems", `${path}/*`, child);
}

/** Two versions of an item schema, where `false` (no item allowed) is a change of its own. */
function item(row: Rows, was: Located, is: Located, path: string, child: ChildOf, what: string): void {
  if (was.schema === false && is.schema !== false)
    row.at("items-allowed", "wider", `${what} allowed`, is.at, false, is.schema, path);
  else if (is.schema === false && was.schema !== false)
    row.at("items-refused", "narrower", `${what} refused`, is.at, was.schema, false, path);
  else if (!(acceptsAnything(was.schema) && acceptsAnything(is.schema))) child(was, is, path);
}

// ---------------------------------------------------------------------------------------------------------- branches

function branchesOf(flat: Flat, keyword: string): Located[] {
  const found = flat.keys.get(keyword);
  if (found === undefined || !Array.isArray(found.value)) return [];
  return found.value.map((schema, i) => ({ schema: schema as JsonSchema, at: `${found.at}/${keyword}/${i}` }));
}

/**
 * Match the branches of two versions of `anyOf`/`oneOf`: identical branches first (reordering is no change), then
 * branches of the same type or constant, then by position.
 */
function matchBranches(
  before: Located[],
  after: Located[],
): { pairs: Array<[Located, Located]>; removed: Located[]; added: Located[] } {
  const left = [...before];
  const right = [...after];
  const pairs: Array<[Located, Located]> = [];
  const take = (key: (l: Located) => string) => {
    for (let i = 0; i < left.length; ) {
      const k = key(left[i] as Located);
      const j = right.findIndex((r) => key(r) === k);
      if (j >= 0) {
        pairs.push([left[i] as Located, right[j] as Located]);
        left.splice(i, 1);
        right.splice(j, 1);
      } else i++;
    }
  };
  take((l) => canonical(l.schema));
  take((l) =>
    isSchemaObject(l.schema)
      ? canonical([l.schema.type ?? null, l.schema.const ?? null, l.schema.$ref ?? null])
      : String(l.schema),
  );
  while (left.length > 0 && right.length > 0) pairs.push([left.shift() as Located, right.shift() as Located]);
  return { pairs, removed: left, added: right };
}

/**
 * Whether no value can match two of these `oneOf` branches, as far as their types, constants or a required
 * discriminating property with constant values tell. Then `oneOf` behaves as `anyOf`: more in a branch is more in all.
 */
function disjoint(branches: Flat[]): boolean {
  const pairwise = <T>(items: T[], overlap: (x: T, y: T) => boolean) =>
    items.every((x, i) => items.every((y, j) => j <= i || !overlap(x, y)));
  const types = branches.map(typeSet);
  if (
    types.every((t) => t !== undefined) &&
    pairwise(types, (x, y) => JSON_TYPES.some((t) => covers(x, t) && covers(y, t)))
  ) {
    return true;
  }
  const shared = (x: Map<string, unknown>, y: Map<string, unknown>) => [...x.keys()].some((k) => y.has(k));
  const values = branches.map(valueSet);
  if (values.every((v) => v !== undefined) && pairwise(values as Array<Map<string, unknown>>, shared)) return true;
  const first = branches[0];
  if (first === undefined) return true;
  for (const name of first.required.keys()) {
    const tags = branches.map((flat) => {
      const property = flat.properties.get(name);
      if (!flat.required.has(name) || property === undefined || !isSchemaObject(property.schema)) return undefined;
      const { const: constant, enum: listed } = property.schema;
      if (constant !== undefined) return new Map([[canonical(constant), constant]]);
      return Array.isArray(listed) ? new Map(listed.map((v) => [canonical(v), v])) : undefined;
    });
    if (tags.every((t) => t !== undefined) && pairwise(tags as Array<Map<string, unknown>>, shared)) return true;
  }
  return false;
}

function compareBranches(
  row: Rows,
  b: Flat,
  a: Flat,
  path: string,
  child: ChildOf,
  flipped: boolean,
  flat: (branch: Located, side: "before" | "after") => Flat,
): void {
  for (const keyword of ["anyOf", "oneOf"]) {
    const [was, is] = [branchesOf(b, keyword), branchesOf(a, keyword)];
    if (was.length === 0 && is.length === 0) continue;
    if (was.length === 0) {
      row.add(`${keyword}-added`, "narrower", `${keyword} added`, keyword, undefined, a.keys.get(keyword)?.value);
      continue;
    }
    if (is.length === 0) {
      row.add(`${keyword}-removed`, "wider", `${keyword} removed`, keyword, b.keys.get(keyword)?.value, undefined);
      continue;
    }
    const matched = matchBranches(was, is);
    // Branches that may overlap make `oneOf` non-monotonic: a value matching two branches is refused.
    const exclusive =
      keyword === "oneOf" &&
      !(disjoint(was.map((x) => flat(x, "before"))) && disjoint(is.map((y) => flat(y, "after"))));
    const [narrower, wider] = exclusive ? (["different", "different"] as const) : (["narrower", "wider"] as const);
    for (const [x, y] of matched.pairs) child(x, y, path, flipped, exclusive);
    for (const x of matched.removed)
      row.at(`${keyword}-branch-removed`, narrower, `${keyword} branch removed`, x.at, x.schema, undefined);
    for (const y of matched.added)
      row.at(`${keyword}-branch-added`, wider, `${keyword} branch added`, y.at, undefined, y.schema);
  }

  // `allOf` branches that could not be merged: every one must hold, so one more is narrower.
  const [rb, ra] = [b.rest, a.rest];
  for (let i = 0; i < Math.max(rb.length, ra.length); i++) {
    const [x, y] = [rb[i], ra[i]];
    if (x !== undefined && y !== undefined) child(x, y, path);
    else if (y !== undefined) row.at("allOf-branch-added", "narrower", "allOf branch added", y.at, undefined, y.schema);
    else if (x !== undefined)
      row.at("allOf-branch-removed", "wider", "allOf branch removed", x.at, x.schema, undefined);
  }

  optional(row, b, a, "not", path, child, !flipped);

  const [ib, ia] = [b.keys.get("if"), a.keys.get("if")];
  // Without `if`, `then` and `else` are ignored: adding a condition can only constrain, removing it only loosen.
  const guarded = (flat: Flat) => flat.keys.has("then") || flat.keys.has("else");
  if (ib === undefined && ia !== undefined) {
    if (guarded(a)) row.add("if-added", "narrower", "condition (if) added", "if", undefined, ia.value);
  } else if (ib !== undefined && ia === undefined) {
    if (guarded(b))
      row.add("if-removed", "wider", "condition (if) removed: then/else no longer apply", "if", ib.value, undefined);
  } else if (canonical(ib?.value ?? true) !== canonical(ia?.value ?? true)) {
    row.add("if-changed", "different", "condition (if) changed", "if", ib?.value, ia?.value);
  } else {
    optional(row, b, a, "then", path, child);
    optional(row, b, a, "else", path, child);
  }

  for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    // Only a reference the bundle could not turn into a `#/…` pointer is still a keyword here.
    const [x, y] = [b.keys.get(keyword)?.value, a.keys.get(keyword)?.value];
    if (x !== y) row.add(`${keyword}-changed`, "different", `${keyword} changed`, keyword, x, y);
  }
}

// -------------------------------------------------------------------------------------------------------- annotations

function compareAnnotations(row: Rows, b: Flat, a: Flat): void {
  const keywords = [...new Set([...b.keys.keys(), ...a.keys.keys()])].sort(compareText);
  for (const keyword of keywords) {
    if (COMPARED.has(keyword) || keyword === "$ref" || keyword === "$dynamicRef" || keyword === "$recursiveRef")
      continue;
    const [x, y] = [b.keys.get(keyword)?.value, a.keys.get(keyword)?.value];
    if (canonical(x ?? null) === canonical(y ?? null) && (x === undefined) === (y === undefined)) continue;
    row.add(`${keyword}-changed`, "annotation", `${keyword} changed`, keyword, x, y);
  }
}
