/**
 * A server's request for input as it reaches the host. In the MCP 2026-07-28 revision a `tools/call` may answer
 * `resultType: "input_required"` with `inputRequests` (an elicitation, a sampling request, a roots listing, each
 * keyed by the server's name for it) and an opaque `requestState`; the host gathers the answers and retries the call
 * with `inputResponses` and the same `requestState`. In the 2025-11-25 revision the same question arrives as a
 * request of its own (`elicitation/create`, `sampling/createMessage`). Either way it is not the tool's result, so no
 * contract describes it and the gate does not admit it; but its text is the server's and reaches a person or a
 * model, so every string in it is cleaned (bidi controls, zero-width, tag and other invisible characters removed),
 * bounded (a cut marked with `…`) and markup-escaped (`<`, `>`, `&` written as `\u003c`…), as everything the proxy
 * passes outside a gated result. Only its shape is kept: depth, entries and characters are bounded, anything that is
 * not JSON data is left out, and every read of the server's value is defensive. Binary data (a block's `data`, a
 * resource's `blob`) is left out: nobody vouches for bytes no contract describes, and a cut would corrupt them. A URL
 * (a URL-mode elicitation's `url`) passes only as it is: a string with nothing to clean or escape but `&`.
 */
import { markupSafeText } from "../stages/model-content.js";
import { boundText, cleanText } from "../text/hygiene.js";

/** Most characters of one string of a request for input (a message, a title, a description). */
export const INPUT_TEXT_MAX_CHARS = 4_000;

/** Most characters of every string of one request for input together. */
export const INPUT_TOTAL_MAX_CHARS = 100_000;

/** Most entries of one object or array of a request for input; the rest are left out. */
export const INPUT_MAX_ENTRIES = 256;

/** Most levels of nesting of a request for input (an elicitation's schema is two or three deep). */
export const INPUT_MAX_DEPTH = 12;

/** Most characters of a key of a request for input; a longer key, or one with characters to clean, is left out. */
const KEY_MAX_CHARS = 256;

/** A request for input as the host receives it: the server's requests cleaned, and its state as it sent it. */
export interface InputRequired {
  /** The server's requests, by the names it gave them, each with every string cleaned and bounded. */
  inputRequests: Record<string, unknown>;
  /**
   * The server's opaque state, to send back as it is with the retried call (it is the server's to verify, never
   * shown to anyone); absent when the server sent none, or something other than a string.
   */
  requestState?: string;
}

/** A character budget shared by the strings of one request. */
interface Budget {
  left: number;
}

/** Reads `value[key]`, or undefined when reading it throws. */
function read(value: object, key: string | number): unknown {
  try {
    return (value as Record<string | number, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** The own enumerable keys of an object, at most {@link INPUT_MAX_ENTRIES}; none when listing them throws. */
function keysOf(value: object): string[] {
  try {
    return Object.keys(value).slice(0, INPUT_MAX_ENTRIES);
  } catch {
    return [];
  }
}

/** The length of an array, at most {@link INPUT_MAX_ENTRIES}; 0 when reading it throws. */
function lengthOf(value: unknown[]): number {
  try {
    return Math.min(value.length, INPUT_MAX_ENTRIES);
  } catch {
    return 0;
  }
}

/** Keys whose values are binary data, left out wherever they appear. */
const BINARY_KEYS: ReadonlySet<string> = new Set(["data", "blob"]);

/** Most characters of a URL passed on. */
const URL_MAX_CHARS = 2_048;

/** A URL passed on only as it is: within {@link URL_MAX_CHARS}, nothing to clean, no markup, quote or space. */
function safeUrl(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > URL_MAX_CHARS) return undefined;
  return cleanText(value) === value && !/[<>"'\s\u2028\u2029\uFE60\uFE64\uFE65\uFF06\uFF1C\uFF1E]/.test(value)
    ? value
    : undefined;
}

/** A key kept only as it is: nothing to clean or escape, within {@link KEY_MAX_CHARS}. */
function safeKey(key: string): boolean {
  return (
    key.length <= KEY_MAX_CHARS && key !== "__proto__" && markupSafeText(boundText(key, KEY_MAX_CHARS).text) === key
  );
}

/** A string cleaned, bounded within what is left of the budget, and markup-escaped. */
function cleanString(text: string, budget: Budget): string {
  const max = Math.max(1, Math.min(INPUT_TEXT_MAX_CHARS, budget.left));
  const bounded = markupSafeText(boundText(text, max).text);
  budget.left = Math.max(0, budget.left - bounded.length);
  return bounded;
}

/** A JSON value of the server's with every string cleaned; what is not JSON data is undefined (left out). */
function cleanValue(value: unknown, depth: number, budget: Budget): unknown {
  if (typeof value === "string") return cleanString(value, budget);
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "boolean" || value === null) return value;
  if (typeof value !== "object" || depth >= INPUT_MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    const length = lengthOf(value);
    for (let index = 0; index < length; index++) {
      const item = cleanValue(read(value, index), depth + 1, budget);
      if (item !== undefined) items.push(item);
    }
    return items;
  }
  const copy: Record<string, unknown> = {};
  for (const key of keysOf(value)) {
    if (!safeKey(key) || BINARY_KEYS.has(key)) continue;
    const entry = key === "url" ? safeUrl(read(value, key)) : cleanValue(read(value, key), depth + 1, budget);
    if (entry !== undefined) copy[key] = entry;
  }
  return copy;
}

/**
 * The parameters of one request of the server's for input (an `elicitation/create` or `sampling/createMessage`,
 * embedded or sent on its own) with every string cleaned, bounded and markup-escaped; undefined when they are not
 * an object.
 */
export function cleanInputParams(params: unknown): Record<string, unknown> | undefined {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return undefined;
  return cleanValue(params, 0, { left: INPUT_TOTAL_MAX_CHARS }) as Record<string, unknown>;
}

/**
 * An `input_required` result as the host receives it ({@link InputRequired}): its `inputRequests` cleaned under one
 * character budget, and its `requestState` as the server sent it. Anything else of the result is left out.
 */
export function inputRequiredOf(result: object): InputRequired {
  const requests = read(result, "inputRequests");
  const state = read(result, "requestState");
  const inputRequests =
    typeof requests === "object" && requests !== null && !Array.isArray(requests)
      ? (cleanValue(requests, 0, { left: INPUT_TOTAL_MAX_CHARS }) as Record<string, unknown>)
      : {};
  return { inputRequests, ...(typeof state === "string" ? { requestState: state } : {}) };
}
