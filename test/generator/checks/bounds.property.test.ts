/**
 * The invariant users rely on when the receive ceiling is derived from the checker: for every value a bounded
 * schema accepts, its compact JSON fits in `maxBytes` (as JSON.stringify writes it, and as a tool that escapes
 * every character writes it) and its nesting fits in `maxDepth`.
 *
 * Schemas come from a small generator family (strings, numbers, enums, patterns, arrays, closed tuples, closed
 * objects, anyOf, allOf, $ref to $defs); each comes with an arbitrary for its own valid values, and Ajv confirms
 * each generated value is valid, so the test cannot pass on values the schema would refuse.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkBounds } from "../../../generator/checks/index.js";
import type { SchemaObject } from "../../../generator/schema/shapes.js";

/** A schema with an arbitrary for values it accepts. */
interface Generated {
  schema: SchemaObject;
  value: fc.Arbitrary<unknown>;
}

/** Characters that are expensive in JSON: controls, quotes, lone surrogates, astral code points, separators. */
const costlyChar = fc.oneof(
  fc.constantFrom("\u0000", "\u001f", '"', "\\", "\ud800", "\udfff", "\u{1F600}", "\u2028", "\u200b", "é", "a"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
);

const KEYS = ["a", "id", "é", "\u{1F600}", 'quote"', "new\nline", "__proto__x"];

const leaf: fc.Arbitrary<Generated> = fc.oneof(
  fc.nat({ max: 6 }).map((n) => ({
    schema: { type: "string", maxLength: n },
    value: fc.string({ unit: costlyChar, maxLength: n }),
  })),
  fc.nat({ max: 5 }).map((n) => ({
    schema: { type: "string", pattern: `^[a-z\\u00e9]{0,${n}}$` },
    value: fc.string({ unit: fc.constantFrom("a", "z", "é"), maxLength: n }),
  })),
  fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 })).map(([short, long]) => ({
    // Alternatives of different lengths: the bound is the longest alternative's.
    schema: { type: "string", pattern: `^(?:x{0,${short}}|(?:\u{1F600}){0,${long}})$` },
    value: fc.oneof(
      fc.nat({ max: short }).map((n) => "x".repeat(n)),
      fc.nat({ max: long }).map((n) => "\u{1F600}".repeat(n)),
    ),
  })),
  fc.constant({ schema: { type: "integer" }, value: fc.oneof(fc.integer(), fc.maxSafeInteger()) }),
  fc.constant({
    schema: { type: "number" },
    value: fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      // The longest spellings: plain notation in [1e-6, 1e-5), and 17 digits with a three-digit exponent.
      fc.double({ min: 1e-6, max: 1e-5, noNaN: true }).map((x) => -x),
      fc.constantFrom(-1.7976931348623157e308, -2.2250738585072014e-308, -123456789012345680000),
    ),
  }),
  fc.constant({ schema: { type: "boolean" }, value: fc.boolean() }),
  fc.constant({ schema: { type: "null" }, value: fc.constant(null) }),
  fc
    .uniqueArray(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 3, selector: (v) => JSON.stringify(v) })
    .map((values) => ({ schema: { enum: values }, value: fc.constantFrom(...values) })),
);

const { node } = fc.letrec<{
  node: Generated;
  array: Generated;
  tuple: Generated;
  object: Generated;
  anyOf: Generated;
  allOf: Generated;
}>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    tie("array"),
    tie("tuple"),
    tie("object"),
    tie("anyOf"),
    tie("allOf"),
  ),
  array: fc.record({ max: fc.nat({ max: 3 }), item: tie("node") }).map(({ max, item }) => ({
    schema: { type: "array", maxItems: max, items: item.schema },
    value: fc.array(item.value, { maxLength: max }),
  })),
  tuple: fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((items) => ({
    schema: { type: "array", prefixItems: items.map((i) => i.schema), items: false },
    // prefixItems positions are optional: any prefix of the tuple is valid.
    value: fc
      .tuple(...items.map((i) => i.value))
      .chain((full) => fc.nat({ max: full.length }).map((n) => full.slice(0, n))),
  })),
  object: fc
    .uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), value: tie("node"), required: fc.boolean() }), {
      maxLength: 4,
      selector: (p) => p.key,
    })
    .map((props) => ({
      schema: {
        type: "object",
        properties: Object.fromEntries(props.map((p) => [p.key, p.value.schema])),
        required: props.filter((p) => p.required).map((p) => p.key),
        additionalProperties: false,
      },
      value: fc.record(Object.fromEntries(props.map((p) => [p.key, p.value.value])), {
        requiredKeys: props.filter((p) => p.required).map((p) => p.key),
      }),
    })),
  anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((branches) => ({
    schema: { anyOf: branches.map((b) => b.schema) },
    value: fc.oneof(...branches.map((b) => b.value)),
  })),
  allOf: fc.record({ max: fc.nat({ max: 3 }), item: tie("node") }).map(({ max, item }) => ({
    // The array's bound is split across two conjuncts: the checker must merge them to bound it.
    schema: { allOf: [{ type: "array", maxItems: max }, { items: item.schema }] },
    value: fc.array(item.value, { maxLength: max }),
  })),
}));

/** Sometimes move the schema under $defs and point at it, so bounds must flow through $ref. */
const rooted: fc.Arbitrary<Generated> = fc
  .tuple(node, fc.boolean())
  .map(([g, viaRef]) =>
    viaRef ? { schema: { $defs: { result: g.schema }, $ref: "#/$defs/result" }, value: g.value } : g,
  );

/** Compact JSON with every string character written as a `\uXXXX` escape: the longest legal spelling. */
function escapeEverything(value: unknown): string {
  if (typeof value === "string") {
    let out = '"';
    for (let i = 0; i < value.length; i++) out += `\\u${value.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return `${out}"`;
  }
  if (Array.isArray(value)) return `[${value.map(escapeEverything).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${escapeEverything(k)}:${escapeEverything(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const inner = (Array.isArray(value) ? value : Object.values(value)).map(depthOf);
  return 1 + Math.max(0, ...inner);
}

describe("checkBounds bounds every valid value", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: false });

  it("serialised size <= maxBytes and depth <= maxDepth, for random bounded schemas and their values", () => {
    fc.assert(
      fc.property(
        rooted.chain((g) => fc.tuple(fc.constant(g.schema), fc.array(g.value, { minLength: 1, maxLength: 5 }))),
        ([schema, values]) => {
          const report = checkBounds(schema);
          expect(report.findings).toEqual([]);
          const maxBytes = report.maxBytes as number;
          const maxDepth = report.maxDepth as number;
          const validate = ajv.compile(schema);
          for (const value of values) {
            expect(validate(value)).toBe(true);
            expect(Buffer.byteLength(JSON.stringify(value), "utf8")).toBeLessThanOrEqual(maxBytes);
            expect(Buffer.byteLength(escapeEverything(value), "utf8")).toBeLessThanOrEqual(maxBytes);
            expect(depthOf(value)).toBeLessThanOrEqual(maxDepth);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("is reached: a string of maxLength astral characters, every one escaped, fills the bound exactly", () => {
    const report = checkBounds({ type: "string", maxLength: 3 });
    expect(escapeEverything("\u{1F600}".repeat(3)).length).toBe(report.maxBytes);
  });

  it("is reached by the longest number JSON.stringify writes", () => {
    const report = checkBounds({ type: "number" });
    expect(JSON.stringify(-0.0000012345678901234567).length).toBe(report.maxBytes);
  });
});
