/**
 * `@toolgate/runtime/validators`: what generated `validate.js` modules import, and nothing else.
 *
 * A cold start loads every tool's validators before the first result is checked, so this entry imports no other
 * module: not the gate, not the rest of the runtime (`@toolgate/runtime` re-exports these names for everything
 * else). Format checks, needed only where a contract asserts `format`, have an entry of their own
 * (`@toolgate/runtime/formats`), so a contract that only annotates formats never loads them.
 */

/**
 * Whether two parsed JSON values are equal as JSON Schema compares instances (2020-12 core, section 4.2.2):
 * numbers by value, strings by code units, arrays item by item, objects by their own keys regardless of order.
 * Iterative, so deeply nested values cannot overflow the call stack.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[left, right]];
  while (pending.length > 0) {
    const [a, b] = pending.pop() as [unknown, unknown];
    if (a === b) continue;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) pending.push([a[i], b[i]]);
      continue;
    }
    if (Array.isArray(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false;
      pending.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/**
 * Number of Unicode code points in `text`: the length `minLength` and `maxLength` bound (2020-12 validation,
 * section 6.3.1). It lives in this entry, which imports nothing, so generated validators can load it alone; the
 * text module re-exports it.
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * Levels {@link jsonKey} descends by recursion, which is the fast way; anything deeper is written by the iterative
 * walk, which no nesting can overflow.
 */
const RECURSION_LIMIT = 500;

/**
 * A text that two items share exactly when {@link jsonEqual} finds them equal: the key `uniqueItems` files items
 * under, so deciding it takes one pass over the items instead of comparing every pair (a 469 KB array of objects
 * took 36.8 s pairwise). It is the item's JSON text with object keys sorted: key order does not count; numbers are
 * written by value, so 1 and 1.0 (one double once parsed) and 0 and -0 are one key; strings and keys are JSON-quoted,
 * so `"__proto__"` is a key like any other and no string can pass for structure.
 *
 * The first levels are written by recursion and deeper ones by an iterative walk (the same text either way), so
 * nesting deeper than the call stack cannot overflow it: `checkInput` may run on arguments the gate never guarded. A
 * value that contains itself is not JSON and throws a TypeError instead of looping forever.
 *
 * Values JSON cannot hold compare as `uniqueItems` compares scalar items (SameValueZero): `NaN` matches `NaN`, and a
 * function or symbol matches only itself, through the numbers `identities` hands out (one map per check, so the
 * same function in two items gets the same number).
 */
export function jsonKey(value: unknown, identities: Map<unknown, number> = new Map()): string {
  return keyText(value, 0, identities);
}

function keyText(value: unknown, depth: number, identities: Map<unknown, number>): string {
  if (typeof value === "string") return quote(value);
  if (typeof value !== "object" || value === null) return scalarText(value, identities);
  return compositeText(value, depth, identities);
}

/** {@link keyText} for an array's item or an object's member: numbers, the commonest, are written first and inline. */
function memberText(value: unknown, depth: number, identities: Map<unknown, number>): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return quote(value);
  if (typeof value === "object" && value !== null) return compositeText(value, depth, identities);
  return scalarText(value, identities);
}

/**
 * The text of an array or object. The first member is written before the loop so the loop does not test for a
 * comma: this runs once per composite item and level.
 */
function compositeText(value: object, depth: number, identities: Map<unknown, number>): string {
  if (depth >= RECURSION_LIMIT) return deepKeyText(value, identities);
  if (Array.isArray(value)) {
    const count = value.length;
    if (count === 0) return "[]";
    let text = `[${memberText(value[0], depth + 1, identities)}`;
    for (let i = 1; i < count; i++) text += `,${memberText(value[i], depth + 1, identities)}`;
    return `${text}]`;
  }
  const keys = sortedKeys(value);
  const count = keys.length;
  if (count === 0) return "{}";
  const record = value as Record<string, unknown>;
  const first = keys[0] as string;
  let text = `{${quotedKey(first)}${memberText(record[first], depth + 1, identities)}`;
  for (let i = 1; i < count; i++) {
    const key = keys[i] as string;
    text += `,${quotedKey(key)}${memberText(record[key], depth + 1, identities)}`;
  }
  return `${text}}`;
}

/**
 * `text` as JSON writes it. Most strings need no escape, and checking that is cheaper than calling JSON.stringify;
 * any quote, backslash, control character or surrogate (which JSON.stringify escapes when it stands alone) is left
 * to JSON.stringify, so the text is JSON.stringify's in every case.
 */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit <= 0xdfff)) {
      return JSON.stringify(text);
    }
  }
  return `"${text}"`;
}

/** Keys at most this long are kept quoted in {@link quotedKeys}; longer ones are rare and would hold memory. */
const QUOTED_KEY_LENGTH = 64;
/** How many quoted keys {@link quotedKeys} holds before it starts over, so hostile payloads cannot grow it. */
const QUOTED_KEYS_LIMIT = 4096;
/** Object keys already quoted, each with its colon: the same few keys recur in every item of an array. */
let quotedKeys = new Map<string, string>();

/** A key as {@link compositeText} writes it: quoted, then a colon. */
function quotedKey(key: string): string {
  let text = quotedKeys.get(key);
  if (text !== undefined) return text;
  text = `${quote(key)}:`;
  if (key.length <= QUOTED_KEY_LENGTH) {
    if (quotedKeys.size >= QUOTED_KEYS_LIMIT) quotedKeys = new Map();
    quotedKeys.set(key, text);
  }
  return text;
}

/** An object's own enumerable keys in code unit order (most parsed objects are small or in order already). */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
}

/** The text of a value that is neither a string nor an object; words no quoted string or number writes. */
function scalarText(value: unknown, identities: Map<unknown, number>): string {
  // String(-0) is "0"; NaN and the infinities are words.
  if (typeof value === "number") return String(value);
  if (typeof value === "function" || typeof value === "symbol") {
    let id = identities.get(value);
    if (id === undefined) {
      id = identities.size;
      identities.set(value, id);
    }
    return `#${id}`;
  }
  return typeof value === "bigint" ? `${value}n` : String(value);
}

/** Text {@link deepKeyText} writes as it is (punctuation, quoted keys); `closes` is the value whose text it ends. */
class Literal {
  constructor(
    readonly text: string,
    readonly closes?: object,
  ) {}
}

/** {@link keyText} without recursion: the same text, for values nested past {@link RECURSION_LIMIT}. */
function deepKeyText(value: object, identities: Map<unknown, number>): string {
  const parts: string[] = [];
  const open = new Set<object>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next instanceof Literal) {
      parts.push(next.text);
      if (next.closes !== undefined) open.delete(next.closes);
    } else if (typeof next === "string") {
      parts.push(JSON.stringify(next));
    } else if (typeof next !== "object" || next === null) {
      parts.push(scalarText(next, identities));
    } else {
      if (open.has(next)) throw new TypeError("the value contains itself, so it is not JSON");
      open.add(next);
      // Pushed last to first, so they come off the list in order.
      if (Array.isArray(next)) {
        pending.push(new Literal("]", next));
        for (let i = next.length - 1; i >= 0; i--) {
          pending.push(next[i]);
          if (i > 0) pending.push(new Literal(","));
        }
        pending.push(new Literal("["));
      } else {
        const keys = sortedKeys(next);
        pending.push(new Literal("}", next));
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as string;
          pending.push(
            (next as Record<string, unknown>)[key],
            new Literal(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`),
          );
        }
        pending.push(new Literal("{"));
      }
    }
  }
  return parts.join("");
}

/**
 * Probes past one per item that {@link firstDuplicate}'s table allows before it files the rest of the items in a
 * `Map`: enough for any fair run of collisions, and a bound on items crafted to share hashes.
 */
const PROBE_ALLOWANCE = 8;

/**
 * The pair of items `uniqueItems` reports, `[i, j]` with `i < j` and the items equal as JSON Schema compares them,
 * or `undefined` when all items differ. Items are read from last to first and `i` is the first one found whose
 * equal was read already (`j`, the last of its equals): the pair Ajv's pairwise check reports.
 *
 * Scalars are filed in a `Map` (SameValueZero, so 0 and -0 alike, NaN equal to NaN, `"__proto__"` a string like any
 * other), objects and arrays by their {@link jsonKey} text. A `Map` of a million fresh strings costs more than
 * writing them, so the texts' hashes go in an open-addressed table of item indexes, with a seed drawn per call: items
 * cannot be made to collide in advance, and should they collide anyway past {@link PROBE_ALLOWANCE}, the remaining
 * items go to a `Map`, so the check stays linear whatever it is given.
 */
export function firstDuplicate(items: readonly unknown[]): [number, number] | undefined {
  const identities = new Map<unknown, number>();
  const scalars = new Map<unknown, number>();
  // Slots hold an item's index plus one (0 is empty) and, beside it, its text's hash. Texts are not kept: holding a
  // million young strings costs the garbage collector more than writing again the rare one whose hash matches.
  let slots: Int32Array | undefined;
  let hashes: Int32Array | undefined;
  let mask = 0;
  let spilled: Map<string, number> | undefined;
  let probes = 0;
  const seed = (Math.random() * 0x100000000) | 0;
  for (let i = items.length; i--; ) {
    const item = items[i];
    if (item === null || typeof item !== "object") {
      const j = scalars.get(item);
      if (j !== undefined) return [i, j];
      scalars.set(item, i);
      continue;
    }
    const text = jsonKey(item, identities);
    if (spilled !== undefined) {
      const j = spilled.get(text);
      if (j !== undefined) return [i, j];
      spilled.set(text, i);
      continue;
    }
    if (slots === undefined || hashes === undefined) {
      let size = 16;
      while (size < 2 * (i + 1)) size *= 2;
      slots = new Int32Array(size);
      hashes = new Int32Array(size);
      mask = size - 1;
    }
    const hash = textHash(text, seed);
    let slot = hash & mask;
    for (let filed = slots[slot] as number; filed !== 0; filed = slots[slot] as number) {
      if (hashes[slot] === hash && jsonKey(items[filed - 1], identities) === text) return [i, filed - 1];
      slot = (slot + 1) & mask;
      probes++;
    }
    slots[slot] = i + 1;
    hashes[slot] = hash;
    if (probes > PROBE_ALLOWANCE * (items.length - i) + 64) spilled = spill(items, i, identities);
  }
  return undefined;
}

/** The objects and arrays {@link firstDuplicate} filed in its table so far (items `from` onward), in a `Map`. */
function spill(items: readonly unknown[], from: number, identities: Map<unknown, number>): Map<string, number> {
  const filed = new Map<string, number>();
  for (let i = from; i < items.length; i++) {
    const item = items[i];
    if (item !== null && typeof item === "object") filed.set(jsonKey(item, identities), i);
  }
  return filed;
}

/** A 32-bit hash of `text` (FNV-1a over code units, mixed at the end), varied by `seed`. */
function textHash(text: string, seed: number): number {
  let hash = seed ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return hash ^ (hash >>> 12);
}

/** Each long enum's allowed values, filed for lookup the first time it is asked (see {@link inEnum}). */
const enumLookups = new WeakMap<readonly unknown[], { scalars: Set<unknown>; composites: Set<string> }>();

/**
 * Whether a value equals one of an enum's allowed values as JSON Schema compares them (see {@link jsonEqual}), in one
 * lookup: a long enum checked value by value costs its length for every value validated. The values are filed the
 * first time, keyed by the array itself (the generated validator passes the same array on every call); scalars
 * compare by value (0 and -0 alike), objects and arrays by their {@link jsonKey} text.
 */
export function inEnum(values: readonly unknown[], value: unknown): boolean {
  let lookup = enumLookups.get(values);
  if (lookup === undefined) {
    lookup = { scalars: new Set(), composites: new Set() };
    for (const allowed of values) {
      if (allowed === null || typeof allowed !== "object") lookup.scalars.add(allowed);
      else lookup.composites.add(jsonKey(allowed));
    }
    enumLookups.set(values, lookup);
  }
  if (value === null || typeof value !== "object") return lookup.scalars.has(value);
  return lookup.composites.size > 0 && lookup.composites.has(jsonKey(value));
}
