/**
 * Half a surrogate pair written as a JSON escape (`"\\ud800"`): text with no UTF-8 form, which `JSON.parse` turns
 * into a string that holds it. Well-formed JSON text can make one no other way, so a value is searched only when its
 * text holds such an escape.
 */

/** An escape that may be half a surrogate pair: `\uD800`–`\uDFFF`, in either case. */
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF]/;

/**
 * Whether `value`, the parse of `text`, holds half a surrogate pair (in a string or a key): well-formed text can only
 * write one as an escape, so only text with a `\uD8xx`-like escape has its value's strings looked at (the first
 * search is native and stops at once on text without any `\u`).
 */
export function escapedLoneSurrogate(text: string, value: unknown): boolean {
  return text.indexOf("\\u") >= 0 && SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value);
}

/** In `u` mode a surrogate range only matches surrogates that are not part of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** `String.prototype.isWellFormed` (ES2024), looked up once, where the host has it. */
const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** Whether a string is well-formed UTF-16 (natively where the host can tell). */
export function wellFormed(text: string): boolean {
  return nativeIsWellFormed === undefined ? !LONE_SURROGATE.test(text) : nativeIsWellFormed.call(text);
}

/** Whether any string or key of a parsed value (plain JSON data, any depth) is not well-formed. Iterative. */
function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") {
      if (!wellFormed(item)) return true;
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push(item[i]);
    } else if (item !== null && typeof item === "object") {
      for (const key of Object.keys(item)) {
        if (!wellFormed(key)) return true;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}
