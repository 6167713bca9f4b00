/**
 * The UTF-8 length of what the model reads of a success ({@link toModelContent}), counted without writing the view's
 * JSON: the measure stage needs only the length to decide the budget, and the text itself is written once, by
 * whoever hands it to the model.
 *
 * The view's JSON is counted as `JSON.stringify` and {@link markupSafeJson} write it: each string by its UTF-8 length
 * when it holds nothing either of them escapes, else unit by unit ({@link viewCost}); each number as it prints; keys,
 * brackets, commas and colons as written. A generated projector counts the strings it places as it cleans them, while
 * they are at hand ({@link TextTally}); the count reads the tally in the view's order and counts any other string
 * itself, so a tally that misses a string only costs time. The count vouches only for plain JSON data, which is what
 * views are: anything `JSON.stringify` could write otherwise (a `toJSON` anywhere, a prototype other than the plain
 * ones, a value it leaves out or writes as `null`) gives up, and the view is written and measured as before. A
 * property test holds the count to the written text's on random views.
 */
import type { Outcome } from "../contract/types.js";
import { isWellFormedText, utf8Length } from "../text/hygiene.js";
import { viewCost } from "./line-excerpt.js";
import { modelContentPieces } from "./model-content.js";

/**
 * A unit whose cost inside a JSON string of the model's content is not its UTF-8 length: a quote, a backslash, a
 * control, and what {@link markupSafeJson} escapes. Half a surrogate pair is the other such unit: cleaned text has
 * none, any other string is asked ({@link isWellFormedText}).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls JSON escapes are what is looked for.
const ESCAPED = /["\\\u0000-\u001F&<>\u2028\u2029\uFE60\uFE64\uFE65\uFF06\uFF1C\uFF1E]/;

/** What a well-formed string costs inside the model's content, its quotes included. */
export function cleanStringBytes(text: string): number {
  return 2 + (ESCAPED.test(text) ? viewCost(text) : utf8Length(text));
}

/** What a well-formed string known to hold none of {@link ESCAPED}'s units costs: its UTF-8 length and its quotes. */
export function plainStringBytes(text: string): number {
  return 2 + utf8Length(text);
}

/**
 * Printable ASCII but what JSON or the markup escapes (`"`, `\`, `&`, `<`, `>`): a string of these alone costs its
 * length and its quotes, known from one test of a short string (an omission's path and kind, a key).
 */
const PLAIN_ASCII = /^[ !#-%'-;=?-[\]-~]*$/;

/** What any string costs inside the model's content, its quotes included. */
function stringBytes(text: string): number {
  if (text.length <= 64 && PLAIN_ASCII.test(text)) return text.length + 2;
  return isWellFormedText(text) ? cleanStringBytes(text) : 2 + viewCost(text);
}

/**
 * The strings a projector placed in a view, in the order it placed them, with what each costs in the model's content
 * ({@link cleanStringBytes}): the count reads them in the view's order instead of reading each string again.
 */
export interface TextTally {
  texts: string[];
  bytes: number[];
  /** The whole view's cost, when the projector counted all of it as it placed it (`projector.ts`). */
  viewBytes?: number;
}

/** Powers of ten up to 10^15, for the digits of an integer. */
const TENS = Array.from({ length: 16 }, (_, power) => 10 ** power);

/** What a number costs: the digits `JSON.stringify` prints, counted for integers, printed for the rest. */
function numberBytes(value: number): number {
  if (Number.isInteger(value) && value > -1e15 && value < 1e15) {
    const magnitude = value < 0 ? -value : value;
    let digits = 1;
    while (digits < 16 && magnitude >= (TENS[digits] as number)) digits++;
    // A minus sign, but not for -0, which prints as 0.
    return value < 0 ? digits + 1 : digits;
  }
  return Number.isFinite(value) ? String(value).length : GIVE_UP;
}

/** Returned by the count when it cannot vouch for the value. */
const GIVE_UP = -1;

/** What a number, boolean or null costs as `JSON.stringify` writes it; {@link GIVE_UP} for anything else. */
export function primitiveBytes(value: unknown): number {
  if (typeof value === "number") return numberBytes(value);
  if (value === null) return 4;
  if (typeof value === "boolean") return value ? 4 : 5;
  return GIVE_UP;
}

/**
 * What a member's key costs in a view's JSON with its colon, and the comma that follows the member when another does:
 * the constant a counting projector adds for each key it writes (`templates/projector.ts`), which then adds the
 * braces less one comma when the object has members.
 */
export function viewKeyBytes(key: string): number {
  return stringBytes(key) + 2;
}

/** What keys cost, kept: a view's keys are its plan's, few and the same in every view of a tool. */
const keyBytes = new Map<string, number>();
const MAX_KEPT_KEYS = 4096;

function keyCost(key: string): number {
  let bytes = keyBytes.get(key);
  if (bytes === undefined) {
    bytes = stringBytes(key);
    if (keyBytes.size >= MAX_KEPT_KEYS) keyBytes.clear();
    keyBytes.set(key, bytes);
  }
  return bytes;
}

/** A walk of one view: the tally, and how far into it the view's strings have been matched. */
interface Walk {
  tally: TextTally | undefined;
  next: number;
  /** Whether `Object.prototype` has no enumerable key, so `for…in` over a plain object lists its own keys alone. */
  inheritsNone: boolean;
}

/** Whether `Object.prototype` has no enumerable key (someone may have added one since the last walk). */
function inheritsNone(): boolean {
  for (const _key in Object.prototype) return false;
  return true;
}

/** What `value`'s JSON costs as {@link markupSafeJson} writes it, or {@link GIVE_UP}. Recursive, as the view is. */
function valueBytes(value: unknown, walk: Walk): number {
  switch (typeof value) {
    case "string": {
      const { tally } = walk;
      // The projector's strings come in the order it placed them; a string it did not count is counted here.
      if (tally !== undefined && tally.texts[walk.next] === value) return tally.bytes[walk.next++] as number;
      return stringBytes(value);
    }
    case "number":
      return numberBytes(value);
    case "boolean":
      return value ? 4 : 5;
    case "object":
      return value === null ? 4 : containerBytes(value, walk);
    default:
      // `undefined`, a function, a symbol or a bigint: left out, written as `null`, or refused by `JSON.stringify`.
      return GIVE_UP;
  }
}

function containerBytes(container: object, walk: Walk): number {
  // A `toJSON` of its own or its prototype's is called by `JSON.stringify`: only its own writing tells.
  if ((container as { toJSON?: unknown }).toJSON !== undefined) return GIVE_UP;
  const prototype = Object.getPrototypeOf(container);
  if (Array.isArray(container)) {
    if (prototype !== Array.prototype) return GIVE_UP;
    const count = container.length;
    // The brackets, and a comma between each two items.
    let bytes = count === 0 ? 2 : count + 1;
    for (let i = 0; i < count; i++) {
      const item = valueBytes(container[i], walk);
      if (item < 0) return GIVE_UP;
      bytes += item;
    }
    return bytes;
  }
  if (prototype !== Object.prototype && prototype !== null) return GIVE_UP;
  // The own enumerable keys `JSON.stringify` writes, in its order: those `for…in` lists when `Object.prototype` has
  // none of its own (checked once a walk), which spares a list of them for every object.
  let count = 0;
  let bytes = 0;
  if (walk.inheritsNone) {
    for (const key in container) {
      const member = valueBytes((container as Record<string, unknown>)[key], walk);
      if (member < 0) return GIVE_UP;
      bytes += keyCost(key) + member;
      count++;
    }
  } else {
    const keys = Object.keys(container);
    count = keys.length;
    for (let i = 0; i < count; i++) {
      const key = keys[i] as string;
      const member = valueBytes((container as Record<string, unknown>)[key], walk);
      if (member < 0) return GIVE_UP;
      bytes += keyCost(key) + member;
    }
  }
  // The braces, a comma between each two members, and each member's colon.
  return bytes + (count === 0 ? 2 : 2 * count + 1);
}

/**
 * The UTF-8 length of `markupSafeJson(value)`, or −1 when it must be written to tell (see the module comment), with
 * the strings a projector counted as it placed them. A value too deep for the walk's stack gives up too.
 */
export function jsonBytes(value: unknown, tally?: TextTally): number {
  try {
    return valueBytes(value, { tally, next: 0, inheritsNone: inheritsNone() });
  } catch {
    // The stack ran out, or a getter threw: writing it decides, as before.
    return GIVE_UP;
  }
}

/**
 * The UTF-8 length of {@link toModelContent}`(outcome)` for a success that shows its view, or −1 when the content
 * must be written to tell (a failure, a summary, observe mode, or a view {@link jsonBytes} gives up on).
 */
export function modelContentBytes(outcome: Outcome<unknown, unknown>, tally?: TextTally): number {
  if (!outcome.ok || outcome.summary !== undefined || outcome.observed?.text !== undefined) return GIVE_UP;
  // The projector's own count of the view it made, else the walk.
  const view = tally?.viewBytes ?? jsonBytes(outcome.view, tally);
  if (view < 0) return GIVE_UP;
  // The omissions are counted as the view is (a few dozen small objects, which writing costs more than counting).
  const omissions = outcome.omissions.length > 0 ? jsonBytes(outcome.omissions) : 0;
  if (omissions < 0) return GIVE_UP;
  // The other pieces with empty strings in the view's and the omissions' places: short, and written as before.
  const pieces = modelContentPieces(outcome, "", "");
  let bytes = view + omissions;
  for (let i = 0; i < pieces.length; i++) bytes += utf8Length(pieces[i] as string);
  return bytes;
}
