/**
 * The view schema says what a host receives of a result: every view the gate builds for a plan is valid under the
 * plan's view schema, for any plan the planner can make and any value that fits it, and for the views of the
 * example contracts' payloads. A property is required only where the projection always places it.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadContracts, prepareContract } from "../../../generator/contract/index.js";
import { planContractView, planView, runtimePlan, type TypedPlan } from "../../../generator/model/view-plan.js";
import { textViewSchema, viewSchema } from "../../../generator/model/view-schema.js";
import type { JsonSchema } from "../../../generator/schema/shapes.js";
import { project } from "../../../runtime/stages/project.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, ownProperties: true });

/** The view of `data` under `plan`, checked against the plan's view schema; the errors, if any. */
function viewErrors(plan: TypedPlan, data: unknown, maxStringChars = 1024): unknown[] {
  const validate = ajv.compile(viewSchema(plan));
  const { view } = project(data, runtimePlan(plan), { maxStringChars });
  return validate(view) ? [] : (validate.errors ?? []);
}

/** Whether the projection always places a value planned so (as the planner decides `required`). */
function alwaysShown(plan: TypedPlan): boolean {
  if (plan.kind === "string") return plan.overflow !== "omit";
  if (plan.kind === "union") return plan.options.every(alwaysShown);
  return true;
}

// Not `__proto__`: Ajv, the oracle here, reports an own `__proto__` key as additional even where `properties`
// declares it.
const key = fc.oneof(
  fc.constantFrom("id", "name", "constructor", "toString", "a/b", "~0"),
  fc.string({ maxLength: 6 }),
);
const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.array(fc.string({ maxLength: 12 }), { maxLength: 8 }).map((lines) => lines.join("\n")),
);

/** Plans of the shapes the planner makes: a union holds at most one option of each JSON kind. */
const plans: fc.Arbitrary<TypedPlan> = fc.letrec<{ plan: TypedPlan; leaf: TypedPlan }>((tie) => ({
  leaf: fc.oneof(
    fc
      .subarray(["string", "number", "boolean", "null"] as const, { minLength: 1 })
      .map((types): TypedPlan => ({ kind: "value", types: [...types] })),
    fc
      .record({
        max: fc.integer({ min: 0, max: 30 }),
        overflow: fc.constantFrom("excerpt", "omit", "lines" as const),
        literals: fc.option(fc.uniqueArray(fc.constantFrom("a", "bb", "ccc"), { minLength: 1 }), { nil: undefined }),
      })
      .map(
        ({ max, overflow, literals }): TypedPlan => ({
          kind: "string",
          max: Math.max(max, 3),
          overflow,
          ...(literals === undefined ? {} : { literals: literals.sort() }),
        }),
      ),
  ),
  plan: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    fc.array(fc.tuple(key, tie("plan"), fc.boolean()), { maxLength: 4 }).map((entries): TypedPlan => {
      const properties: Record<string, { plan: TypedPlan; required: boolean }> = {};
      for (const [name, plan, required] of entries) {
        Object.defineProperty(properties, name, {
          value: { plan, required: required && alwaysShown(plan) },
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return { kind: "object", properties };
    }),
    fc
      .record({ items: tie("plan"), take: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }) })
      .map(({ items, take }): TypedPlan => ({ kind: "array", items, ...(take === undefined ? {} : { take }) })),
    fc
      .record({ items: fc.array(tie("plan"), { maxLength: 3 }), rest: fc.option(tie("plan"), { nil: undefined }) })
      .map(({ items, rest }): TypedPlan => ({ kind: "tuple", items, ...(rest === undefined ? {} : { rest }) })),
    fc
      .record({
        object: fc.option(tie("plan").filter((p) => p.kind === "object")),
        array: fc.option(tie("plan").filter((p) => p.kind === "array" || p.kind === "tuple")),
        leaf: tie("leaf"),
      })
      .map(({ object, array, leaf }): TypedPlan => {
        const options = [object, array, leaf].filter((p): p is TypedPlan => p !== null);
        return options.length === 1 ? (options[0] as TypedPlan) : { kind: "union", options };
      }),
  ),
})).plan;

/** A root object holding `plan` as its one property. */
function rootObject(plan: TypedPlan, required: boolean): TypedPlan {
  if (plan.kind === "object") return plan;
  return { kind: "object", properties: { value: { plan, required: required && alwaysShown(plan) } } };
}

/** A value that fits `plan`, as validated data fits the plan of its schema. */
function valueFor(plan: TypedPlan): fc.Arbitrary<unknown> {
  switch (plan.kind) {
    case "value":
      return fc.constantFrom(...plan.types).chain((type): fc.Arbitrary<unknown> => {
        if (type === "string") return text;
        if (type === "number") return fc.double({ noNaN: true, noDefaultInfinity: true });
        if (type === "boolean") return fc.boolean();
        return fc.constant(null);
      });
    case "string":
      return plan.literals === undefined ? text : fc.constantFrom(...plan.literals);
    case "array":
      return fc.array(valueFor(plan.items), { maxLength: (plan.take ?? 2) + 2 });
    case "tuple": {
      const head = fc.tuple(...plan.items.map(valueFor));
      if (plan.rest === undefined) return head;
      return fc.tuple(head, fc.array(valueFor(plan.rest), { maxLength: 2 })).map(([h, r]) => [...h, ...r]);
    }
    case "union":
      return fc.oneof(...plan.options.map(valueFor));
    case "any":
      return fc.jsonValue();
    case "media": {
      const data = fc.base64String({ maxLength: 16 });
      if (plan.form === "base64") return data;
      const block = fc.record({ type: fc.constantFrom("image", "audio"), data, mimeType: fc.constant("image/png") });
      return plan.otherwise === undefined ? block : fc.oneof(block, valueFor(plan.otherwise));
    }
    case "object": {
      const names = Object.keys(plan.properties);
      const entries = names.map((name) => {
        const property = plan.properties[name] as { plan: TypedPlan; required: boolean };
        const value = valueFor(property.plan);
        return property.required
          ? value.map((v) => [name, v] as const)
          : fc.option(value.map((v) => [name, v] as const));
      });
      return fc
        .tuple(fc.tuple(...entries), fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }))
        .map(([present, extra]) => {
          const out: Record<string, unknown> = {};
          for (const [name, value] of Object.entries(extra)) if (!names.includes(name)) out[name] = value;
          for (const entry of present) {
            if (entry === null) continue;
            Object.defineProperty(out, entry[0], {
              value: entry[1],
              enumerable: true,
              writable: true,
              configurable: true,
            });
          }
          return out;
        });
    }
  }
}

describe("viewSchema", () => {
  it("accepts the view the gate builds, for any plan and any value that fits it", () => {
    fc.assert(
      fc.property(
        // A result's root is an object (an MCP output schema must be one); anything may be below it.
        fc
          .tuple(plans, fc.boolean())
          .map(([plan, required]): TypedPlan => rootObject(plan, required))
          .chain((plan) => fc.tuple(fc.constant(plan), valueFor(plan))),
        fc.integer({ min: 0, max: 40 }),
        ([plan, data], maxStringChars) => {
          expect(viewErrors(plan, data, maxStringChars)).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("requires only what the projection always places, and bounds a cut array", () => {
    const schema: JsonSchema = {
      type: "object",
      required: ["id", "body", "tags"],
      properties: {
        id: { type: "string", maxLength: 10 },
        body: { type: "string" },
        tags: { type: "array", items: { type: "string", maxLength: 8 } },
        secret: { type: "string" },
      },
    };
    const plan = planView(
      schema,
      { omit: ["/secret"], arrays: { "/tags": { take: 2 } }, strings: { "/body": { max: 5, overflow: "omit" } } },
      1000,
      "t.tool.json",
    );
    expect(viewSchema(plan)).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        body: { type: "string" },
        id: { type: "string" },
        tags: { type: "array", items: { type: "string" }, maxItems: 2 },
      },
      required: ["id", "tags"],
      additionalProperties: false,
    });
    expect(viewErrors(plan, { id: "x", body: "far too long", tags: ["a", "b", "c"], secret: "s" })).toEqual([]);
  });

  it("does not require a property that only one branch of an anyOf requires", () => {
    const plan = planView(
      {
        type: "object",
        anyOf: [
          { required: ["a"], properties: { a: { type: "string" } } },
          { required: ["b"], properties: { b: { type: "number" } } },
        ],
        allOf: [{ required: ["c"], properties: { c: { type: "boolean" } } }],
      },
      {},
      1000,
      "t.tool.json",
    );
    expect(viewSchema(plan).required).toEqual(["c"]);
    expect(viewErrors(plan, { b: 1, c: true })).toEqual([]);
  });

  it("is the runtime's TextView for text results", () => {
    const validate = ajv.compile(textViewSchema());
    expect(validate({ text: "a\nb", lines: 2, gap: { from: 1, to: 1 }, media: [], links: [] })).toBe(true);
    expect(
      validate({ text: "a", lines: 1, media: [{ type: "image", mimeType: "image/png", bytes: 3 }], links: [] }),
    ).toBe(true);
    expect(validate({ text: "a", lines: 1, media: [], links: [], data: "raw" })).toBe(false);
  });

  it("accepts the views of every example payload of every example contract", async () => {
    const folder = path.join(REPO, "schemas");
    const loaded = await loadContracts(folder, [REPO]);
    let checked = 0;
    for (const { contract } of loaded) {
      if (contract === undefined) continue;
      const prepared = await prepareContract(contract, { projectRoot: REPO, roots: [folder], remotes: [] });
      if (prepared.result === undefined) continue;
      const plan = planContractView(prepared.result.bundled, prepared.settings, contract.file, []);
      const payloads = path.join(REPO, "test", "fixtures", "payloads", contract.name);
      for (const file of await readdir(payloads)) {
        if (!file.endsWith(".json") || file.startsWith("invalid")) continue;
        const data: unknown = JSON.parse(await readFile(path.join(payloads, file), "utf8"));
        expect(viewErrors(plan, data, prepared.settings.view.maxStringChars), `${contract.name}/${file}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15);
  });
});
