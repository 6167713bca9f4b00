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
 *
 * Objects are copied by the language's own copy of own enumerable properties (`{ ...source }`), which the engine
 * does for an ordinary object by copying its layout at once: several times cheaper than defining the copy's
 * properties one by one, which was most of the copy's cost. It copies an enumerable symbol-keyed property too; a
 * symbol is no JSON, so the text, the validator and the view never read one, and asking every object for its symbols
 * would cost more than the copy itself.
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

/**
 * The containers still to copy, each a source with the copy that holds it (its parent's copy, or the holder) and
 * the slot it takes there (an index or a key), and its depth (the outermost container is 1).
 */
interface Pending {
  sources: object[];
  holders: object[];
  slots: Array<number | string>;
  depths: number[];
}

/**
 * A scalar member's lower bound of JSON length in UTF-16 units: `-1` for a member that is not a scalar the copy
 * takes (a container, or what is not JSON data).
 */
function scalarFloor(member: unknown): number {
  if (typeof member === "string") return member.length + 2;
  if (typeof member === "number") {
    // NaN and the infinities fail both comparisons.
    return member <= MAX_SAFE && member >= -MAX_SAFE ? 1 : -1;
  }
  return member === null || member === true || member === false ? 4 : -1;
}

/**
 * Queues a plain array or object member to be copied into `slot` of `holder` once its turn comes, or says
 * {@link GIVE_UP}. Only its prototype is read here; its members are read when it is copied.
 */
function queueContainer(
  member: unknown,
  holder: object,
  slot: number | string,
  depth: number,
  pending: Pending,
): typeof GIVE_UP | undefined {
  if (member === null || typeof member !== "object") return GIVE_UP;
  const prototype = Object.getPrototypeOf(member);
  if (Array.isArray(member) ? prototype !== Array.prototype : prototype !== Object.prototype && prototype !== null) {
    return GIVE_UP;
  }
  pending.sources.push(member);
  pending.holders.push(holder);
  pending.slots.push(slot);
  pending.depths.push(depth + 1);
  return undefined;
}

/** Copies an array, reading each item once, into `copies[0]`; the byte floor so far, or −1 to give up. */
function copyArray(
  array: unknown[],
  copies: unknown[],
  depth: number,
  pending: Pending,
  floor: number,
  maxBytes: number,
): number {
  const count = array.length;
  // Brackets and commas alone: a huge array is given up before one of its items is read.
  let bytes = floor + count + 1;
  if (bytes > maxBytes) return -1;
  const target: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const member = array[i];
    const scalar = scalarFloor(member);
    // `-0` is held as `0`, as its text (`0`) reads back; a container holds its place until it is copied.
    target.push(member === 0 ? 0 : member);
    if (scalar >= 0) bytes += scalar;
    else if (queueContainer(member, target, i, depth, pending) === GIVE_UP) return -1;
  }
  copies[0] = target;
  return bytes > maxBytes ? -1 : bytes;
}

/**
 * Copies an object into `copies[0]`; the byte floor so far, or −1 to give up. The copy is made by the language's
 * own copy of own enumerable properties (`{ ...record }`: each read once, a getter run once, every property
 * defined, never set, so `__proto__` stays an own key and no setter runs), which the engine does at native speed for
 * ordinary objects; its members are then checked on the copy, which holds only data properties.
 */
function copyObject(
  record: Record<string, unknown>,
  copies: unknown[],
  depth: number,
  pending: Pending,
  floor: number,
  maxBytes: number,
): number {
  const copy: Record<string, unknown> = { ...record };
  copies[0] = copy;
  const keys = Object.keys(copy);
  let bytes = floor + keys.length + 1;
  let numeric = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = copy[key];
    const scalar = scalarFloor(member);
    if (scalar >= 0) {
      bytes += scalar;
      if (member === 0 && 1 / member < 0) copy[key] = 0;
    } else if (queueContainer(member, copy, key, depth, pending) === GIVE_UP) return -1;
    bytes += key.length + 3;
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) numeric = true;
  }
  // An ordinary object lists index-like keys first, whatever order they came in; only a proxy lists them otherwise,
  // and then the copy's order (its text's) is not the order the writer would write.
  if (numeric && !sameOrder(Object.keys(record), keys)) return -1;
  return bytes > maxBytes ? -1 : bytes;
}

/** Whether two lists of keys are the same, in the same order. */
function sameOrder(listed: readonly string[], copied: readonly string[]): boolean {
  if (listed.length !== copied.length) return false;
  for (let i = 0; i < listed.length; i++) if (listed[i] !== copied[i]) return false;
  return true;
}

/**
 * Whether putting a container's copy into its slot can only write the slot: every own property of
 * `Object.prototype` but `__proto__` is a writable data property (as the language defines them), and neither
 * prototype has a key like an array index, which `push` could reach. Asked once per copy: someone may have added a
 * setter or a read-only property since.
 */
function prototypesPlain(): boolean {
  for (const name of Object.getOwnPropertyNames(Object.prototype)) {
    if (name === "__proto__") continue;
    const own = Object.getOwnPropertyDescriptor(Object.prototype, name);
    if (own === undefined || own.writable !== true) return false;
  }
  for (const name of Object.getOwnPropertyNames(Array.prototype)) {
    const first = name.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) return false;
  }
  return true;
}

/** Puts a container's copy into its slot of the copy that holds it, where the source member sat until now. */
function place(holder: object, slot: number | string, copy: unknown): void {
  if (slot === "__proto__") {
    // Assigning it would set the prototype: it stays an own key, as `JSON.parse` makes it.
    Object.defineProperty(holder, slot, { value: copy, writable: true, enumerable: true, configurable: true });
  } else (holder as Record<string | number, unknown>)[slot] = copy;
}

/** {@link copyParsedValue} without its guard against the value's own code throwing. */
function copyUnguarded(value: unknown, maxDepth: number, maxBytes: number, piecesFrom: number): ValueCopy | undefined {
  if (!prototypesPlain()) return undefined;
  // The value sits in a holder of the copy's own, at depth 0, so the outermost container is at depth 1.
  const holder: unknown[] = [];
  const pending: Pending = { sources: [[value]], holders: [holder], slots: [0], depths: [0] };
  const copies: unknown[] = [undefined];
  let bytes = 0;
  for (let source = pending.sources.pop(); source !== undefined; source = pending.sources.pop()) {
    const into = pending.holders.pop() as object;
    const slot = pending.slots.pop() as number | string;
    const depth = pending.depths.pop() as number;
    if (depth > maxDepth) return undefined;
    bytes = Array.isArray(source)
      ? copyArray(source, copies, depth, pending, bytes, maxBytes)
      : copyObject(source as Record<string, unknown>, copies, depth, pending, bytes, maxBytes);
    if (bytes < 0) return undefined;
    place(into, slot, copies[0]);
  }
  const copy = (holder[0] as unknown[])[0];
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
