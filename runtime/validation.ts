/**
 * The helpers precompiled validators call at run time, in place of the modules Ajv's standalone code would
 * `require`: deep equality for `const`, `enum` and `uniqueItems`, and the format checks. (String length in code
 * points, for `minLength`/`maxLength`, is `codePointLength` from `text.ts`.) None of them needs Ajv's compiler.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";

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

/** The format checks (ajv-formats' full set), keyed by format name. */
export const formatValidators = fullFormats;
