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

  it("skips a key an object only inherits, as Ajv's own-key loop does", async () => {
    const { generated, reference } = await pair(
      { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
      "2020-12",
    );
    const value = JSON.parse('{"a":"x"}');
    const prototype = Object.prototype as Record<string, unknown>;
    prototype.added = 1;
    try {
      expect(outcome(generated, value)).toEqual(outcome(reference, value));
      expect(generated(value)).toBe(true);
    } finally {
      delete prototype.added;
    }
    expect(generated(JSON.parse('{"a":"x","added":1}'))).toBe(false);
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
