/**
 * The validator stage's output with nested parts (`generator/validator/split.ts`) against the same stage's code with
 * nothing split: both standalone, so the split is the only difference. Errors are compared exactly: the same keys in
 * the same order, no key the other lacks, undefined ones too. The schemas are the shapes the MCP tool corpus lacks:
 * `unevaluatedProperties` and `unevaluatedItems` above and inside parts, `allOf`, tuples in 2020-12, 2019-09 and
 * draft-07 (`items` arrays, `additionalItems`), recursion through the root, `patternProperties` and
 * `additionalProperties`, property names that need escaping, asserted formats.
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Dialect, JsonSchema, ResolvedSchema, SchemaObject } from "../../../generator/schema/shapes.js";
import { compilerFor, type FormatMode } from "../../../generator/validator/compiler.js";
import { assembleModule } from "../../../generator/validator/index.js";
import { foldNullable } from "../../../generator/validator/nullable-fold.js";
import { SchemaIndex } from "../../../generator/validator/schema-index.js";
import { stableUris } from "../../../generator/validator/stable-uris.js";
import { mutatedValue, valueArbitrary } from "../../hardening/payloads.js";
import { emitValidators } from "./emit-module.js";
import { ensureRuntimeBuilt, type GeneratedValidator, importModule, resolved } from "./load.js";

beforeAll(ensureRuntimeBuilt);

/** An object schema past the size worth a part: twelve bounded strings, then `more`, then other keywords. */
function wide(more: Record<string, JsonSchema> = {}, extra: SchemaObject = {}): SchemaObject {
  const properties: Record<string, JsonSchema> = {};
  for (let i = 0; i < 12; i++) properties[`field${i}`] = { type: "string", maxLength: 8 };
  return { type: "object", properties: { ...properties, ...more }, ...extra };
}

interface Shape {
  name: string;
  dialect: Dialect;
  formats: FormatMode;
  root: () => JsonSchema;
  /** Instances to start from; their mutations and values generated from the schema are checked too. */
  seeds: unknown[];
  /** False for a shape where nothing may be cut (below a `$ref` target): its errors are still compared. */
  cut?: false;
}

const SHAPES: Shape[] = [
  {
    name: "unevaluatedProperties above parts cut inside allOf, and inside a part",
    dialect: "2020-12",
    formats: "annotate",
    root: () => ({
      type: "object",
      allOf: [{ properties: { a: wide({ b: wide() }) } }, { required: ["a"] }],
      properties: {
        z: wide({}, { allOf: [{ properties: { extra: { type: "number" } } }], unevaluatedProperties: false }),
      },
      unevaluatedProperties: false,
    }),
    seeds: [{ a: {}, z: {} }, { a: { b: { field0: 1 } } }, { a: {}, q: 1 }, { a: {}, z: { extra: 1, other: 2 } }, {}],
  },
  {
    name: "unevaluatedItems after prefixItems parts",
    dialect: "2020-12",
    formats: "annotate",
    root: () => ({ type: "array", prefixItems: [wide(), wide({ inner: wide() })], unevaluatedItems: false }),
    seeds: [[{}, {}], [{}, { inner: { field3: 2 } }], [{}, {}, 3], [{ field0: "x".repeat(9) }]],
  },
  {
    name: "2019-09 items array, additionalItems and unevaluatedItems",
    dialect: "2019-09",
    formats: "annotate",
    root: () => ({
      type: "array",
      items: [wide(), wide({ x: wide() })],
      additionalItems: wide({}, { required: ["field0"] }),
      unevaluatedItems: false,
    }),
    seeds: [[{}], [{}, { x: { field1: 1 } }], [{}, {}, {}], [{}, {}, { field0: "a" }]],
  },
  {
    name: "draft-07 items array and additionalItems",
    dialect: "draft-07",
    formats: "annotate",
    root: () => ({
      type: "array",
      items: [wide(), wide({ x: wide() })],
      additionalItems: wide({}, { minProperties: 1 }),
    }),
    seeds: [[{ field0: 1 }], [{}, { x: { field3: 2 } }], [{}, {}, {}], [{}, {}, { field5: "b" }]],
  },
  {
    name: "recursion through the root from inside parts",
    dialect: "2020-12",
    formats: "annotate",
    root: () => wide({ kids: { type: "array", items: wide({ self: { $ref: "#" } }, { required: ["field1"] }) } }),
    seeds: [{ kids: [{ field1: "a", self: { kids: [{ field2: 1 }] } }] }, { kids: [{ self: {} }] }, { kids: [{}] }],
  },
  {
    name: "patternProperties and additionalProperties parts, escaped property names",
    dialect: "2020-12",
    formats: "annotate",
    root: () => ({
      type: "object",
      properties: { "a/b~c d": wide(), "%25é": wide(), "0": wide() },
      patternProperties: { "^p-": wide({ n: wide() }) },
      additionalProperties: wide({}, { maxProperties: 2 }),
    }),
    seeds: [
      { "a/b~c d": { field0: 1 }, "%25é": { field1: 2 }, "0": { field2: 3 } },
      { "p-1": { n: { field4: 4 } }, other: { field0: "a", field1: "b", field2: "c" } },
      { other: {}, "p-x": {} },
    ],
  },
  {
    name: "asserted formats and required properties inside parts",
    dialect: "2020-12",
    formats: "assert",
    root: () => ({
      type: "object",
      properties: {
        owner: wide(
          { email: { type: "string", format: "email" }, site: wide({ url: { type: "string", format: "uri" } }) },
          { required: ["email"], dependentRequired: { site: ["field0"] } },
        ),
      },
    }),
    seeds: [
      { owner: { email: "a@b.c" } },
      { owner: { email: "no" } },
      { owner: { email: "a@b.c", site: { url: "::" } } },
    ],
  },
  {
    // Ajv inlines a small target and reports its errors under the reference; cut, the target would be a function of
    // its own reporting from `#`. So nothing at or below a `$ref` target is cut.
    name: "a $ref to an object with a large nested object (the target inlined when compiled whole)",
    dialect: "2020-12",
    formats: "annotate",
    root: () => ({
      type: "object",
      properties: { a: wide({ b: wide() }, { required: ["need"] }), c: { $ref: "#/properties/a" } },
    }),
    seeds: [{ c: {} }, { c: { need: 1, b: { field0: 5 } } }, { a: { b: { field1: 2 } } }],
    cut: false,
  },
  {
    name: "a $ref to an object with a large nested object (the target a function of its own when compiled whole)",
    dialect: "2020-12",
    formats: "annotate",
    root: () => ({
      type: "object",
      $defs: { s: { type: "string" } },
      properties: { a: wide({ b: wide(), s: { $ref: "#/$defs/s" } }), c: { $ref: "#/properties/a" } },
    }),
    seeds: [{ c: { b: { field0: 5 } } }, { c: {} }, { c: { s: 1 } }],
    cut: false,
  },
];

/** A fresh resolved schema for a shape: the stage caches what it compiled by schema object. */
function schemaOf(shape: Shape): ResolvedSchema {
  return resolved(shape.root(), { dialect: shape.dialect });
}

/** The stage's preparation and compilation, with nothing split: the validator the split must match. */
async function unsplitValidator(schema: ResolvedSchema, formats: FormatMode): Promise<GeneratedValidator> {
  const stable = stableUris(schema);
  const folded = foldNullable(stable, new SchemaIndex(stable)).schema;
  const code = standaloneModule.default(compilerFor(folded, formats), { v: folded.baseUri });
  return (await importModule(assembleModule([{ exportName: "v", code }]))).v as GeneratedValidator;
}

/** The stage's own module code for a schema, and how many validate functions it defines. */
function stageCode(shape: Shape): { code: string; functions: number } {
  const emitted = emitValidators([{ exportName: "v", schema: schemaOf(shape), formats: shape.formats }]);
  if (!("code" in emitted)) throw new Error(`refused: ${JSON.stringify(emitted.refusals)}`);
  return { code: emitted.code, functions: emitted.code.match(/^function validate\d+\(/gm)?.length ?? 0 };
}

/** The verdict and errors of a validator as JSON text (key order kept) and as values, or what it threw. */
function outcome(validate: GeneratedValidator, value: unknown): { text: string; value: unknown } {
  try {
    const result = { valid: validate(value), errors: validate.errors };
    return { text: JSON.stringify(result), value: result };
  } catch (error) {
    return { text: `threw ${(error as Error).name}`, value: undefined };
  }
}

describe.each(SHAPES)("$name", (shape) => {
  it("is cut into parts where it may be, and its code is the same on every compilation", () => {
    const first = stageCode(shape);
    if (shape.cut !== false) expect(first.functions).toBeGreaterThan(1);
    expect(stageCode(shape).code).toBe(first.code);
  });

  it("gives every seed, generated and mutated value exactly the errors of the stage's code with nothing split", async () => {
    const schema = schemaOf(shape);
    const whole = await unsplitValidator(schema, shape.formats);
    const split = (await importModule(stageCode(shape).code)).v as GeneratedValidator;
    const values = fc.oneof(
      fc.constantFrom(...shape.seeds),
      valueArbitrary(schema.root),
      fc.constantFrom(...shape.seeds).chain((seed) => mutatedValue(seed, shape.seeds).map(({ value }) => value)),
    );
    let invalid = 0;
    fc.assert(
      fc.property(values, (value) => {
        const expected = outcome(whole, value);
        const actual = outcome(split, value);
        expect(actual.text).toBe(expected.text);
        expect(actual.value).toStrictEqual(expected.value);
        if (expected.text.startsWith('{"valid":false')) invalid++;
      }),
      { numRuns: 300, seed: SHAPES.indexOf(shape) },
    );
    for (const seed of shape.seeds) expect(outcome(split, seed).text).toBe(outcome(whole, seed).text);
    expect(invalid).toBeGreaterThan(30);
  });
});
