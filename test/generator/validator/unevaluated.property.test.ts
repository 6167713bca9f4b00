/**
 * Generated schemas around `unevaluatedProperties` and `unevaluatedItems`: every one the validator stage accepts
 * must validate as the spec says, here a direct reading of the annotation model (`reference-evaluator.ts`).
 *
 * The suite covers a few dozen shapes; Ajv's record of evaluated locations fails in many more (branches nested in
 * branches, `if` without a useful `then`, `$ref` beside a conditional, `patternProperties` after `anyOf`, …). This
 * test is what found those, and it keeps the refusal rules honest: a rule too loose shows up as a counterexample.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../../generator/schema/shapes.js";
import { compilerFor, createCompiler } from "../../../generator/validator/compiler.js";
import { SchemaIndex } from "../../../generator/validator/schema-index.js";
import { findUnsupportedFeatures } from "../../../generator/validator/unsupported.js";
import { REPO_ROOT, resolved } from "./load.js";
import { evaluate, withinReach } from "./reference-evaluator.js";

type Kind = "properties" | "items";

/** Schemas per kind; `TOOLGATE_FUZZ_RUNS=20000` searches harder, `TOOLGATE_FUZZ_SEED` elsewhere. */
const RUNS = Number(process.env.TOOLGATE_FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.TOOLGATE_FUZZ_SEED ?? 20260101);
type Entry = [string, unknown];

const NAMES = ["a", "b", "c"] as const;
const name = fc.constantFrom(...NAMES);
const leafSchema = fc.constantFrom<JsonSchema>(true, { const: 1 }, { type: "integer" });

/** One keyword that looks at the instance's own members. */
function memberKeyword(kind: Kind): fc.Arbitrary<Entry> {
  if (kind === "properties") {
    return fc.oneof(
      fc.dictionary(name, leafSchema, { minKeys: 0, maxKeys: 2 }).map((v): Entry => ["properties", v]),
      fc
        .dictionary(
          name.map((n) => `^${n}`),
          leafSchema,
          { minKeys: 1, maxKeys: 1 },
        )
        .map((v): Entry => ["patternProperties", v]),
      leafSchema.map((v): Entry => ["additionalProperties", v]),
      name.map((n): Entry => ["required", [n]]),
      fc.constantFrom<Entry>(["minProperties", 1], ["maxProperties", 1], ["propertyNames", { maxLength: 0 }]),
      fc.tuple(name, name).map(([n, m]): Entry => ["dependentRequired", { [n]: [m] }]),
    );
  }
  return fc.oneof(
    fc.array(leafSchema, { minLength: 1, maxLength: 2 }).map((v): Entry => ["prefixItems", v]),
    leafSchema.map((v): Entry => ["items", v]),
    fc.constant<Entry>(["contains", { const: 1 }]),
    fc.constantFrom<Entry>(
      ["minItems", 2],
      ["maxItems", 2],
      ["uniqueItems", true],
      ["minContains", 2],
      ["maxContains", 1],
    ),
  );
}

/** A schema of the given depth: member keywords, in-place applicators, a `$ref` and nested `unevaluated*`. */
function schemaOf(
  kind: Kind,
  depth: number,
  withRef: boolean,
  unevaluated = true,
): fc.Arbitrary<Record<string, unknown>> {
  // Branches inside branches are where Ajv's bookkeeping breaks, so applicators weigh more than members.
  const entries: Array<fc.WeightedArbitrary<Entry>> = [{ arbitrary: memberKeyword(kind), weight: 4 }];
  if (depth > 0) {
    const sub = schemaOf(kind, depth - 1, withRef, unevaluated);
    entries.push(
      {
        arbitrary: fc
          .constantFrom("allOf", "anyOf", "oneOf")
          .chain((k) => fc.array(sub, { minLength: 1, maxLength: 2 }).map((v): Entry => [k, v])),
        weight: 3,
      },
      {
        arbitrary: fc.constantFrom("if", "then", "else", "not").chain((k) => sub.map((v): Entry => [k, v])),
        weight: 3,
      },
    );
    if (unevaluated) {
      entries.push({
        arbitrary: fc.constant<Entry>([kind === "properties" ? "unevaluatedProperties" : "unevaluatedItems", false]),
        weight: 1,
      });
    }
    if (kind === "properties") {
      entries.push({
        arbitrary: fc.tuple(name, sub).map(([n, v]): Entry => ["dependentSchemas", { [n]: v }]),
        weight: 1,
      });
    }
  }
  if (withRef) entries.push({ arbitrary: fc.constant<Entry>(["$ref", "#/$defs/d"]), weight: 1 });
  return fc.array(fc.oneof(...entries), { minLength: 1, maxLength: 4 }).map((list) => Object.fromEntries(list));
}

function rootOf(kind: Kind): fc.Arbitrary<JsonSchema> {
  return fc.tuple(schemaOf(kind, 2, true), schemaOf(kind, 1, false)).map(([schema, d]) => ({
    ...schema,
    $defs: { d },
    [kind === "properties" ? "unevaluatedProperties" : "unevaluatedItems"]: false,
  }));
}

const member = fc.constantFrom<unknown>(1, 2, "x");
const instanceOf: Record<Kind, fc.Arbitrary<unknown>> = {
  properties: fc.dictionary(name, member, { maxKeys: 3 }),
  items: fc.array(member, { maxLength: 4 }),
};

describe.each<Kind>(["properties", "items"])("generated schemas with unevaluated %s", (kind) => {
  it("validate as the spec says whenever the stage accepts them", () => {
    // One compiler for all runs (every generated schema reads the evaluation record, none has an `$id`).
    const ajv = createCompiler("2020-12", "annotate", true);
    let accepted = 0;
    fc.assert(
      fc.property(rootOf(kind), fc.array(instanceOf[kind], { minLength: 8, maxLength: 16 }), (schema, instances) => {
        if (findUnsupportedFeatures(new SchemaIndex(resolved(schema))).length > 0) return;
        accepted++;
        // Compiled in-process with the stage's options; the conformance suite shows the standalone module agrees.
        const validate = ajv.compile(schema as object);
        for (const instance of instances) {
          expect({ instance, valid: validate(instance) }).toEqual({
            instance,
            valid: evaluate(schema, instance).valid,
          });
        }
      }),
      { numRuns: RUNS, seed: kind === "properties" ? SEED : SEED + 1 },
    );
    // The property must not hold only because everything is refused.
    expect(accepted).toBeGreaterThan(RUNS / 10);
  }, 600_000);
});

describe.each<Kind>(["properties", "items"])("generated schemas on %s without unevaluated keywords", (kind) => {
  it("compile without the evaluation record and validate as the spec says", () => {
    let accepted = 0;
    const root = fc
      .tuple(schemaOf(kind, 2, true, false), schemaOf(kind, 1, false, false))
      .map(([schema, d]): JsonSchema => ({ ...schema, $defs: { d } }));
    fc.assert(
      fc.property(root, fc.array(instanceOf[kind], { minLength: 8, maxLength: 16 }), (schema, instances) => {
        const request = resolved(schema);
        if (findUnsupportedFeatures(new SchemaIndex(request)).length > 0) return;
        accepted++;
        const validate = compilerFor(request, "annotate").getSchema(request.baseUri);
        for (const instance of instances) {
          expect({ instance, valid: validate?.(instance) }).toEqual({
            instance,
            valid: evaluate(schema, instance).valid,
          });
        }
      }),
      { numRuns: Math.ceil(RUNS / 4), seed: kind === "properties" ? SEED + 2 : SEED + 3 },
    );
    // Without the record, only tuple-and-contains shapes are refused: most of these schemas compile.
    expect(accepted).toBeGreaterThan(RUNS / 8);
  }, 600_000);
});

describe("the reference evaluator", () => {
  it.each([
    "unevaluatedProperties.json",
    "unevaluatedItems.json",
    "properties.json",
    "items.json",
    "if-then-else.json",
  ])("agrees with the suite on %s, for the groups within its reach", (file) => {
    const path = join(REPO_ROOT, "../shared/corpus/json-schema-test-suite/tests/draft2020-12", file);
    const groups = JSON.parse(readFileSync(path, "utf8")) as Array<{
      schema: JsonSchema;
      tests: Array<{ data: unknown; valid: boolean }>;
    }>;
    const reachable = groups.filter((g) => withinReach(g.schema));
    expect(reachable.length).toBeGreaterThan(groups.length / 2);
    for (const group of reachable) {
      for (const test of group.tests) {
        expect({ schema: group.schema, data: test.data, valid: evaluate(group.schema, test.data).valid }).toEqual({
          schema: group.schema,
          data: test.data,
          valid: test.valid,
        });
      }
    }
  });
});
