/**
 * Contracts that would hurt whoever runs them are refused with file, pointer and the pattern: patterns prone to
 * catastrophic backtracking (checked by recheck), patterns that are no regular expression under the `u` flag, and
 * schemas past the size and depth bounds. Bounded patterns pass, and every pattern is compiled with `u`.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkSchemaSafety, judgePattern, SCHEMA_LIMITS, schemaSizeProblems } from "../../generator/checks/safety.js";
import type { JsonSchema, ResolvedSchema } from "../../generator/schema/shapes.js";
import { contractErrors, generateInto, importGenerated, REPO, writeContracts } from "./scratch.js";

const FIXTURES = path.join(REPO, "test/fixtures/hardening");
const CORPUS = path.resolve(REPO, "../shared/corpus");

/** A schema as the resolve stage hands it on, for calling the safety stage directly. */
function resolved(root: JsonSchema, pointer = "/outputSchema"): ResolvedSchema {
  return { dialect: "2020-12", root, baseUri: "file:///project/x.tool.json", documents: {}, bundled: root, pointer };
}

/** A bounded contract around one output schema. */
function contract(outputSchema: JsonSchema, name = "probe") {
  return { name, outputSchema, "x-toolgate": { receive: { maxBytes: 65_536 } } };
}

describe("ReDoS: the classic catastrophic forms", () => {
  it("are refused where they stand, each with its pattern and pointer", async () => {
    const errors = await contractErrors(path.join(FIXTURES, "redos"));
    const found = errors.map((error) => [error.file, error.pointer, error.message.split(" backtracks ")[0]]).sort();
    // As searches, (a+)+ and (a|a)* succeed at the first position; they are exponential once anchored. (.*a){12} is
    // of degree 2 as a search and 12 anchored: the worse is reported.
    expect(found).toEqual(
      [
        [
          "test/fixtures/hardening/redos/catastrophic.tool.json",
          "/inputSchema/$defs/query/pattern",
          'the pattern "(.*a){12}"',
        ],
        [
          "test/fixtures/hardening/redos/catastrophic.tool.json",
          "/outputSchema/properties/label/pattern",
          'the pattern "(a+)+"',
        ],
        [
          "test/fixtures/hardening/redos/catastrophic.tool.json",
          "/outputSchema/properties/tags/patternProperties/(a|a)*",
          'the patternProperties key "(a|a)*"',
        ],
      ].sort(),
    );
    expect(errors.map((error) => error.message.match(/catastrophically (as JSON Schema|when the whole)/)?.[1])).toEqual(
      ["when the whole", "when the whole", "when the whole"],
    );
  });

  it.each([
    ["(a+)+", "full-match", "exponential"],
    ["(a|a)*", "full-match", "exponential"],
    // As a search its degree is 2; anchored it is 12, and the worse of the two is the verdict.
    ["(.*a){12}", "full-match", "polynomial"],
    ["^(a+)+$", "search", "exponential"],
    ["^(\\w+\\s?)*$", "search", "exponential"],
    ["x+x+y", "search", "polynomial"],
    // A pattern published in SchemaStore's openHAB schema: nested quantifiers over overlapping classes.
    ["^(Location|Equipment|Point|Property)_([A-Z][A-Za-z0-9_]+)*[A-Z][A-Za-z0-9_]*$", "search", "exponential"],
  ])("%s is caught (%s, %s)", async (source, mode, complexity) => {
    expect(await judgePattern(source)).toMatchObject({ status: "vulnerable", mode, complexity });
  });

  it("names the real-world case in SchemaStore's openHAB schema with its pointer", async () => {
    const schema = JSON.parse(readFileSync(path.join(CORPUS, "schemastore/schemas/openhab-5.1.json"), "utf8"));
    const errors = await checkSchemaSafety({ file: "openhab-5.1.json", schemas: [resolved(schema, "")] });
    expect(errors.map((error) => error.pointer)).toEqual([
      "/properties/tags/patternProperties/^(Location|Equipment|Point|Property)_([A-Z][A-Za-z0-9_]+)*[A-Z][A-Za-z0-9_]*$",
    ]);
  });
});

describe("ReDoS: bounded patterns", () => {
  it("a contract whose patterns are all linear generates", async () => {
    expect(await contractErrors(path.join(FIXTURES, "bounded"))).toEqual([]);
  });

  it.each([
    "^[a-z]+( [a-z]+)*$",
    "^(a|b)*c$",
    "^([a-z0-9-]+\\.)*[a-z0-9-]+$",
    "^\\p{Lu}{2,3}-\\d{1,4}$",
    "^x-[a-z]{1,16}$",
  ])("%s is safe", async (source) => {
    expect(await judgePattern(source)).toEqual({ status: "safe" });
  });

  it("every pattern of the example contracts is safe", async () => {
    const errors = await contractErrors(path.join(REPO, "schemas"));
    expect(errors.map(String)).toEqual([]);
  });
});

describe("patterns are Unicode regular expressions", () => {
  it.each([
    ["a lone brace", "^a{$"],
    ["an identity escape of a letter", "^\\a$"],
    ["an escaped dash outside a class", "^a\\-b$"],
  ])("%s is refused with its pointer, since it is not one under the u flag", async (_label, source) => {
    expect(() => new RegExp(source)).not.toThrow();
    const errors = await contractErrors(
      await writeContracts("u-flag", {
        "probe.tool.json": contract({ type: "string", maxLength: 8, pattern: source }),
      }),
    );
    expect(
      errors.map((error) => [
        error.pointer,
        error.message.startsWith(`the pattern ${JSON.stringify(source)} is not an ECMA-262 regular expression with`),
      ]),
    ).toEqual([["/outputSchema/pattern", true]]);
  });

  it("the generated validator compiles its patterns with u: `.` is one code point, \\p{…} a property", async () => {
    const schemas = await writeContracts("u-flag-meaning", {
      "probe.tool.json": contract({
        type: "object",
        properties: {
          one: { type: "string", maxLength: 4, pattern: "^.$" },
          upper: { type: "string", maxLength: 4, pattern: "^\\p{Lu}$" },
        },
        additionalProperties: false,
      }),
    });
    const folder = await generateInto(schemas);
    const { validateResult } = await importGenerated<{ validateResult: (value: unknown) => boolean }>(
      folder,
      "probe/validate.js",
    );
    // Without u, "😀" is two code units and `.` would not match it; `\p{Lu}` would mean the letter "p" and "{Lu}".
    expect(/^.$/.test("😀")).toBe(false);
    expect(validateResult({ one: "😀" })).toBe(true);
    expect(validateResult({ one: "ab" })).toBe(false);
    expect(validateResult({ upper: "É" })).toBe(true);
    expect(validateResult({ upper: "é" })).toBe(false);
    expect(validateResult({ upper: "p{Lu}" })).toBe(false);
  });
});

describe("schema size and depth bounds", () => {
  it("the largest real schema in the corpus (SchemaStore vector.json) is within them", async () => {
    const schema = JSON.parse(readFileSync(path.join(CORPUS, "schemastore/schemas/vector.json"), "utf8"));
    expect(schemaSizeProblems("vector.json", resolved(schema, ""))).toEqual([]);
  });

  it("subschemas nested past the depth bound are refused at the first one too deep", async () => {
    let schema: JsonSchema = { type: "string", maxLength: 1 };
    for (let i = 0; i < SCHEMA_LIMITS.maxDepth + 5; i++) {
      schema = { type: "object", properties: { a: schema }, required: ["a"] };
    }
    const errors = await contractErrors(await writeContracts("too-deep", { "deep.tool.json": contract(schema) }));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.pointer).toBe(`/outputSchema${"/properties/a".repeat(SCHEMA_LIMITS.maxDepth + 1)}`);
    expect(errors[0]?.message).toMatch(/nest 65 levels deep, past the 64/);
  });

  it("exactly at the depth bound is accepted", async () => {
    let schema: JsonSchema = { type: "string", maxLength: 1 };
    for (let i = 0; i < SCHEMA_LIMITS.maxDepth; i++) schema = { type: "array", maxItems: 1, items: schema };
    expect(await checkSchemaSafety({ file: "x", schemas: [resolved(schema)] })).toEqual([]);
  });

  it("more subschemas than the bound are refused", async () => {
    const properties = Object.fromEntries(
      Array.from({ length: SCHEMA_LIMITS.maxSubschemas }, (_, i) => [`p${i}`, { type: "integer" }]),
    );
    const errors = await checkSchemaSafety({
      file: "wide.tool.json",
      schemas: [resolved({ type: "object", properties, additionalProperties: false })],
    });
    expect(errors.map(String)).toEqual([
      `wide.tool.json#/outputSchema: the schema holds more than ${SCHEMA_LIMITS.maxSubschemas} subschemas (counting the documents it references): split it, or reference repeated parts through $defs instead of copying them`,
    ]);
  });

  it("a schema larger than the size bound is refused before its patterns are read", async () => {
    const schema = {
      type: "string",
      maxLength: 4,
      pattern: "(a+)+",
      description: "x".repeat(SCHEMA_LIMITS.maxChars),
    };
    const errors = await checkSchemaSafety({ file: "big.tool.json", schemas: [resolved(schema, "/inputSchema")] });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.pointer).toBe("/inputSchema");
    expect(errors[0]?.message).toMatch(/characters of compact JSON, more than the 4194304/);
  });
});
