/**
 * Contracts built to hurt a reviewer's tool: nesting deeper than the call stack, recursion through `$ref`, names
 * that are not identifiers. The diff must answer, not overflow or loop.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDiff } from "../../../generator/diff/command.js";
import { diffSnapshots } from "../../../generator/diff/contract-diff.js";
import { compareSchemas } from "../../../generator/diff/schema-diff/compare.js";
import type { JsonSchema } from "../../../generator/schema/shapes.js";

/** `{ properties: { a: { properties: { a: … { type: string, maxLength } } } } }`, `levels` deep. */
function nested(levels: number, maxLength: number): JsonSchema {
  let schema: JsonSchema = { type: "string", maxLength };
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "toolgate-diff-hostile-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("hostile contracts", () => {
  it("compares schemas 20,000 levels deep without overflowing, and says where it stopped", () => {
    const changes = compareSchemas(
      { schema: nested(20_000, 1), formatsAsserted: false },
      { schema: nested(20_000, 2), formatsAsserted: false },
    );
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ kind: "too-deep-to-compare", direction: "different" });
    expect(
      compareSchemas(
        { schema: nested(20_000, 1), formatsAsserted: false },
        { schema: nested(20_000, 1), formatsAsserted: false },
      ),
    ).toEqual([]);
  });

  it("shows a deeply nested value as a note, so the report can be written", () => {
    const tool = (output: JsonSchema) => ({
      name: "t",
      file: "t.tool.json",
      sha256: "",
      document: {},
      result: { dialect: "2020-12" as const, bundled: output },
      settings: {},
      formatsAsserted: false,
      viewFields: [],
    });
    const base = { type: "object", properties: {}, additionalProperties: false };
    const head = { type: "object", properties: { deep: nested(5000, 1) }, additionalProperties: false };
    const changes = diffSnapshots(
      { tools: new Map([["t", tool(base)]]), errors: [] },
      { tools: new Map([["t", tool(head)]]), errors: [] },
    );
    expect(changes).toMatchObject([
      { kind: "field-added", after: expect.stringMatching(/^\(nested more than 64 levels deep/) },
    ]);
    expect(() => JSON.stringify(changes)).not.toThrow();
  });

  it("reports a contract nested too deeply to load as that contract's error, and still compares the others", async () => {
    const sides = { base: path.join(scratch, "deep-base"), head: path.join(scratch, "deep-head") };
    const ok = (max: number) => ({
      name: "ok",
      outputSchema: {
        type: "object",
        properties: { n: { type: "string", maxLength: max } },
        additionalProperties: false,
      },
    });
    for (const [side, max] of [
      ["base", 5],
      ["head", 9],
    ] as const) {
      await mkdir(sides[side], { recursive: true });
      await writeFile(path.join(sides[side], "ok.tool.json"), JSON.stringify(ok(max)));
    }
    await writeFile(
      path.join(sides.head, "deep.tool.json"),
      JSON.stringify({ name: "deep", outputSchema: nested(2000, 1) }),
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDiff(
      ["--base", sides.base, "--head", sides.head, "--format", "json"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      scratch,
    );
    expect(code).toBe(1);
    expect(err.join("\n")).toMatch(/error \(head\) .*deep\.tool\.json#: .*(nested too deeply|cannot be compared)/);
    const report = JSON.parse(out.join("\n"));
    expect(report.changes.map((c: { tool: string; kind: string }) => `${c.tool} ${c.kind}`)).toEqual([
      "ok maxLength-raised",
    ]);
  });

  it("stops at a $ref cycle through several definitions", () => {
    const cycle = (max: number): JsonSchema => ({
      $ref: "#/$defs/a",
      $defs: {
        a: { type: "object", properties: { b: { $ref: "#/$defs/b" }, s: { type: "string", maxLength: max } } },
        b: { type: "array", items: { $ref: "#/$defs/c" } },
        c: { anyOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/b" }, { type: "null" }] },
      },
    });
    const changes = compareSchemas(
      { schema: cycle(3), formatsAsserted: false },
      { schema: cycle(4), formatsAsserted: false },
    );
    expect(changes.map((c) => [c.kind, c.path, c.pointer])).toEqual([
      ["maxLength-raised", "/s", "/$defs/a/properties/s/maxLength"],
    ]);
  });

  it("keeps property names that are not identifiers, `__proto__` included, and escapes them in pointers", () => {
    // JSON.parse makes `__proto__` an own property, as it is in a contract file.
    const schema = (values: string[], max: number): JsonSchema =>
      JSON.parse(
        JSON.stringify({ type: "object", properties: { "a/b~c": { enum: values }, "": { const: 1 } } }).replace(
          '"properties":{',
          `"properties":{"__proto__":{"type":"string","maxLength":${max}},`,
        ),
      ) as JsonSchema;
    const changes = compareSchemas(
      { schema: schema(["x"], 1), formatsAsserted: false },
      { schema: schema(["x", "y"], 2), formatsAsserted: false },
    );
    expect(changes).toEqual([
      {
        kind: "maxLength-raised",
        direction: "wider",
        path: "/__proto__",
        pointer: "/properties/__proto__/maxLength",
        summary: "maxLength raised",
        before: 1,
        after: 2,
      },
      {
        kind: "enum-value-added",
        direction: "wider",
        path: "/a~1b~0c",
        pointer: "/properties/a~1b~0c/enum",
        summary: "value added",
        after: "y",
      },
    ]);
    expect(Object.getPrototypeOf(changes[0])).toBe(Object.prototype);
  });
});
