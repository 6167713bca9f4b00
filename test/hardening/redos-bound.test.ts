/**
 * A polynomial pattern is costed at the longest string the schema lets reach it: accepted when that worst case stays
 * within the step budget, refused otherwise or when nothing bounds the string; an exponential pattern is refused
 * whatever its bound. The generated validator is what makes the bound real: it tests `maxLength` first and stops at
 * the first error, so a longer string never reaches the regular expression, inside `anyOf` and `not` too.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkSchemaSafety, judgePattern, PATTERN_STEP_BUDGET } from "../../generator/checks/safety.js";
import type { JsonSchema, ResolvedSchema } from "../../generator/schema/shapes.js";
import { adaptersOf, generateInto, importGenerated, writeContracts } from "./scratch.js";

/** The DNS label shape (RFC 1123), as Kubernetes names are checked: polynomial, degree 2. */
const DNS_LABEL = "^[a-z0-9]+(?:[a-z0-9-]*[a-z0-9])?$";
/** A branch or tag name: no `..`, no `//`, not starting or ending with `.` or `/`; polynomial, degree 2. */
const GIT_REF = "^(?!.*\\.\\.)(?!.*//)[A-Za-z0-9_-]+(?:[A-Za-z0-9._/-]*[A-Za-z0-9_-])?$";

function resolved(root: JsonSchema, pointer = "/inputSchema"): ResolvedSchema {
  return { dialect: "2020-12", root, baseUri: "file:///project/x.tool.json", documents: {}, bundled: root, pointer };
}

async function problems(root: JsonSchema): Promise<string[]> {
  const errors = await checkSchemaSafety({ file: "probe.tool.json", schemas: [resolved(root)] });
  return errors.map((error) => `${error.pointer}: ${error.message}`);
}

/** recheck's attack string for a pattern, pumped to `length` code points (its prefixes and suffix kept). */
async function attackOf(source: string, length: number): Promise<string> {
  const { check } = await import("recheck");
  const diagnostics = await check(source, "u");
  if (diagnostics.status !== "vulnerable") throw new Error(`${source} is ${diagnostics.status}`);
  const { pumps, suffix } = diagnostics.attack;
  const fixed = pumps.reduce((sum, pump) => sum + pump.prefix.length, 0) + suffix.length;
  const each = pumps.reduce((sum, pump) => sum + pump.pump.length, 0);
  const times = Math.max(0, Math.floor((length - fixed) / each));
  return pumps.map((pump) => pump.prefix + pump.pump.repeat(times)).join("") + suffix;
}

describe("a polynomial pattern is costed at its bound", () => {
  it.each([
    ["the DNS label at maxLength 63", DNS_LABEL, 63],
    ["a git ref at maxLength 255", GIT_REF, 255],
  ])("%s is accepted", async (_name, pattern, maxLength) => {
    const verdict = await judgePattern(pattern);
    expect(verdict).toMatchObject({ status: "vulnerable", complexity: "polynomial", degree: 2 });
    expect(maxLength ** 2).toBeLessThanOrEqual(PATTERN_STEP_BUDGET);
    expect(await problems({ type: "string", maxLength, pattern })).toEqual([]);
  });

  it("the same pattern with no maxLength is refused, with the bound that would make it acceptable", async () => {
    const [message, ...more] = await problems({ type: "object", properties: { name: { pattern: DNS_LABEL } } });
    expect(more).toEqual([]);
    expect(message).toContain("/inputSchema/properties/name/pattern: the pattern");
    expect(message).toContain("polynomial (degree 2)");
    expect(message).toContain("nothing bounds the strings it runs on");
    expect(message).toContain("bound it with maxLength 316 or less beside it");
  });

  it("past the budget it is refused, naming the cost at its bound", async () => {
    const [message] = await problems({ type: "string", maxLength: 1000, pattern: DNS_LABEL });
    expect(message).toContain("at maxLength 1000 its worst case is 1.0e+6 steps, past the budget of 100000");
    // A bound on another schema object does not bound this one: only the pattern's own object is read.
    expect(await problems({ allOf: [{ maxLength: 63 }, { type: "string", pattern: DNS_LABEL }] })).toHaveLength(1);
  });

  it("a degree-3 search is costed at its own degree", async () => {
    expect(await judgePattern("x+x+y")).toMatchObject({ complexity: "polynomial", degree: 3, mode: "search" });
    expect(await problems({ type: "string", maxLength: 46, pattern: "x+x+y" })).toEqual([]);
    expect(await problems({ type: "string", maxLength: 47, pattern: "x+x+y" })).toHaveLength(1);
  });

  it.each([
    ["(a+)+", 4],
    ["^(a|a)*b$", 8],
  ])("the exponential %s is refused even at maxLength %d", async (pattern, maxLength) => {
    const [message] = await problems({ type: "string", maxLength, pattern });
    expect(message).toContain("exponential");
    expect(message).toContain("no length bound makes an exponential pattern safe");
  });

  it("a patternProperties key is bounded by propertyNames.maxLength, and by nothing else", async () => {
    const keyed = (extra: JsonSchema) => ({
      type: "object",
      patternProperties: { [DNS_LABEL]: { type: "string", maxLength: 8 } },
      ...(extra as object),
    });
    expect(await problems(keyed({ propertyNames: { maxLength: 63 } }))).toEqual([]);
    const [message] = await problems(keyed({ maxLength: 63 }));
    expect(message).toContain("the patternProperties key");
    expect(message).toContain("bound it with propertyNames.maxLength 316 or less");
  });
});

describe("the generated validator never runs a pattern past its maxLength", () => {
  const label = { type: "string", maxLength: 63, pattern: DNS_LABEL };
  const ref = { type: "string", maxLength: 255, pattern: GIT_REF };
  const outputSchema = {
    type: "object",
    properties: {
      label,
      // In a composite applicator Ajv collects errors instead of returning: the length still guards the pattern.
      either: { anyOf: [ref, { type: "integer" }] },
      notLabel: { not: label },
      labels: {
        type: "object",
        maxProperties: 4,
        propertyNames: { maxLength: 63 },
        patternProperties: { [DNS_LABEL]: { type: "boolean" } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };

  it("generates, checks maxLength before each pattern, and rejects an attack past the bound fast", async () => {
    const schemas = await writeContracts("redos-bound", {
      "names.tool.json": {
        name: "names",
        inputSchema: { type: "object", properties: { label }, required: ["label"], additionalProperties: false },
        outputSchema,
        "x-toolgate": { receive: { maxBytes: 65_536 } },
      },
    });
    const folder = await generateInto(schemas);
    const source = await readFile(path.join(folder.out, "validators.js"), "utf8");
    // In every place the pattern is tested, the code-point length test comes first, and the pattern sits in its else.
    const tests = [...source.matchAll(/(pattern\d+)\.test\(/g)];
    expect(tests.length).toBeGreaterThanOrEqual(4);
    for (const test of tests) {
      const before = source.slice(0, test.index);
      const lengthCheck = Math.max(before.lastIndexOf(") > 63)"), before.lastIndexOf(") > 255)"));
      expect(lengthCheck).toBeGreaterThan(-1);
      expect(before.slice(lengthCheck)).toMatch(/else|if\s*\(valid\d+\)/);
    }

    const validators = await importGenerated<Record<string, (value: unknown) => boolean>>(folder, "names/validate.js");
    const { validateInput, validateResult } = validators as Record<
      string,
      ((v: unknown) => boolean) & { errors?: Array<{ keyword: string }> | null }
    >;
    if (validateInput === undefined || validateResult === undefined) throw new Error("validators missing");
    const longAttack = await attackOf(DNS_LABEL, 63 + 1000);
    const longRef = await attackOf(GIT_REF, 255 + 1000);
    const started = performance.now();
    expect(validateInput({ label: longAttack })).toBe(false);
    expect(validateInput.errors?.[0]?.keyword).toBe("maxLength");
    expect(validateResult({ notLabel: longAttack })).toBe(true);
    expect(validateResult({ either: longRef })).toBe(false);
    expect(validateResult({ labels: { [longAttack]: true } })).toBe(false);
    // Run on the pattern, the same string costs (1063/63)² ≈ 285 times the bound's worst case: here it never runs.
    expect(performance.now() - started).toBeLessThan(50);

    // At the bound the pattern runs, refuses the attack, and stays within the budget's order of time.
    const atBound = await attackOf(DNS_LABEL, 63);
    expect(validateInput({ label: atBound })).toBe(false);
    expect(validateInput.errors?.[0]?.keyword).toBe("pattern");

    // The ordinary names pass, and a legitimate result reaches the model whole.
    expect(validateInput({ label: "payments-api-7" })).toBe(true);
    expect(validateResult({ labels: { "team-a": true, "team-b": false } })).toBe(true);
    const value = { label: "payments-api-7", either: "release/2026.12", notLabel: "Not_A_Label" };
    expect(validateResult(value)).toBe(true);
    const adapter = (await adaptersOf(folder)).get("names");
    const outcome = await adapter?.admit({
      structuredContent: value,
      content: [{ type: "text", text: JSON.stringify(value) }],
    });
    expect(outcome).toMatchObject({ ok: true, complete: true, data: value, view: value });
  });
});
