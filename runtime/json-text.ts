/**
 * JSON handling that no payload can crash: a parse that refuses what `JSON.parse` would get wrong and never echoes
 * payload text, a linear scan of the text that says exactly why, an iterative depth/size guard for values that
 * arrive already parsed, and an iterative canonical serialiser for hashing arguments.
 *
 * What has to be refused: `JSON.parse` accepts 100,000 levels of nesting, but the validator, the view and
 * `JSON.stringify` recurse and overflow the stack from about 10,000 levels; and `JSON.parse` silently rounds integer
 * literals past 2^53. Both are found without recursion, in time linear in the payload and constant stack.
 */

/** Why a JSON text was refused before or during parsing (`diagnostics.detail.reason`). */
export type JsonRefusal = "too_deep" | "unsafe_integer" | "number_overflow" | "byte_order_mark" | "syntax" | "empty";

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

/**
 * Whether a number token is an integer literal (no fraction, no exponent) beyond `Number.MAX_SAFE_INTEGER` in
 * magnitude, i.e. one that `JSON.parse` may round to a different integer. Literals with a fraction or exponent are
 * floating point by the writer's own choice and are accepted as such.
 */
export function isUnsafeIntegerLiteral(token: string): boolean {
  let digits = token.charCodeAt(0) === MINUS ? token.slice(1) : token;
  if (!/^\d+$/.test(digits)) return false;
  digits = digits.replace(/^0+(?=\d)/, "");
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
 * `maxDepth` (counting arrays and objects outside strings), integer literals beyond 2^53 − 1, and numbers too large
 * for a double. It does not check the rest of the syntax; `JSON.parse` does that afterwards on text this scan has
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
      // What decides whether the token needs a closer look: its digits when it is a plain integer, an exponent.
      let digits = unit === MINUS ? 0 : 1;
      let integer = true;
      let exponent = false;
      i++;
      for (; i < length; i++) {
        const next = text.charCodeAt(i);
        if (next >= DIGIT_0 && next <= DIGIT_9) digits++;
        else if (next === 0x65 || next === 0x45) {
          exponent = true;
          integer = false;
        } else if (next === 0x2e || next === 0x2b || next === MINUS) integer = false;
        else break;
      }
      if ((integer && digits >= MAX_SAFE_DIGITS.length) || exponent || i - start > 308) {
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
 * Parses JSON text that no payload can turn against the gate: nesting deeper than `maxDepth` and integer literals
 * that `JSON.parse` would round are refused (see {@link scanJsonText}), and the parser's own error message is
 * dropped, since V8 quotes the offending payload text in it and nothing of the payload may reach a failure.
 *
 * `JSON.parse` itself survives any nesting, so it runs first, and the checks run on what it made: one iterative
 * pass over the parsed containers (a few times cheaper than reading the text again) finds the depth and any number
 * past 2^53 − 1 in magnitude or not finite. Only then is the text scanned, to tell an integer literal that was
 * rounded from a floating-point literal the writer chose (`1e300`) and to report what {@link scanJsonText} reports:
 * the answer is the same as scanning first, and a well-formed, shallow, safe payload is read by the parser alone.
 * Text that does not parse is scanned too, so that a leading byte order mark or an unsafe integer is named as such;
 * too deep is reported only for text that is otherwise well-formed (broken text is `syntax` whatever its depth).
 */
export function parseJsonText(text: string, maxDepth: number): JsonParse {
  // `\S` is exactly what `trim` keeps (ECMAScript WhiteSpace and LineTerminator), and the search stops at the first
  // such character instead of copying the text.
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
    const depth = plainDepth(value, maxDepth);
    if (depth >= 0) return { ok: true, value, depth };
  }
  const scan = scanJsonText(text, maxDepth);
  if (!scan.ok)
    return { ok: false, reason: parsed || scan.reason !== "too_deep" ? scan.reason : "syntax", depth: scan.depth };
  return parsed ? { ok: true, value, depth: scan.depth } : { ok: false, reason: "syntax", depth: scan.depth };
}

/**
 * The nesting depth of a parsed value (arrays and objects; a scalar is 0), or −1 when the value needs a closer look:
 * deeper than `maxDepth`, or holding a number past `Number.MAX_SAFE_INTEGER` in magnitude or not finite (what an
 * unsafe integer literal or an overflowing one parses to). Iterative, so any depth is safe to ask about.
 */
function plainDepth(value: unknown, maxDepth: number): number {
  if (typeof value === "number") return Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? 0 : -1;
  if (value === null || typeof value !== "object") return 0;
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

/** Queues a container member of {@link plainDepth}'s walk; false for a number that needs a closer look. */
function admitMember(member: unknown, depth: number, containers: object[], depths: number[]): boolean {
  if (typeof member === "object") {
    if (member !== null) {
      containers.push(member);
      depths.push(depth + 1);
    }
    return true;
  }
  // NaN and the infinities fail both comparisons.
  return typeof member !== "number" || (member <= Number.MAX_SAFE_INTEGER && member >= -Number.MAX_SAFE_INTEGER);
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
        for (const element of current) stack.push({ value: element, depth });
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
