/**
 * Result kinds in contracts (`x-toolgate.result`): a contract without an output schema is a text (or content)
 * contract and generates; JSON kinds need a schema; what each kind generates (the spec's `result`, the data and view
 * types, a validator or none), and the mistakes a contract can make with kinds, each a contract error with its
 * pointer.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../generator/cli/main.js";
import { contractErrors, generateInto, importGenerated, typeCheck, writeContracts } from "../../hardening/scratch.js";

const INPUT = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const BOUNDED = { type: "object", properties: { id: { type: "string", maxLength: 8 } }, additionalProperties: false };

/** The generation errors of one contract, as `pointer: message`. */
async function errorsOf(name: string, contract: object): Promise<string[]> {
  const schemas = await writeContracts(`kind-${name}`, { "t.tool.json": { name: "t", ...contract } });
  return (await contractErrors(schemas)).map((error) => `${error.pointer}: ${error.message}`);
}

describe("a contract without an output schema", () => {
  it("is a text contract: it generates with its declared ceiling, a string result and the runtime's text view", async () => {
    const schemas = await writeContracts("kind-text", {
      "notes.tool.json": {
        name: "read_notes",
        inputSchema: INPUT,
        "x-toolgate": { receive: { maxBytes: 1_048_576 }, result: { text: { maxLines: 500 } } },
      },
      "shot.tool.json": {
        name: "take_shot",
        "x-toolgate": {
          receive: { maxBytes: 8_000_000 },
          result: { kind: "content", content: { image: { maxCount: 1 } } },
        },
      },
      "rec.tool.json": { name: "get_rec", outputSchema: BOUNDED },
    });
    const folder = await generateInto(schemas);
    const files = [...folder.result.files.keys()];
    // No schema, no validator: a text tool with an input schema validates only its arguments, one without has none.
    expect(files.filter((file) => file.startsWith("read_notes/"))).toEqual([
      "read_notes/adapter.ts",
      "read_notes/types.ts",
      "read_notes/validate.d.ts",
      "read_notes/validate.js",
      "read_notes/view.ts",
    ]);
    expect(files.filter((file) => file.startsWith("take_shot/"))).toEqual([
      "take_shot/adapter.ts",
      "take_shot/types.ts",
      "take_shot/view.ts",
    ]);
    const read = (file: string) => readFile(path.join(folder.out, file), "utf8");
    expect(await read("read_notes/validate.js")).not.toContain("validateResult");
    expect(await read("read_notes/types.ts")).toContain("export type ReadNotesResult = string;");
    expect(await read("read_notes/view.ts")).toContain("export type ReadNotesView = TextView;");
    expect(await read("take_shot/types.ts")).toContain("export type TakeShotResult = ContentPart[];");
    // The catalog's MCP validators hold only the tool that has a schema.
    const validators = await importGenerated<{ outputValidators: object }>(folder, "validators.js");
    expect(Object.keys(validators.outputValidators)).toHaveLength(1);
    expect(await typeCheck(folder)).toBe("");

    const notes = await importGenerated<{ readNotes: { spec: Record<string, unknown> } }>(
      folder,
      "read_notes/adapter.ts",
    );
    expect(notes.readNotes.spec.result).toEqual({
      kind: "text",
      text: { maxLines: 500, headShare: 0.67 },
      content: { maxBlocks: 16, text: { maxCount: 16 } },
    });
    expect(notes.readNotes.spec.limits).toMatchObject({ maxBytes: 1_048_576, maxDepth: 64 });
    expect(notes.readNotes.spec.validateResult).toBeUndefined();
    const shot = await importGenerated<{ takeShot: { spec: Record<string, unknown> } }>(folder, "take_shot/adapter.ts");
    // A rule given in part takes the rest of its defaults; a kind not named may not appear.
    expect(shot.takeShot.spec.result).toEqual({
      kind: "content",
      content: {
        maxBlocks: 16,
        image: { mimeTypes: ["image/png", "image/jpeg", "image/webp", "image/gif"], maxBytes: 5_242_880, maxCount: 1 },
      },
    });
    const rec = await importGenerated<{ getRec: { spec: Record<string, unknown> } }>(folder, "get_rec/adapter.ts");
    expect(rec.getRec.spec.result).toEqual({
      kind: "structured",
      content: { maxBlocks: 16, text: { maxCount: 16 }, resourceLink: { maxCount: 32 } },
    });
    expect(rec.getRec.spec.mcp).toEqual({});

    const lock = JSON.parse(await read("toolgate.lock.json"));
    expect(lock.tools.read_notes.schemas.output).toBeNull();
    expect(lock.tools.read_notes.result.kind).toBe("text");
  });

  it("needs its receive ceiling declared: there is no schema to derive it from", async () => {
    expect(await errorsOf("no-ceiling", { inputSchema: INPUT })).toEqual([
      "/x-toolgate/receive/maxBytes: a text result has no schema to derive its receive ceiling from, so it must be declared (toolgate import writes 1048576, 1 MiB)",
    ]);
  });

  it("may name no field of the result: it has none", async () => {
    const errors = await errorsOf("view-paths", {
      "x-toolgate": { receive: { maxBytes: 1000 }, view: { omit: ["/secret"] } },
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^\/x-toolgate\/view\/omit: a text result has no fields to name/);
  });
});

describe("kinds and schemas that do not fit together", () => {
  it("json_text needs an output schema", async () => {
    const errors = await errorsOf("json-text", { "x-toolgate": { result: { kind: "json_text" } } });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^: no `outputSchema`: a json_text result is checked against the output schema/);
  });

  it("a text or content result has no output schema", async () => {
    for (const kind of ["text", "content"]) {
      const errors = await errorsOf(`schema-${kind}`, {
        outputSchema: BOUNDED,
        "x-toolgate": { result: { kind } },
      });
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(new RegExp(`^/x-toolgate/result/kind: a ${kind} result has no output schema`));
    }
  });

  it("result.text belongs to the text kind", async () => {
    expect(await errorsOf("text-on-json", { outputSchema: BOUNDED, "x-toolgate": { result: { text: {} } } })).toEqual([
      "/x-toolgate/result/text: `result.text` bounds a text result's lines, and this result is structured",
    ]);
  });

  it("an unknown kind is refused by the x-toolgate schema, with the kinds listed", async () => {
    expect(await errorsOf("bad-kind", { "x-toolgate": { result: { kind: "html" } } })).toEqual([
      '/x-toolgate/result/kind: must be one of "structured", "json_text", "text", "content"',
    ]);
  });

  it("json_text generates like structured, with its own kind in the spec", async () => {
    const schemas = await writeContracts("kind-json-text", {
      "t.tool.json": { name: "search_issues", outputSchema: BOUNDED, "x-toolgate": { result: { kind: "json_text" } } },
    });
    const folder = await generateInto(schemas);
    const module = await importGenerated<{ searchIssues: { spec: Record<string, unknown> } }>(
      folder,
      "search_issues/adapter.ts",
    );
    expect(module.searchIssues.spec.result).toMatchObject({ kind: "json_text" });
    expect(module.searchIssues.spec.mcp).toEqual({});
    expect(typeof module.searchIssues.spec.validateResult).toBe("function");
  });
});

describe("generate's summary of a text tool", () => {
  it("says its ceiling is declared and that it has no output schema, not that it is fully bounded", async () => {
    const schemas = await writeContracts("kind-summary", {
      "t.tool.json": { name: "read_notes", "x-toolgate": { receive: { maxBytes: 4096 } } },
    });
    const out: string[] = [];
    const code = await main(["generate", "--schemas", schemas, "--out", path.join(path.dirname(schemas), "out")], {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    expect(code).toBe(0);
    expect(out.join("\n")).toMatch(
      /read_notes → read_notes\/ {2}ceiling 4096 B \(text result, declared\), .*, no output schema/,
    );
  });
});
