/**
 * The module `emitValidators` writes: real ESM on `@toolgate/runtime`, deterministic, machine-independent, and
 * validating as JSON Schema says (including where Ajv's defaults do not).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema, ResolvedSchema } from "../../../generator/schema/shapes.js";
import { assertNoRequire } from "../../../generator/validator/esm-module.js";
import type { ValidatorRequest } from "../../../generator/validator/index.js";
import { emitValidators } from "./emit-module.js";
import { ensureRuntimeBuilt, generatedValidator, importModule, resolved } from "./load.js";

beforeAll(ensureRuntimeBuilt);

function emitCode(requests: ValidatorRequest[]): string {
  const emitted = emitValidators(requests);
  if ("refusals" in emitted) throw new Error(JSON.stringify(emitted.refusals));
  return emitted.code;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe("the emitted module", () => {
  const helpers = resolved({
    type: "object",
    properties: {
      tags: { type: "array", uniqueItems: true },
      name: { type: "string", maxLength: 3 },
      at: { type: "string", format: "date-time" },
    },
  });

  it("imports its helpers from the light entries of @toolgate/runtime only and never calls require", () => {
    const code = emitCode([{ exportName: "validateResult", schema: helpers, formats: "assert" }]);
    const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports).toEqual(["@toolgate/runtime/formats", "@toolgate/runtime/validators"]);
    expect(
      code.startsWith(
        'import { formatValidators } from "@toolgate/runtime/formats";\nimport { codePointLength, firstDuplicate } from "@toolgate/runtime/validators";\n',
      ),
    ).toBe(true);
    expect(() => assertNoRequire(code)).not.toThrow();
    expect(code).not.toMatch(/\beval\b|new Function/);
  });

  it("validates with the runtime helpers it imports", async () => {
    const validate = await generatedValidator(helpers, "assert");
    expect(validate({ tags: ["a", "b"], name: "abc", at: "2024-01-01T00:00:00Z" })).toBe(true);
    expect(validate({ tags: [{ a: [1] }, { a: [1] }] })).toBe(false);
    // Three code points, five UTF-16 code units.
    expect(validate({ name: "a😀😀" })).toBe(true);
    expect(validate({ name: "abcd" })).toBe(false);
    expect(validate({ at: "yesterday" })).toBe(false);
    expect(validate.errors).toEqual([
      expect.objectContaining({ instancePath: "/at", keyword: "format", schemaPath: "#/properties/at/format" }),
    ]);
  });

  it("keeps format an annotation unless formats are asserted", async () => {
    const validate = await generatedValidator(helpers, "annotate");
    expect(validate({ at: "yesterday" })).toBe(true);
  });

  it("holds validators of different dialects side by side", async () => {
    const input = resolved(
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "array",
        items: [{ type: "string" }],
        additionalItems: false,
      },
      { dialect: "draft-07", pointer: "/inputSchema", baseUri: "https://toolgate.test/input.json" },
    );
    const output = resolved({ type: "array", prefixItems: [{ type: "string" }], items: false });
    const code = emitCode([
      { exportName: "validateResult", schema: output, formats: "annotate" },
      { exportName: "validateInput", schema: input, formats: "annotate" },
    ]);
    const module = await importModule(code);
    expect(Object.keys(module).sort()).toEqual(["validateInput", "validateResult"]);
    for (const validate of [module.validateInput, module.validateResult]) {
      expect(validate?.(["a"])).toBe(true);
      expect(validate?.(["a", "b"])).toBe(false);
      expect(validate?.([1])).toBe(false);
    }
  });

  it("accepts boolean schemas", async () => {
    expect((await generatedValidator(resolved(false)))({})).toBe(false);
    expect((await generatedValidator(resolved(true)))({})).toBe(true);
  });
});

describe("determinism", () => {
  const defs: JsonSchema = { $defs: { id: { type: "string", pattern: "^[a-z]+$" } } };

  function fileSchema(prefix: string, order: "sorted" | "reversed"): ResolvedSchema {
    const documents: Record<string, JsonSchema> = {
      [`file://${prefix}/shared/ids.json`]: defs,
      [`file://${prefix}/shared/zzz.json`]: { type: "integer" },
    };
    const keys = Object.keys(documents).sort();
    if (order === "reversed") keys.reverse();
    return resolved(
      {
        type: "object",
        properties: { id: { $ref: "../shared/ids.json#/$defs/id" }, n: { $ref: "../shared/zzz.json" } },
      },
      {
        baseUri: `file://${prefix}/schemas/get_record.tool.json?outputSchema`,
        documents: Object.fromEntries(keys.map((k) => [k, documents[k] as JsonSchema])),
      },
    );
  }

  it("gives the same bytes for the same input, without mutating it", () => {
    const schema = deepFreeze(fileSchema("/home/someone/project", "sorted"));
    const first = emitCode([{ exportName: "validateResult", schema, formats: "annotate" }]);
    const second = emitCode([{ exportName: "validateResult", schema, formats: "annotate" }]);
    expect(second).toBe(first);
  });

  it("does not depend on the machine's folders or on the order documents are listed in", () => {
    const here = emitCode([
      { exportName: "validateResult", schema: fileSchema("/home/someone/project", "sorted"), formats: "annotate" },
    ]);
    const there = emitCode([
      { exportName: "validateResult", schema: fileSchema("/srv/ci/checkout", "reversed"), formats: "annotate" },
    ]);
    expect(there).toBe(here);
    expect(here).not.toContain("/home/someone");
  });

  it("resolves references between local files", async () => {
    const validate = await generatedValidator(fileSchema("/home/someone/project", "sorted"));
    expect(validate({ id: "abc", n: 3 })).toBe(true);
    expect(validate({ id: "ABC" })).toBe(false);
    expect(validate({ n: 1.5 })).toBe(false);
  });
});

describe("JSON Schema semantics beyond Ajv's defaults", () => {
  it.each([
    ["0.07 is a multiple of 0.01", 0.01, 0.07, true],
    ["0.075 is not a multiple of 0.01", 0.01, 0.075, false],
    ["19.99 is a multiple of 0.01", 0.01, 19.99, true],
    ["123456.78 is a multiple of 0.01", 0.01, 123456.78, true],
    ["4.5 is a multiple of 1.5", 1.5, 4.5, true],
    ["35 is not a multiple of 1.5", 1.5, 35, false],
    ["0.00751 is not a multiple of 0.0001", 0.0001, 0.00751, false],
    ["1e308 is not a multiple of 0.123456789 (the quotient overflows)", 0.123456789, 1e308, false],
    ["1e308 is a multiple of 0.5 (the quotient overflows)", 0.5, 1e308, true],
    ["1000000000000000.5 is not a multiple of 1", 1, 1000000000000000.5, false],
    ["12391239123 is a multiple of 1e-8", 1e-8, 12391239123, true],
  ])("multipleOf: %s", async (_name, divisor, value, valid) => {
    const validate = await generatedValidator(resolved({ multipleOf: divisor }));
    expect(validate(value)).toBe(valid);
  });

  it.each([
    [
      "two __proto__ strings are duplicates",
      { items: { type: "string" }, uniqueItems: true },
      ["__proto__", "__proto__"],
      false,
    ],
    [
      "duplicates among prefixItems are duplicates",
      { prefixItems: [true, true], items: { type: "integer" }, uniqueItems: true },
      ["x", "x"],
      false,
    ],
    ["1 and 1.0 are duplicates", { uniqueItems: true }, [1, 1.0], false],
    ['1 and "1" are not', { uniqueItems: true }, [1, "1"], true],
    [
      "objects equal in another key order are duplicates",
      { uniqueItems: true },
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      false,
    ],
    ["an object and a scalar are not", { uniqueItems: true }, [{ a: 1 }, 1, [1], "a"], true],
    [
      "distinct arrays are not",
      { uniqueItems: true },
      [
        [1, 2],
        [2, 1],
      ],
      true,
    ],
    ["false with duplicates is fine", { uniqueItems: false }, [1, 1], true],
  ])("uniqueItems: %s", async (_name, schema, instance, valid) => {
    const validate = await generatedValidator(resolved(schema as JsonSchema));
    expect(validate(instance)).toBe(valid);
  });

  it("keeps a __proto__ key in const and enum values an own property, as JSON.parse makes it", async () => {
    const schema = JSON.parse(
      '{"const": {"__proto__": {"a": 1}}, "enum": [{"__proto__": 2}, {"__proto__": {"a": 1}}]}',
    );
    const validate = await generatedValidator(resolved(schema as JsonSchema));
    expect(validate(JSON.parse('{"__proto__": {"a": 1}}'))).toBe(true);
    expect(validate({})).toBe(false);
    expect(validate({ a: 1 })).toBe(false);
  });

  it("looks up property names as own properties only", async () => {
    const validate = await generatedValidator(
      resolved({ required: ["toString"], properties: { constructor: { type: "number" } } }),
    );
    expect(validate({})).toBe(false);
    expect(validate({ toString: 1 })).toBe(true);
    expect(validate({ toString: 1, constructor: "x" })).toBe(false);
  });
});

describe("hostile schemas", () => {
  it("keeps schema text inert: quotes, comment ends, line separators and require( in strings", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: hostile schema text, on purpose
    const text = 'require("ajv/dist/runtime/equal") */ \u2028 \u2029 ${x} `';
    const validate = await generatedValidator(
      resolved({
        description: text,
        type: "object",
        properties: { [text]: { const: text }, p: { type: "string", pattern: "^require\\(" } },
      }),
    );
    expect(validate({ [text]: text, p: "require(x)" })).toBe(true);
    expect(validate({ [text]: "other" })).toBe(false);
    expect(validate({ p: "nope" })).toBe(false);
  });

  it("detects a require() call that would survive, not one inside a string", () => {
    expect(() => assertNoRequire('const a = "require(\\"x\\")";')).not.toThrow();
    expect(() => assertNoRequire('const a = 1;\nconst b = require("x");')).toThrow(/line 2/);
  });

  it.each([["default"], ["1x"], ["a-b"], ["jsonEqual"], [""]])("rejects the export name %j", (name) => {
    expect(() => emitValidators([{ exportName: name, schema: resolved({}), formats: "annotate" }])).toThrow(TypeError);
  });

  it("rejects two validators with one name", () => {
    const request: ValidatorRequest = { exportName: "validateResult", schema: resolved({}), formats: "annotate" };
    expect(() => emitValidators([request, request])).toThrow(TypeError);
  });
});
