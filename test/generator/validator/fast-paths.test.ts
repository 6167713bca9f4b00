/**
 * The generated validators' fast paths (`generator/validator/fast-paths.ts`) against Ajv compiling the same schema in
 * process with toolgate's options (`ownProperties` on, nothing rewritten): the same verdict and exactly the same
 * errors for every value, with property names `Object.prototype` holds, names it does not, and failures deep inside
 * array items checked by functions of their own.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Dialect, JsonSchema, SchemaObject } from "../../../generator/schema/shapes.js";
import { createCompiler } from "../../../generator/validator/compiler.js";
import { PROTOTYPE_NAMES, withFastPaths } from "../../../generator/validator/fast-paths.js";
import { emitValidators } from "./emit-module.js";
import { ensureRuntimeBuilt, type GeneratedValidator, importModule, resolved } from "./load.js";

beforeAll(ensureRuntimeBuilt);

/**
 * Property names of both kinds: on `Object.prototype`, and not. A schema may not name `__proto__` (the stage refuses
 * it: Ajv ignores it), so it comes only in instances, where `additionalProperties` meets it.
 */
const NAMES = ["constructor", "toString", "hasOwnProperty", "valueOf", "name", "id", "0", "a b"];
const INSTANCE_NAMES = [...NAMES, "__proto__"];

/** An object schema past the size worth a part of its own, with every name of {@link NAMES}. */
function record(required: string[], inner?: JsonSchema): SchemaObject {
  const properties: Record<string, JsonSchema> = {};
  for (const name of NAMES) {
    Object.defineProperty(properties, name, {
      value: { type: "string", maxLength: 8 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (inner !== undefined) properties.inner = inner;
  return { type: "object", properties, required, additionalProperties: false };
}

/** Items in items: failures two part calls deep, under array indices. */
function nested(): JsonSchema {
  return {
    type: "object",
    properties: {
      list: { type: "array", items: record(["name", "constructor"], { type: "array", items: record(["id"]) }) },
      top: record(["toString"]),
    },
    required: ["list"],
  };
}

const DIALECTS: Dialect[] = ["2020-12", "2019-09", "draft-07"];

interface Pair {
  generated: GeneratedValidator;
  reference: GeneratedValidator;
}

async function pair(root: JsonSchema, dialect: Dialect): Promise<Pair> {
  const schema = resolved(root, { dialect });
  const emitted = emitValidators([{ exportName: "validate", schema, formats: "annotate" }]);
  if ("refusals" in emitted) throw new Error(`refused: ${JSON.stringify(emitted.refusals)}`);
  const module = await importModule(emitted.code);
  const reference = createCompiler(dialect, "annotate").compile(root as object) as unknown as GeneratedValidator;
  return { generated: module.validate as GeneratedValidator, reference };
}

function outcome(validate: GeneratedValidator, value: unknown) {
  const valid = validate(value);
  return { valid, errors: JSON.stringify(validate.errors ?? null) };
}

/** A JSON value of the nested shape, as text parsed the way the gate parses it (`__proto__` an own key). */
const recordText = (extra: fc.Arbitrary<string | undefined>) =>
  fc
    .tuple(
      fc.subarray(INSTANCE_NAMES),
      fc.oneof(fc.constant('"ok"'), fc.constant('"far too long"'), fc.constant("1"), fc.constant("null")),
      extra,
    )
    .map(([names, value, more]) => {
      const members = names.map((name) => `${JSON.stringify(name)}:${value}`);
      if (more !== undefined) members.push(more);
      return `{${members.join(",")}}`;
    });

const innerText = fc.array(recordText(fc.constant(undefined)), { maxLength: 3 }).map((items) => `[${items.join(",")}]`);
const listText = fc
  .array(
    recordText(
      fc.option(
        innerText.map((text) => `"inner":${text}`),
        { nil: undefined },
      ),
    ),
    { maxLength: 4 },
  )
  .map((items) => `[${items.join(",")}]`);
const instanceText = fc
  .tuple(fc.option(listText, { nil: undefined }), fc.option(recordText(fc.constant(undefined)), { nil: undefined }))
  .map(([list, top]) => {
    const members: string[] = [];
    if (list !== undefined) members.push(`"list":${list}`);
    if (top !== undefined) members.push(`"top":${top}`);
    return `{${members.join(",")}}`;
  });

describe("fast paths keep Ajv's verdicts and errors", () => {
  for (const dialect of DIALECTS) {
    it(`on parsed values with prototype and ordinary property names, failures deep in items (${dialect})`, async () => {
      const { generated, reference } = await pair(nested(), dialect);
      fc.assert(
        fc.property(instanceText, (text) => {
          const value = JSON.parse(text);
          expect(outcome(generated, value)).toEqual(outcome(reference, value));
        }),
        { numRuns: 400 },
      );
    });
  }

  it("reports a failure two part calls deep under the full instance path", async () => {
    const { generated, reference } = await pair(nested(), "2020-12");
    const ok = { name: "n", constructor: "c" };
    const value = JSON.parse(
      JSON.stringify({ list: [ok, { ...ok, inner: [{ id: "1" }, { id: "2", name: "far too long" }] }] }),
    );
    expect(generated(value)).toBe(false);
    expect(generated.errors).toEqual([
      {
        instancePath: "/list/1/inner/1/name",
        schemaPath: "#/properties/list/items/properties/inner/items/properties/name/maxLength",
        keyword: "maxLength",
        params: { limit: 8 },
      },
    ]);
    expect(outcome(generated, value)).toEqual(outcome(reference, value));
  });

  it("still reports under an instance path a caller passes, as Ajv's validate functions do", async () => {
    const { generated, reference } = await pair(nested(), "2020-12");
    const value = JSON.parse('{"list":[{"name":"n","constructor":"c","inner":[{"id":7}]}]}');
    const call = (validate: GeneratedValidator) => {
      const valid = (validate as (data: unknown, context: { instancePath: string }) => boolean)(value, {
        instancePath: "/result",
      });
      return { valid, errors: validate.errors };
    };
    expect(call(generated)).toEqual(call(reference));
    expect(call(generated).errors).toMatchObject([{ instancePath: "/result/list/0/inner/0/id" }]);
  });

  it("passes an ordinary result whole, with no errors (positive control)", async () => {
    const { generated } = await pair(nested(), "2020-12");
    const parsed = JSON.parse(
      '{"list":[{"name":"n","constructor":"c","inner":[{"id":"1","toString":"t","a b":"x"}]}],' +
        '"top":{"toString":"t","valueOf":"v"}}',
    );
    expect(generated(parsed)).toBe(true);
    expect(generated.errors).toBeNull();
    // Nor is the object changed: a validator only reads.
    expect(parsed.top).toEqual({ toString: "t", valueOf: "v" });
  });

  it("does not find a required name that Object.prototype holds on the prototype", async () => {
    const { generated } = await pair({ type: "object", required: ["constructor", "name"] }, "2020-12");
    expect(generated(JSON.parse('{"name":"x"}'))).toBe(false);
    expect(generated.errors).toEqual([
      { instancePath: "", schemaPath: "#/required", keyword: "required", params: { missingProperty: "constructor" } },
    ]);
    expect(generated(JSON.parse('{"name":"x","constructor":1}'))).toBe(true);
  });

  /** Nine declared names: past eight, Ajv looks a key up in the schema's `properties` instead of comparing it. */
  const NINE = Object.fromEntries([..."abcdefghi"].map((name) => [name, { type: "string" }]));

  it.each([
    ["names compared", { a: { type: "string" } }, {}],
    ["names looked up", NINE, {}],
    ["names and patterns", { a: { type: "string" } }, { "^x": { type: "number" }, "^add": { type: "number" } }],
  ])("skips a key an object only inherits, as Ajv's own-key loop does (%s)", async (_label, properties, patterns) => {
    const { generated, reference } = await pair(
      { type: "object", properties, patternProperties: patterns, additionalProperties: false },
      "2020-12",
    );
    const value = JSON.parse('{"a":"x"}');
    const prototype = Object.prototype as Record<string, unknown>;
    // Inherited keys that no name or pattern matches, and one a pattern matches with a value it refuses.
    prototype.added = "not a number";
    prototype.xtra = "not a number";
    try {
      expect(outcome(generated, value)).toEqual(outcome(reference, value));
      expect(generated(value)).toBe(true);
    } finally {
      delete prototype.added;
      delete prototype.xtra;
    }
    expect(outcome(generated, JSON.parse('{"a":"x","zzz":1}'))).toEqual(
      outcome(reference, JSON.parse('{"a":"x","zzz":1}')),
    );
    expect(generated(JSON.parse('{"a":"x","zzz":1}'))).toBe(false);
  });

  it("counts code points as Ajv does wherever a string's length alone does not decide", async () => {
    const limits: Array<{ minLength?: number; maxLength?: number }> = [
      { maxLength: 0 },
      { maxLength: 1 },
      { maxLength: 2 },
      { maxLength: 3 },
      { minLength: 0 },
      { minLength: 1 },
      { minLength: 2 },
      { minLength: 3 },
      { minLength: 2, maxLength: 3 },
    ];
    const properties = Object.fromEntries(limits.map((limit, i) => [`s${i}`, { type: "string", ...limit }]));
    // Each property checked apart, so that every limit meets every string (the first error ends a validation).
    const pairs = await Promise.all(
      Object.entries(properties).map(([name, schema]) =>
        pair({ type: "object", properties: { [name]: schema } }, "2020-12"),
      ),
    );
    // One or two UTF-16 units per code point, and lone surrogates, which count one each.
    const text = fc
      .array(fc.constantFrom("a", "é", "\u{1F600}", "\uD800", "\uDC00", "\u{10FFFF}"), { maxLength: 8 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (string) => {
        for (const [i, { generated, reference }] of pairs.entries()) {
          const value = { [`s${i}`]: string };
          expect(outcome(generated, value)).toEqual(outcome(reference, value));
        }
      }),
      { numRuns: 500 },
    );
    // Positive control: a string within each limit passes it, among them strings of more UTF-16 units than
    // `maxLength` whose code points are within it.
    const within = [
      "",
      "\u{1F600}",
      "\u{1F600}\u{1F600}",
      "a\u{1F600}b",
      "",
      "\u{1F600}",
      "\u{1F600}a",
      "abc",
      "\u{1F600}".repeat(3),
    ];
    for (const [i, { generated }] of pairs.entries()) {
      expect(generated({ [`s${i}`]: within[i] }), `s${i}`).toBe(true);
      expect(generated.errors).toBeNull();
    }
  });
});

describe("the rewritten code", () => {
  const code = (root: JsonSchema) => {
    const emitted = emitValidators([
      { exportName: "validate", schema: resolved(root, { dialect: "2020-12" }), formats: "annotate" },
    ]);
    if ("refusals" in emitted) throw new Error("refused");
    return emitted.code;
  };

  it("checks own properties only for names Object.prototype holds", () => {
    const text = code({ type: "object", properties: { name: { type: "string" }, toString: { type: "string" } } });
    expect(text).not.toMatch(/\.call\(data, "name"\)/);
    expect(text).toMatch(/\.call\(data, "toString"\)/);
  });

  it("walks keys with for…in and builds no instance path for a call that passes", () => {
    const text = code(nested());
    expect(text).not.toContain("Object.keys(");
    expect(text).toMatch(/for\(const key\d+ in data\d*\)/);
    expect(text).not.toContain("{instancePath:");
    // Nor does any function build its context's defaults: it reads the instance path alone.
    expect(text).not.toContain('{instancePath=""');
    expect(text).toMatch(/\|\| atPath\(validate\d+, instancePath\+"\/list\/" \+ i\d+\)/);
  });

  it("checks a key is own only where the loop would act on it, and counts code points only past what length decides", () => {
    const text = code({
      type: "object",
      properties: { a: { type: "string", minLength: 2, maxLength: 5 } },
      additionalProperties: false,
    });
    expect(text).not.toContain("continue;");
    expect(text).toMatch(/if\(\(!\(key(\d+) === "a"\)\) && func\d+\.call\(data, key\1\)\)\{/);
    expect(text).toMatch(/\((data\d*)\.length > 5 && (func\d+)\(\1\) > 5\)/);
    expect(text).toMatch(/\((data\d*)\.length < 4 && (func\d+)\(\1\) < 2\)/);
    // Past eight names Ajv looks a key up in the schema's `properties`: up to 32, comparisons again.
    const named = (count: number) =>
      code({
        type: "object",
        properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: "string" }])),
        additionalProperties: false,
      });
    expect(named(32)).not.toMatch(/\.call\(schema\d+/);
    expect(named(32)).toMatch(/if\(\(!\(\(key(\d+) === "p0" \|\| key\1 === "p1" \|\| /);
    expect(named(33)).toMatch(
      /if\(\(!\(func\d+\.call\(schema\d+\.properties, key(\d+)\)\)\) && func\d+\.call\(data, key\1\)\)/,
    );
    // A loop that checks every key keeps the check first.
    expect(code({ type: "object", properties: { a: { type: "string" } }, propertyNames: { maxLength: 3 } })).toMatch(
      /for\(const (key\d+) in data\)\{\nif\(!func\d+\.call\(data, \1\)\) continue;/,
    );
  });

  it("leaves a call that passes dynamic anchors on as it is", () => {
    const source = [
      "const func0 = Object.prototype.hasOwnProperty;",
      "function validate11(data, {instancePath, parentData, parentDataProperty, rootData, dynamicAnchors}={}){",
      "dynamicAnchors.x = validate11;",
      "return true;",
      "}",
      "function validate10(data, {instancePath, parentData, parentDataProperty, rootData, dynamicAnchors}={}){",
      'return validate11(data.a, {instancePath:instancePath+"/a",parentData:data,parentDataProperty:"a",rootData,dynamicAnchors});',
      "}",
    ].join("\n");
    expect(withFastPaths(source)).toEqual({ code: source, relocates: false });
  });

  it("names every property Object.prototype holds in this realm", () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) expect(PROTOTYPE_NAMES.has(name)).toBe(true);
  });
});
