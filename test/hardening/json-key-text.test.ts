/**
 * `jsonKey` writes its text by hand for speed (issue 12, class 5: `uniqueItems` under 50 ms per 1 MB): strings and
 * keys are quoted without JSON.stringify when nothing needs escaping, and recurring keys are kept quoted in a bounded
 * cache. These tests hold the text to canonical JSON whatever the strings hold and however the cache is filled, so
 * the shortcuts can never make two different items share a key or one item have two. `firstDuplicate`, which files
 * those keys in a table of its own instead of a `Map`, is held to the pairwise answer.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstDuplicate, jsonKey } from "../../runtime/validators.js";

/**
 * Canonical JSON of a parsed value: JSON.stringify's text, objects with their keys in code unit order. Written out by
 * hand because an object cannot hold integer-like keys in that order ("10" before "9"), and JSON.stringify writes
 * them in the object's order.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const members = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
  return `{${members.join(",")}}`;
}

/** Strings that need escapes, or are near ones that do: quotes, backslashes, controls, lone and paired surrogates. */
const awkward = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom('"', "\\", "\u0000", "\u001f", " ", "\u007f", "\ud800", "\udc00", "a", "é") }),
);

describe("jsonKey's text", () => {
  it("is canonical JSON: JSON.stringify with keys sorted (property)", () => {
    // Invariant: for parsed JSON values (any strings and keys), jsonKey(v) === JSON.stringify(v with keys sorted).
    const value = fc.jsonValue({ maxDepth: 4, stringUnit: "binary" });
    fc.assert(
      fc.property(value, (v) => {
        const parsed = JSON.parse(JSON.stringify(v)) as unknown;
        expect(jsonKey(parsed)).toBe(canonical(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it("quotes strings and keys that need escapes exactly as JSON.stringify does (property)", () => {
    // Invariant: a string or key of any code units is written as JSON.stringify writes it.
    fc.assert(
      fc.property(awkward, awkward, (key, text) => {
        expect(jsonKey([text])).toBe(`[${JSON.stringify(text)}]`);
        expect(jsonKey({ [key]: text })).toBe(`{${JSON.stringify(key)}:${JSON.stringify(text)}}`);
      }),
      { numRuns: 3000 },
    );
  });

  it("writes the same text for a key before, while and after the quoted-key cache fills and starts over", () => {
    const first = jsonKey({ 'a"b': 1, plain: 2 });
    // More distinct keys than the cache holds, then keys longer than it keeps: each still written correctly.
    for (let i = 0; i < 10_000; i++) expect(jsonKey({ [`key ${i}`]: i })).toBe(`{"key ${i}":${i}}`);
    const long = `${"x".repeat(100)}"`;
    expect(jsonKey({ [long]: 0 })).toBe(`{${JSON.stringify(long)}:0}`);
    expect(jsonKey({ [long]: 0 })).toBe(`{${JSON.stringify(long)}:0}`);
    expect(jsonKey({ 'a"b': 1, plain: 2 })).toBe(first);
    expect(first).toBe('{"a\\"b":1,"plain":2}');
  });

  it("keeps the issue's example and its neighbours apart: 1 and 1.0 one key, 0 and -0 one key, __proto__ a key", () => {
    const parsed = JSON.parse('[{"a":1},{"a":1.0},{"a":0},{"a":-0},{"__proto__":1},{"a":"1"},[1],["1"],{},[]]');
    const keys = (parsed as unknown[]).map((item) => jsonKey(item));
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).toBe(keys[3]);
    expect(keys[4]).toBe('{"__proto__":1}');
    expect(new Set(keys).size).toBe(keys.length - 2);
    // Integer-like keys, which objects hold in numeric order, are still written in code unit order.
    expect(jsonKey(JSON.parse('{"9":0,"10":1,"b":2,"a":3}'))).toBe('{"10":1,"9":0,"a":3,"b":2}');
  });
});

/** The pair `uniqueItems` reports, found pairwise: the last item with an equal one after it, and the last such one. */
function pairwise(items: readonly unknown[]): [number, number] | undefined {
  const same = (a: unknown, b: unknown) =>
    a === null || typeof a !== "object" || b === null || typeof b !== "object"
      ? a === b || (Number.isNaN(a) && Number.isNaN(b))
      : jsonKey(a) === jsonKey(b);
  for (let i = items.length - 1; i >= 0; i--) {
    for (let j = items.length - 1; j > i; j--) if (same(items[i], items[j])) return [i, j];
  }
  return undefined;
}

describe("firstDuplicate", () => {
  it("reports the pair the pairwise check reports, or none (property)", () => {
    // Invariant: firstDuplicate(items) deep-equals pairwise(items) for arrays of parsed JSON values, with and
    // without repeats.
    const item = fc.jsonValue({ maxDepth: 3 });
    const items = fc.oneof(
      fc.array(item, { maxLength: 30 }),
      fc.array(fc.constantFrom<unknown>(1, -0, 0, "1", [1], [1.0], { a: 1 }, { b: [] }, "__proto__", null), {
        maxLength: 12,
      }),
    );
    fc.assert(
      fc.property(items, (values) => {
        const parsed = JSON.parse(JSON.stringify(values)) as unknown[];
        expect(firstDuplicate(parsed)).toEqual(pairwise(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it("finds the repeat among many distinct objects and arrays, wherever it is", () => {
    const objects = Array.from({ length: 50_000 }, (_, i) => ({ a: i }));
    expect(firstDuplicate(objects)).toBeUndefined();
    expect(firstDuplicate([...objects, { a: 7 }])).toEqual([7, 50_000]);
    const arrays = Array.from({ length: 50_000 }, (_, i) => [[i]]);
    expect(firstDuplicate([[[49_999]], ...arrays])).toEqual([0, 50_000]);
    expect(firstDuplicate([NaN, 1, NaN])).toEqual([0, 2]);
  });
});
