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

/** What a copy has counted so far, and its bounds. */
interface Walk {
  /** A lower bound of the copy's JSON text in UTF-16 units, so far. */
  bytes: number;
  readonly maxBytes: number;
  readonly maxDepth: number;
  /** Array lengths up to which `Object.prototype` is known to hold no index, in this copy ({@link indexesFree}). */
  indexesFree: number;
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
 * The copy of a plain array or object at `depth` (the outermost container is 1), or {@link GIVE_UP}. The copy
 * recurses, one level per level of the value, which never goes past `maxDepth`: a bound of the contract's, at most
 * 64. A caller's bound so large that the stack runs out throws, and the copy gives way to the writer, which is
 * iterative.
 */
function copyContainer(member: object, depth: number, walk: Walk): unknown {
  if (depth > walk.maxDepth) return GIVE_UP;
  const prototype = Object.getPrototypeOf(member);
  if (Array.isArray(member)) {
    return prototype === Array.prototype ? copyArray(member, depth, walk) : GIVE_UP;
  }
  return prototype === Object.prototype || prototype === null
    ? copyObject(member as Record<string, unknown>, depth, walk)
    : GIVE_UP;
}

/** Copies an array, reading each item once, or gives up. */
function copyArray(array: unknown[], depth: number, walk: Walk): unknown {
  const count = array.length;
  // Brackets and commas alone: a huge array is given up before one of its items is read.
  walk.bytes += count + 1;
  if (walk.bytes > walk.maxBytes || !indexesFree(walk, count)) return GIVE_UP;
  const target: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const member = array[i];
    if (typeof member === "object" && member !== null) {
      const copied = copyContainer(member, depth + 1, walk);
      if (copied === GIVE_UP) return GIVE_UP;
      target.push(copied);
    } else {
      const scalar = scalarFloor(member);
      if (scalar < 0) return GIVE_UP;
      walk.bytes += scalar;
      // `-0` is held as `0`, as its text (`0`) reads back.
      target.push(member === 0 ? 0 : member);
    }
  }
  return walk.bytes > walk.maxBytes ? GIVE_UP : target;
}

/**
 * Copies an object, or gives up. The copy is made by the language's own copy of own enumerable properties
 * (`{ ...record }`: each read once, a getter run once, every property defined, never set, so `__proto__` stays an
 * own key and no setter runs), which the engine does at native speed for ordinary objects; its members are then
 * checked on the copy, which holds only data properties, and a container member replaced by its own copy.
 */
function copyObject(record: Record<string, unknown>, depth: number, walk: Walk): unknown {
  const copy: Record<string, unknown> = { ...record };
  const keys = Object.keys(copy);
  walk.bytes += keys.length + 1;
  let numeric = false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = copy[key];
    walk.bytes += key.length + 3;
    if (typeof member === "object" && member !== null) {
      const copied = copyContainer(member, depth + 1, walk);
      if (copied === GIVE_UP) return GIVE_UP;
      if (key === "__proto__") {
        // Assigning it would set the prototype: it stays an own key, as `JSON.parse` makes it.
        Object.defineProperty(copy, key, { value: copied, writable: true, enumerable: true, configurable: true });
      } else copy[key] = copied;
    } else {
      const scalar = scalarFloor(member);
      if (scalar < 0) return GIVE_UP;
      walk.bytes += scalar;
      if (member === 0 && 1 / member < 0) copy[key] = 0;
    }
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39) numeric = true;
  }
  // An ordinary object lists index-like keys first, whatever order they came in; only a proxy lists them otherwise,
  // and then the copy's order (its text's) is not the order the writer would write.
  if (numeric && !sameOrder(Object.keys(record), keys)) return GIVE_UP;
  return walk.bytes > walk.maxBytes ? GIVE_UP : copy;
}

/** Whether two lists of keys are the same, in the same order. */
function sameOrder(listed: readonly string[], copied: readonly string[]): boolean {
  if (listed.length !== copied.length) return false;
  for (let i = 0; i < listed.length; i++) if (listed[i] !== copied[i]) return false;
  return true;
}

/**
 * Whether the copy and its text can be made without running anything a prototype holds. A copied object is made by
 * a spread (which defines its properties) and written only under its own keys, so no prototype is reached there.
 * What can reach one: `push` into a fresh array, which writes array indexes and finds whatever `Array.prototype` or
 * `Object.prototype` holds under one (see {@link indexesFree} for the latter); and `JSON.stringify`, which calls a
 * `toJSON` it finds on either. Asked once per copy: someone may have added one since. `Array.prototype` is itself an
 * array, so it can hold an index only while its `length` is not 0 (defining an index raises the length; a deleted
 * index leaves it raised, and the copy then keeps giving up, which is only slower).
 */
export function prototypesPlain(): boolean {
  return (Array.prototype as unknown[]).length === 0 && !("toJSON" in Array.prototype);
}

/**
 * A property name that may be an array index, as `push` writes them: canonical decimal of up to ten digits (a few
 * such names past the last index, 2^32 − 2, are taken for one too, and the copy gives up, which is only slower).
 */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/** Arrays up to this long have their indexes looked up on `Object.prototype` one by one. */
const INDEXES_ONE_BY_ONE = 64;

/**
 * Whether `Object.prototype` holds no index below `count`, which `push` into a copied array of that length would
 * reach. Short arrays (most) look their indexes up one by one, each once per copy; a longer one lists the prototype's
 * own names once per copy (about half a microsecond), which begin with any array index it holds.
 */
function indexesFree(walk: Walk, count: number): boolean {
  if (count <= walk.indexesFree) return true;
  if (count > INDEXES_ONE_BY_ONE) {
    const first = Object.getOwnPropertyNames(Object.prototype)[0];
    if (first !== undefined && ARRAY_INDEX.test(first)) return false;
    walk.indexesFree = Number.POSITIVE_INFINITY;
    return true;
  }
  for (let index = walk.indexesFree; index < count; index++) if (index in Object.prototype) return false;
  walk.indexesFree = count;
  return true;
}

/** {@link copyParsedValue} without its guard against the value's own code throwing. */
function copyUnguarded(value: unknown, maxDepth: number, maxBytes: number, piecesFrom: number): ValueCopy | undefined {
  if (!prototypesPlain()) return undefined;
  // Two units for the brackets of the holder the value once sat in: the floors stay what they were.
  const walk: Walk = { bytes: 2, maxBytes, maxDepth, indexesFree: 0 };
  let copy: unknown;
  if (typeof value === "object" && value !== null) {
    copy = copyContainer(value, 1, walk);
    if (copy === GIVE_UP) return undefined;
  } else {
    const scalar = scalarFloor(value);
    if (scalar < 0) return undefined;
    walk.bytes += scalar;
    copy = value === 0 ? 0 : value;
  }
  if (walk.bytes > maxBytes) return undefined;
  if (walk.bytes >= piecesFrom) return { value: copy, text: undefined };
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
 * (see {@link ValueCopy}). Any depth is safe to ask about: the copy goes no deeper than `maxDepth`, and gives way to
 * the writer where the stack would not hold it.
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
    // A getter or a proxy trap threw, or the stack ran out: the writer decides as it always has.
    return undefined;
  }
}
