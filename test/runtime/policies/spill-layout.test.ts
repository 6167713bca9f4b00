/**
 * The spill index: every array of any JSON value, at any depth, found by its pointer, and every item's text cut
 * exactly (strings holding quotes, backslashes, brackets and commas included; whitespace between tokens too).
 * Property-based: the items parsed from the index equal the array's items in the parsed value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { indexJsonText, indexLines, itemCount, itemText, lineText } from "../../../runtime/policies/spill-layout.js";

/** The value at a JSON pointer, unescaped segment by segment. */
function at(value: unknown, pointer: string): unknown {
  if (pointer === "") return value;
  let node = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Every array in a value, by pointer, in document order. */
function arraysOf(value: unknown, pointer = "", out: string[] = []): string[] {
  if (Array.isArray(value)) {
    out.push(pointer);
    for (const [i, item] of value.entries()) arraysOf(item, `${pointer}/${i}`, out);
  } else if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) {
      arraysOf(
        (value as Record<string, unknown>)[key],
        `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`,
        out,
      );
    }
  }
  return out;
}

function check(value: unknown, json: string): void {
  const index = indexJsonText(json);
  const rows = index.arrays ?? [];
  expect(rows.map((row) => row[0])).toEqual(arraysOf(value));
  for (const row of rows) {
    const numbers = row as unknown as number[];
    const expected = at(value, row[0]) as unknown[];
    expect(JSON.parse(json.slice(numbers[1], numbers[2]))).toEqual(expected);
    expect(itemCount(numbers)).toBe(expected.length);
    for (let item = 0; item < expected.length; item++) {
      expect(JSON.parse(itemText(json, numbers, item))).toEqual(expected[item]);
    }
  }
}

const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('a "quoted" [x], {y}', "back\\slash\\", '\\"', "]", ",", "/~slash~/", "\u2028<\u0000>"),
);
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    tricky,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 6 }),
    fc.dictionary(tricky, tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("the spill index", () => {
  it("cuts every item of every array exactly, compact or with whitespace", () => {
    fc.assert(
      fc.property(values, (generated) => {
        // The value as JSON gives it back (-0 is written 0).
        const value = JSON.parse(JSON.stringify(generated));
        check(value, JSON.stringify(value));
        check(value, JSON.stringify(value, null, 2));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps deep nesting without recursion, and a __proto__ key as a key", () => {
    const json = `${"[".repeat(20_001)}1${"]".repeat(20_001)}`;
    const rows = indexJsonText(json).arrays ?? [];
    expect(rows).toHaveLength(20_001);
    expect(rows[20_000]?.[0]).toBe("/0".repeat(20_000));
    const proto = JSON.parse('{"__proto__":[1,[2,3]]}');
    check(proto, JSON.stringify(proto));
  });

  it("indexes a text's lines, the last one after a final newline included", () => {
    const text = "one\ntwo\r\n\nfour\n";
    const { lines } = indexLines(text);
    const all = (lines ?? []).map((_, line) => lineText(text, lines ?? [], line));
    expect(all).toEqual(["one", "two\r", "", "four", ""]);
    expect(all.join("\n")).toBe(text);
  });
});
