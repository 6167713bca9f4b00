/**
 * Bounds as an overlay (`x-toolgate.refine`): narrowing keywords merged into the output schema at generation. The
 * validator, the bounds and the view follow the refined schema, while the catalog's MCP validators still answer for
 * the schema as written (as the server advertises it). Anything that does not narrow, or a pointer that names no
 * subschema, is a contract error at `/x-toolgate/refine/<pointer>/<keyword>`.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Of } from "../../../generator/contract/load.js";
import { diffSnapshots } from "../../../generator/diff/contract-diff.js";
import { snapshotFolder } from "../../../generator/diff/snapshot.js";
import { contractErrors, generateInto, importGenerated, typeCheck, writeContracts } from "../../hardening/scratch.js";

/** The filesystem server's `read_text_file` output schema, as it advertises it: `content` has no maxLength. */
const ADVERTISED = {
  type: "object",
  properties: { content: { type: "string" } },
  required: ["content"],
  $schema: "http://json-schema.org/draft-07/schema#",
  additionalProperties: false,
};

function contract(refine: object, extra: object = {}) {
  return {
    name: "read_text_file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    outputSchema: ADVERTISED,
    "x-toolgate": { refine, ...extra },
  };
}

async function errorsOf(name: string, refine: object, extra: object = {}): Promise<string[]> {
  const schemas = await writeContracts(`refine-${name}`, { "t.tool.json": contract(refine, extra) });
  return (await contractErrors(schemas)).map((error) => `${error.pointer}: ${error.message}`);
}

type Validate = ((value: unknown) => boolean) & { errors?: unknown };

describe("a refined output schema", () => {
  it("is what the gate enforces, while the MCP validators answer for the schema as advertised", async () => {
    const schemas = await writeContracts("refine-generate", {
      "t.tool.json": contract({ "/properties/content": { maxLength: 100 } }),
    });
    const folder = await generateInto(schemas);
    // Fully bounded now: no finding, and a ceiling derived from the refined bound (no receive.maxBytes declared).
    const [summary] = folder.result.tools;
    expect(summary?.findings).toEqual([]);
    expect(summary?.derivedMaxBytes).toBeGreaterThan(100);
    expect(summary?.derivedMaxBytes).toBeLessThan(2000);

    const { validateResult } = await importGenerated<{ validateResult: Validate }>(
      folder,
      "read_text_file/validate.js",
    );
    const { outputValidators } = await importGenerated<{ outputValidators: Record<string, Validate> }>(
      folder,
      "validators.js",
    );
    const long = { content: "x".repeat(101) };
    expect(validateResult({ content: "short" })).toBe(true);
    expect(validateResult(long)).toBe(false);
    // Keyed by the hash of the schema as written, and validating that schema: the server's long result is valid there.
    const advertised = outputValidators[sha256Of(ADVERTISED, "t", "")];
    expect(Object.keys(outputValidators)).toEqual([sha256Of(ADVERTISED, "t", "")]);
    expect(advertised?.(long)).toBe(true);
    expect(advertised?.({ content: 1 })).toBe(false);
    expect(advertised).not.toBe(validateResult);
    // The contract file's own hash and the catalog's outputSchemaSha256 are the advertised schema's.
    const index = await readFile(path.join(folder.out, "index.ts"), "utf8");
    expect(index).toContain(sha256Of(ADVERTISED, "t", ""));
    expect(await typeCheck(folder)).toBe("");
  });

  it("keeps the tighter of two bounds, intersects enums, unites required and adds a second pattern", async () => {
    const schemas = await writeContracts("refine-merge", {
      "t.tool.json": {
        name: "t",
        outputSchema: {
          type: "object",
          properties: {
            a: { type: "string", maxLength: 10, pattern: "^[a-z]*$" },
            b: { enum: ["x", "y", "z"] },
            c: { type: "integer", minimum: 5 },
          },
          required: ["a"],
        },
        "x-toolgate": {
          receive: { maxBytes: 10_000 },
          refine: {
            "/properties/a": { maxLength: 500, pattern: "^a" },
            "/properties/b": { enum: ["y", "z", "w"] },
            "/properties/c": { minimum: 1, maximum: 9 },
            "": { required: ["b"], additionalProperties: false, maxProperties: 3 },
          },
        },
      },
    });
    const folder = await generateInto(schemas);
    const { validateResult } = await importGenerated<{ validateResult: Validate }>(folder, "t/validate.js");
    const valid = { a: "abc", b: "y", c: 5 };
    expect(validateResult(valid)).toBe(true);
    expect(validateResult({ ...valid, a: "abcdefghijk" })).toBe(false); // the schema's maxLength 10 still holds
    expect(validateResult({ ...valid, a: "bcd" })).toBe(false); // the overlay's pattern
    expect(validateResult({ ...valid, a: "aB" })).toBe(false); // the schema's pattern
    expect(validateResult({ ...valid, b: "x" })).toBe(false); // not in both enums
    expect(validateResult({ ...valid, b: "w" })).toBe(false);
    expect(validateResult({ ...valid, c: 4 })).toBe(false); // the schema's minimum 5 still holds
    expect(validateResult({ ...valid, c: 10 })).toBe(false);
    expect(validateResult({ a: "a", c: 5 })).toBe(false); // b now required
    expect(validateResult({ ...valid, d: 1 })).toBe(false); // closed
    // The types follow the refined schema: b is required, and only "y" | "z".
    const types = await readFile(path.join(folder.out, "t/types.ts"), "utf8");
    expect(types).toMatch(/b: "y" \| "z";/);
  });
});

describe("refinements a contract may not make", () => {
  it("a keyword that does not narrow, at its own pointer", async () => {
    const errors = await errorsOf("widen", {
      "/properties/content": { type: ["string", "null"], maxLength: 10 },
      "": { additionalProperties: { type: "string" } },
    });
    expect(errors).toEqual([
      "/x-toolgate/refine//additionalProperties: only `false` narrows: a schema for the other properties may accept what the contract refuses today",
      expect.stringMatching(
        /^\/x-toolgate\/refine\/~1properties~1content\/type: `type` cannot refine a schema: an overlay may only narrow/,
      ),
    ]);
  });

  it("a pointer that names no subschema", async () => {
    const errors = await errorsOf("pointer", {
      "/properties/missing": { maxLength: 1 },
      "/properties": { maxLength: 1 },
    });
    expect(errors).toEqual([
      '/x-toolgate/refine/~1properties: "/properties" names no subschema of the output schema as written (a pointer such as "/properties/content" or "/items")',
      '/x-toolgate/refine/~1properties~1missing: "/properties/missing" names no subschema of the output schema as written (a pointer such as "/properties/content" or "/items")',
    ]);
  });

  it("a format that the validator does not assert, or an enum that leaves nothing", async () => {
    expect(await errorsOf("format", { "/properties/content": { format: "uri" } })).toEqual([
      '/x-toolgate/refine/~1properties~1content/format: a format narrows only when the validator asserts it: set "formats": "assert" in x-toolgate (the draft-07 default is an annotation)',
    ]);
    const schemas = await writeContracts("refine-enum", {
      "t.tool.json": {
        name: "t",
        outputSchema: { enum: ["a", "b"] },
        "x-toolgate": { refine: { "": { enum: ["c"] } } },
      },
    });
    expect((await contractErrors(schemas)).map((e) => `${e.pointer}: ${e.message}`)).toEqual([
      "/x-toolgate/refine//enum: no value of the schema's own enum is left: the result could never be valid",
    ]);
  });

  it("a refinement of a result without a schema", async () => {
    const schemas = await writeContracts("refine-text", {
      "t.tool.json": { name: "t", "x-toolgate": { receive: { maxBytes: 1000 }, refine: { "": { maxLength: 5 } } } },
    });
    expect((await contractErrors(schemas)).map((e) => `${e.pointer}: ${e.message}`)).toEqual([
      "/x-toolgate/refine: a text result has no output schema to refine: bound it with receive.maxBytes and result.content",
    ]);
  });
});

describe("toolgate diff and refinements", () => {
  it("reports a tightened overlay bound as tightened, at its place in x-toolgate.refine", async () => {
    const options = { projectRoot: process.cwd(), remotes: [] };
    const base = await writeContracts("refine-diff-base", {
      "t.tool.json": contract({ "/properties/content": { maxLength: 200_000 } }, { receive: { maxBytes: 1_048_576 } }),
    });
    const head = await writeContracts("refine-diff-head", {
      "t.tool.json": contract({ "/properties/content": { maxLength: 1000 } }, { receive: { maxBytes: 1_048_576 } }),
    });
    const changes = diffSnapshots(await snapshotFolder(base, options), await snapshotFolder(head, options));
    expect(changes).toEqual([
      expect.objectContaining({
        class: "tightened",
        area: "result",
        pointer: "/x-toolgate/refine/~1properties~1content/maxLength",
        path: "/content",
        before: 200_000,
        after: 1000,
      }),
    ]);
    expect(changes[0]?.summary).toMatch(/\(x-toolgate\.refine\)$/);
    // Removing the overlay widens what the gate accepts: breaking for the result's consumers.
    const none = await writeContracts("refine-diff-none", {
      "t.tool.json": contract({}, { receive: { maxBytes: 1_048_576 } }),
    });
    const removed = diffSnapshots(await snapshotFolder(head, options), await snapshotFolder(none, options));
    expect(removed).toEqual([
      expect.objectContaining({ class: "breaking", pointer: "/x-toolgate/refine/~1properties~1content/maxLength" }),
    ]);
  });
});
