import { describe, expect, it } from "vitest";
import { ContractError } from "../../../generator/contract/errors.js";
import { viewFields } from "../../../generator/model/view-fields.js";
import { planView, runtimePlan } from "../../../generator/model/view-plan.js";
import type { JsonSchema } from "../../../generator/schema/shapes.js";
import { viewType } from "../../../templates/view.js";

const search: JsonSchema = {
  type: "object",
  additionalProperties: true,
  required: ["hits"],
  properties: {
    hits: {
      type: "array",
      items: { $ref: "#/$defs/hit" },
    },
    nextCursor: { type: ["string", "null"] },
    internal: { type: "object", properties: { secret: { type: "string" } } },
  },
  $defs: {
    hit: {
      type: "object",
      required: ["id", "score"],
      properties: { id: { type: "string" }, score: { type: "number" }, snippet: { type: "string" } },
    },
  },
};

describe("view plan", () => {
  it("plans declared properties only, follows $ref, cuts arrays, bounds strings, leaves out omitted fields", () => {
    const plan = planView(
      search,
      {
        omit: ["/internal"],
        arrays: { "/hits": { take: 8 } },
        strings: { "/hits/*/snippet": { max: 200, overflow: "omit" } },
        continuation: "/nextCursor",
      },
      1000,
      "search.tool.json",
      [["/nextCursor", "/x-toolgate/view/continuation"]],
    );
    expect(runtimePlan(plan)).toEqual({
      kind: "object",
      properties: {
        hits: {
          kind: "array",
          take: 8,
          items: {
            kind: "object",
            properties: {
              id: { kind: "string", max: 1000, overflow: "excerpt" },
              score: { kind: "value" },
              snippet: { kind: "string", max: 200, overflow: "omit" },
            },
          },
        },
        nextCursor: { kind: "union", options: [{ kind: "string", max: 1000, overflow: "excerpt" }, { kind: "value" }] },
      },
    });
    expect(viewFields(plan)).toEqual(["/hits", "/hits/*/id", "/hits/*/score", "/hits/*/snippet", "/nextCursor"]);
    expect(viewType(plan).text).toBe(
      "{\n  readonly hits: Array<{\n    readonly id: string;\n    readonly score: number;\n    readonly snippet?: string;\n  }>;\n  readonly nextCursor?: string | null;\n}",
    );
  });

  it.each([
    ["omit", { omit: ["/hit"] }, "/x-toolgate/view/omit/0", /names no field/],
    ["arrays", { arrays: { "/nextCursor": { take: 1 } } }, "/x-toolgate/view/arrays/~1nextCursor", /is not an array/],
    [
      "strings",
      { strings: { "/hits/*/snipet": { max: 1 } } },
      "/x-toolgate/view/strings/~1hits~1*~1snipet",
      /names no field/,
    ],
  ])("refuses a %s path that the schema does not have", (_name, view, pointer, message) => {
    let error: unknown;
    try {
      planView(search, view, 1000, "search.tool.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).pointer).toBe(pointer);
    expect((error as ContractError).message).toMatch(message);
  });

  // The gate hands the continuation token to the model: a field the view leaves out must not be that token.
  it.each([
    ["the omitted field itself", { omit: ["/nextCursor"], continuation: "/nextCursor" }, "/x-toolgate/view/omit/0"],
    [
      "a field under an omitted parent",
      { omit: ["/hits", "/internal"], continuation: "/internal/secret" },
      "/x-toolgate/view/omit/1",
    ],
    [
      "a field of every item, omitted",
      { omit: ["/hits/*/snippet"], continuation: "/hits/*/snippet" },
      "/x-toolgate/view/omit/0",
    ],
  ])("refuses a continuation that is %s, naming the file and the pointer", (_name, view, omitPointer) => {
    let error: unknown;
    try {
      planView(search, view, 1000, "search.tool.json", [[view.continuation, "/x-toolgate/view/continuation"]]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).file).toBe("search.tool.json");
    expect((error as ContractError).pointer).toBe("/x-toolgate/view/continuation");
    expect((error as ContractError).message).toContain(omitPointer);
  });

  it("accepts a continuation beside an omitted field whose name it only begins with", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: { next: { type: "string" }, nextCursor: { type: "string" } },
    };
    const plan = planView(schema, { omit: ["/next"], continuation: "/nextCursor" }, 100, "n.tool.json", [
      ["/nextCursor", "/x-toolgate/view/continuation"],
    ]);
    expect(runtimePlan(plan)).toEqual({
      kind: "object",
      properties: { nextCursor: { kind: "string", max: 100, overflow: "excerpt" } },
    });
  });

  it("plans a recursive schema to a bounded depth", () => {
    const tree: JsonSchema = {
      $ref: "#/$defs/node",
      $defs: {
        node: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
        },
      },
    };
    const text = JSON.stringify(runtimePlan(planView(tree, {}, 100, "tree.tool.json")));
    expect(text.match(/"children"/g)?.length).toBe(2);
  });

  it("merges the declared properties of anyOf branches", () => {
    const plan = planView(
      {
        anyOf: [
          { type: "object", properties: { a: { type: "integer" } } },
          { type: "object", properties: { b: { type: "boolean" } } },
        ],
      },
      {},
      100,
      "u.tool.json",
    );
    expect(runtimePlan(plan)).toEqual({ kind: "object", properties: { a: { kind: "value" }, b: { kind: "value" } } });
  });

  it("shows nothing of an object whose schema declares no properties", () => {
    expect(runtimePlan(planView({ type: "object" }, {}, 100, "o.tool.json"))).toEqual({
      kind: "object",
      properties: {},
    });
  });
});

describe("view plan keys named like Object.prototype members", () => {
  it("keeps a property named __proto__ as a field of the plan and of the lock's view fields", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string","maxLength":8},"constructor":{"type":"number"}}}',
    ) as JsonSchema;
    const plan = planView(schema, {}, 1000, "proto.tool.json", []);
    const runtime = runtimePlan(plan) as { kind: string; properties: Record<string, unknown> };
    expect(Object.keys(runtime.properties)).toEqual(["__proto__", "constructor"]);
    expect(Object.hasOwn(runtime.properties, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(runtime.properties)).toBe(Object.prototype);
    expect(viewFields(plan)).toEqual(expect.arrayContaining(["/__proto__", "/constructor"]));
  });
});

describe("view plan nodes for values the schema says nothing of, and for media", () => {
  /** `read_media_file`'s output schema as the filesystem server lists it (zod's JSON Schema). */
  const readMedia = {
    type: "object",
    properties: {
      content: {
        type: "array",
        items: {
          anyOf: [
            {
              type: "object",
              properties: {
                type: { type: "string", enum: ["image", "audio"] },
                data: { type: "string" },
                mimeType: { type: "string" },
              },
              required: ["type", "data", "mimeType"],
            },
            {
              type: "object",
              properties: {
                type: { type: "string", const: "resource" },
                resource: { type: "object", properties: { uri: { type: "string" }, blob: { type: "string" } } },
              },
              required: ["type", "resource"],
            },
          ],
        },
      },
    },
    required: ["content"],
  } as JsonSchema;

  it("marks an MCP image or audio block as media, with the plan of its other shapes beside it", () => {
    const plan = runtimePlan(planView(readMedia, {}, 100, "m.tool.json")) as unknown as {
      properties: { content: { items: { kind: string; form: string; otherwise: { kind: string } } } };
    };
    const item = plan.properties.content.items;
    expect([item.kind, item.form, item.otherwise.kind]).toEqual(["media", "block", "object"]);
  });

  it("makes the view schema hold the description a media node leaves, and nothing of its data", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const { viewSchema } = await import("../../../generator/model/view-schema.js");
    const { project } = await import("../../../runtime/stages/project.js");
    const typed = planView(readMedia, {}, 100, "m.tool.json");
    const value = { content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] };
    const shown = project(value, runtimePlan(typed));
    expect(shown.view).toEqual({ content: [{ type: "image", mimeType: "image/png", bytes: 8 }] });
    expect(new Ajv2020({ strict: false }).validate(viewSchema(typed), shown.view)).toBe(true);
    expect(viewType(typed).text).toContain('readonly type: "image" | "audio" | "blob"');
  });

  it("marks a base64 string as media with its content media type, and leaves other strings alone", () => {
    const schema = {
      type: "object",
      properties: {
        png: { type: "string", contentEncoding: "base64", contentMediaType: "image/png" },
        name: { type: "string", maxLength: 10 },
      },
    } as JsonSchema;
    expect(runtimePlan(planView(schema, {}, 100, "b.tool.json"))).toEqual({
      kind: "object",
      properties: {
        name: { kind: "string", max: 100, overflow: "excerpt" },
        png: { kind: "media", form: "base64", mimeType: "image/png" },
      },
    });
  });

  it("plans a schema that constrains nothing ({}, true, annotations only) as any, and an object type as before", () => {
    expect(runtimePlan(planView({}, {}, 100, "e.tool.json"))).toEqual({ kind: "any" });
    expect(runtimePlan(planView(true, {}, 100, "t.tool.json"))).toEqual({ kind: "any" });
    expect(runtimePlan(planView({ description: "any JSON" }, {}, 100, "d.tool.json"))).toEqual({ kind: "any" });
    const nested = { type: "object", properties: { meta: {} }, additionalProperties: { type: "string" } } as JsonSchema;
    expect(runtimePlan(planView(nested, {}, 100, "n.tool.json"))).toEqual({
      kind: "object",
      properties: { meta: { kind: "any" } },
    });
  });
});
