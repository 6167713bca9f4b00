/**
 * An MCP structured result whose one text block is JSON of the same value as its `structuredContent`, which is what
 * servers send (the SDKs' own examples write `JSON.stringify` of the value, sometimes indented): the text block is
 * then the payload. It is received as a JSON text result is, and `data` is its parse, compared with the structured
 * content in one read of each of its properties instead of copied and written out again. The model's content, the
 * validator and the view read that parse, so a getter or a proxy in the caller's object cannot show them different
 * values, and the hash is of the text `data` is the parse of, the text the server wrote.
 *
 * The comparison vouches only for what it is sure of, as the copy does (`value-copy.ts`): any difference, anything
 * that is not plain JSON data, nesting past the contract's depth, a number past 2^53 − 1, `-0`, a prototype that
 * holds `toJSON`, a property whose reading throws, and the text's own refusals (over the ceiling, not JSON, an
 * escaped lone surrogate) send the result the copy's way, which decides as it always has. A raw lone surrogate in
 * the text is found as a JSON text's is, when its hash settles, and refused as the copy's way refuses it: the
 * block's `invalid_encoding`, with its index.
 */

import { parseJsonText } from "../../text/json.js";
import type { RawKind, ReceivedText, ReceiveLimits } from "./received.js";
import { receiveString } from "./string.js";
import { prototypesPlain } from "./value-copy.js";

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** JSON's first character past its whitespace (space, tab, line feed, carriage return), and those of a container. */
const NOT_SPACE = /[^ \t\n\r]/;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;

/**
 * Whether `theirs` (the caller's value) is the same plain JSON data as `ours` (a parse): the same keys in the same
 * order and the same values, each property of `theirs` read once (`Object.values`), with every container within
 * `maxDepth` levels (the outermost is `depth` 1) and every number safe and not `-0`. Recursive, one level per level
 * of the value: never past `maxDepth`, a bound of the contract's; where the stack runs out anyway the caller
 * catches the throw.
 */
function sameData(ours: unknown, theirs: unknown, depth: number, maxDepth: number): boolean {
  if (typeof ours !== "object" || ours === null) {
    if (typeof ours !== "number") return ours === theirs;
    return ours === theirs && ours <= MAX_SAFE && ours >= -MAX_SAFE && (ours !== 0 || 1 / ours > 0);
  }
  if (typeof theirs !== "object" || theirs === null || depth > maxDepth) return false;
  if (Array.isArray(ours)) {
    if (!Array.isArray(theirs) || Object.getPrototypeOf(theirs) !== Array.prototype) return false;
    const count = ours.length;
    if (theirs.length !== count) return false;
    for (let i = 0; i < count; i++) if (!sameData(ours[i], theirs[i], depth + 1, maxDepth)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(theirs);
  if (Array.isArray(theirs) || (prototype !== Object.prototype && prototype !== null)) return false;
  const listed = Object.keys(theirs);
  const values = Object.values(theirs);
  // The parse's own keys, in the order `Object.keys` gives them, read without a list of them; a name enumerable on
  // `Object.prototype` would come after them and find no key of theirs to match.
  let i = 0;
  for (const key in ours as Record<string, unknown>) {
    if (listed[i] !== key || !sameData((ours as Record<string, unknown>)[key], values[i], depth + 1, maxDepth)) {
      return false;
    }
    i++;
  }
  return i === listed.length && i === values.length;
}

/**
 * The result received from its one text block `text` (block `block` of the content), when that text is JSON of the
 * same value as `structured`; `undefined` when the copy's way must decide (see the module's comment).
 */
export function receiveTextBlock(
  kind: RawKind,
  text: string,
  block: number,
  structured: unknown,
  limits: ReceiveLimits,
): ReceivedText | undefined {
  // Only a text that opens as the value does is worth a parse (a server that sends a file's own text beside
  // `{ content }` has text that is no JSON of it), and worth handing to the hash thread before the parse.
  if (typeof structured !== "object" || structured === null || !prototypesPlain()) return undefined;
  const opening = text.charCodeAt(text.search(NOT_SPACE));
  if (opening !== (Array.isArray(structured) ? OPEN_ARRAY : OPEN_OBJECT)) return undefined;
  // Received first, so that a large text's hash is taken on the helper thread while it is parsed and compared. A
  // text refused here (over the ceiling, or short and with a lone surrogate) is left to the copy's way.
  const received = receiveString(kind, text, limits.maxBytes);
  if (!received.ok) return undefined;
  // The depth and number pass is the comparison's: it reads every level and every number of the parse.
  const parsed = parseJsonText(text, limits.maxDepth, true);
  let same = false;
  try {
    same = parsed.ok && sameData(parsed.value, structured, 1, limits.maxDepth);
  } catch {
    // A getter or a proxy trap threw, or the stack ran out: the copy's way decides.
  }
  if (!same || !parsed.ok) {
    // The copy's way hashes the JSON text it writes: the thread's job for this one is given up.
    received.hashing?.hash.drop();
    return undefined;
  }
  if (received.hashing !== undefined) received.hashing.block = block;
  received.parsed = { value: parsed.value };
  return received;
}
