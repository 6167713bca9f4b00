/**
 * The building blocks: text hygiene, the pre-parse scan, canonical JSON, and the projection's plan rules.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  boundText,
  canonicalJson,
  cleanText,
  guardParsedValue,
  isOverflowingNumberLiteral,
  isUnsafeIntegerLiteral,
  markupSafeJson,
  parseJsonText,
  previewPlan,
  project,
  scanJsonText,
  type ViewPlan,
} from "../../runtime/index.js";

describe("cleanText", () => {
  const table: Array<[string, string, string]> = [
    ["C0 and C1 controls, keeping newline and tab", "a\u0000b\u0007c\u001Bd\u0085e\u009Ff\ng\th\r", "abcdef\ng\th"],
    ["bidi controls", "x\u202Ay\u202Bz\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061Cw", "xyzw"],
    ["zero-width characters", "in\u200Bvis\u200Ci\uFEFFble\u2060", "invisible"],
    ["tag characters", "ok\u{E0001}\u{E0069}\u{E0067}\u{E007F}", "ok"],
    ["lone surrogates", "a\uD800b\uDC00c", "abc"],
    ["a joiner between emoji is kept", "👩\u200D💻 and 👨🏽\u200D🚀", "👩\u200D💻 and 👨🏽\u200D🚀"],
    ["a joiner outside emoji is not", "a\u200Db 👩\u200D", "ab 👩"],
    ["plain text is untouched", "Grüße, 東京 — ok", "Grüße, 東京 — ok"],
    ["data smuggled in variation selectors", `a${String.fromCodePoint(0xe0100, 0xe0142, 0xe01ef)}\uFE01b`, "ab"],
    [
      "one presentation selector after an emoji or keycap base is kept",
      "❤\uFE0F 1\uFE0F\u20E3 ❤\uFE0F\u200D🔥",
      "❤\uFE0F 1\uFE0F\u20E3 ❤\uFE0F\u200D🔥",
    ],
    ["a second selector, or one after a letter, is not", "❤\uFE0F\uFE0F x\uFE0F", "❤\uFE0F x"],
    ["blank fillers and the grapheme joiner", "a\u3164b\u115Fc\uFFA0d\u034Fe", "abcde"],
  ];
  for (const [name, input, want] of table) {
    it(name, () => expect(cleanText(input)).toBe(want));
  }

  it("never leaves an invisible or control character behind, for any input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const cleaned = cleanText(text);
        expect(cleaned).not.toMatch(
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the assertion is about control characters.
          /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u200B\u200C\uFEFF]|[\u{E0000}-\u{E007F}]/u,
        );
        // No lone surrogate: in `u` mode a surrogate range matches only unpaired ones.
        expect(cleaned).not.toMatch(/[\uD800-\uDFFF]/u);
      }),
    );
  });

  it("stays linear on text made of nothing but joiners between emoji", () => {
    const text = "👩\u200D".repeat(200_000);
    expect(cleanText(text)).toBe(`${"👩\u200D".repeat(199_999)}👩`);
  });

  it("boundText marks an excerpt and never splits a surrogate pair", () => {
    expect(boundText("😀😀😀😀", 3)).toEqual({ text: "😀😀…", leftOut: 2 });
    expect(boundText("short", 10)).toEqual({ text: "short", leftOut: 0 });
  });
});

describe("scanJsonText", () => {
  it("counts depth outside strings only", () => {
    expect(scanJsonText('{"a":"[[[[{{{{","b":[1,[2]]}', 3)).toEqual({ ok: true, depth: 3 });
    expect(scanJsonText('{"a":"\\"[[[["}', 1)).toEqual({ ok: true, depth: 1 });
    expect(scanJsonText("[[[1]]]", 2)).toMatchObject({ ok: false, reason: "too_deep", depth: 3 });
  });

  const integers: Array<[string, boolean]> = [
    ["9007199254740991", false],
    ["-9007199254740991", false],
    ["9007199254740992", true],
    ["-9007199254740993", true],
    ["123456789012345678901234567890", true],
    // An integer however it is written: `JSON.parse` rounds it as it rounds the digits (issue 12, class 14).
    ["1e300", true],
    ["9007199254740993.5", false],
    ["0", false],
  ];
  for (const [literal, unsafe] of integers) {
    it(`${literal} is ${unsafe ? "" : "not "}an unsafe integer literal`, () => {
      expect(isUnsafeIntegerLiteral(literal)).toBe(unsafe);
      expect(scanJsonText(`{"n":${literal}}`, 5).ok).toBe(!unsafe);
    });
  }

  const overflowing: Array<[string, boolean]> = [
    ["1e308", false],
    ["1e309", true],
    ["-1.5E400", true],
    ["1e-999", false],
    [`1${"0".repeat(400)}`, true],
  ];
  for (const [literal, overflows] of overflowing) {
    it(`${literal.slice(0, 12)} ${overflows ? "overflows" : "does not overflow"} a double`, () => {
      expect(isOverflowingNumberLiteral(literal)).toBe(overflows);
    });
  }

  it("ignores big digits inside strings", () => {
    expect(scanJsonText('{"id":"9007199254740993123"}', 5).ok).toBe(true);
  });

  it("parseJsonText never echoes the parser's message (which quotes the payload)", () => {
    expect(parseJsonText('{"secret": nope}', 5)).toEqual({ ok: false, reason: "syntax", depth: 1 });
    expect(parseJsonText("   ", 5)).toEqual({ ok: false, reason: "empty", depth: 0 });
  });
});

describe("guardParsedValue", () => {
  it("its size floor never exceeds the real serialised size, so a value at the ceiling passes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const bytes = new TextEncoder().encode(JSON.stringify(value)).byteLength;
        expect(guardParsedValue(value, 1000, bytes)).toEqual({ ok: true });
      }),
    );
  });

  it("refuses a huge array from its length, and what is not JSON", () => {
    expect(guardParsedValue(new Array(5_000_000).fill(0), 10, 1024 * 1024)).toMatchObject({
      ok: false,
      reason: "too_large",
    });
    expect(guardParsedValue({ a: new Date(0) }, 10, 1000)).toEqual({ ok: false, reason: "not_json" });
    expect(guardParsedValue({ a: () => 1 }, 10, 1000)).toEqual({ ok: false, reason: "not_json" });
    expect(guardParsedValue([Number.POSITIVE_INFINITY], 10, 1000)).toEqual({ ok: false, reason: "not_json" });
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every level and follows JSON.stringify for what is not JSON", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, undefined], c: null }, e: undefined })).toBe(
      '{"a":{"c":null,"d":[3,null]},"b":1}',
    );
  });

  it("serialises 50,000 levels without recursion, and refuses past its limit", () => {
    let deep: unknown = 0;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(canonicalJson(deep, 60_000)).toHaveLength(100_001);
    expect(() => canonicalJson(deep, 1000)).toThrow(RangeError);
  });
});

describe("project", () => {
  it("a union picks the first option that fits the value's JSON type", () => {
    const plan: ViewPlan = {
      kind: "array",
      items: {
        kind: "union",
        options: [
          { kind: "object", properties: { a: { kind: "value" } } },
          { kind: "string", max: 3, overflow: "omit" },
          { kind: "value" },
        ],
      },
    };
    const { view, omissions } = project([{ a: 1, b: 2 }, "abcd", "ab", 7, null, [1]], plan);
    expect(view).toEqual([{ a: 1 }, "ab", 7, null]);
    expect(omissions).toEqual([
      { path: "/1", kind: "omitted", count: 4 },
      { path: "/5", kind: "omitted", count: 1 },
    ]);
  });

  it("a union that contains itself (a recursive schema's plan) still resolves, and ends when nothing fits", () => {
    const loop: ViewPlan = { kind: "union", options: [] };
    if (loop.kind === "union") loop.options.push(loop, { kind: "string", max: 5, overflow: "excerpt" });
    expect(project("hello", loop).view).toBe("hello");
    expect(project({ a: 1 }, loop)).toEqual({
      view: undefined,
      complete: false,
      omissions: [{ path: "", kind: "omitted", count: 1 }],
    });
  });

  it("a tuple projects by position; extra items without `rest` are reported", () => {
    const plan: ViewPlan = {
      kind: "tuple",
      items: [{ kind: "value" }, { kind: "string", max: 2, overflow: "excerpt" }],
    };
    expect(project([1, "abc", 3, 4], plan)).toEqual({
      view: [1, "a…"],
      complete: false,
      omissions: [
        { path: "", kind: "items", count: 2 },
        { path: "/1", kind: "excerpt", count: 2 },
      ],
    });
  });

  it("a `value` string is bounded by its own max, else by maxStringChars", () => {
    const plan: ViewPlan = { kind: "object", properties: { a: { kind: "value", max: 3 }, b: { kind: "value" } } };
    const { view } = project({ a: "abcdef", b: "abcdef" }, plan, { maxStringChars: 4 });
    expect(view).toEqual({ a: "ab…", b: "abc…" });
  });

  it("walks 5,000 levels of a recursive plan without recursion", () => {
    const node: ViewPlan = { kind: "object", properties: {} };
    if (node.kind === "object") node.properties.child = node;
    let data: Record<string, unknown> = {};
    const root = data;
    for (let i = 0; i < 5000; i++) {
      const child = {};
      data.child = child;
      data = child;
    }
    const { view } = project(root, node);
    let depth = 0;
    for (let at = view as { child?: unknown }; at.child !== undefined; at = at.child as { child?: unknown }) depth++;
    expect(depth).toBe(5000);
  });

  it("previewPlan can also cap strings, keeping a contract's `omit` as it is", () => {
    const plan: ViewPlan = {
      kind: "object",
      properties: {
        a: { kind: "string", max: 100, overflow: "excerpt" },
        b: { kind: "string", max: 100, overflow: "omit" },
        c: { kind: "value" },
      },
    };
    const data = { a: "x".repeat(50), b: "y".repeat(50), c: "z".repeat(50) };
    expect(project(data, previewPlan(plan, 3, 10)).view).toEqual({ a: `${"x".repeat(9)}…`, c: `${"z".repeat(9)}…` });
    expect(project(data, previewPlan(plan, 3)).view).toEqual(data);
  });

  it("previewPlan caps every array, also in a cyclic plan, without touching the original", () => {
    const tree: ViewPlan = { kind: "object", properties: {} };
    const children: ViewPlan = { kind: "array", items: tree, take: 10 };
    if (tree.kind === "object") tree.properties.children = children;
    const preview = previewPlan(tree, 2);
    const data = { children: [{ children: [{}, {}, {}] }, {}, {}] };
    expect(project(data, preview).view).toEqual({ children: [{ children: [{}, {}] }, {}] });
    expect(children.take).toBe(10);
  });
});

describe("markupSafeJson", () => {
  it("is the same JSON value with no character that can form a tag", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = markupSafeJson(value);
        expect(text).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
