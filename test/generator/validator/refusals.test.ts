/**
 * The validator stage refuses exactly the schema shapes Ajv validates wrongly.
 *
 * Every refused fixture carries an instance with its correct verdict (checked against the spec by hand, and where
 * the suite covers it, by the suite), and the test proves Ajv compiling the schema at run time gets that instance
 * wrong: a refusal without such evidence would be a needless one. Each near miss is accepted and its generated
 * validator gives the right verdicts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Dialect, JsonSchema } from "../../../generator/schema/shapes.js";
import { createCompiler } from "../../../generator/validator/compiler.js";
import { emitValidators } from "./emit-module.js";
import { ensureRuntimeBuilt, generatedValidator, resolved } from "./load.js";

beforeAll(ensureRuntimeBuilt);

/** A schema written as JSON text, as contracts are (and so keys like `then` stay plain data). */
function json(text: string): JsonSchema {
  return JSON.parse(text) as JsonSchema;
}

interface Refused {
  schema: JsonSchema;
  dialect?: Dialect;
  /** Pointer of the refusal inside the schema (the contract pointer `/outputSchema` is prefixed). */
  at: string;
  /** A word the reason must contain: the keyword or feature. */
  names: string;
  instance: unknown;
  valid: boolean;
}

function ajvAtRunTime(schema: JsonSchema, dialect: Dialect, data: unknown): boolean {
  const ajv = createCompiler(dialect, "annotate");
  return ajv.compile(schema as object)(data) as boolean;
}

const refused: Array<[string, Refused]> = [
  [
    "a property named __proto__",
    {
      schema: JSON.parse('{"properties": {"__proto__": {"type": "number"}}}'),
      at: "/properties/__proto__",
      names: "__proto__",
      instance: JSON.parse('{"__proto__": "not a number"}'),
      valid: false,
    },
  ],
  [
    "unevaluatedItems after items matched by contains",
    {
      schema: { prefixItems: [true], contains: { type: "string" }, unevaluatedItems: false },
      at: "/unevaluatedItems",
      names: "contains",
      instance: [1, 2, "foo"],
      valid: false,
    },
  ],
  [
    "unevaluatedItems after a conditional branch that may not apply",
    {
      schema: { anyOf: [{ prefixItems: [{ type: "number" }] }, true], unevaluatedItems: false },
      at: "/unevaluatedItems",
      names: "conditional",
      instance: ["a"],
      valid: false,
    },
  ],
  [
    "unevaluatedItems after a conditional branch evaluating every item",
    {
      schema: { prefixItems: [true], anyOf: [{ items: { type: "number" } }, true], unevaluatedItems: false },
      at: "/unevaluatedItems",
      names: "conditional",
      instance: [1, 2],
      valid: true,
    },
  ],
  [
    "unevaluatedProperties after an if whose then evaluates nothing",
    {
      schema: json(
        '{"if": {"properties": {"a": {"const": 1}}}, "then": {"minProperties": 1}, "unevaluatedProperties": false}',
      ),
      at: "/unevaluatedProperties",
      names: '"if"',
      instance: { a: 2 },
      valid: false,
    },
  ],
  [
    "unevaluatedProperties after $ref and a conditional anyOf",
    {
      schema: {
        $ref: "#/$defs/a",
        anyOf: [
          { properties: { b0: true }, required: ["b0"] },
          { properties: { b1: true }, required: ["b1"] },
        ],
        unevaluatedProperties: false,
        $defs: { a: { properties: { s: true } } },
      },
      at: "/unevaluatedProperties",
      names: '"$ref"',
      instance: { s: 1, b1: 1 },
      valid: true,
    },
  ],
  [
    "unevaluatedProperties after allOf and a conditional if/then/else",
    {
      schema: json(`{
        "allOf": [{"properties": {"x": true}}],
        "if": {"properties": {"f": {"const": 1}}, "required": ["f"]},
        "then": {"properties": {"t": true}},
        "else": {"properties": {"e": true}},
        "unevaluatedProperties": false
      }`),
      at: "/unevaluatedProperties",
      names: '"allOf"',
      instance: { x: 1, e: 1 },
      valid: true,
    },
  ],
  [
    "unevaluatedProperties after properties and dependentSchemas with another trigger",
    {
      schema: {
        properties: { foo: {}, baz: {} },
        dependentSchemas: { foo: { properties: { bar: {} } } },
        unevaluatedProperties: false,
      },
      at: "/unevaluatedProperties",
      names: "dependentSchemas",
      instance: { baz: 1 },
      valid: true,
    },
  ],
  [
    "unevaluatedProperties after a branch of oneOf that branches itself",
    {
      schema: json(`{
        "oneOf": [{"oneOf": [{"properties": {"c": true}}, {}]}, {"properties": {"a": true}}],
        "unevaluatedProperties": false
      }`),
      at: "/unevaluatedProperties",
      names: "first branch",
      instance: { a: 1, c: 1 },
      valid: false,
    },
  ],
  [
    "unevaluatedProperties after anyOf whose first evaluating branch matches patterns",
    {
      schema: json(`{
        "anyOf": [{"not": {"additionalProperties": true, "required": ["a"]}}, {"patternProperties": {"^c": {"const": 1}}}],
        "unevaluatedProperties": false
      }`),
      at: "/unevaluatedProperties",
      names: "first branch",
      instance: { c: "x" },
      valid: false,
    },
  ],
  [
    "unevaluatedProperties after an if that evaluates every property",
    {
      schema: json(`{
        "if": {"allOf": [{"required": ["b"], "additionalProperties": true}]},
        "then": {"additionalProperties": true},
        "unevaluatedProperties": false
      }`),
      at: "/unevaluatedProperties",
      names: '"if"',
      instance: { a: 2, c: 1 },
      valid: false,
    },
  ],
  [
    "unevaluatedProperties after an if whose then evaluates through an empty properties",
    {
      schema: json(`{
        "oneOf": [{"if": {"required": ["a"], "additionalProperties": true}, "then": {"properties": {}}}],
        "unevaluatedProperties": false
      }`),
      at: "/unevaluatedProperties",
      names: '"if"',
      instance: { b: 2, c: 2 },
      valid: false,
    },
  ],
  [
    "contains beside prefixItems",
    {
      schema: { prefixItems: [{ const: 1 }], contains: { const: 1 } },
      at: "/contains",
      names: "prefixItems",
      instance: [],
      valid: false,
    },
  ],
  [
    "an asserting keyword beside $ref in draft-07",
    {
      schema: { $ref: "#/definitions/a", maxLength: 1, definitions: { a: { type: "string" } } },
      dialect: "draft-07",
      at: "/maxLength",
      names: "draft-07",
      instance: "abc",
      valid: true,
    },
  ],
  [
    "a $dynamicRef whose anchor sits under $defs",
    {
      schema: {
        $id: "https://toolgate.test/list",
        type: "array",
        items: { $dynamicRef: "#item" },
        $defs: { item: { $dynamicAnchor: "item", type: "string" } },
      },
      at: "/items/$dynamicRef",
      names: "$dynamicRef",
      instance: ["a", "b"],
      valid: true,
    },
  ],
  [
    "a $dynamicRef with a JSON pointer fragment",
    {
      schema: { $defs: { no: false }, properties: { p: { $dynamicRef: "#/$defs/no" } } },
      at: "/properties/p/$dynamicRef",
      names: "plain-name",
      instance: { p: 1 },
      valid: false,
    },
  ],
];

describe("refused schemas", () => {
  it.each(refused)("%s: Ajv is wrong, so the stage refuses", (_name, fixture) => {
    const dialect = fixture.dialect ?? "2020-12";
    expect(ajvAtRunTime(fixture.schema, dialect, fixture.instance)).toBe(!fixture.valid);
    const emitted = emitValidators([
      { exportName: "validate", schema: resolved(fixture.schema, { dialect }), formats: "annotate" },
    ]);
    expect("refusals" in emitted).toBe(true);
    if (!("refusals" in emitted)) return;
    expect(emitted.refusals.map((r) => r.pointer)).toContain(`/outputSchema${fixture.at}`);
    expect(emitted.refusals.map((r) => r.reason).join("\n")).toContain(fixture.names);
  });

  it("refuses a keyword from a vocabulary the meta-schema leaves out", () => {
    const meta = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://toolgate.test/meta/no-validation",
      $vocabulary: {
        "https://json-schema.org/draft/2020-12/vocab/core": true,
        "https://json-schema.org/draft/2020-12/vocab/applicator": true,
      },
      $dynamicAnchor: "meta",
    };
    const schema = { $schema: "https://toolgate.test/meta/no-validation", properties: { n: { minimum: 10 } } };
    const emitted = emitValidators([
      {
        exportName: "validate",
        schema: resolved(schema, { documents: { "https://toolgate.test/meta/no-validation": meta } }),
        formats: "annotate",
      },
    ]);
    expect(emitted).toEqual({
      refusals: [
        {
          pointer: "/outputSchema/properties/n/minimum",
          reason: expect.stringContaining("validation vocabulary") as unknown as string,
        },
      ],
    });
  });

  it("refuses what Ajv cannot compile, with Ajv's reason", () => {
    const emitted = emitValidators([{ exportName: "validate", schema: resolved({ enum: [] }), formats: "annotate" }]);
    expect(emitted).toEqual({
      refusals: [
        { pointer: "/outputSchema", reason: "Ajv cannot compile this schema: enum must have non-empty array" },
      ],
    });
  });

  it("refuses a defined format it cannot assert only when formats are asserted", async () => {
    const schema = resolved({ type: "string", format: "idn-hostname" });
    const asserted = emitValidators([{ exportName: "validate", schema, formats: "assert" }]);
    expect(asserted).toEqual({
      refusals: [
        { pointer: "/outputSchema/format", reason: expect.stringContaining("idn-hostname") as unknown as string },
      ],
    });
    const annotated = await generatedValidator(schema, "annotate");
    expect(annotated("not a host name at all")).toBe(true);
  });

  it("keeps a format JSON Schema does not define as an annotation, even when formats are asserted", async () => {
    const validate = await generatedValidator(resolved({ type: "string", format: "x-order-id" }), "assert");
    expect(validate("anything")).toBe(true);
    expect(validate(1)).toBe(false);
  });

  it("refuses patternProperties beside a branching anyOf when evaluation is recorded: Ajv's code throws", () => {
    const schema = json(`{
      "patternProperties": {"^b": {"type": "integer"}},
      "anyOf": [{"properties": {"x": {"const": 1}}, "required": ["x"]}, {}],
      "unevaluatedProperties": {"type": "integer"}
    }`);
    const validate = createCompiler("2020-12", "annotate").compile(schema as object);
    expect(() => validate({ a: 2, b: 1 })).toThrow(TypeError);
    const emitted = emitValidators([{ exportName: "validate", schema: resolved(schema), formats: "annotate" }]);
    expect("refusals" in emitted && emitted.refusals.map((r) => r.pointer)).toContain(
      "/outputSchema/patternProperties",
    );
  });

  it("accepts the same patternProperties beside anyOf when no unevaluated keyword needs the record", async () => {
    const validate = await generatedValidator(
      resolved(
        json(`{
          "patternProperties": {"^b": {"type": "integer"}},
          "anyOf": [{"properties": {"x": {"const": 1}}, "required": ["x"]}, {}]
        }`),
      ),
    );
    expect(validate({ a: 2, b: 1 })).toBe(true);
    expect(validate({ a: 2, b: "x" })).toBe(false);
  });

  it("names the document when the feature sits in a referenced one", () => {
    const other = '{"$id": "https://toolgate.test/other.json", "properties": {"__proto__": {"type": "number"}}}';
    const documents = { "https://toolgate.test/other.json": JSON.parse(other) as JsonSchema };
    const emitted = emitValidators([
      { exportName: "validate", schema: resolved({ $ref: "other.json" }, { documents }), formats: "annotate" },
    ]);
    expect(emitted).toEqual({
      refusals: [
        {
          pointer: "/outputSchema",
          reason: expect.stringMatching(
            /^in https:\/\/toolgate\.test\/other\.json#\/properties\/__proto__: /,
          ) as unknown as string,
        },
      ],
    });
  });
});

interface Accepted {
  schema: JsonSchema;
  cases: Array<[unknown, boolean]>;
}

const accepted: Array<[string, Accepted]> = [
  [
    "unevaluatedItems after conditionals with an adjacent prefixItems count",
    {
      schema: {
        prefixItems: [{ const: "foo" }],
        anyOf: [{ prefixItems: [true, { const: "bar" }] }, { prefixItems: [true, true, { const: "baz" }] }],
        unevaluatedItems: false,
      },
      cases: [
        [["foo", "bar"], true],
        [["foo", "bar", "x"], false],
        [["foo", 1, "baz"], true],
      ],
    },
  ],
  [
    "unevaluatedProperties after if/then/else with nothing evaluated before",
    {
      schema: json(`{
        "if": {"properties": {"foo": {"const": "then"}}, "required": ["foo"]},
        "then": {"properties": {"bar": {"type": "string"}}, "required": ["bar"]},
        "else": {"properties": {"baz": {"type": "string"}}, "required": ["baz"]},
        "unevaluatedProperties": false
      }`),
      cases: [
        [{ foo: "then", bar: "x" }, true],
        [{ foo: "else", baz: "x" }, false],
        [{ baz: "x" }, true],
      ],
    },
  ],
  [
    "unevaluatedProperties after properties naming only the dependentSchemas trigger",
    {
      schema: {
        properties: { foo: { type: "string" } },
        dependentSchemas: { foo: { properties: { bar: { const: "bar" } }, required: ["bar"] } },
        unevaluatedProperties: false,
      },
      cases: [
        [{ foo: "x", bar: "bar" }, true],
        [{ bar: "bar" }, false],
        [{ foo: "x", bar: "bar", baz: 1 }, false],
      ],
    },
  ],
  [
    "unevaluatedProperties after allOf and a conditional anyOf",
    {
      schema: {
        allOf: [{ properties: { x: true } }],
        anyOf: [
          { properties: { a: true }, required: ["a"] },
          { properties: { b: true }, required: ["b"] },
        ],
        unevaluatedProperties: false,
      },
      cases: [
        [{ x: 1, b: 1 }, true],
        [{ x: 1, a: 1, z: 1 }, false],
      ],
    },
  ],
  [
    "an extensible recursive schema: $dynamicRef to its own document root",
    {
      schema: {
        $id: "https://toolgate.test/tree",
        $dynamicAnchor: "node",
        type: "object",
        properties: { children: { type: "array", items: { $dynamicRef: "#node" } } },
      },
      cases: [
        [{ children: [{ children: [] }] }, true],
        [{ children: [1] }, false],
      ],
    },
  ],
];

describe("near misses the stage accepts", () => {
  it("a draft-07 $ref with annotations beside it", async () => {
    const schema = { $ref: "#/definitions/a", description: "an id", definitions: { a: { type: "string" } } };
    const validate = await generatedValidator(resolved(schema, { dialect: "draft-07" }));
    expect(validate("abc")).toBe(true);
    expect(validate(1)).toBe(false);
  });

  it.each(accepted)("%s", async (_name, fixture) => {
    const validate = await generatedValidator(resolved(fixture.schema));
    for (const [instance, valid] of fixture.cases) expect([instance, validate(instance)]).toEqual([instance, valid]);
  });
});
