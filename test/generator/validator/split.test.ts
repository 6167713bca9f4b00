/**
 * Large nested objects and arrays compiled as functions of their own (`generator/validator/split.ts`): where parts
 * are cut, what stays in place, and that the generated validators give the verdicts and the errors (instance path,
 * schema path, keyword, params) of the same schema compiled whole by Ajv.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import standaloneModule from "ajv/dist/standalone/index.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema, ResolvedSchema, SchemaObject } from "../../../generator/schema/shapes.js";
import { compilerFor, type FormatMode } from "../../../generator/validator/compiler.js";
import { assembleModule, type StandaloneValidator, type ValidatorRequest } from "../../../generator/validator/index.js";
import { foldNullable } from "../../../generator/validator/nullable-fold.js";
import { SchemaIndex } from "../../../generator/validator/schema-index.js";
import { PART_MIN_LENGTH, registerParts, splitNested } from "../../../generator/validator/split.js";
import { stableUris } from "../../../generator/validator/stable-uris.js";
import { dialectOf, loadGroups, suiteFiles } from "../../conformance/suite.js";
import { mutatedValue, type ValueMutation, valueArbitrary } from "../../hardening/payloads.js";
import { emitValidators } from "./emit-module.js";
import { ensureRuntimeBuilt, type GeneratedValidator, importModule, resolved } from "./load.js";

beforeAll(ensureRuntimeBuilt);

/** An object schema past the size worth a part: twelve string properties, then `more`, and other keywords. */
function wide(more: Record<string, JsonSchema> = {}, extra: SchemaObject = {}): SchemaObject {
  const properties: Record<string, JsonSchema> = {};
  for (let i = 0; i < 12; i++) properties[`field${i}`] = { type: "string", maxLength: 40 };
  return { type: "object", properties: { ...properties, ...more }, ...extra };
}

function split(root: JsonSchema, options: Partial<ResolvedSchema> = {}) {
  const schema = resolved(root, options);
  return splitNested(schema, new SchemaIndex(schema));
}

describe("where parts are cut", () => {
  it("cuts a large nested object or array into a part at its schema path, inner parts first", () => {
    const address = wide();
    const owner = wide({ address });
    const { schema, parts } = split({
      type: "object",
      properties: { name: { type: "string" }, owner, tags: { type: "array", items: wide() } },
    });
    expect(JSON.stringify(address).length).toBeGreaterThanOrEqual(PART_MIN_LENGTH);
    expect(parts.map((p) => [p.ref, p.schemaPath])).toEqual([
      ["#toolgate-part-0", "#/properties/owner/properties/address"],
      ["#toolgate-part-1", "#/properties/owner"],
      ["#toolgate-part-2", "#/properties/tags/items"],
    ]);
    expect(parts[0]?.schema).toBe(address);
    expect(parts[1]?.schema).toEqual({
      ...owner,
      properties: { ...(owner.properties as object), address: { $ref: "#toolgate-part-0" } },
    });
    // The array keeps its loop in place: once its items are cut out, it is too small for a function of its own.
    expect(schema.root).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        owner: { $ref: "#toolgate-part-1" },
        tags: { type: "array", items: { $ref: "#toolgate-part-2" } },
      },
    });
  });

  it("counts only keywords that compile to code toward a part's size", () => {
    const described = (schema: SchemaObject): SchemaObject => ({
      ...schema,
      title: "t".repeat(PART_MIN_LENGTH),
      description: "d".repeat(PART_MIN_LENGTH),
      examples: [{ note: "e".repeat(PART_MIN_LENGTH) }],
      "x-vendor": "v".repeat(PART_MIN_LENGTH),
    });
    const small = described({
      type: "object",
      properties: { name: described({ type: "string" }), tags: { type: "array", items: { type: "string" } } },
      required: ["name"],
    });
    expect(split({ type: "object", properties: { small, list: { type: "array", items: small } } }).parts).toEqual([]);
    // The same annotations beside enough code: a part, as without them.
    const large = described(wide());
    expect(split({ type: "object", properties: { large } }).parts.map((p) => p.schemaPath)).toEqual([
      "#/properties/large",
    ]);
  });

  it("cuts inside allOf, and writes property names as Ajv's schema path does", () => {
    const { parts } = split({ allOf: [{ properties: { "a/b~c d": wide() } }, { type: "object" }] });
    expect(parts.map((p) => p.schemaPath)).toEqual(["#/allOf/0/properties/a~1b~0c%20d"]);
  });

  it("keeps in place a small subschema, one checking no level below it, and any where Ajv gathers errors", () => {
    const leafOnly: SchemaObject = { type: "string", description: "x".repeat(PART_MIN_LENGTH), maxLength: 3 };
    const { parts } = split({
      properties: { small: { type: "object", properties: { a: { type: "string" } } }, leafOnly },
      anyOf: [{ properties: { x: wide() } }],
      oneOf: [{ properties: { x: wide() } }],
      not: { properties: { x: wide() } },
      if: { properties: { y: wide() } },
      contains: { properties: { z: wide() } },
      $defs: { kept: wide() },
    });
    expect(parts).toEqual([]);
  });

  it("keeps in place what a $ref points at or into, and what declares an identity", () => {
    const { parts } = split({
      properties: {
        target: wide(),
        into: wide({ inner: wide() }),
        withId: wide({}, { $id: "https://toolgate.test/other.json" }),
        withAnchor: { type: "array", items: wide({}, { $anchor: "item" }) },
        a: { $ref: "#/properties/target" },
        b: { $ref: "#/properties/into/properties/inner" },
        c: { $ref: "#item" },
      },
    });
    expect(parts).toEqual([]);
    // Nor anything below a target: cut, the target would become a function reporting its errors from `#`.
    const below = split({ properties: { a: wide({ b: wide() }), c: { $ref: "#/properties/a" } } });
    expect(below.parts).toEqual([]);
  });

  it("names no part's reference as an anchor of the document", () => {
    const { parts } = split({
      properties: { a: wide(), b: wide(), c: { $anchor: "toolgate-part-1", type: "string" } },
    });
    expect(parts.map((p) => p.ref)).toEqual(["#toolgate-part-0", "#toolgate-part-2"]);
  });

  it("moves nothing when a reference resolves dynamically or to nothing it knows", () => {
    expect(split({ properties: { a: wide() }, $dynamicAnchor: "node", items: { $dynamicRef: "#node" } }).parts).toEqual(
      [],
    );
    expect(split({ properties: { a: wide(), b: { $ref: "#/nowhere" } } }).parts).toEqual([]);
  });
});

/**
 * Ajv compiling in process compares `const` with fast-deep-equal, which calls a value's own `toString` and
 * `valueOf`; the generated validators compare with the runtime's `jsonEqual` (test/hardening/differential.test.ts).
 * Mutations that add such keys are left out here.
 */
const withoutMethodKeys = (mutation: ValueMutation) => !/ (toString|valueOf)$/.test(mutation.name);

/** The verdict and errors of a validator, or what it threw. */
function outcome(validate: GeneratedValidator, value: unknown): unknown {
  try {
    return { valid: validate(value), errors: validate.errors };
  } catch (error) {
    return `threw ${(error as Error).name}`;
  }
}

/** The schema compiled whole, in process, after the same preparation the validator stage gives it. */
function wholeValidator(schema: ResolvedSchema, formats: FormatMode): GeneratedValidator {
  const stable = stableUris(schema);
  const folded = foldNullable(stable, new SchemaIndex(stable)).schema;
  const validate = compilerFor(folded, formats).getSchema(folded.baseUri);
  if (validate === undefined) throw new Error(`no validator for ${schema.baseUri}`);
  return validate as GeneratedValidator;
}

/** How many of the schemas get parts, as the stage cuts them or with every part cut. */
function splitCount(schemas: readonly ResolvedSchema[], cut: "stage" | "every"): number {
  return schemas.filter((schema) => {
    const stable = stableUris(schema);
    const folded = foldNullable(stable, new SchemaIndex(stable)).schema;
    const index = new SchemaIndex(folded);
    return (cut === "stage" ? splitNested(folded, index) : splitNested(folded, index, () => true)).parts.length > 0;
  }).length;
}

/**
 * Standalone code compiled as the validator stage compiles it, but with every subschema that may be moved cut into
 * a part, however small, leaves too: the suite's schemas are too small for the stage to cut any.
 */
function everyPartCut(schema: ResolvedSchema, formats: FormatMode, exportName: string): StandaloneValidator {
  const stable = stableUris(schema);
  const folded = foldNullable(stable, new SchemaIndex(stable)).schema;
  const index = new SchemaIndex(folded);
  const { schema: compiled, parts } = splitNested(folded, index, () => true);
  const ajv = compilerFor(compiled, formats, index);
  registerParts(ajv, compiled.baseUri, parts);
  return { exportName, code: standaloneModule.default(ajv, { [exportName]: compiled.baseUri }) };
}

/**
 * The generated validator of each schema the stage accepts, from one module, beside the schema compiled whole.
 * @param cut "stage" for the stage's own output, "every" for {@link everyPartCut}
 */
async function bothValidators(schemas: readonly ResolvedSchema[], formats: FormatMode, cut: "stage" | "every") {
  const request = (schema: ResolvedSchema, i: number): ValidatorRequest => ({ exportName: `v${i}`, schema, formats });
  const accepted = schemas.filter((schema, i) => "code" in emitValidators([request(schema, i)]));
  const emitted =
    cut === "stage"
      ? emitValidators(accepted.map(request))
      : { code: assembleModule(accepted.map((schema, i) => everyPartCut(schema, formats, `v${i}`))) };
  if (!("code" in emitted)) throw new Error("the accepted schemas are refused together");
  const module = await importModule(emitted.code);
  return accepted.map((schema, i) => ({
    schema,
    generated: module[`v${i}`] as GeneratedValidator,
    whole: wholeValidator(schema, formats),
  }));
}

describe("a nested error", () => {
  it("keeps its instance path, schema path, keyword and params", async () => {
    const address = wide({ zip: { type: "string" } }, { required: ["zip"] });
    const schema = resolved({ type: "object", properties: { owner: wide({ address }) } });
    const [pair] = await bothValidators([schema], "annotate", "stage");
    if (pair === undefined) throw new Error("refused");
    const emitted = emitValidators([{ exportName: "v", schema, formats: "annotate" }]);
    expect("code" in emitted && emitted.code.match(/^function validate\d+\(/gm)?.length).toBe(3);
    expect(outcome(pair.generated, { owner: { address: { zip: 5 } } })).toEqual({
      valid: false,
      errors: [
        {
          instancePath: "/owner/address/zip",
          schemaPath: "#/properties/owner/properties/address/properties/zip/type",
          keyword: "type",
          params: { type: "string" },
        },
      ],
    });
    expect(outcome(pair.generated, { owner: { address: {} } })).toEqual(
      outcome(pair.whole, { owner: { address: {} } }),
    );
  });
});

/** Every input and output schema of the MCP tool corpus, each as a resolved schema of its own. */
function corpusSchemas(): ResolvedSchema[] {
  const corpus = path.resolve("..", "shared", "corpus", "mcp-tools");
  const folders = ["github-mcp-server", "sentry-mcp"];
  const captures = path.join(corpus, "mcp-proxy-captures");
  for (const name of readdirSync(captures).sort())
    if (!name.startsWith("LICENSE")) folders.push(`mcp-proxy-captures/${name}`);
  const schemas: ResolvedSchema[] = [];
  for (const folder of folders) {
    const dir = path.join(corpus, folder);
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith(".json") || file === "_server.json") continue;
      const tool = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown>;
      for (const key of ["inputSchema", "outputSchema"]) {
        const root = tool[key] as JsonSchema | undefined;
        if (root === undefined) continue;
        const baseUri = `https://toolgate.test/corpus/${folder}/${file}/${key}.json`;
        schemas.push(resolved(root, { dialect: dialectOf(root), baseUri, pointer: `/${key}` }));
      }
    }
  }
  return schemas;
}

describe("the MCP tool corpus, split", () => {
  const schemas = corpusSchemas();

  it.each([
    ["as the stage cuts it", "stage" as const, "annotate" as const],
    ["as the stage cuts it, formats asserted", "stage" as const, "assert" as const],
    ["with every part cut", "every" as const, "annotate" as const],
  ])(
    "%s, gives every generated and mutated value the verdict and errors of the schema compiled whole",
    async (_label, cut, formats) => {
      // The stage cuts only subschemas with enough code (the corpus's are mostly descriptions): fewer than every.
      expect(splitCount(schemas, cut)).toBeGreaterThan(cut === "stage" ? 15 : 200);
      const pairs = await bothValidators(schemas, formats, cut);
      let compared = 0;
      for (const [index, { schema, generated, whole }] of pairs.entries()) {
        const values = valueArbitrary(schema.root).chain((value) =>
          fc.oneof(fc.constant({ value, made: ["generated"] }), mutatedValue(value, [], withoutMethodKeys)),
        );
        fc.assert(
          fc.property(values, ({ value, made }) => {
            compared++;
            const where = `${schema.baseUri}: ${made.join(" + ")}`;
            expect({ where, outcome: outcome(generated, value) }).toEqual({ where, outcome: outcome(whole, value) });
          }),
          { numRuns: 60, seed: index },
        );
      }
      expect(compared).toBeGreaterThan(10_000);
    },
    300_000,
  );
});

describe("the JSON Schema Test Suite, split", () => {
  it("with every part cut, every case and its mutations get the verdict and errors of the schema compiled whole", async () => {
    const groups = suiteFiles("").flatMap(loadGroups);
    expect(
      splitCount(
        groups.map((g) => g.schema),
        "every",
      ),
    ).toBeGreaterThan(100);
    const pairs = await bothValidators(
      groups.map((g) => g.schema),
      "annotate",
      "every",
    );
    const cases = new Map(groups.map((g) => [g.schema, g.cases.map((c) => c.data)]));
    for (const [index, { schema, generated, whole }] of pairs.entries()) {
      const pieces = cases.get(schema) ?? [];
      for (const data of pieces) expect(outcome(generated, data)).toEqual(outcome(whole, data));
      fc.assert(
        fc.property(
          fc.constantFrom(...pieces).chain((data) => mutatedValue(data, pieces, withoutMethodKeys)),
          ({ value }) => {
            expect(outcome(generated, value)).toEqual(outcome(whole, value));
          },
        ),
        { numRuns: 20, seed: index },
      );
    }
  }, 300_000);
});
