/**
 * The contract checker: each finding kind, hand-computed bounds, recursion, boolean schemas, purity.
 *
 * Byte arithmetic used in the expectations (see checkBounds): an unknown string of n code points is 2 + 12n,
 * a known string (enum, const, property name) 2 + 6 per UTF-16 unit, a number 25, null 4, true 4, false 5.
 */
import { describe, expect, it } from "vitest";
import { type CheckOptions, checkBounds, type FindingKind, patternMaxBytes } from "../../../generator/checks/index.js";
import type { JsonSchema } from "../../../generator/schema/shapes.js";

interface Want {
  maxBytes: number | null;
  maxDepth: number | null;
  /** [pointer, kind] of every finding, in report order. */
  findings?: Array<[string, FindingKind]>;
}

type Case = [string, { schema: JsonSchema; want: Want; options?: CheckOptions }];

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

const bounded: Case[] = [
  ["a string with maxLength", { schema: { type: "string", maxLength: 3 }, want: { maxBytes: 2 + 36, maxDepth: 0 } }],
  [
    "an enum of strings counts its longest value",
    { schema: { enum: ["ab", "cde"] }, want: { maxBytes: 2 + 18, maxDepth: 0 } },
  ],
  [
    "a const object counts braces, key, colon, array, comma",
    // {"a":[1,null]}: 2 + (2+6) + 1 + (2 + 1 + 25 + 4)
    { schema: { const: { a: [1, null] } }, want: { maxBytes: 2 + 8 + 1 + 32, maxDepth: 2 } },
  ],
  [
    "scalars: an integer is at most 25 bytes",
    { schema: { type: ["null", "boolean", "integer"] }, want: { maxBytes: 25, maxDepth: 0 } },
  ],
  [
    "a closed object sums every declared key",
    {
      schema: {
        type: "object",
        additionalProperties: false,
        required: ["id"],
        properties: {
          id: { type: "string", maxLength: 8 }, // 14 + 1 + 98 = 113
          tags: { type: "array", maxItems: 2, items: { enum: ["x", "yy"] } }, // 26 + 1 + (2 + 1 + 2 * 14) = 58
          ok: { type: "boolean" }, // 14 + 1 + 5 = 20
        },
      },
      want: { maxBytes: 2 + 2 + 113 + 58 + 20, maxDepth: 2 },
    },
  ],
  [
    "maxProperties keeps only the largest entries",
    {
      schema: {
        type: "object",
        additionalProperties: false,
        maxProperties: 1,
        properties: { id: { type: "string", maxLength: 8 }, ok: { type: "boolean" } },
      },
      want: { maxBytes: 2 + 113, maxDepth: 1 },
    },
  ],
  [
    "a tuple closed by items: false",
    {
      schema: { type: "array", prefixItems: [{ type: "string", maxLength: 1 }, { type: "number" }], items: false },
      want: { maxBytes: 2 + 1 + 14 + 25, maxDepth: 1 },
    },
  ],
  [
    "a draft-07 tuple closed by additionalItems: false",
    {
      schema: { $schema: DRAFT_07, type: "array", items: [{ type: "null" }], additionalItems: false },
      want: { maxBytes: 2 + 4, maxDepth: 1 },
    },
  ],
  [
    "an impossible tuple position ends the array",
    { schema: { type: "array", prefixItems: [{ type: "boolean" }, false] }, want: { maxBytes: 2 + 5, maxDepth: 1 } },
  ],
  [
    "maxItems: 0 bounds an array whose items are unconstrained",
    { schema: { type: "array", maxItems: 0 }, want: { maxBytes: 2, maxDepth: 1 } },
  ],
  [
    "anyOf takes the larger branch",
    {
      schema: {
        anyOf: [
          { type: "string", maxLength: 10 },
          { type: "array", maxItems: 1, items: { type: "string", maxLength: 1 } },
        ],
      },
      want: { maxBytes: 2 + 120, maxDepth: 1 },
    },
  ],
  [
    "a nullable field written as anyOf with null",
    {
      schema: { anyOf: [{ type: "string", maxLength: 1 }, { type: "null" }], default: null },
      want: { maxBytes: 14, maxDepth: 0 },
    },
  ],
  [
    "allOf merges maxItems from one branch with items from another",
    {
      schema: { allOf: [{ type: "array", maxItems: 3 }, { items: { type: "integer" } }] },
      want: { maxBytes: 2 + 2 + 3 * 25, maxDepth: 1 },
    },
  ],
  [
    "allOf: a type in one branch, maxLength in the other",
    { schema: { allOf: [{ type: "string" }, { maxLength: 4 }] }, want: { maxBytes: 2 + 48, maxDepth: 0 } },
  ],
  [
    "a branch made impossible by the sibling type is dropped",
    { schema: { type: "string", anyOf: [{ maxLength: 1 }, { type: "array" }] }, want: { maxBytes: 14, maxDepth: 0 } },
  ],
  [
    "2020-12: a keyword beside $ref tightens it",
    {
      schema: { $defs: { s: { type: "string" } }, $ref: "#/$defs/s", maxLength: 2 },
      want: { maxBytes: 2 + 24, maxDepth: 0 },
    },
  ],
  [
    "unevaluatedProperties: false closes an object extended with allOf",
    {
      schema: {
        allOf: [{ $ref: "#/$defs/base" }],
        properties: { extra: { type: "boolean" } }, // 2 + 30 + 1 + 5 = 38
        unevaluatedProperties: false,
        $defs: { base: { type: "object", properties: { id: { type: "string", maxLength: 1 } } } }, // 14 + 1 + 14
      },
      want: { maxBytes: 2 + 1 + 29 + 38, maxDepth: 1 },
    },
  ],
  [
    "unevaluatedItems: items evaluated in place (allOf prefixItems) keep their own bound",
    {
      schema: {
        type: "array",
        maxItems: 2,
        allOf: [{ prefixItems: [{ type: "string", maxLength: 5 }] }],
        unevaluatedItems: { type: "null" },
      },
      // The checker does not track which position an in-place evaluator covers, so a rest item counts as the
      // larger of what may evaluate it (the string, 62) and unevaluatedItems (null): loose, never too small.
      want: { maxBytes: 2 + 1 + 62 + 62, maxDepth: 1 },
    },
  ],
  [
    "unevaluatedItems: false with contains: every item matches contains",
    {
      schema: { type: "array", maxItems: 3, contains: { type: "string", maxLength: 2 }, unevaluatedItems: false },
      want: { maxBytes: 2 + 2 + 3 * 26, maxDepth: 1 },
    },
  ],
  [
    "an anchored pattern with bounded repetition bounds a string",
    { schema: { type: "string", pattern: "^[a-f0-9]{4}$" }, want: { maxBytes: 2 + 4 * 6, maxDepth: 0 } },
  ],
  [
    "an asserted fixed-size format bounds a string",
    {
      schema: { type: "string", format: "uuid" },
      options: { formats: "assert" },
      want: { maxBytes: 2 + 45 * 6, maxDepth: 0 },
    },
  ],
  [
    "unknown keys bounded by maxProperties and propertyNames",
    {
      schema: {
        type: "object",
        propertyNames: { maxLength: 3 },
        additionalProperties: { type: "boolean" },
        maxProperties: 2,
      },
      want: { maxBytes: 2 + 1 + 2 * (2 + 36 + 1 + 5), maxDepth: 1 },
    },
  ],
  [
    "a maxProperties of a billion counts the unknown keys' entries without listing them",
    {
      schema: {
        type: "object",
        propertyNames: { maxLength: 3 },
        additionalProperties: { type: "boolean" },
        maxProperties: 1_000_000_000,
      },
      want: { maxBytes: 2 + (1_000_000_000 - 1) + 1_000_000_000 * (2 + 36 + 1 + 5), maxDepth: 1 },
    },
  ],
  [
    "a large maxProperties takes the declared entries larger than an unknown key's, then unknown keys",
    {
      schema: {
        type: "object",
        propertyNames: { maxLength: 3 },
        properties: { id: { type: "string", maxLength: 8 }, n: { type: "null" } }, // 113, and 8 + 1 + 4 = 13
        additionalProperties: { type: "boolean" }, // 2 + 36 + 1 + 5 = 44 for each unknown key
        maxProperties: 1_000_000,
      },
      want: { maxBytes: 2 + (1_000_000 - 1) + 113 + (1_000_000 - 1) * 44, maxDepth: 1 },
    },
  ],
  [
    "unknown keys bounded by maxProperties and an anchored patternProperties",
    {
      schema: {
        type: "object",
        patternProperties: { "^x[0-9]$": { type: "null" } },
        additionalProperties: false,
        maxProperties: 1,
      },
      want: { maxBytes: 2 + (2 + 12) + 1 + 4, maxDepth: 1 },
    },
  ],
  [
    "a property name outside the BMP counts two escapes",
    {
      schema: { type: "object", properties: { "\u{1F600}": { type: "null" } }, additionalProperties: false },
      want: { maxBytes: 2 + (2 + 12) + 1 + 4, maxDepth: 1 },
    },
  ],
  [
    "a $ref to the same definition from two places is not recursion",
    {
      schema: {
        allOf: [{ $ref: "#/$defs/d" }],
        properties: { p: { $ref: "#/$defs/d" } },
        $defs: { d: { type: "object", properties: { q: { type: "null" } }, additionalProperties: false } },
      },
      // d is closed to q, so p can never be present: {"q":null}
      want: { maxBytes: 2 + 8 + 1 + 4, maxDepth: 1 },
    },
  ],
  [
    "the false schema accepts nothing",
    { schema: false, want: { maxBytes: 0, maxDepth: 0, findings: [["", "no-valid-value"]] } },
  ],
];

const unbounded: Case[] = [
  ["the true schema", { schema: true, want: { maxBytes: null, maxDepth: null, findings: [["", "any-value"]] } }],
  [
    "an empty schema as a property value",
    {
      schema: { type: "object", properties: { meta: {} }, additionalProperties: false },
      want: { maxBytes: null, maxDepth: null, findings: [["/properties/meta", "any-value"]] },
    },
  ],
  [
    "a string without maxLength",
    { schema: { type: "string" }, want: { maxBytes: null, maxDepth: 0, findings: [["", "string-without-maxLength"]] } },
  ],
  [
    "an unanchored pattern does not bound a string",
    {
      schema: { type: "string", pattern: "[a-f]{4}" },
      want: { maxBytes: null, maxDepth: 0, findings: [["", "string-without-maxLength"]] },
    },
  ],
  [
    "a format is an annotation unless asserted",
    {
      schema: { type: "string", format: "uuid" },
      want: { maxBytes: null, maxDepth: 0, findings: [["", "string-without-maxLength"]] },
    },
  ],
  [
    "date-time is not a fixed-size format (fractional seconds)",
    {
      schema: { type: "string", format: "date-time" },
      options: { formats: "assert" },
      want: { maxBytes: null, maxDepth: 0, findings: [["", "string-without-maxLength"]] },
    },
  ],
  [
    "a nested string without maxLength is reported where it is",
    {
      schema: {
        type: "object",
        properties: { a: { type: "array", maxItems: 2, items: { type: "string" } } },
        additionalProperties: false,
      },
      want: { maxBytes: null, maxDepth: 2, findings: [["/properties/a/items", "string-without-maxLength"]] },
    },
  ],
  [
    "an array without maxItems",
    {
      schema: { type: "array", items: { type: "boolean" } },
      want: { maxBytes: null, maxDepth: 1, findings: [["", "array-without-maxItems"]] },
    },
  ],
  [
    "an object open to unknown keys",
    {
      schema: { type: "object", properties: { a: { type: "null" } } },
      want: { maxBytes: null, maxDepth: null, findings: [["", "object-open"]] },
    },
  ],
  [
    "an additionalProperties schema without maxProperties",
    {
      schema: { type: "object", additionalProperties: { type: "null" } },
      want: { maxBytes: null, maxDepth: 1, findings: [["", "object-open"]] },
    },
  ],
  [
    "draft-07: a keyword beside $ref is ignored, so it bounds nothing",
    {
      schema: { $schema: DRAFT_07, definitions: { s: { type: "string" } }, $ref: "#/definitions/s", maxLength: 2 },
      want: { maxBytes: null, maxDepth: 0, findings: [["/definitions/s", "string-without-maxLength"]] },
    },
  ],
  [
    "a recursive $ref through a property",
    {
      schema: {
        $ref: "#/$defs/node",
        $defs: {
          node: { type: "object", properties: { next: { $ref: "#/$defs/node" } }, additionalProperties: false },
        },
      },
      want: { maxBytes: null, maxDepth: null, findings: [["/$defs/node/properties/next", "nesting-unbounded"]] },
    },
  ],
  [
    "a linked list: recursion through anyOf with null",
    {
      schema: {
        type: "object",
        properties: { next: { anyOf: [{ $ref: "#" }, { type: "null" }] } },
        additionalProperties: false,
      },
      want: { maxBytes: null, maxDepth: null, findings: [["/properties/next/anyOf/0", "nesting-unbounded"]] },
    },
  ],
  [
    "a tree: recursion through array items",
    {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: { children: { type: "array", maxItems: 2, items: { $ref: "#" } } },
      },
      want: { maxBytes: null, maxDepth: null, findings: [["/properties/children/items", "nesting-unbounded"]] },
    },
  ],
  [
    "a reference outside the schema",
    {
      schema: { $ref: "https://example.com/other.json" },
      want: { maxBytes: null, maxDepth: null, findings: [["", "ref-unresolved"]] },
    },
  ],
  [
    "a $dynamicRef",
    { schema: { $dynamicRef: "#meta" }, want: { maxBytes: null, maxDepth: null, findings: [["", "dynamic-ref"]] } },
  ],
];

function check(schema: JsonSchema, want: Want, options?: CheckOptions): void {
  const report = checkBounds(schema, options);
  expect({ maxBytes: report.maxBytes, maxDepth: report.maxDepth }).toEqual({
    maxBytes: want.maxBytes,
    maxDepth: want.maxDepth,
  });
  expect(report.findings.map((f) => [f.pointer, f.kind])).toEqual(want.findings ?? []);
  for (const f of report.findings) expect(f.message).toMatch(/^[^\n]+$/);
}

describe("checkBounds", () => {
  it.each(bounded)("bounded: %s", (_name, { schema, want, options }) => check(schema, want, options));
  it.each(unbounded)("unbounded: %s", (_name, { schema, want, options }) => check(schema, want, options));

  it("never mutates the schema", () => {
    const schema = {
      type: "object",
      allOf: [{ $ref: "#/$defs/base" }],
      properties: { tree: { type: "array", maxItems: 3, items: { $ref: "#" } }, id: { const: "x" } },
      unevaluatedProperties: false,
      $defs: { base: { properties: { note: { type: "string", maxLength: 4 } } } },
    };
    const before = structuredClone(schema);
    checkBounds(deepFreeze(schema));
    expect(schema).toEqual(before);
  });

  it("bounds a schema nested deeper than it follows without overflowing the stack", () => {
    let schema: JsonSchema = { type: "null" };
    for (let i = 0; i < 5000; i++) {
      schema = { type: "object", properties: { a: schema }, additionalProperties: false };
    }
    const report = checkBounds(schema);
    expect(report.maxBytes).toBeNull();
    expect(report.findings.map((f) => f.kind)).toEqual(["schema-too-deep"]);
  });

  it("shares the work of a definition referenced many times (a DAG whose expansion is 2^40 nodes)", () => {
    // d_i holds up to two items, each a d_(i-1): bytes(d_i) = 2 + 1 + 2 * bytes(d_(i-1)), bytes(d_0) = 4.
    const defs: Record<string, JsonSchema> = { d0: { type: "null" } };
    let want = 4;
    for (let i = 1; i <= 40; i++) {
      defs[`d${i}`] = {
        type: "array",
        maxItems: 2,
        items: { anyOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] },
      };
      want = 3 + 2 * want;
    }
    const report = checkBounds({ $defs: defs, $ref: "#/$defs/d40" });
    expect(report).toEqual({ findings: [], maxBytes: want, maxDepth: 40 });
  });

  it("names every recursion in a pair of mutually recursive definitions once", () => {
    const schema = {
      $ref: "#/$defs/a",
      $defs: {
        a: { type: "object", properties: { b: { $ref: "#/$defs/b" } }, additionalProperties: false },
        b: { type: "array", maxItems: 1, items: { $ref: "#/$defs/a" } },
      },
    };
    const report = checkBounds(schema);
    expect(report.maxBytes).toBeNull();
    expect(report.findings.map((f) => [f.pointer, f.kind])).toEqual([["/$defs/b/items", "nesting-unbounded"]]);
  });
});

describe("patternMaxBytes", () => {
  const cases: Array<[string, number | null]> = [
    ["^a$", 6],
    ["^rec_[A-Za-z0-9]{16}$", 20 * 6],
    ["^(a|bc)?$", 12],
    ["^(?:[a-z]{2}|\\d{3})-x$", 5 * 6],
    ["^.{0,4}$", 4 * 12], // `.` may match a code point outside the BMP: two escapes
    ["^[^a]$", 12],
    ["^\\u0041{2}$", 12],
    ["^\\p{L}{2}$", 24],
    ["^(?=a)a$", 6], // a lookahead consumes nothing
    ["^a$|^bb$", 12],
    ["abc", null], // not anchored
    ["^abc", null],
    ["^a$|b", null], // one alternative not anchored
    ["^a+$", null],
    ["^a{2,}$", null],
    ["^(a)\\1$", null], // back-reference
    ["^[a-z$", null], // unterminated class
  ];
  it.each(cases)("%s", (pattern, want) => expect(patternMaxBytes(pattern)).toBe(want));

  it("agrees with a brute-force check: every match fits the bound", () => {
    const pattern = "^(?:ab|[xy]{1,3})?z{0,2}$";
    const bound = patternMaxBytes(pattern) as number;
    const re = new RegExp(pattern, "u");
    let longest = 0;
    for (const s of ["", "ab", "x", "xyx", "abzz", "yyyzz", "zz"]) {
      expect(re.test(s)).toBe(true);
      longest = Math.max(longest, s.length);
    }
    expect(bound).toBe(5 * 6);
    expect(longest * 6).toBeLessThanOrEqual(bound);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
