/**
 * The size algebra: upper bounds on the bytes and the nesting depth of JSON values, with the reasons a bound is open.
 *
 * A {@link Size} is a finite number with no causes, or infinity with the findings that explain it. Each operation
 * is small, pure and sound on its own: `plus` adds (a sequence of parts), `larger` takes the maximum (either of two
 * values), `smaller` the minimum (both of two bounds hold), `times` repeats. A {@link Bound} holds one extent per
 * JSON type a schema admits; `intersect` (both schemas hold) keeps the types both admit with the smaller bounds,
 * `union` (either holds) every type with the larger bounds. The walker only ever combines bounds with these, so
 * its result is sound whenever each step is.
 */
import { type Finding, findingKey, MAX_SCHEMA_NESTING, tooDeep } from "./findings.js";

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

/** A bound: finite `n` with no causes, or `n = Infinity` with the findings that explain it. */
export interface Size {
  readonly n: number;
  readonly causes: readonly Finding[];
}

/** Bytes and depth bounds over every value of one JSON type. */
export interface Extent {
  readonly bytes: Size;
  readonly depth: Size;
}

export const JSON_TYPES = ["null", "boolean", "number", "string", "array", "object"] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** Per JSON type a schema admits, its extent; a type that is absent has no valid value. */
export type Bound = Partial<Record<JsonType, Extent>>;

export const ZERO: Size = { n: 0, causes: [] };

/** A bound proven by arithmetic: `n` bytes (or levels), no finding. */
export function fixed(n: number): Size {
  return { n, causes: [] };
}

/** No bound, for the reason the finding gives. */
export function unbounded(finding: Finding): Size {
  return { n: Number.POSITIVE_INFINITY, causes: [finding] };
}

/** Both lists of causes, each finding once (by pointer and kind), the first list's order kept. */
function mergeCauses(a: readonly Finding[], b: readonly Finding[]): readonly Finding[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const seen = new Set(a.map(findingKey));
  return [...a, ...b.filter((f) => !seen.has(findingKey(f)))];
}

/** The bound of two parts written one after the other. */
export function plus(a: Size, b: Size): Size {
  const n = a.n + b.n;
  if (Number.isFinite(n)) return fixed(n);
  return { n, causes: mergeCauses(Number.isFinite(a.n) ? [] : a.causes, Number.isFinite(b.n) ? [] : b.causes) };
}

/** The bound of a value that is one of two: the larger. */
export function larger(a: Size, b: Size): Size {
  if (Number.isFinite(a.n) && Number.isFinite(b.n)) return fixed(Math.max(a.n, b.n));
  return plus(a, b);
}

/** The tighter of two bounds that both hold. When neither is finite, the first one's causes are the fix to name. */
export function smaller(a: Size, b: Size): Size {
  if (Number.isFinite(a.n) || Number.isFinite(b.n)) return fixed(Math.min(a.n, b.n));
  return a;
}

/** The bound of `count` parts of bound `a` each. */
export function times(count: number, a: Size): Size {
  if (count === 0) return ZERO;
  if (!Number.isFinite(a.n)) return a;
  return fixed(count * a.n);
}

/** Both extents hold: the smaller bytes and the smaller depth. */
function bothHold(x: Extent, y: Extent): Extent {
  return { bytes: smaller(x.bytes, y.bytes), depth: smaller(x.depth, y.depth) };
}

/** The value is one of two: the larger bytes and the larger depth. */
function eitherOf(x: Extent, y: Extent): Extent {
  return { bytes: larger(x.bytes, y.bytes), depth: larger(x.depth, y.depth) };
}

/** The bound of a value both schemas accept: the types both admit, each with the smaller bounds. */
export function intersect(a: Bound, b: Bound): Bound {
  const out: Bound = {};
  for (const t of JSON_TYPES) {
    const x = a[t];
    const y = b[t];
    if (x !== undefined && y !== undefined) out[t] = bothHold(x, y);
  }
  return out;
}

/** The bound of a value either schema accepts: every type either admits, each with the larger bounds. */
export function union(a: Bound, b: Bound): Bound {
  const out: Bound = {};
  for (const t of JSON_TYPES) {
    const x = a[t];
    const y = b[t];
    const either = x === undefined ? y : y === undefined ? x : eitherOf(x, y);
    if (either !== undefined) out[t] = either;
  }
  return out;
}

/** The extent over every type a bound admits; undefined when it admits nothing. */
export function collapse(bound: Bound): Extent | undefined {
  let out: Extent | undefined;
  for (const t of JSON_TYPES) {
    const e = bound[t];
    if (e === undefined) continue;
    out = out === undefined ? e : eitherOf(out, e);
  }
  return out;
}

/** `null` (4 bytes), `true`/`false` (at most 5) and a number (at most {@link MAX_NUMBER_BYTES}): never nested. */
export const SCALARS: Bound = {
  null: { bytes: fixed(4), depth: ZERO },
  boolean: { bytes: fixed(5), depth: ZERO },
  number: { bytes: fixed(MAX_NUMBER_BYTES), depth: ZERO },
};

/** Every JSON value: strings, arrays and objects unbounded for the reason given. */
export function anyValue(finding: Finding): Bound {
  const open = unbounded(finding);
  return {
    ...SCALARS,
    string: { bytes: open, depth: ZERO },
    array: { bytes: open, depth: open },
    object: { bytes: open, depth: open },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Known values (enum, const) and known strings.

/** Worst-case bytes of a known string: two quotes and one `\uXXXX` escape per UTF-16 unit. */
export function knownStringBytes(text: string): number {
  return 2 + MAX_BYTES_PER_CODE_UNIT * text.length;
}

/** The bound of one literal JSON value, as a tool may write it. */
export function literalBound(value: unknown, pointer: string): Bound {
  const extent = literalExtent(value, pointer, 0);
  const t = jsonTypeOf(value);
  return t === undefined ? {} : { [t]: extent };
}

/** The extent of a literal, its nesting counted; past {@link MAX_SCHEMA_NESTING} levels it is unbounded. */
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

/** The JSON type of a parsed value; undefined for what JSON cannot hold. */
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
