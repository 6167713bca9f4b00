/**
 * The check stage: how large and how deep can a valid result be?
 *
 * `checkBounds` reads a bundled schema (every `$ref` a `#/…` pointer into it) and derives a sound upper bound on
 * the compact JSON text of any value the schema accepts, and on its nesting depth. Where no bound exists it says
 * why, as findings that point at the schema location to fix. The receive ceiling and the lock file's derived
 * bounds come from here, so the bound must never be below the size of a legitimate result.
 *
 * The analysis is an abstract interpretation over the six JSON types: each schema maps to, per type it admits,
 * an upper bound on bytes and on depth. Conjunctions (sibling keywords, `allOf`, a 2020-12 `$ref` beside other
 * keywords) are merged keyword by keyword, so `allOf: [{maxItems: 5}, {items: …}]` is bounded; disjunctions
 * (`anyOf`, `oneOf`) take the larger bound per type; `not`, `if`/`then`/`else`, `dependentSchemas` and `contains`
 * only ever narrow what is valid, so ignoring them keeps every bound sound (merely less tight).
 */

import { pointerOf } from "../errors.js";
import type { Dialect, JsonSchema, SchemaObject } from "../schema.js";

/** Why part of a schema has no size bound. */
export type FindingKind =
  /** A string with no `maxLength`, `enum`, `const`, anchored bounded `pattern` or fixed-size asserted `format`. */
  | "string-without-maxLength"
  /** An array with no `maxItems` that is not a closed tuple. */
  | "array-without-maxItems"
  /** An object that admits unknown keys without a bound on their number, names or values. */
  | "object-open"
  /** A `$ref` that leads back to a schema it is inside of: values may nest without limit. */
  | "nesting-unbounded"
  /** A schema that accepts any JSON value (`true`, `{}`, or items/values with no schema at all). */
  | "any-value"
  /** A `$ref` that is not a `#/…` pointer to a schema inside the bundled document. */
  | "ref-unresolved"
  /** A `$dynamicRef`/`$recursiveRef`: its target depends on the dynamic scope, so it is not bounded statically. */
  | "dynamic-ref"
  /** Schema nesting deeper than the checker follows; treated as unbounded rather than overflowing the stack. */
  | "schema-too-deep"
  /** The schema accepts no value at all (for example `false`): every result will be refused. */
  | "no-valid-value";

/** One place in a schema that leaves the result size unbounded. */
export interface Finding {
  /** JSON pointer into the schema given (the caller prefixes the contract pointer, e.g. /outputSchema). */
  pointer: string;
  kind: FindingKind;
  /** One line that says what to add. */
  message: string;
}

/** What the checker derived about a schema's results. */
export interface BoundsReport {
  /** Every reason a bound is missing, sorted by pointer then kind; empty when `maxBytes` is a number. */
  findings: Finding[];
  /**
   * Largest legitimate result in bytes (UTF-8 JSON as a tool would send it, compact), when every part is bounded;
   * else null. See {@link checkBounds} for why it is an upper bound.
   */
  maxBytes: number | null;
  /** Deepest nesting of arrays/objects a valid value can have, when bounded (no recursion through $ref); else null. */
  maxDepth: number | null;
}

/** How the schema is read. Both settings have the defaults the rest of the pipeline uses. */
export interface CheckOptions {
  /**
   * `assert` when the generated validator checks `format` (x-toolgate `formats: "assert"`); only then does a
   * fixed-size format bound a string. Default `annotate`, the 2020-12 default: a format then proves nothing.
   */
  formats?: "annotate" | "assert";
  /**
   * The schema's dialect. Default: read from the root `$schema`, else 2020-12. It matters for `$ref`: before
   * 2019-09, keywords beside a `$ref` are ignored, so they must not tighten the bound.
   */
  dialect?: Dialect;
}

/**
 * The most bytes one JSON number takes when written in shortest round-trip form, as `JSON.stringify`, Python's
 * `repr` and Go's `encoding/json` write an IEEE-754 double: 17 significant digits at most. The longest forms are
 * `-0.0000012345678901234567` (ECMAScript writes values in [1e-6, 1e-5) in plain notation: sign, `0.`, five zeros,
 * 17 digits = 25) and `-1.7976931348623157e+308` (24). JSON itself puts no limit on a numeral (`1.000…0`, huge
 * integers), but such a value cannot survive `JSON.parse` into a double unchanged, and the gate parses with it;
 * numerals longer than the shortest form are outside this bound.
 */
export const MAX_NUMBER_BYTES = 25;

/**
 * The most bytes one code point of an unknown string takes in JSON text: a tool may escape every character, and a
 * code point outside the BMP is then two `\uXXXX` escapes (12 bytes). Raw UTF-8 is at most 4 bytes, an escape
 * of a BMP character 6, so 12 per code point (`maxLength` counts code points) covers every legal encoding.
 */
export const MAX_BYTES_PER_CODE_POINT = 12;

/**
 * The most bytes one UTF-16 code unit of a known string (an `enum`/`const` value, a declared property name) takes:
 * 6, as a `\uXXXX` escape. Counting known strings this way keeps the bound sound for tools that escape everything.
 */
export const MAX_BYTES_PER_CODE_UNIT = 6;

/**
 * Formats whose every valid string (as ajv-formats checks them, full and fast modes) has at most this many
 * characters, all in the BMP. Deliberately small: `date-time` and `time` are absent because RFC 3339 allows any
 * number of fractional-second digits; `hostname` is bounded by its 253-character lookahead plus a trailing dot.
 */
export const FIXED_SIZE_FORMATS: Readonly<Record<string, number>> = {
  date: 10,
  ipv4: 15,
  ipv6: 45,
  uuid: 45,
  hostname: 254,
};

/** Subschema nesting the checker follows before it gives up (soundly, with a finding) instead of overflowing. */
const MAX_SCHEMA_NESTING = 256;

/**
 * Derive the size and depth bounds of a bundled schema, with a finding for every part that leaves them open.
 *
 * Why `maxBytes` is an upper bound on the compact JSON text of every valid value (no whitespace between tokens;
 * duplicate keys are not a legitimate result, as `JSON.parse` would drop all but one):
 * - `null` 4, `true` 4, `false` 5 bytes; a number at most {@link MAX_NUMBER_BYTES}.
 * - A string: 2 quotes plus, for an unknown string of at most n code points, 12·n ({@link MAX_BYTES_PER_CODE_POINT});
 *   for a known string (`enum`, `const`, a property name) 6 per UTF-16 unit ({@link MAX_BYTES_PER_CODE_UNIT}).
 *   A pattern bounds a string only when every alternative is anchored with `^…$` and every repetition has an upper
 *   bound; each matched character then counts 6 bytes, or 12 where it may lie outside the BMP.
 * - An array of at most n items: `[`, `]`, n−1 commas and the sum of the largest bound of each position.
 * - An object: braces, commas, and per key its name, a colon and its value. A closed object holds only the
 *   declared keys, so the bound sums them all (or the `maxProperties` largest); unknown keys are bounded only with
 *   `maxProperties` and bounded names (`propertyNames`, or anchored bounded `patternProperties`).
 * - `anyOf`/`oneOf` take the larger bound per type; every conjunct (siblings, `allOf`, `$ref`) must hold, so the
 *   smaller bound per type, and per keyword (the smallest `maxItems`, every schema for an item or property).
 * A bound is only ever replaced by a smaller one when a keyword that must hold proves it, and every keyword the
 * checker ignores can only make fewer values valid, so the result is never below a legitimate result's size.
 *
 * Pure: never mutates the schema. Terminates on recursive schemas: a `$ref` back into a schema being bounded is
 * reported as `nesting-unbounded`.
 */
export function checkBounds(schema: JsonSchema, options: CheckOptions = {}): BoundsReport {
  const walker = new BoundsWalker(schema, options.dialect ?? dialectOf(schema), options.formats ?? "annotate");
  const bound = walker.evaluate("", schema);
  const extent = collapse(bound);
  const causes: Finding[] = [];
  if (extent === undefined) {
    causes.push({ pointer: "", kind: "no-valid-value", message: "schema accepts no value: every result is refused" });
    return { findings: causes, maxBytes: 0, maxDepth: 0 };
  }
  causes.push(...extent.bytes.causes, ...extent.depth.causes);
  return {
    findings: sortFindings(causes),
    maxBytes: Number.isFinite(extent.bytes.n) ? extent.bytes.n : null,
    maxDepth: Number.isFinite(extent.depth.n) ? extent.depth.n : null,
  };
}

/**
 * Worst-case bytes of the characters a regular expression can match (quotes excluded), or null when the pattern
 * is not provably bounded: not anchored `^…$` in every top-level alternative, an unbounded repetition, a
 * back-reference, or syntax this small reader does not follow. Read as Ajv compiles it (`u` flag).
 */
export function patternMaxBytes(pattern: string): number | null {
  try {
    const reader = new PatternReader(pattern);
    const alternatives = reader.disjunction();
    if (!reader.atEnd()) return null;
    let max = 0;
    for (const terms of alternatives) {
      const first = terms[0];
      const last = terms[terms.length - 1];
      if (first?.kind !== "start" || last?.kind !== "end") return null;
      max = Math.max(max, sumTerms(terms));
    }
    return Number.isFinite(max) ? max : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Sizes that carry the reasons they are unbounded.

/** A bound: finite `n` with no causes, or `n = Infinity` with the findings that explain it. */
interface Size {
  readonly n: number;
  readonly causes: readonly Finding[];
}

/** Bytes and depth bounds over every value of one JSON type. */
interface Extent {
  readonly bytes: Size;
  readonly depth: Size;
}

const JSON_TYPES = ["null", "boolean", "number", "string", "array", "object"] as const;
type JsonType = (typeof JSON_TYPES)[number];

/** Per JSON type a schema admits, its extent; a type that is absent has no valid value. */
type Bound = Partial<Record<JsonType, Extent>>;

const ZERO: Size = { n: 0, causes: [] };

function fixed(n: number): Size {
  return { n, causes: [] };
}

function unbounded(finding: Finding): Size {
  return { n: Number.POSITIVE_INFINITY, causes: [finding] };
}

function mergeCauses(a: readonly Finding[], b: readonly Finding[]): readonly Finding[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const seen = new Set(a.map(findingKey));
  return [...a, ...b.filter((f) => !seen.has(findingKey(f)))];
}

function plus(a: Size, b: Size): Size {
  const n = a.n + b.n;
  if (Number.isFinite(n)) return fixed(n);
  return { n, causes: mergeCauses(Number.isFinite(a.n) ? [] : a.causes, Number.isFinite(b.n) ? [] : b.causes) };
}

function larger(a: Size, b: Size): Size {
  if (Number.isFinite(a.n) && Number.isFinite(b.n)) return fixed(Math.max(a.n, b.n));
  return plus(a, b);
}

/** The tighter of two bounds that both hold. When neither is finite, the first one's causes are the fix to name. */
function smaller(a: Size, b: Size): Size {
  if (Number.isFinite(a.n) || Number.isFinite(b.n)) return fixed(Math.min(a.n, b.n));
  return a;
}

function times(count: number, a: Size): Size {
  if (count === 0) return ZERO;
  if (!Number.isFinite(a.n)) return a;
  return fixed(count * a.n);
}

function intersect(a: Bound, b: Bound): Bound {
  const out: Bound = {};
  for (const t of JSON_TYPES) {
    const x = a[t];
    const y = b[t];
    if (x !== undefined && y !== undefined) {
      out[t] = { bytes: smaller(x.bytes, y.bytes), depth: smaller(x.depth, y.depth) };
    }
  }
  return out;
}

function union(a: Bound, b: Bound): Bound {
  const out: Bound = {};
  for (const t of JSON_TYPES) {
    const x = a[t];
    const y = b[t];
    if (x !== undefined && y !== undefined) {
      out[t] = { bytes: larger(x.bytes, y.bytes), depth: larger(x.depth, y.depth) };
    } else {
      const only = x ?? y;
      if (only !== undefined) out[t] = only;
    }
  }
  return out;
}

/** The extent over every type a bound admits; undefined when it admits nothing. */
function collapse(bound: Bound): Extent | undefined {
  let out: Extent | undefined;
  for (const t of JSON_TYPES) {
    const e = bound[t];
    if (e === undefined) continue;
    out = out === undefined ? e : { bytes: larger(out.bytes, e.bytes), depth: larger(out.depth, e.depth) };
  }
  return out;
}

const SCALARS: Bound = {
  null: { bytes: fixed(4), depth: ZERO },
  boolean: { bytes: fixed(5), depth: ZERO },
  number: { bytes: fixed(MAX_NUMBER_BYTES), depth: ZERO },
};

/** Every JSON value: strings, arrays and objects unbounded for the reason given. */
function anyValue(finding: Finding): Bound {
  const open = unbounded(finding);
  return {
    ...SCALARS,
    string: { bytes: open, depth: ZERO },
    array: { bytes: open, depth: open },
    object: { bytes: open, depth: open },
  };
}

function findingKey(f: Finding): string {
  return `${f.pointer}\u0000${f.kind}`;
}

function sortFindings(findings: readonly Finding[]): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const f of findings) if (!byKey.has(findingKey(f))) byKey.set(findingKey(f), f);
  return [...byKey.values()].sort((a, b) =>
    a.pointer === b.pointer ? compareText(a.kind, b.kind) : compareText(a.pointer, b.pointer),
  );
}

/** Code-unit order, so the report is byte-identical everywhere (no locale collation). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Known values (enum, const) and known strings.

/** Worst-case bytes of a known string: two quotes and one `\uXXXX` escape per UTF-16 unit. */
function knownStringBytes(text: string): number {
  return 2 + MAX_BYTES_PER_CODE_UNIT * text.length;
}

/** The bound of one literal JSON value, as a tool may write it. */
function literalBound(value: unknown, pointer: string): Bound {
  const extent = literalExtent(value, pointer, 0);
  const t = jsonTypeOf(value);
  return t === undefined ? {} : { [t]: extent };
}

function literalExtent(value: unknown, pointer: string, nesting: number): Extent {
  if (nesting > MAX_SCHEMA_NESTING) {
    const open = unbounded(tooDeep(pointer));
    return { bytes: open, depth: open };
  }
  if (value === null) return { bytes: fixed(4), depth: ZERO };
  if (typeof value === "boolean") return { bytes: fixed(value ? 4 : 5), depth: ZERO };
  if (typeof value === "number") return { bytes: fixed(MAX_NUMBER_BYTES), depth: ZERO };
  if (typeof value === "string") return { bytes: fixed(knownStringBytes(value)), depth: ZERO };
  const parts: Array<[number, unknown]> = Array.isArray(value)
    ? value.map((item) => [0, item])
    : Object.entries(value as object).map(([key, item]) => [knownStringBytes(key) + 1, item]);
  let bytes: Size = fixed(2 + Math.max(0, parts.length - 1));
  let depth: Size = ZERO;
  for (const [prefix, item] of parts) {
    const inner = literalExtent(item, pointer, nesting + 1);
    bytes = plus(bytes, plus(fixed(prefix), inner.bytes));
    depth = larger(depth, inner.depth);
  }
  return { bytes, depth: plus(depth, fixed(1)) };
}

function jsonTypeOf(value: unknown): JsonType | undefined {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    case "object":
      return "object";
    default:
      return undefined;
  }
}

function tooDeep(pointer: string): Finding {
  return {
    pointer,
    kind: "schema-too-deep",
    message: `schema nests deeper than ${MAX_SCHEMA_NESTING} levels: declare x-toolgate receive.maxBytes`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The walk.

/** A schema object that applies at some pointer. */
interface Located {
  pointer: string;
  node: SchemaObject;
}

/** A located schema of either form. */
interface LocatedSchema {
  pointer: string;
  node: JsonSchema;
}

/** What must hold for one item position or one property, contributed by one conjunct. */
type Requirement =
  /** The conjunct says nothing about it. */
  | { kind: "free" }
  /** The conjunct forbids it. */
  | { kind: "forbidden" }
  /** The value satisfies every one of these schemas. */
  | { kind: "all"; schemas: LocatedSchema[] }
  /** The value satisfies at least one of these schemas (an `unevaluated*` slot and the schemas that may evaluate it). */
  | { kind: "some"; schemas: LocatedSchema[] };

/** The subschemas that may evaluate items or properties in place (annotations seen by `unevaluated*`). */
interface Evaluators {
  /** Property name → schemas that declare it. */
  names: Map<string, LocatedSchema[]>;
  /** patternProperties anywhere in the tree. */
  patterns: Array<{ pattern: string; schema: LocatedSchema }>;
  /** Schemas that may evaluate any key or any item (`additionalProperties`, `items`, `unevaluated*`, `contains`…). */
  any: LocatedSchema[];
}

const STRING_KEYWORDS = ["maxLength", "minLength", "pattern", "format", "contentEncoding", "contentMediaType"];
const ARRAY_KEYWORDS = [
  "items",
  "prefixItems",
  "additionalItems",
  "maxItems",
  "minItems",
  "uniqueItems",
  "contains",
  "unevaluatedItems",
];
const OBJECT_KEYWORDS = [
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "required",
  "maxProperties",
  "minProperties",
  "propertyNames",
  "dependentRequired",
];
const KEYWORDS_BY_TYPE: Partial<Record<JsonType, string[]>> = {
  string: STRING_KEYWORDS,
  array: ARRAY_KEYWORDS,
  object: OBJECT_KEYWORDS,
};

class BoundsWalker {
  private readonly memo = new Map<string, Bound>();
  /** In-place evaluator trees by conjunct, and compiled patterns: both asked for once per property name. */
  private readonly evaluatorCache = new Map<string, Evaluators>();
  private readonly patterns = new Map<string, RegExp | null>();
  /**
   * The schemas on the path from the root to the value being bounded (with how many levels hold each): a `$ref`
   * back to one of them is recursion. Each level contributes its own pointer and, for the child it descends into,
   * the schemas it applied that contain that child.
   */
  private readonly path = new Map<string, number>();
  /** The evaluations in progress, innermost last: where each started and every schema it applied. */
  private readonly levels: Array<{ start: string; applied: string[] }> = [];
  /** Before 2019-09, `$ref` replaces its schema object: siblings are ignored. */
  private readonly refReplaces: boolean;

  constructor(
    private readonly root: JsonSchema,
    dialect: Dialect,
    private readonly formats: "annotate" | "assert",
  ) {
    this.refReplaces = dialect === "draft-07";
  }

  /** The bound of the schema at `pointer`. */
  evaluate(pointer: string, node: JsonSchema): Bound {
    const known = this.memo.get(pointer);
    if (known !== undefined) return known;
    if (this.path.has(pointer)) return anyValue(recursion(pointer));
    if (this.levels.length >= MAX_SCHEMA_NESTING) return anyValue(tooDeep(pointer));
    const gathered = this.gather(pointer, node);
    this.levels.push({ start: pointer, applied: gathered.pointers });
    let result: Bound | undefined;
    try {
      // undefined: nothing here constrains the value (yet).
      result = gathered.never ? {} : this.merge(pointer, gathered.conjuncts);
      for (const bound of gathered.extra) result = result === undefined ? bound : intersect(result, bound);
      for (const disjunction of gathered.disjunctions) {
        let either: Bound = {};
        for (const branch of disjunction) either = union(either, this.child(branch));
        result = result === undefined ? either : intersect(result, either);
      }
    } finally {
      this.levels.pop();
    }
    const bound = result ?? anyValue(anyValueFinding(pointer));
    this.memo.set(pointer, bound);
    return bound;
  }

  /** Bound a subschema applied to a part of the current value (an item, a property, a branch). */
  private child(sub: LocatedSchema): Bound {
    const level = this.levels[this.levels.length - 1];
    const entered: string[] = [];
    if (level !== undefined) {
      entered.push(level.start);
      for (const p of level.applied) if (p !== level.start && containsPointer(p, sub.pointer)) entered.push(p);
    }
    for (const p of entered) this.path.set(p, (this.path.get(p) ?? 0) + 1);
    try {
      return this.evaluate(sub.pointer, sub.node);
    } finally {
      for (const p of entered) {
        const n = (this.path.get(p) ?? 1) - 1;
        if (n === 0) this.path.delete(p);
        else this.path.set(p, n);
      }
    }
  }

  /** Every schema object that applies to the same value: the node, its `allOf`, its `$ref` targets, recursively. */
  private gather(
    pointer: string,
    node: JsonSchema,
  ): {
    conjuncts: Located[];
    pointers: string[];
    never: boolean;
    extra: Bound[];
    disjunctions: LocatedSchema[][];
  } {
    const conjuncts: Located[] = [];
    const pointers: string[] = [];
    const extra: Bound[] = [];
    const disjunctions: LocatedSchema[][] = [];
    const seen = new Set<string>();
    let never = false;
    const todo: LocatedSchema[] = [{ pointer, node }];
    while (todo.length > 0) {
      const next = todo.pop() as LocatedSchema;
      // A schema applied twice to the same value adds nothing: conjunction is idempotent.
      if (seen.has(next.pointer)) continue;
      seen.add(next.pointer);
      pointers.push(next.pointer);
      if (next.node === false) {
        never = true;
        continue;
      }
      if (!isSchemaObject(next.node)) continue;
      const here = next.node;
      const children: LocatedSchema[] = [];
      if (typeof here.$ref === "string") {
        const target = this.resolve(here.$ref);
        if (target === undefined) {
          extra.push(anyValue(unresolved(next.pointer, here.$ref)));
        } else if (this.path.has(target.pointer)) {
          extra.push(anyValue(recursion(next.pointer, here.$ref)));
        } else {
          children.push(target);
        }
        if (this.refReplaces) {
          todo.push(...children);
          continue;
        }
      }
      conjuncts.push({ pointer: next.pointer, node: here });
      for (const keyword of ["$dynamicRef", "$recursiveRef"]) {
        if (here[keyword] !== undefined) extra.push(anyValue(dynamic(next.pointer, keyword)));
      }
      if (Array.isArray(here.allOf)) {
        here.allOf.forEach((sub, i) => {
          if (isSchema(sub)) children.push({ pointer: pointerOf(next.pointer, "allOf", i), node: sub });
        });
      }
      for (const keyword of ["anyOf", "oneOf"]) {
        const list = here[keyword];
        if (!Array.isArray(list)) continue;
        const branches: LocatedSchema[] = [];
        list.forEach((sub, i) => {
          if (isSchema(sub)) branches.push({ pointer: pointerOf(next.pointer, keyword, i), node: sub });
        });
        disjunctions.push(branches);
      }
      // Depth-first, in document order.
      todo.push(...children.reverse());
    }
    return { conjuncts, pointers, never, extra, disjunctions };
  }

  /** The bound of a value that meets every conjunct. */
  private merge(pointer: string, conjuncts: Located[]): Bound | undefined {
    if (conjuncts.every((c) => !constrainsAnything(c.node))) return undefined;
    let result: Bound = {};
    for (const t of JSON_TYPES) {
      if (!conjuncts.every((c) => typeAdmits(c.node.type, t))) continue;
      const anchor = anchorFor(t, conjuncts) ?? { pointer, node: {} };
      switch (t) {
        case "string":
          result.string = { bytes: this.stringBytes(conjuncts, anchor), depth: ZERO };
          break;
        case "array":
          result.array = this.arrayExtent(conjuncts, anchor);
          break;
        case "object":
          result.object = this.objectExtent(conjuncts, anchor);
          break;
        default:
          result[t] = SCALARS[t] as Extent;
      }
    }
    for (const c of conjuncts) {
      if (Array.isArray(c.node.enum)) {
        let options: Bound = {};
        c.node.enum.forEach((value, i) => {
          options = union(options, literalBound(value, pointerOf(c.pointer, "enum", i)));
        });
        result = intersect(result, options);
      }
      if (Object.hasOwn(c.node, "const")) {
        result = intersect(result, literalBound(c.node.const, pointerOf(c.pointer, "const")));
      }
    }
    return result;
  }

  private stringBytes(conjuncts: Located[], anchor: Located): Size {
    let best: Size = unbounded(stringFinding(anchor));
    for (const { node } of conjuncts) {
      if (isCount(node.maxLength)) best = smaller(fixed(2 + MAX_BYTES_PER_CODE_POINT * node.maxLength), best);
      if (typeof node.pattern === "string") {
        const chars = patternMaxBytes(node.pattern);
        if (chars !== null) best = smaller(fixed(2 + chars), best);
      }
      if (
        this.formats === "assert" &&
        typeof node.format === "string" &&
        Object.hasOwn(FIXED_SIZE_FORMATS, node.format)
      ) {
        best = smaller(fixed(2 + MAX_BYTES_PER_CODE_UNIT * (FIXED_SIZE_FORMATS[node.format] as number)), best);
      }
    }
    return best;
  }

  // ----- arrays

  private arrayExtent(conjuncts: Located[], anchor: Located): Extent {
    let maxItems = Number.POSITIVE_INFINITY;
    let positions = 0;
    for (const { node } of conjuncts) {
      if (isCount(node.maxItems)) maxItems = Math.min(maxItems, node.maxItems);
      positions = Math.max(positions, tupleOf(node)?.list.length ?? 0);
    }
    const items: Extent[] = [];
    // A position no value can fill ends the array there: a closed tuple (`items: false`) is bounded this way.
    for (let i = 0; i < positions && i < maxItems; i++) {
      const item = collapse(this.itemBound(conjuncts, anchor, i));
      if (item === undefined) {
        maxItems = i;
        break;
      }
      items.push(item);
    }
    const rest = maxItems > positions ? collapse(this.itemBound(conjuncts, anchor, "rest")) : undefined;
    if (rest === undefined) maxItems = Math.min(maxItems, items.length);
    let depth: Size = ZERO;
    for (const item of items) depth = larger(depth, item.depth);
    if (rest !== undefined) depth = larger(depth, rest.depth);
    depth = plus(depth, fixed(1));
    if (!Number.isFinite(maxItems)) return { bytes: unbounded(arrayFinding(anchor)), depth };
    let bytes: Size = fixed(2 + Math.max(0, maxItems - 1));
    for (const item of items) bytes = plus(bytes, item.bytes);
    if (rest !== undefined) bytes = plus(bytes, times(maxItems - items.length, rest.bytes));
    return { bytes, depth };
  }

  /** The bound of the item at `index` (or of every item past the tuples), from every conjunct. */
  private itemBound(conjuncts: Located[], anchor: Located, index: number | "rest"): Bound {
    const requirements = conjuncts.map((c) => this.itemRequirement(c, index));
    return this.meet(requirements, () => anyValue(itemsFinding(anchor)));
  }

  private itemRequirement(c: Located, index: number | "rest"): Requirement {
    const tuple = tupleOf(c.node);
    if (tuple !== undefined && index !== "rest" && index < tuple.list.length) {
      const sub = tuple.list[index];
      return isSchema(sub) ? all({ pointer: pointerOf(c.pointer, tuple.keyword, index), node: sub }) : { kind: "free" };
    }
    // Past a tuple the rest keyword is `items` (2020-12, beside prefixItems) or `additionalItems` (array-form items).
    const restKeyword = tuple?.keyword === "items" ? "additionalItems" : "items";
    const restSchema = c.node[restKeyword];
    if (isSchema(restSchema)) return all({ pointer: pointerOf(c.pointer, restKeyword), node: restSchema });
    const unevaluated = c.node.unevaluatedItems;
    if (!isSchema(unevaluated)) return { kind: "free" };
    // An item no keyword here evaluates must meet `unevaluatedItems`; one that some in-place subschema (or
    // `contains`) evaluates meets that subschema's item schema instead. Either way it meets one of these.
    const evaluators = this.evaluators(c, "items");
    const options = [...evaluators.any];
    if (isSchema(c.node.contains)) options.push({ pointer: pointerOf(c.pointer, "contains"), node: c.node.contains });
    if (unevaluated !== false) options.push({ pointer: pointerOf(c.pointer, "unevaluatedItems"), node: unevaluated });
    return options.length === 0 ? { kind: "forbidden" } : { kind: "some", schemas: options };
  }

  // ----- objects

  private objectExtent(conjuncts: Located[], anchor: Located): Extent {
    let maxProperties = Number.POSITIVE_INFINITY;
    let noKeys = false;
    let nameBytes: Size = unbounded(objectFinding(anchor, "names"));
    const names: string[] = [];
    const listed = new Set<string>();
    const addName = (name: string) => {
      if (!listed.has(name)) {
        listed.add(name);
        names.push(name);
      }
    };
    for (const c of conjuncts) {
      if (isCount(c.node.maxProperties)) maxProperties = Math.min(maxProperties, c.node.maxProperties);
      if (isSchemaObject(c.node.properties)) for (const name of Object.keys(c.node.properties)) addName(name);
      if (closesByUnevaluated(c.node)) {
        for (const name of this.evaluators(c, "properties").names.keys()) addName(name);
      }
      const propertyNames = c.node.propertyNames;
      if (propertyNames === false) noKeys = true;
      else if (isSchema(propertyNames)) {
        const keys = this.child({ pointer: pointerOf(c.pointer, "propertyNames"), node: propertyNames }).string;
        if (keys === undefined) noKeys = true;
        else nameBytes = smaller(keys.bytes, nameBytes);
      }
    }
    if (noKeys) maxProperties = 0;

    const entries: Size[] = [];
    let depth: Size = ZERO;
    for (const name of names) {
      const value = collapse(
        this.meet(
          conjuncts.map((c) => this.propertyRequirement(c, name)),
          () => anyValue(objectFinding(anchor, "values")),
        ),
      );
      if (value === undefined) continue;
      entries.push(plus(fixed(knownStringBytes(name) + 1), value.bytes));
      depth = larger(depth, value.depth);
    }

    // Keys no conjunct declares: allowed only when every conjunct allows them.
    const unknown = conjuncts.map((c) => this.unknownKeyRequirement(c));
    const unconstrained = unknown.every((u) => u.requirement.kind === "free");
    let rest: Extent | undefined;
    if (unknown.every((u) => u.requirement.kind !== "forbidden")) {
      rest = collapse(
        this.meet(
          unknown.map((u) => u.requirement),
          () => anyValue(objectFinding(anchor, "open")),
        ),
      );
      for (const u of unknown) if (u.nameBytes !== undefined) nameBytes = smaller(u.nameBytes, nameBytes);
    }
    if (maxProperties === 0) return { bytes: fixed(2), depth: fixed(1) };
    if (rest !== undefined) {
      depth = larger(depth, rest.depth);
      if (!Number.isFinite(maxProperties)) {
        const finding = objectFinding(anchor, unconstrained ? "open" : "count");
        return { bytes: unbounded(finding), depth: plus(depth, fixed(1)) };
      }
      const entry = plus(plus(nameBytes, fixed(1)), rest.bytes);
      for (let i = 0; i < maxProperties; i++) entries.push(entry);
    }
    // The largest `maxProperties` entries, or all of them: any valid object holds at most that many.
    entries.sort((a, b) => b.n - a.n);
    const count = Math.min(entries.length, maxProperties);
    let bytes: Size = fixed(2 + Math.max(0, count - 1));
    for (let i = 0; i < count; i++) bytes = plus(bytes, entries[i] as Size);
    return { bytes, depth: plus(depth, fixed(1)) };
  }

  /** What one conjunct requires of the value of the declared key `name`. */
  private propertyRequirement(c: Located, name: string): Requirement {
    const node = c.node;
    const direct: LocatedSchema[] = [];
    const properties = node.properties;
    if (isSchemaObject(properties) && Object.hasOwn(properties, name) && isSchema(properties[name])) {
      direct.push({ pointer: pointerOf(c.pointer, "properties", name), node: properties[name] });
    }
    let mayMatchPattern = false;
    for (const { pattern, schema } of patternEntries(c)) {
      const match = this.patternMatches(pattern, name);
      // Only a sure match adds a constraint; an unreadable pattern may still let the key in (never tighter).
      if (match === true) direct.push(schema);
      if (match !== false) mayMatchPattern = true;
    }
    if (direct.length > 0) return all(...direct);
    const additional = node.additionalProperties;
    if (additional === false) return mayMatchPattern ? { kind: "free" } : { kind: "forbidden" };
    if (isSchema(additional)) return all({ pointer: pointerOf(c.pointer, "additionalProperties"), node: additional });
    if (!closesByUnevaluated(node) && !isSchema(node.unevaluatedProperties)) return { kind: "free" };
    const evaluators = this.evaluators(c, "properties");
    const options = [...(evaluators.names.get(name) ?? []), ...evaluators.any];
    for (const { pattern, schema } of evaluators.patterns) {
      if (this.patternMatches(pattern, name) !== false) options.push(schema);
    }
    const unevaluated = node.unevaluatedProperties;
    if (isSchema(unevaluated) && unevaluated !== false) {
      options.push({ pointer: pointerOf(c.pointer, "unevaluatedProperties"), node: unevaluated });
    }
    if (options.length === 0) return mayMatchPattern ? { kind: "free" } : { kind: "forbidden" };
    return { kind: "some", schemas: options };
  }

  /** What one conjunct requires of a key it does not declare, and how long such a key's name can be. */
  private unknownKeyRequirement(c: Located): { requirement: Requirement; nameBytes?: Size } {
    const node = c.node;
    const patterns = patternEntries(c);
    const additional = node.additionalProperties;
    if (isSchema(additional) && additional !== false) {
      const schemas = [{ pointer: pointerOf(c.pointer, "additionalProperties"), node: additional }];
      return { requirement: { kind: "some", schemas: [...schemas, ...patterns.map((p) => p.schema)] } };
    }
    let candidates: Array<{ pattern?: string; schema: LocatedSchema }>;
    if (additional === false) {
      candidates = patterns;
    } else if (node.unevaluatedProperties !== undefined) {
      const evaluators = this.evaluators(c, "properties");
      candidates = [...patterns, ...evaluators.patterns, ...evaluators.any.map((schema) => ({ schema }))];
      const unevaluated = node.unevaluatedProperties;
      if (isSchema(unevaluated) && unevaluated !== false) {
        candidates.push({ schema: { pointer: pointerOf(c.pointer, "unevaluatedProperties"), node: unevaluated } });
      }
    } else {
      return { requirement: { kind: "free" } };
    }
    if (candidates.length === 0) return { requirement: { kind: "forbidden" } };
    // When only patterns let unknown keys in, every such key matches one: anchored bounded patterns bound names.
    let nameBytes: Size | undefined = fixed(0);
    for (const candidate of candidates) {
      const chars = candidate.pattern === undefined ? null : patternMaxBytes(candidate.pattern);
      if (chars === null) {
        nameBytes = undefined;
        break;
      }
      nameBytes = larger(nameBytes, fixed(2 + chars));
    }
    const requirement: Requirement = { kind: "some", schemas: candidates.map((x) => x.schema) };
    return nameBytes === undefined ? { requirement } : { requirement, nameBytes };
  }

  /** The in-place subschemas of a conjunct that may evaluate properties or items (for `unevaluated*`). */
  private evaluators(c: Located, of: "properties" | "items"): Evaluators {
    const key = `${of} ${c.pointer}`;
    const known = this.evaluatorCache.get(key);
    if (known !== undefined) return known;
    const out: Evaluators = { names: new Map(), patterns: [], any: [] };
    this.evaluatorCache.set(key, out);
    const seen = new Set<string>([c.pointer]);
    const todo: LocatedSchema[] = inPlaceChildren(c.pointer, c.node, (ref) => this.resolve(ref), out);
    while (todo.length > 0) {
      const next = todo.pop() as LocatedSchema;
      if (seen.has(next.pointer) || !isSchemaObject(next.node)) continue;
      seen.add(next.pointer);
      const node = next.node;
      const at = (...tokens: Array<string | number>) => pointerOf(next.pointer, ...tokens);
      if (of === "properties") {
        if (isSchemaObject(node.properties)) {
          for (const [name, sub] of Object.entries(node.properties)) {
            if (!isSchema(sub)) continue;
            const list = out.names.get(name) ?? [];
            list.push({ pointer: at("properties", name), node: sub });
            out.names.set(name, list);
          }
        }
        out.patterns.push(...patternEntries({ pointer: next.pointer, node }));
        for (const keyword of ["additionalProperties", "unevaluatedProperties"]) {
          const sub = node[keyword];
          if (isSchema(sub) && sub !== false) out.any.push({ pointer: at(keyword), node: sub });
        }
      } else {
        for (const keyword of ["prefixItems", "items"]) {
          const list = node[keyword];
          if (Array.isArray(list)) {
            list.forEach((sub, i) => {
              if (isSchema(sub)) out.any.push({ pointer: at(keyword, i), node: sub });
            });
          }
        }
        for (const keyword of ["items", "additionalItems", "contains", "unevaluatedItems"]) {
          const sub = node[keyword];
          if (isSchema(sub) && sub !== false) out.any.push({ pointer: at(keyword), node: sub });
        }
      }
      todo.push(...inPlaceChildren(next.pointer, node, (ref) => this.resolve(ref), out));
    }
    return out;
  }

  /** The bound of a value meeting every requirement; `free` everywhere means any value, for the reason given. */
  private meet(requirements: Requirement[], whenFree: () => Bound): Bound {
    let result: Bound | undefined;
    for (const r of requirements) {
      let bound: Bound;
      if (r.kind === "free") continue;
      if (r.kind === "forbidden") return {};
      if (r.kind === "all") {
        bound = {};
        r.schemas.forEach((s, i) => {
          bound = i === 0 ? this.child(s) : intersect(bound, this.child(s));
        });
      } else {
        bound = {};
        for (const s of r.schemas) bound = union(bound, this.child(s));
      }
      result = result === undefined ? bound : intersect(result, bound);
    }
    return result ?? whenFree();
  }

  /** Whether a key matches a `patternProperties` pattern (as Ajv compiles it); undefined when it does not compile. */
  private patternMatches(pattern: string, key: string): boolean | undefined {
    let re = this.patterns.get(pattern);
    if (re === undefined) {
      try {
        re = new RegExp(pattern, "u");
      } catch {
        re = null;
      }
      this.patterns.set(pattern, re);
    }
    return re === null ? undefined : re.test(key);
  }

  private resolve(ref: string): LocatedSchema | undefined {
    return resolvePointer(this.root, ref);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Schema reading.

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "boolean" || isSchemaObject(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Whether the schema at `outer` contains the one at `inner` (pointer prefix by whole reference tokens). */
function containsPointer(outer: string, inner: string): boolean {
  return outer === "" || inner === outer || inner.startsWith(`${outer}/`);
}

function all(...schemas: LocatedSchema[]): Requirement {
  return { kind: "all", schemas };
}

/** The dialect a bundled schema declares at its root. */
function dialectOf(schema: JsonSchema): Dialect {
  if (!isSchemaObject(schema) || typeof schema.$schema !== "string") return "2020-12";
  if (/draft-0[4-7]/.test(schema.$schema)) return "draft-07";
  if (schema.$schema.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Whether the `type` keyword admits the JSON type (`integer` values are numbers). */
function typeAdmits(type: unknown, t: JsonType): boolean {
  if (type === undefined) return true;
  const names = Array.isArray(type) ? type : [type];
  return names.some((name) => name === t || (t === "number" && name === "integer"));
}

/** Whether a schema object says anything about which values are valid beyond annotations. */
function constrainsAnything(node: SchemaObject): boolean {
  if (node.type !== undefined || node.enum !== undefined || Object.hasOwn(node, "const")) return true;
  return [...STRING_KEYWORDS, ...ARRAY_KEYWORDS, ...OBJECT_KEYWORDS].some((k) => node[k] !== undefined);
}

/** The conjunct where a fix for type `t` belongs: the first that names the type, else the first with its keywords. */
function anchorFor(t: JsonType, conjuncts: Located[]): Located | undefined {
  const keywords = KEYWORDS_BY_TYPE[t] ?? [];
  return (
    conjuncts.find((c) => c.node.type !== undefined && typeAdmits(c.node.type, t)) ??
    conjuncts.find((c) => keywords.some((k) => c.node[k] !== undefined)) ??
    conjuncts[0]
  );
}

/** The tuple part of an array schema: `prefixItems` (2019-09 on) or array-form `items` (draft-07, 2019-09). */
function tupleOf(node: SchemaObject): { keyword: "prefixItems" | "items"; list: unknown[] } | undefined {
  if (Array.isArray(node.prefixItems)) return { keyword: "prefixItems", list: node.prefixItems };
  if (Array.isArray(node.items)) return { keyword: "items", list: node.items };
  return undefined;
}

function closesByUnevaluated(node: SchemaObject): boolean {
  return node.unevaluatedProperties === false && node.additionalProperties === undefined;
}

function patternEntries(c: LocatedSchema): Array<{ pattern: string; schema: LocatedSchema }> {
  if (!isSchemaObject(c.node) || !isSchemaObject(c.node.patternProperties)) return [];
  const out: Array<{ pattern: string; schema: LocatedSchema }> = [];
  for (const [pattern, sub] of Object.entries(c.node.patternProperties)) {
    if (isSchema(sub))
      out.push({ pattern, schema: { pointer: pointerOf(c.pointer, "patternProperties", pattern), node: sub } });
  }
  return out;
}

/** The subschemas applied in place to the same value, whose annotations `unevaluated*` sees. */
function inPlaceChildren(
  pointer: string,
  node: SchemaObject,
  resolve: (ref: string) => LocatedSchema | undefined,
  out: Evaluators,
): LocatedSchema[] {
  const children: LocatedSchema[] = [];
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = node[keyword];
    if (Array.isArray(list)) {
      list.forEach((sub, i) => {
        if (isSchema(sub)) children.push({ pointer: pointerOf(pointer, keyword, i), node: sub });
      });
    }
  }
  for (const keyword of ["if", "then", "else"]) {
    const sub = node[keyword];
    if (isSchema(sub)) children.push({ pointer: pointerOf(pointer, keyword), node: sub });
  }
  for (const keyword of ["dependentSchemas", "dependencies"]) {
    const map = node[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [name, sub] of Object.entries(map)) {
      if (isSchema(sub)) children.push({ pointer: pointerOf(pointer, keyword, name), node: sub });
    }
  }
  if (typeof node.$ref === "string") {
    const target = resolve(node.$ref);
    // An unreadable target may evaluate anything: count it as evaluating every key and item.
    if (target === undefined) out.any.push({ pointer: pointerOf(pointer, "$ref"), node: true });
    else children.push(target);
  }
  for (const keyword of ["$dynamicRef", "$recursiveRef"]) {
    if (node[keyword] !== undefined) out.any.push({ pointer: pointerOf(pointer, keyword), node: true });
  }
  return children;
}

/** Resolve a `#/…` JSON-pointer reference (RFC 6901, percent-decoded as a URI fragment) inside the schema. */
function resolvePointer(root: JsonSchema, ref: string): LocatedSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment !== "" && !fragment.startsWith("/")) return undefined;
  let node: unknown = root;
  const tokens = fragment === "" ? [] : fragment.slice(1).split("/");
  for (const raw of tokens) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isSchemaObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  if (!isSchema(node)) return undefined;
  // Memo keys are canonical pointers: re-escape what the fragment decoded.
  return { pointer: pointerOf("", ...tokens.map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))), node };
}

// ---------------------------------------------------------------------------------------------------------------
// Findings.

function anyValueFinding(pointer: string): Finding {
  return { pointer, kind: "any-value", message: "accepts any JSON value: add a type and its bounds" };
}

function stringFinding(anchor: Located): Finding {
  const typed = anchor.node.type !== undefined;
  return {
    pointer: anchor.pointer,
    kind: "string-without-maxLength",
    message: typed
      ? "string without maxLength: add maxLength (or an enum, const, or anchored bounded pattern)"
      : "strings of any length are valid here (no type): add type, or maxLength",
  };
}

function arrayFinding(anchor: Located): Finding {
  const typed = anchor.node.type !== undefined;
  return {
    pointer: anchor.pointer,
    kind: "array-without-maxItems",
    message: typed
      ? "array without maxItems: add maxItems (or close the tuple with items: false)"
      : "arrays of any length are valid here (no type): add type, or maxItems",
  };
}

function itemsFinding(anchor: Located): Finding {
  return {
    pointer: anchor.pointer,
    kind: "any-value",
    message: "array items accept any JSON value: add items with a type and its bounds",
  };
}

function objectFinding(anchor: Located, why: "open" | "count" | "names" | "values"): Finding {
  const messages = {
    open: "object open to unknown keys: add additionalProperties: false (or unevaluatedProperties: false)",
    count: "object takes any number of keys (additionalProperties/patternProperties): add maxProperties, or close it",
    names: "unknown key names have no length bound: add propertyNames with maxLength, or close the object",
    values: "property value accepts any JSON value: give the property a schema with bounds",
  };
  return { pointer: anchor.pointer, kind: "object-open", message: messages[why] };
}

function recursion(pointer: string, ref?: string): Finding {
  return {
    pointer,
    kind: "nesting-unbounded",
    message: `${ref === undefined ? "schema" : `$ref ${ref}`} recurses: nesting has no bound; declare x-toolgate receive.maxBytes and receive.maxDepth`,
  };
}

function unresolved(pointer: string, ref: string): Finding {
  return {
    pointer,
    kind: "ref-unresolved",
    message: `$ref ${ref} does not point into this schema: bundle it, or declare x-toolgate receive.maxBytes`,
  };
}

function dynamic(pointer: string, keyword: string): Finding {
  return {
    pointer,
    kind: "dynamic-ref",
    message: `${keyword} depends on the dynamic scope: replace it with $ref, or declare x-toolgate receive.maxBytes`,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// A reader for the regular expressions of `pattern` (ECMAScript, `u` flag), just enough to bound a match.

/** One term of an alternative: an anchor, or something that consumes at most `bytes` of JSON string content. */
interface PatternTerm {
  kind: "start" | "end" | "consume";
  bytes: number;
}

function sumTerms(terms: PatternTerm[]): number {
  return terms.reduce((sum, t) => sum + t.bytes, 0);
}

/** An escape or class member that may match a code point outside the BMP costs 12 bytes, else 6. */
const BMP_CHAR = MAX_BYTES_PER_CODE_UNIT;
const ANY_CHAR = MAX_BYTES_PER_CODE_POINT;

class PatternReader {
  private pos = 0;

  constructor(private readonly source: string) {}

  atEnd(): boolean {
    return this.pos >= this.source.length;
  }

  /** Alternatives up to the end or a closing parenthesis. */
  disjunction(): PatternTerm[][] {
    const alternatives: PatternTerm[][] = [[]];
    while (!this.atEnd() && this.peek() !== ")") {
      if (this.peek() === "|") {
        this.pos++;
        alternatives.push([]);
        continue;
      }
      (alternatives[alternatives.length - 1] as PatternTerm[]).push(this.term());
    }
    return alternatives;
  }

  private peek(): string {
    return this.source[this.pos] ?? "";
  }

  private term(): PatternTerm {
    const c = this.peek();
    if (c === "^") {
      this.pos++;
      return { kind: "start", bytes: 0 };
    }
    if (c === "$") {
      this.pos++;
      return { kind: "end", bytes: 0 };
    }
    const atom = this.atom();
    const times = this.quantifier();
    const bytes = atom === 0 ? 0 : atom * times;
    return { kind: "consume", bytes };
  }

  /** Worst-case bytes one occurrence of the next atom consumes. */
  private atom(): number {
    const c = this.peek();
    if (c === "(") return this.group();
    if (c === "[") return this.characterClass();
    if (c === ".") {
      this.pos++;
      return ANY_CHAR;
    }
    if (c === "\\") return this.escape(false);
    if (c === "*" || c === "+" || c === "?" || c === "{" || c === "}" || c === "]") {
      throw new SyntaxError("unexpected quantifier");
    }
    const cp = this.source.codePointAt(this.pos) as number;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp > 0xffff ? ANY_CHAR : BMP_CHAR;
  }

  private group(): number {
    this.pos++; // (
    let lookaround = false;
    if (this.source.startsWith("?:", this.pos)) this.pos += 2;
    else if (this.source.startsWith("?=", this.pos) || this.source.startsWith("?!", this.pos)) {
      this.pos += 2;
      lookaround = true;
    } else if (this.source.startsWith("?<=", this.pos) || this.source.startsWith("?<!", this.pos)) {
      this.pos += 3;
      lookaround = true;
    } else if (this.source.startsWith("?<", this.pos)) {
      const close = this.source.indexOf(">", this.pos);
      if (close < 0) throw new SyntaxError("unterminated group name");
      this.pos = close + 1;
    } else if (this.peek() === "?") {
      throw new SyntaxError("unsupported group");
    }
    const alternatives = this.disjunction();
    if (this.peek() !== ")") throw new SyntaxError("unterminated group");
    this.pos++;
    if (lookaround) return 0;
    // An anchor inside a group consumes nothing; the match is still bounded by what the group consumes.
    return Math.max(0, ...alternatives.map(sumTerms));
  }

  private characterClass(): number {
    this.pos++; // [
    let bytes = BMP_CHAR;
    if (this.peek() === "^") {
      this.pos++;
      bytes = ANY_CHAR;
    }
    while (!this.atEnd() && this.peek() !== "]") {
      if (this.peek() === "\\") bytes = Math.max(bytes, this.escape(true));
      else {
        const cp = this.source.codePointAt(this.pos) as number;
        this.pos += cp > 0xffff ? 2 : 1;
        if (cp > 0xffff) bytes = ANY_CHAR;
      }
    }
    if (this.peek() !== "]") throw new SyntaxError("unterminated class");
    this.pos++;
    return bytes;
  }

  /** An escape: a class (`\d`), a literal, or an assertion (`\b`, 0 bytes). Back-references are not followed. */
  private escape(inClass: boolean): number {
    this.pos++; // backslash
    const c = this.peek();
    this.pos++;
    if (c === "") throw new SyntaxError("trailing backslash");
    if ((c === "b" || c === "B") && !inClass) return 0;
    if ("dws".includes(c)) return BMP_CHAR;
    if ("DWSpP".includes(c)) {
      if ((c === "p" || c === "P") && this.peek() === "{") {
        const close = this.source.indexOf("}", this.pos);
        if (close < 0) throw new SyntaxError("unterminated property escape");
        this.pos = close + 1;
      }
      return ANY_CHAR;
    }
    if (c === "u" && this.peek() === "{") {
      const close = this.source.indexOf("}", this.pos);
      if (close < 0) throw new SyntaxError("unterminated code point escape");
      const cp = Number.parseInt(this.source.slice(this.pos + 1, close), 16);
      this.pos = close + 1;
      return cp > 0xffff ? ANY_CHAR : BMP_CHAR;
    }
    if (c === "k" || (c >= "1" && c <= "9" && !inClass)) throw new SyntaxError("back-reference");
    // \uXXXX, \xHH, \cX: one BMP character with its digits; \0, \t, \n, \/, \., …: one BMP character.
    const digits = c === "u" ? /^[0-9a-fA-F]{4}/ : c === "x" ? /^[0-9a-fA-F]{2}/ : c === "c" ? /^[a-zA-Z]/ : undefined;
    if (digits !== undefined) this.pos += digits.exec(this.source.slice(this.pos))?.[0].length ?? 0;
    return BMP_CHAR;
  }

  /** The most times the preceding atom may repeat. */
  private quantifier(): number {
    const c = this.peek();
    let max = 1;
    if (c === "*" || c === "+") {
      this.pos++;
      max = Number.POSITIVE_INFINITY;
    } else if (c === "?") {
      this.pos++;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos));
      if (m === null) throw new SyntaxError("bad quantifier");
      this.pos += m[0].length;
      max =
        m[2] === undefined ? Number(m[1]) : m[3] === "" || m[3] === undefined ? Number.POSITIVE_INFINITY : Number(m[3]);
    } else {
      return 1;
    }
    if (this.peek() === "?") this.pos++; // lazy
    return max;
  }
}
