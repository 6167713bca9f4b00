/**
 * `toolgate/runtime/validators`: what generated `validate.js` modules import, and nothing else.
 *
 * A cold start loads every tool's validators before the first result is checked, so this entry imports no other
 * module: not the gate, not the rest of the runtime (`toolgate/runtime` re-exports these names for everything
 * else). Format checks, needed only where a contract asserts `format`, have an entry of their own
 * (`toolgate/runtime/formats`), so a contract that only annotates formats never loads them.
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
