/**
 * The fast path for a value that arrived already parsed (MCP `structuredContent`, an in-process tool's value): one
 * read of each property makes a private copy of plain JSON data, and the native `JSON.stringify` of that copy is the
 * payload's JSON text. The copy is what the gate validates and views, so nothing is parsed again, and the caller's
 * object is never read a second time: a getter or a proxy cannot show the validator one value and the view another.
 *
 * The copy vouches only for what it is sure of. Whenever it meets anything the careful writer (`parsedValueJson`)
 * might refuse or write otherwise (a value that is not JSON data, too deep, too large, a number past 2^53 − 1, a lone
 * surrogate, keys a proxy lists out of an ordinary object's order, a getter that throws), it gives up, and the gate
 * takes the writer's path, which decides exactly as before. So both paths give the same text, the same data and the
 * same refusal on every payload (test/hardening/parsed-value-copy.property.test.ts).
 */

/** What a copy found: the private copy and its JSON text. */
export interface ValueCopy {
  /** Plain JSON data, equal to `JSON.parse(text)`: fresh objects and arrays the caller holds no reference to. */
  value: unknown;
  /**
   * The copy's JSON text, the same text the careful writer writes for the value; `undefined` for a copy of at
   * least `piecesFrom` units of text, which the caller writes in pieces (`writeJsonPieces`) or whole
   * ({@link wholeText}).
   */
  text: string | undefined;
}

/**
 * Units of JSON text (a lower bound, counted while copying) from which a copy's text is left to be written in
 * pieces: below it, one native `JSON.stringify` is cheapest.
 */
export const PIECES_FROM = 8 * 1024 * 1024;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Marks a member the copy will not vouch for. */
const GIVE_UP = Symbol("give up");

/** An escape `JSON.stringify` writes for half a surrogate pair (it writes any other character as it is). */
export const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

/** The containers still to copy: each source with its fresh copy and its depth (the outermost container is 1). */
interface Pending {
  sources: object[];
  targets: object[];
  depths: number[];
}

/**
 * A scalar member's lower bound of JSON length in UTF-16 units, as the copy holds it (`-0` is `0`, as its text
 * reads back): `-1` for a member that is not a scalar the copy takes (a container, or what is not JSON data).
 */
function scalarFloor(member: unknown): number {
  if (typeof member === "string") return member.length + 2;
  if (typeof member === "number") {
    // NaN and the infinities fail both comparisons.
    return member <= MAX_SAFE && member >= -MAX_SAFE ? 1 : -1;
  }
  return member === null || member === true || member === false ? 4 : -1;
}

/** A fresh container for a plain array or object, queued to be filled, or {@link GIVE_UP}. */
function openContainer(member: unknown, depth: number, pending: Pending): object | typeof GIVE_UP {
  if (member === null || typeof member !== "object") return GIVE_UP;
  const prototype = Object.getPrototypeOf(member);
  let target: object;
  if (Array.isArray(member)) {
    if (prototype !== Array.prototype) return GIVE_UP;
    target = [];
  } else {
    if (prototype !== Object.prototype && prototype !== null) return GIVE_UP;
    target = {};
  }
  pending.sources.push(member);
  pending.targets.push(target);
  pending.depths.push(depth + 1);
  return target;
}

/** Whether an object's keys, as listed, are in the order an ordinary object lists them (`copy` is one, built in it). */
function ordinaryOrder(keys: readonly string[], copy: object): boolean {
  const listed = Object.keys(copy);
  for (let i = 0; i < keys.length; i++) if (listed[i] !== keys[i]) return false;
  return true;
}

/** Fills an array's copy, reading each item once; the byte floor so far, or −1 to give up. */
function fillArray(
  array: unknown[],
  target: unknown[],
  depth: number,
  pending: Pending,
  floor: number,
  maxBytes: number,
) {
  const count = array.length;
  // Brackets and commas alone: a huge array is given up before one of its items is read.
  let bytes = floor + count + 1;
  if (bytes > maxBytes) return -1;
  for (let i = 0; i < count; i++) {
    const member = array[i];
    const scalar = scalarFloor(member);
    if (scalar >= 0) {
      target.push(member === 0 ? 0 : member);
      bytes += scalar;
    } else {
      const opened = openContainer(member, depth, pending);
      if (opened === GIVE_UP) return -1;
      target.push(opened);
    }
  }
  return bytes > maxBytes ? -1 : bytes;
}

/**
 * Fills an object's copy, reading each member once; the byte floor so far, or −1 to give up. No setter ever runs:
 * the copy is made only while the prototypes hold none (see {@link prototypesPlain}), and `__proto__` is defined
 * as an own key.
 */
function fillObject(
  record: Record<string, unknown>,
  copy: Record<string, unknown>,
  depth: number,
  pending: Pending,
  floor: number,
  maxBytes: number,
): number {
  const keys = Object.keys(record);
  let bytes = floor + keys.length + 1;
  let numeric = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = record[key];
    const scalar = scalarFloor(member);
    let held: unknown;
    if (scalar >= 0) {
      held = member === 0 ? 0 : member;
      bytes += scalar;
    } else {
      held = openContainer(member, depth, pending);
      if (held === GIVE_UP) return -1;
    }
    if (key === "__proto__") {
      // Assigning it would set the prototype: it is defined as an own key, as `JSON.parse` makes it.
      Object.defineProperty(copy, key, { value: held, writable: true, enumerable: true, configurable: true });
    } else copy[key] = held;
    bytes += key.length + 3;
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) numeric = true;
  }
  // Only keys that look like indices can be listed out of the copy's order (by a proxy).
  if (numeric && !ordinaryOrder(keys, copy)) return -1;
  return bytes > maxBytes ? -1 : bytes;
}

/**
 * Whether assigning a key to a fresh object or array can only make an own property: every own property of
 * `Object.prototype` but `__proto__` is a writable data property (as the language defines them), and neither
 * prototype has an array index, which `push` could reach. Asked once per copy: someone may have added a setter or
 * a read-only property since. `Array.prototype` is itself an array, so it can hold an index only while its
 * `length` is not 0 (defining an index raises the length; a deleted index leaves it raised, and the copy then keeps
 * giving up, which is only slower): that one read replaces listing its forty-odd names on every copy.
 */
function prototypesPlain(): boolean {
  for (const name of Object.getOwnPropertyNames(Object.prototype)) {
    if (name === "__proto__") continue;
    const own = Object.getOwnPropertyDescriptor(Object.prototype, name);
    if (own === undefined || own.writable !== true) return false;
  }
  return (Array.prototype as unknown[]).length === 0;
}

/** {@link copyParsedValue} without its guard against the value's own code throwing. */
function copyUnguarded(value: unknown, maxDepth: number, maxBytes: number, piecesFrom: number): ValueCopy | undefined {
  if (!prototypesPlain()) return undefined;
  // The value sits in a holder of the copy's own, at depth 0, so the outermost container is at depth 1.
  const holder: unknown[] = [];
  const pending: Pending = { sources: [[value]], targets: [holder], depths: [0] };
  let bytes = 0;
  for (let source = pending.sources.pop(); source !== undefined; source = pending.sources.pop()) {
    const target = pending.targets.pop() as object;
    const depth = pending.depths.pop() as number;
    if (depth > maxDepth) return undefined;
    bytes = Array.isArray(target)
      ? fillArray(source as unknown[], target, depth, pending, bytes, maxBytes)
      : fillObject(
          source as Record<string, unknown>,
          target as Record<string, unknown>,
          depth,
          pending,
          bytes,
          maxBytes,
        );
    if (bytes < 0) return undefined;
  }
  const copy = holder[0];
  if (bytes >= piecesFrom) return { value: copy, text: undefined };
  const text = wholeText(copy, maxBytes);
  return text === undefined ? undefined : { value: copy, text };
}

/**
 * The JSON text of a copy written whole, or `undefined` when the copy cannot vouch for it: longer than `maxBytes`
 * units, or holding half a surrogate pair.
 */
export function wholeText(copy: unknown, maxBytes: number): string | undefined {
  const text = JSON.stringify(copy);
  if (text.length > maxBytes) return undefined;
  // `JSON.stringify` writes half a surrogate pair as an escape; a text without `\u` has none in any string or key.
  if (text.indexOf("\\u") >= 0 && SURROGATE_ESCAPE.test(text)) return undefined;
  return text;
}

/**
 * A private copy of a value that arrived already parsed, with its JSON text, or `undefined` when the careful
 * writer must decide (see the module's comment). Within `maxDepth` levels and `maxBytes` UTF-16 units of text (the
 * caller still checks the ceiling in bytes). A copy whose text is at least `piecesFrom` units long comes without it
 * (see {@link ValueCopy}). Iterative: any depth is safe to ask about.
 */
export function copyParsedValue(
  value: unknown,
  maxDepth: number,
  maxBytes: number,
  piecesFrom = PIECES_FROM,
): ValueCopy | undefined {
  try {
    return copyUnguarded(value, maxDepth, maxBytes, piecesFrom);
  } catch {
    // A getter or a proxy trap threw: the writer refuses the value as it always has.
    return undefined;
  }
}
