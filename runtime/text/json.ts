/**
 * JSON handling that no payload can crash: a parse that refuses what `JSON.parse` would get wrong and never echoes
 * payload text, a linear scan of the text that says exactly why, an iterative writer (and a depth/size guard) for
 * values that arrive already parsed, and an iterative canonical serialiser for hashing arguments.
 *
 * What has to be refused: `JSON.parse` accepts 100,000 levels of nesting, but the validator, the view and
 * `JSON.stringify` recurse and overflow the stack from about 10,000 levels; `JSON.parse` silently rounds integers
 * past 2^53, however they are written (`9007199254740993`, `9007199254740993.0`, `9.007199254740993e15`); and it
 * makes half a surrogate pair of an escape (`"\\ud800"`), text with no UTF-8 form. All are found in time linear in
 * the payload, with a stack no deeper than the nesting a contract allows (and constant past it).
 */

import { escapedLoneSurrogate, wellFormed } from "./json-surrogates.js";

/**
 * Why a JSON text was refused before or during parsing (`diagnostics.detail.reason`). `lone_surrogate` is a string
 * (or key) escaping half a surrogate pair (`"\\ud800"`): text with no UTF-8 encoding, refused by the gate as
 * `invalid_encoding` like the same character sent raw.
 */
export type JsonRefusal =
  | "too_deep"
  | "unsafe_integer"
  | "number_overflow"
  | "byte_order_mark"
  | "syntax"
  | "empty"
  | "lone_surrogate";

/** The result of {@link scanJsonText}: nothing wrong, or the first problem with its character offset. */
export type JsonScan = { ok: true; depth: number } | { ok: false; reason: JsonRefusal; offset: number; depth: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** `Number.MAX_SAFE_INTEGER` as digits: an integer literal with more digits, or larger digits, would be rounded. */
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/** A JSON number token's parts: sign, integer digits, fraction digits, exponent. */
const NUMBER_TOKEN = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether a number token is an integer beyond `Number.MAX_SAFE_INTEGER` in magnitude, however it is written: as
 * digits (`9007199254740993`), with a fraction of zeros (`9007199254740993.0`) or with an exponent
 * (`9.007199254740993e15`, `1e20`). `JSON.parse` may round any of them to another integer, so one rule covers every
 * spelling of the same value. A literal whose value has a fractional part (`9007199254740993.5`) is floating point
 * by the writer's own choice and is not refused; nor is one too large for a double, which
 * {@link isOverflowingNumberLiteral} names (except an integer written as digits alone, refused here first).
 */
export function isUnsafeIntegerLiteral(token: string): boolean {
  const parts = NUMBER_TOKEN.exec(token);
  if (parts === null) return false;
  const whole = parts[1] as string;
  const fraction = parts[2] ?? "";
  const exponent = parts[3];
  if (fraction === "" && exponent === undefined) return beyondSafeDigits(whole.replace(/^0+(?=\d)/, ""));
  if (!Number.isFinite(Number(token))) return false;
  // The value is `significant × 10^scale`, with the significant digits' leading and trailing zeros taken out.
  const all = `${whole}${fraction}`.replace(/^0+/, "");
  const significant = all.replace(/0+$/, "");
  if (significant === "") return false;
  const scale = Number(exponent ?? 0) - fraction.length + (all.length - significant.length);
  if (scale < 0) return false;
  const digits = significant.length + scale;
  if (digits !== MAX_SAFE_DIGITS.length) return digits > MAX_SAFE_DIGITS.length;
  return beyondSafeDigits(`${significant}${"0".repeat(scale)}`);
}

/** Whether an integer's digits (no sign, no leading zeros) are past `Number.MAX_SAFE_INTEGER`. */
function beyondSafeDigits(digits: string): boolean {
  if (digits.length !== MAX_SAFE_DIGITS.length) return digits.length > MAX_SAFE_DIGITS.length;
  return digits > MAX_SAFE_DIGITS;
}

/**
 * Whether a number token is too large for a double: `JSON.parse` turns `1e999` into `Infinity`, which no JSON can
 * carry (it would be written back as `null`). Only tokens with an exponent or more than 308 characters can get
 * there, so the others are not converted.
 */
export function isOverflowingNumberLiteral(token: string): boolean {
  if (token.length <= 308 && !/[eE]/.test(token)) return false;
  const value = Number(token);
  return Number.isNaN(value) ? false : !Number.isFinite(value);
}

/**
 * Scans decoded JSON text once, without recursion: refuses a leading byte order mark, nesting deeper than
 * `maxDepth` (counting arrays and objects outside strings), integers beyond 2^53 − 1 however written (see
 * {@link isUnsafeIntegerLiteral}), and numbers too large for a double. It does not check the rest of the syntax; `JSON.parse` does that afterwards on text this scan has
 * found safe.
 *
 * Most of a payload is usually string content, so strings are skipped with `indexOf` (native and vectorised)
 * rather than character by character, and a number is only sliced out and checked when it could be unsafe: an
 * integer of 16 digits or more, a number with an exponent, or a token longer than any finite double needs.
 */
export function scanJsonText(text: string, maxDepth: number): JsonScan {
  if (text.charCodeAt(0) === 0xfeff) return { ok: false, reason: "byte_order_mark", offset: 0, depth: 0 };
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const unit = text.charCodeAt(i);
    if (unit === QUOTE) {
      // An unterminated string ends the scan; parse refuses it.
      i = closingQuote(text, i + 1) + 1;
    } else if (unit === OPEN_BRACKET || unit === OPEN_BRACE) {
      depth++;
      if (depth > maxDepth) return { ok: false, reason: "too_deep", offset: i, depth };
      if (depth > deepest) deepest = depth;
      i++;
    } else if (unit === CLOSE_BRACKET || unit === CLOSE_BRACE) {
      depth--;
      i++;
    } else if (unit === MINUS || (unit >= DIGIT_0 && unit <= DIGIT_9)) {
      const start = i;
      // What decides whether the token needs a closer look: how many digits it has, and whether it has an exponent.
      let digits = unit === MINUS ? 0 : 1;
      let exponent = false;
      i++;
      for (; i < length; i++) {
        const next = text.charCodeAt(i);
        if (next >= DIGIT_0 && next <= DIGIT_9) digits++;
        else if (next === 0x65 || next === 0x45) exponent = true;
        else if (next !== 0x2e && next !== 0x2b && next !== MINUS) break;
      }
      // Digits enough to pass 2^53 − 1 (with or without a fraction), or an exponent, may be an unsafe integer.
      if (digits >= MAX_SAFE_DIGITS.length || exponent || i - start > 308) {
        const token = text.slice(start, i);
        if (isUnsafeIntegerLiteral(token)) return { ok: false, reason: "unsafe_integer", offset: start, depth };
        if (isOverflowingNumberLiteral(token)) return { ok: false, reason: "number_overflow", offset: start, depth };
      }
    } else {
      i++;
    }
  }
  return { ok: true, depth: deepest };
}

/**
 * The index of the quote that closes the string whose content starts at `from`, or the text's length when none
 * does. A quote is escaped exactly when an odd run of backslashes precedes it: inside a string a backslash always
 * escapes the character after it, so a run pairs up from its left.
 */
function closingQuote(text: string, from: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if ((backslashes & 1) === 0) return quote;
    at = quote + 1;
  }
}

/** Any character `String.prototype.trim` would keep. */
const NOT_WHITESPACE = /\S/;

/** The result of {@link parseJsonText}. */
export type JsonParse = { ok: true; value: unknown; depth: number } | { ok: false; reason: JsonRefusal; depth: number };

/**
 * Parses JSON text that no payload can turn against the gate: nesting deeper than `maxDepth` and integers that
 * `JSON.parse` would round are refused (see {@link scanJsonText}), so is a string or key holding half a surrogate
 * pair (`lone_surrogate`), and the parser's own error message is dropped, since V8 quotes the offending payload
 * text in it and nothing of the payload may reach a failure.
 *
 * `JSON.parse` itself survives any nesting, so it runs first, and the checks run on what it made: one pass over the
 * parsed containers (a few times cheaper than reading the text again) finds the depth and any number past 2^53 − 1
 * in magnitude or not finite. Only then is the text scanned, to tell an integer that was rounded from a literal with
 * a fraction the writer chose (`9007199254740993.5`) and to report what {@link scanJsonText} reports: the answer is
 * the same as scanning first, and a well-formed, shallow, safe payload is read by the parser alone. Text that does
 * not parse is scanned too, so that a byte order mark or an unsafe integer is named as such; too deep is reported
 * only for text that is otherwise well-formed (broken text is `syntax` whatever its depth).
 * `deferred` skips the pass for text that parses (`depth` −1): for a validator that bounds depth and numbers itself;
 * `surrogatesLater` too the search of {@link escapedLoneSurrogate}, which the caller then makes itself.
 */
export function parseJsonText(text: string, maxDepth: number, deferred = false, surrogatesLater = false): JsonParse {
  // `\S` is exactly what `trim` keeps (whitespace and line ends), and the search stops at the first such character.
  if (!NOT_WHITESPACE.test(text)) return { ok: false, reason: "empty", depth: 0 };
  let value: unknown;
  let parsed = false;
  try {
    value = JSON.parse(text);
    parsed = true;
  } catch {
    // Told apart below.
  }
  if (parsed) {
    const depth = deferred ? -1 : plainDepth(value, maxDepth);
    if (deferred && surrogatesLater) return { ok: true, value, depth };
    if (deferred || depth >= 0) return wellFormedParse(text, value, depth);
  }
  const scan = scanJsonText(text, maxDepth);
  if (!scan.ok)
    return { ok: false, reason: parsed || scan.reason !== "too_deep" ? scan.reason : "syntax", depth: scan.depth };
  return parsed ? wellFormedParse(text, value, scan.depth) : { ok: false, reason: "syntax", depth: scan.depth };
}

/** The parse of a text, refused as `lone_surrogate` when its value holds an escaped lone surrogate. */
function wellFormedParse(text: string, value: unknown, depth: number): JsonParse {
  if (escapedLoneSurrogate(text, value)) return { ok: false, reason: "lone_surrogate", depth };
  return { ok: true, value, depth };
}

/**
 * Nesting up to which {@link plainDepth} recurses: the deepest `maxDepth` a contract can declare (`receive.maxDepth`
 * is at most 1000, 64 when derived); a thousand small frames fit any stack, and a larger bound is a caller's own.
 */
const RECURSIVE_DEPTH = 1000;

/**
 * The nesting depth of a parsed value (arrays and objects; a scalar is 0), or −1 when the value needs a closer look:
 * deeper than `maxDepth`, or holding a number past `Number.MAX_SAFE_INTEGER` in magnitude or not finite (what an
 * unsafe integer literal or an overflowing one parses to). Any depth is safe to ask about.
 *
 * A walk that recurses is about 35% cheaper than one that keeps its own stack (230 µs of a 1 MB parse's 3.4 ms);
 * it goes no deeper than `maxDepth + 1` frames, and past a contract's bound, or if the stack runs out anyway,
 * {@link iterativeDepth} answers, with the same answer on every value.
 */
export function plainDepth(value: unknown, maxDepth: number): number {
  if (typeof value === "number") return Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? 0 : -1;
  if (value === null || typeof value !== "object") return 0;
  if (maxDepth <= RECURSIVE_DEPTH) {
    try {
      return nestedDepth(value, 1, maxDepth);
    } catch {
      // The stack ran out (or a getter a polluted `Object.prototype` holds threw, which the walk below meets too).
    }
  }
  return iterativeDepth(value, maxDepth);
}

/**
 * {@link plainDepth} of `container`, found at `depth` (the outermost container is 1): the deepest level within it,
 * or −1. Recursive, so the caller bounds `maxDepth`.
 */
function nestedDepth(container: object, depth: number, maxDepth: number): number {
  if (depth > maxDepth) return -1;
  let deepest = depth;
  // Strings, most of a payload's members, are passed over first. `for…in` also visits enumerable properties a
  // polluted `Object.prototype` may have, as the iterative walk does.
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      const member: unknown = container[i];
      if (typeof member === "string") continue;
      if (typeof member === "object") {
        if (member === null) continue;
        const inner = nestedDepth(member, depth + 1, maxDepth);
        if (inner < 0) return -1;
        if (inner > deepest) deepest = inner;
      } else if (typeof member === "number" && !safeNumber(member)) return -1;
    }
  } else {
    const record = container as Record<string, unknown>;
    for (const key in record) {
      const member = record[key];
      if (typeof member === "string") continue;
      if (typeof member === "object") {
        if (member === null) continue;
        const inner = nestedDepth(member, depth + 1, maxDepth);
        if (inner < 0) return -1;
        if (inner > deepest) deepest = inner;
      } else if (typeof member === "number" && !safeNumber(member)) return -1;
    }
  }
  return deepest;
}

/** Whether a number is finite and within `Number.MAX_SAFE_INTEGER` in magnitude (NaN fails both comparisons). */
function safeNumber(member: number): boolean {
  return member <= Number.MAX_SAFE_INTEGER && member >= -Number.MAX_SAFE_INTEGER;
}

/**
 * {@link plainDepth} of a container without recursion: its own stack of containers and their depths, so any
 * `maxDepth` and any nesting are safe. The definition the recursive walk must match.
 */
export function iterativeDepth(value: object, maxDepth: number): number {
  const containers: object[] = [value];
  const depths: number[] = [1];
  let deepest = 0;
  for (let container = containers.pop(); container !== undefined; container = containers.pop()) {
    const depth = depths.pop() as number;
    if (depth > maxDepth) return -1;
    if (depth > deepest) deepest = depth;
    // `for…in` also visits enumerable properties a polluted `Object.prototype` may have; at worst that is a wasted
    // look or a needless scan (a cycle there ends at `maxDepth`), never a missed problem.
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        if (!admitMember(container[i], depth, containers, depths)) return -1;
      }
    } else {
      const record = container as Record<string, unknown>;
      for (const key in record) if (!admitMember(record[key], depth, containers, depths)) return -1;
    }
  }
  return deepest;
}

/** Queues a container member of {@link iterativeDepth}'s walk; false for a number that needs a closer look. */
function admitMember(member: unknown, depth: number, containers: object[], depths: number[]): boolean {
  if (typeof member === "object") {
    if (member !== null) {
      containers.push(member);
      depths.push(depth + 1);
    }
    return true;
  }
  return typeof member !== "number" || safeNumber(member);
}

/** What {@link guardParsedValue} found about a value that arrived already parsed. */
export type ValueGuard =
  | { ok: true }
  | { ok: false; reason: "too_deep"; depth: number }
  | { ok: false; reason: "too_large"; atLeastBytes: number }
  | { ok: false; reason: "not_json" };

/**
 * Checks a value that arrived already parsed (MCP `structuredContent`) before anything recursive touches it:
 * nesting no deeper than `maxDepth` (a cycle counts as too deep), only JSON types, and a lower bound of its
 * serialised size no larger than `maxBytes`, so a huge value is refused without serialising it. Iterative.
 */
export function guardParsedValue(value: unknown, maxDepth: number, maxBytes: number): ValueGuard {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  // A floor of the serialised size: every value counts at least its shortest form, strings their UTF-16 length
  // (never more than their UTF-8 bytes), containers their brackets and separators. Each container also checks the
  // floor including one byte per member before pushing its members, so a huge array is refused without a stack
  // entry per item.
  let bytes = 0;
  const tooLarge = (floor: number): ValueGuard => ({ ok: false, reason: "too_large", atLeastBytes: floor });
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value;
    if (current === null || typeof current === "boolean") bytes += 4;
    else if (typeof current === "number") {
      if (!Number.isFinite(current)) return { ok: false, reason: "not_json" };
      bytes += 1;
    } else if (typeof current === "string") bytes += current.length + 2;
    else if (typeof current === "object") {
      const depth = item.depth + 1;
      if (depth > maxDepth) return { ok: false, reason: "too_deep", depth };
      if (Array.isArray(current)) {
        bytes += 2 + Math.max(0, current.length - 1);
        if (bytes + current.length > maxBytes) return tooLarge(bytes + current.length);
        // By index, not by iterator: an array's `Symbol.iterator` may lie about what it holds.
        for (let i = 0; i < current.length; i++) stack.push({ value: current[i], depth });
      } else {
        const prototype = Object.getPrototypeOf(current);
        if (prototype !== Object.prototype && prototype !== null) return { ok: false, reason: "not_json" };
        const keys = Object.keys(current);
        bytes += 2 + Math.max(0, keys.length - 1);
        for (const key of keys) bytes += key.length + 3;
        if (bytes + keys.length > maxBytes) return tooLarge(bytes + keys.length);
        for (const key of keys) stack.push({ value: (current as Record<string, unknown>)[key], depth });
      }
    } else return { ok: false, reason: "not_json" };
    if (bytes > maxBytes) return tooLarge(bytes);
  }
  return { ok: true };
}

/** The result of {@link parsedValueJson}: the value's JSON text, or why it was refused. */
export type ParsedValueJson =
  | { ok: true; text: string }
  | { ok: false; reason: "too_deep"; depth: number }
  | { ok: false; reason: "too_large"; atLeastBytes: number }
  | { ok: false; reason: "not_json" | "unsafe_integer" | "lone_surrogate" };

/**
 * The JSON text of a value that arrived already parsed (MCP `structuredContent`, an in-process tool's value), for a
 * value that is plain JSON data only, written without recursion and without trusting the value:
 * - objects are plain (prototype `Object.prototype` or `null`), arrays are arrays of `Array.prototype`; their own
 *   enumerable string keys are read once each, arrays by index (never through `Symbol.iterator`, which may lie);
 * - `toJSON` is never called (`JSON.stringify` would call it, own or inherited, enumerable or not: it could
 *   return anything, of any depth): a `toJSON` key holding a function is a function, so `not_json`; other values
 *   (`undefined`, functions, symbols, bigints, `NaN`, infinities, dates, maps, class instances) are `not_json`;
 * - every property is read exactly once, so a getter or a proxy cannot show the guard one value and the writer
 *   another; one that throws makes the value `not_json` (its error, and its message, are dropped);
 * - nesting past `maxDepth` is `too_deep` (a cycle is too deep), text past `maxBytes` UTF-16 units (a floor of its
 *   UTF-8 size) is `too_large`, as soon as it is known (an array's length is checked before its items are read);
 * - a number past 2^53 − 1 in magnitude is `unsafe_integer` (every such double is an integer, and its text would
 *   be refused as one), and a string or key with half a surrogate pair is `lone_surrogate`.
 */
export function parsedValueJson(value: unknown, maxDepth: number, maxBytes: number): ParsedValueJson {
  try {
    return writeParsedValue(value, maxDepth, maxBytes);
  } catch {
    // A getter or proxy trap threw, or a revoked proxy was touched.
    return { ok: false, reason: "not_json" };
  }
}

/** A character `JSON.stringify` escapes in a well-formed string: a quote, a backslash, a control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be escaped.
const NEEDS_ESCAPE = /["\\\u0000-\u001F]/;

/** A container being written by {@link writeParsedValue}: its members are read one at a time, in order. */
interface Frame {
  /** The array, or the object's values are read through `keys`. */
  container: unknown[] | Record<string, unknown>;
  /** The object's own enumerable keys; `undefined` for an array. */
  keys: string[] | undefined;
  /** How many members there are, read once. */
  count: number;
  /** The next member to write. */
  next: number;
  depth: number;
  /** The container this one sits in: the frames are a list, not an array (see {@link writeParsedValue}). */
  parent: Frame | undefined;
}

/** What {@link writeParsedValue} refuses a value for (its writer's own marks, never the value's text). */
type Refusal = Exclude<ParsedValueJson, { ok: true }>;

/**
 * {@link parsedValueJson}'s writer; it throws only what the value's own code throws. One frame per open container,
 * one read per property, one append per token. Frames are a list of object literals and the text a string: it
 * writes no array index, which would reach an index accessor on a prototype (when the copy gives way to it).
 */
function writeParsedValue(value: unknown, maxDepth: number, maxBytes: number): ParsedValueJson {
  let out = "";
  let top: Frame | undefined; // the innermost open container's frame
  // Objects of one shape repeat their keys: each key's `"key":` is written once and looked up after.
  const keyTexts = new Map<string, string>();
  /** Writes a scalar, or opens a container (pushing its frame); a refusal when the value is not JSON data. */
  const write = (member: unknown, depth: number): Refusal | undefined => {
    if (member === null) out += "null";
    else if (member === true) out += "true";
    else if (member === false) out += "false";
    else if (typeof member === "number") {
      if (!Number.isFinite(member)) return { ok: false, reason: "not_json" };
      // Past 2^53 − 1 every double is an integer, and its text would be refused as one.
      if (member > Number.MAX_SAFE_INTEGER || member < -Number.MAX_SAFE_INTEGER) {
        return { ok: false, reason: "unsafe_integer" };
      }
      // `JSON.stringify` writes a finite number as `Number::toString` does, `-0` as `0`.
      out += String(member);
    } else if (typeof member === "string") {
      if (!wellFormed(member)) return { ok: false, reason: "lone_surrogate" };
      // Most strings need no escape: quoted as they are, they are joined rather than copied.
      out += NEEDS_ESCAPE.test(member) ? JSON.stringify(member) : `"${member}"`;
    } else if (typeof member === "object") {
      const inner = depth + 1;
      if (inner > maxDepth) return { ok: false, reason: "too_deep", depth: inner };
      const prototype = Object.getPrototypeOf(member);
      let frame: Frame;
      if (Array.isArray(member)) {
        if (prototype !== Array.prototype) return { ok: false, reason: "not_json" };
        const array = member as unknown[];
        frame = { container: array, keys: undefined, count: array.length, next: 0, depth: inner, parent: top };
        out += "[";
      } else {
        if (prototype !== Object.prototype && prototype !== null) return { ok: false, reason: "not_json" };
        const keys = Object.keys(member);
        const record = member as Record<string, unknown>;
        frame = { container: record, keys, count: keys.length, next: 0, depth: inner, parent: top };
        out += "{";
      }
      // Brackets and commas alone: a huge container is refused before a single member is read.
      if (out.length + frame.count > maxBytes)
        return { ok: false, reason: "too_large", atLeastBytes: out.length + frame.count };
      top = frame;
    } else return { ok: false, reason: "not_json" };
    return out.length > maxBytes ? { ok: false, reason: "too_large", atLeastBytes: out.length } : undefined;
  };
  const first = write(value, 0);
  if (first !== undefined) return first;
  while (top !== undefined) {
    const frame: Frame = top;
    if (frame.next === frame.count) {
      out += frame.keys === undefined ? "]" : "}";
      top = frame.parent;
      continue;
    }
    const index = frame.next++;
    if (index > 0) out += ",";
    let member: unknown;
    if (frame.keys === undefined) {
      // By index, never by iterator: an array's `Symbol.iterator` may lie about what it holds.
      member = (frame.container as unknown[])[index];
    } else {
      const key = frame.keys[index] as string;
      let keyText = keyTexts.get(key);
      if (keyText === undefined) {
        if (!wellFormed(key)) return { ok: false, reason: "lone_surrogate" };
        keyText = `${JSON.stringify(key)}:`;
        if (keyTexts.size < 1024) keyTexts.set(key, keyText);
      }
      out += keyText;
      member = (frame.container as Record<string, unknown>)[key];
    }
    const refusal = write(member, frame.depth);
    if (refusal !== undefined) return refusal;
  }
  return { ok: true, text: out };
}

/**
 * Serialises a value as JSON with object keys sorted, iteratively, for hashing call arguments. Follows
 * `JSON.stringify` for what is not JSON (`toJSON` is called, `undefined` and functions are skipped in objects and
 * become `null` in arrays); a bigint is written as its decimal digits. Throws past `maxDepth` levels.
 */
export function canonicalJson(value: unknown, maxDepth = 1000): string {
  const out: string[] = [];
  // Each entry is either text to emit as is or a value to serialise at a depth.
  const stack: Array<string | { value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === "string") {
      out.push(item);
      continue;
    }
    let current = item.value;
    if (
      current !== null &&
      typeof current === "object" &&
      typeof (current as { toJSON?: unknown }).toJSON === "function"
    ) {
      current = (current as { toJSON: () => unknown }).toJSON();
    }
    if (current === undefined || typeof current === "function" || typeof current === "symbol") {
      out.push("null");
    } else if (typeof current === "bigint") {
      out.push(current.toString());
    } else if (current === null || typeof current !== "object") {
      out.push(JSON.stringify(current));
    } else {
      const depth = item.depth + 1;
      if (depth > maxDepth) throw new RangeError("toolgate: value nested too deeply to serialise");
      if (Array.isArray(current)) {
        stack.push("]");
        for (let i = current.length - 1; i >= 0; i--) {
          stack.push({ value: current[i], depth });
          if (i > 0) stack.push(",");
        }
        stack.push("[");
      } else {
        const record = current as Record<string, unknown>;
        const keys = Object.keys(record)
          .filter((key) => {
            const entry = record[key];
            return entry !== undefined && typeof entry !== "function" && typeof entry !== "symbol";
          })
          .sort();
        stack.push("}");
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as string;
          stack.push({ value: record[key], depth });
          stack.push(`${JSON.stringify(key)}:`);
          if (i > 0) stack.push(",");
        }
        stack.push("{");
      }
    }
  }
  return out.join("");
}
