/**
 * The nullable fold of the validator stage: where `anyOf: [{type: T, …}, {type: "null"}]` becomes `type: [T, "null"]`,
 * where it must stay as written, and that the folded schema gives every instance the verdict the contract gives it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generate } from "../../../generator/pipeline.js";
import type { Dialect, JsonSchema, ResolvedSchema } from "../../../generator/schema/shapes.js";
import { compilerFor } from "../../../generator/validator/compiler.js";
import { foldNullable } from "../../../generator/validator/nullable-fold.js";
import { SchemaIndex } from "../../../generator/validator/schema-index.js";
import { findUnsupportedFeatures } from "../../../generator/validator/unsupported.js";
import { emitValidators } from "./emit-module.js";
import { resolved } from "./load.js";

/** Fuzz runs; `TOOLGATE_FUZZ_RUNS=20000` searches harder, `TOOLGATE_FUZZ_SEED` elsewhere. */
const RUNS = Number(process.env.TOOLGATE_FUZZ_RUNS ?? 1000);
const SEED = Number(process.env.TOOLGATE_FUZZ_SEED ?? 20261130);

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function folded(root: JsonSchema, dialect: Dialect = "2020-12"): JsonSchema {
  return foldNullable(resolved(root, { dialect })).schema.root;
}

const nullable = (branch: JsonSchema, extra: Record<string, unknown> = {}) => ({
  anyOf: [branch, { type: "null" }],
  ...extra,
});

describe("the nullable fold", () => {
  it.each<[string, { given: JsonSchema; want: JsonSchema }]>([
    [
      "a typed branch and a null branch, annotations of both left out",
      {
        given: {
          anyOf: [
            { type: "string", maxLength: 3, title: "Name" },
            { type: "null", description: "none" },
          ],
        },
        want: { type: ["string", "null"], maxLength: 3 },
      },
    ],
    [
      "the null branch first, the holder's own annotations kept",
      {
        given: { anyOf: [{ type: "null" }, { type: "integer", minimum: 0 }], default: null, title: "Count" },
        want: { default: null, title: "Count", type: ["integer", "null"], minimum: 0 },
      },
    ],
    [
      "null written as const, enum or a one-type list",
      {
        given: {
          type: "object",
          properties: {
            a: { anyOf: [{ type: "number" }, { const: null }] },
            b: { anyOf: [{ enum: [null] }, { type: "boolean" }] },
            c: { anyOf: [{ type: "string" }, { type: ["null"] }] },
          },
        },
        want: {
          type: "object",
          properties: {
            a: { type: ["number", "null"] },
            b: { type: ["boolean", "null"] },
            c: { type: ["string", "null"] },
          },
        },
      },
    ],
    [
      "a branch of several types, and one that already admits null",
      {
        given: {
          prefixItems: [
            { anyOf: [{ type: ["string", "integer"], maxLength: 2, maximum: 9 }, { type: "null" }] },
            { anyOf: [{ type: ["string", "null"] }, { type: "null" }] },
          ],
        },
        want: {
          prefixItems: [
            { type: ["string", "integer", "null"], maxLength: 2, maximum: 9 },
            { type: ["string", "null"] },
          ],
        },
      },
    ],
    [
      "nested folds, inner first: an array of nullable items that may itself be null",
      {
        given: nullable({ type: "array", maxItems: 2, items: nullable({ type: "string", format: "date-time" }) }),
        want: { type: ["array", "null"], maxItems: 2, items: { type: ["string", "null"], format: "date-time" } },
      },
    ],
    [
      "an object branch, whose keywords land beside keywords of other types",
      {
        given: nullable(
          { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
          { maxLength: 4, not: { const: 1 } },
        ),
        want: {
          maxLength: 4,
          not: { const: 1 },
          type: ["object", "null"],
          properties: { id: { type: "string" } },
          required: ["id"],
          additionalProperties: false,
        },
      },
    ],
    [
      "a holder with other keywords of the branch's type, which read nothing beside them",
      {
        given: nullable({ type: "string", maxLength: 3 }, { minLength: 1 }),
        want: { minLength: 1, type: ["string", "null"], maxLength: 3 },
      },
    ],
    [
      "a branch with keywords of another type than its own (null passes them too)",
      {
        given: nullable({ type: "integer", maxLength: 3, required: ["a"] }),
        want: { type: ["integer", "null"], maxLength: 3, required: ["a"] },
      },
    ],
    [
      "a reference to the holder itself (its verdict is kept)",
      {
        given: { properties: { a: { $ref: "#/$defs/n" } }, $defs: { n: nullable({ type: "string" }) } },
        want: { properties: { a: { $ref: "#/$defs/n" } }, $defs: { n: { type: ["string", "null"] } } },
      },
    ],
    [
      "a property named __proto__ inside the branch stays an own property",
      {
        given: JSON.parse('{"anyOf":[{"type":"object","required":["__proto__"]},{"type":"null"}]}') as JsonSchema,
        want: JSON.parse('{"type":["object","null"],"required":["__proto__"]}') as JsonSchema,
      },
    ],
  ])("folds %s", (_name, { given, want }) => {
    const result = folded(deepFreeze(structuredClone(given)));
    expect(result).toEqual(want);
  });

  it.each<[string, JsonSchema, Dialect?]>([
    ["a holder with a type of its own", nullable({ type: "string" }, { type: ["string", "null"] })],
    ["a holder with a keyword the branch has too", nullable({ type: "string", maxLength: 3 }, { maxLength: 1 })],
    [
      "a holder with keywords of objects beside the branch's",
      nullable({ type: "object", required: ["a"] }, { maxProperties: 1 }),
    ],
    [
      "additionalProperties that would read the holder's properties",
      nullable({ type: "object", additionalProperties: false }, { properties: { a: true } }),
    ],
    [
      "items that would read the holder's prefixItems",
      nullable({ type: "array", items: false }, { prefixItems: [true] }),
    ],
    [
      "items that would read the holder's additionalItems before 2020-12",
      nullable({ type: "array", items: { type: "string" } }, { additionalItems: false }),
      "2019-09",
    ],
    ["items as a tuple before 2020-12", nullable({ type: "array", items: [{ type: "string" }] }), "draft-07"],
    ["a branch without a type", nullable({ maxLength: 3 })],
    ["a branch with enum (null would fail it)", nullable({ type: "string", enum: ["a"] })],
    ["a branch with a $ref (its target may take null)", nullable({ $ref: "#/$defs/s" }, { $defs: { s: true } })],
    ["a branch with an applicator", nullable({ type: "string", not: { const: "a" } })],
    ["a branch with an unknown keyword", nullable({ type: "string", "x-kind": "name" })],
    ["a branch with an anchor", nullable({ type: "string", $anchor: "name" })],
    ["a null branch that asserts more", { anyOf: [{ type: "string" }, { type: "null", maxLength: 1 }] }],
    ["a null branch that takes more than null", { anyOf: [{ type: "string" }, { type: ["null", "integer"] }] }],
    ["three branches", { anyOf: [{ type: "string" }, { type: "null" }, { type: "integer" }] }],
    ["a boolean branch", { anyOf: [true, { type: "null" }] }],
    ["an unknown type name", { anyOf: [{ type: "constructor" }, { type: "null" }] }],
    [
      "a schema that reads evaluated properties anywhere",
      {
        properties: { a: nullable({ type: "object", properties: { b: true } }) },
        unevaluatedProperties: false,
      },
    ],
    [
      "a reference into the anyOf",
      { properties: { a: nullable({ type: "string" }), b: { $ref: "#/properties/a/anyOf/0" } } },
    ],
  ])("leaves %s as written", (_name, given, dialect = "2020-12") => {
    const schema = resolved(deepFreeze(structuredClone(given)), { dialect });
    const result = foldNullable(schema);
    expect(result.folds).toEqual([]);
    expect(result.schema).toBe(schema);
  });

  it("folds in every referenced document, and says where", () => {
    const other = deepFreeze({ $defs: { n: nullable({ type: "string" }) } });
    const schema = resolved(deepFreeze({ $ref: "other.json#/$defs/n" }), {
      baseUri: "https://toolgate.test/schema.json",
      documents: { "https://toolgate.test/other.json": other },
    });
    const result = foldNullable(schema);
    expect(result.folds).toEqual([{ document: "https://toolgate.test/other.json", pointer: "/$defs/n" }]);
    expect(result.schema.documents["https://toolgate.test/other.json"]).toEqual({
      $defs: { n: { type: ["string", "null"] } },
    });
    expect(result.schema.root).toBe(schema.root);
    expect(other.$defs.n.anyOf).toHaveLength(2);
  });

  it("changes the validators only: the generated types still read the contract as written", async () => {
    const schemas = await mkdtemp(path.join(tmpdir(), "toolgate-fold-"));
    await writeFile(
      path.join(schemas, "get_note.tool.json"),
      JSON.stringify({
        name: "get_note",
        description: "One note.",
        inputSchema: { type: "object", properties: { id: nullable({ type: "string", maxLength: 8 }) } },
        outputSchema: {
          type: "object",
          properties: { text: nullable({ type: "string", maxLength: 40 }) },
          required: ["text"],
          additionalProperties: false,
        },
        "x-toolgate": { receive: { maxBytes: 4096 } },
      }),
    );
    const result = await generate({ schemas });
    await rm(schemas, { recursive: true, force: true });
    if (!result.ok) throw new Error(result.errors.map(String).join("; "));
    const types = result.files.get("get_note/types.ts") ?? "";
    expect(types).toMatch(/text: string \| null/);
    expect(types).toMatch(/id\?: string \| null/);
    for (const file of ["validators.js", "get_note/validate.js"]) {
      const code = result.files.get(file) ?? "";
      expect(code, file).toMatch(/export const/);
      expect(code, file).not.toContain("anyOf");
    }
  });

  it("makes the generated module smaller and keeps its verdicts", async () => {
    const schema = resolved({
      type: "object",
      properties: Object.fromEntries(
        ["a", "b", "c", "d"].map((name) => [name, nullable({ type: "string", maxLength: 8 })]),
      ),
    });
    const emitted = emitValidators([{ exportName: "validateResult", schema, formats: "annotate" }]);
    if ("refusals" in emitted) throw new Error(JSON.stringify(emitted.refusals));
    expect(emitted.code).not.toContain("anyOf");
    const unfolded = compilerFor(schema, "annotate").getSchema(schema.baseUri);
    const { importModule } = await import("./load.js");
    const { validateResult } = await importModule(emitted.code);
    for (const value of [{}, { a: null }, { a: "x", b: null }, { c: 1 }, { d: "123456789" }, { a: [] }, null]) {
      expect(validateResult?.(value), JSON.stringify(value)).toBe(unfolded?.(value));
    }
  });
});

/** Small JSON values from a small alphabet, so they often hit what the schemas test. */
const instance: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, 1, -1, 2.5, 7, "", "a", "ab", "abc", "abcd", "2024-01-01T00:00:00Z"),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "__proto__"), tie("value"), { maxKeys: 3 }),
  ),
})).value;

const nullBranch = fc.constantFrom<JsonSchema>(
  { type: "null" },
  { type: ["null"] },
  { const: null },
  { enum: [null] },
  { type: "null", description: "none" },
  { type: "null", maxLength: 1 },
  { type: ["null", "string"] },
);

/** Entries a branch or a holder may carry: type keywords of every type, and a few that stop the fold. */
const keyword = (sub: fc.Arbitrary<JsonSchema>): fc.Arbitrary<[string, unknown]> =>
  fc.oneof(
    fc.constantFrom<[string, unknown]>(
      ["maxLength", 2],
      ["minimum", 0],
      ["required", ["a"]],
      ["maxItems", 2],
      ["description", "annotated"],
    ),
    fc.constantFrom<[string, unknown]>(
      ["maxLength", 2],
      ["minLength", 1],
      ["pattern", "^a"],
      ["format", "date-time"],
      ["minimum", 0],
      ["maximum", 5],
      ["multipleOf", 0.5],
      ["required", ["a"]],
      ["maxProperties", 1],
      ["dependentRequired", { a: ["b"] }],
      ["minItems", 1],
      ["maxItems", 2],
      ["uniqueItems", true],
      ["minContains", 2],
      ["title", "annotated"],
      ["default", null],
    ),
    fc.constant<[string, unknown]>(["enum", [null, "a", 1]]),
    sub.map((s): [string, unknown] => ["additionalProperties", s]),
    sub.map((s): [string, unknown] => ["items", s]),
    sub.map((s): [string, unknown] => ["contains", s]),
    sub.map((s): [string, unknown] => ["not", s]),
    sub.map((s): [string, unknown] => ["propertyNames", s]),
    fc.tuple(fc.constantFrom("a", "b"), sub).map(([name, s]): [string, unknown] => ["properties", { [name]: s }]),
    fc.tuple(fc.constantFrom("^a", "^b"), sub).map(([p, s]): [string, unknown] => ["patternProperties", { [p]: s }]),
    sub.map((s): [string, unknown] => ["prefixItems", [s]]),
    fc.constant<[string, unknown]>(["$ref", "#/$defs/d"]),
  );

const typeName = fc.constantFrom("string", "integer", "number", "object", "array", "boolean");

/** Schemas built around nullable pairs, with keywords beside and inside them that may or may not allow a fold. */
const schemaArbitrary: fc.Arbitrary<JsonSchema> = fc.letrec<{ schema: JsonSchema }>((tie) => {
  const sub = tie("schema");
  const typed = fc
    .tuple(
      fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 2, maxLength: 2 })),
      fc.array(keyword(sub), { maxLength: 3 }),
    )
    .map(([type, entries]) => ({ type, ...Object.fromEntries(entries) }) as JsonSchema);
  const holder = fc
    .tuple(typed, nullBranch, fc.boolean(), fc.array(keyword(sub), { maxLength: 2 }))
    .map(([branch, none, nullFirst, entries]) => ({
      ...Object.fromEntries(entries),
      anyOf: nullFirst ? [none, branch] : [branch, none],
    }));
  return {
    schema: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant<JsonSchema>(true),
      typed,
      holder,
      holder,
    ),
  };
}).schema;

/** A root holding the schema, with a definition `$ref` can reach, some references into `anyOf`, and sometimes `unevaluated*`. */
const rootArbitrary = fc
  .tuple(
    schemaArbitrary,
    schemaArbitrary,
    fc.constantFrom(undefined, undefined, "#/$defs/d/anyOf/0", "#/properties/a/anyOf/1"),
    fc.constantFrom(undefined, undefined, undefined, "unevaluatedProperties", "unevaluatedItems"),
  )
  .map(([a, d, intoAnyOf, unevaluated]) => {
    const root: Record<string, unknown> = { properties: { a }, $defs: { d } };
    if (intoAnyOf !== undefined) (root.properties as Record<string, unknown>).r = { $ref: intoAnyOf };
    if (unevaluated !== undefined) root[unevaluated] = false;
    return root as JsonSchema;
  });

/** A validator's verdict, or "overflow" where a reference cycle that never steps into the instance never ends. */
function verdict(validate: ((value: unknown) => unknown) | undefined, value: unknown): unknown {
  try {
    return validate?.(value);
  } catch (error) {
    if (error instanceof RangeError) return "overflow";
    throw error;
  }
}

describe("the folded schema", () => {
  it("gives every instance the verdict of the schema as written (run-time Ajv on both)", () => {
    let folds = 0;
    let compared = 0;
    fc.assert(
      fc.property(
        rootArbitrary,
        fc.array(instance, { minLength: 1, maxLength: 12 }),
        fc.constantFrom<"annotate" | "assert">("annotate", "assert"),
        (root, instances, formats) => {
          const schema: ResolvedSchema = resolved(deepFreeze(root));
          const index = new SchemaIndex(schema);
          // The stage refuses these before it folds: no verdict of either form would reach a user.
          if (findUnsupportedFeatures(index).length > 0) return;
          let written: ((value: unknown) => unknown) | undefined;
          try {
            written = compilerFor(schema, formats, index).getSchema(schema.baseUri);
          } catch {
            // A reference into an anyOf whose target is not a schema, and the like: Ajv refuses it, and so does the stage.
            return;
          }
          const result = foldNullable(schema, index);
          folds += result.folds.length;
          compared++;
          const foldedValidator = compilerFor(result.schema, formats).getSchema(result.schema.baseUri);
          for (const value of [...instances, { a: null }, { a: instances[0] }, { r: instances[0] }]) {
            // A reference cycle that never steps into the instance has no verdict in the spec; Ajv overflows the
            // stack, or answers where the folded type rejects the value before the cycle is entered.
            if (verdict(written, value) === "overflow") continue;
            expect(verdict(foldedValidator, value), JSON.stringify({ root: result.schema.root, value })).toBe(
              verdict(written, value),
            );
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    // The property must have compared folded schemas, not only ones the fold left alone.
    expect(compared).toBeGreaterThan(RUNS / 2);
    expect(folds).toBeGreaterThan(RUNS / 3);
  });
});
