/**
 * `toolgate import` writes `view.strings[path].overflow: "lines"` for every string field of a structured tool's
 * output schema that has no `maxLength` (nor a `const` or `enum`), at the view paths `generate` plans, so a long
 * file or log reaches the model as whole lines; it writes none for a text or JSON-in-text tool, and a contract's
 * own block is kept on re-import and `--force`.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importTools, type ToolSource } from "../../../generator/mcp/import.js";
import { IMPORTED_LINES_MAX } from "../../../generator/mcp/view-settings.js";
import { unboundedStringPaths } from "../../../generator/model/view-plan.js";
import { generate } from "../../../generator/pipeline.js";
import { scratchFolders } from "./scratch.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const freshFolder = scratchFolders("mcp-view-settings-");

function sources(...definitions: unknown[]): ToolSource[] {
  return definitions.map((definition, i) => ({ definition, origin: `test#${i}` }));
}

/** A tool whose result has strings of every kind: unbounded, bounded, decided, below arrays, refs and unions. */
const browse = {
  name: "browse",
  inputSchema: { type: "object" },
  outputSchema: {
    type: "object",
    properties: {
      snapshot: { type: "string" },
      title: { type: "string", maxLength: 200 },
      status: { type: "string", enum: ["ok", "partial"] },
      kind: { const: "page" },
      "a/b~c": { type: "string" },
      console: { type: "array", maxItems: 50, items: { $ref: "#/$defs/entry" } },
      note: { anyOf: [{ type: "string" }, { type: "number" }] },
      size: { type: "integer" },
    },
    additionalProperties: false,
    $defs: {
      entry: {
        type: "object",
        properties: { level: { type: "string", maxLength: 8 }, message: { type: "string" } },
      },
    },
  },
};

const LINES = { overflow: "lines", max: IMPORTED_LINES_MAX };

async function contractOf(out: string, name: string) {
  return JSON.parse(await readFile(path.join(out, `${name}.tool.json`), "utf8"));
}

describe("import and long strings", () => {
  it("shows every string without maxLength as whole lines, at the paths the view plans", async () => {
    const out = await freshFolder();
    const report = await importTools(sources(browse), { out });
    expect(report.refused).toEqual([]);
    const contract = await contractOf(out, "browse");
    expect(contract["x-toolgate"].view).toEqual({
      strings: { "/a~1b~0c": LINES, "/console/*/message": LINES, "/note": LINES, "/snapshot": LINES },
    });
    // What generate makes of it: the contract is accepted and its plan shows those strings as lines.
    const result = await generate({ schemas: out, projectRoot: repo });
    expect(result.ok ? [] : result.errors.map(String)).toEqual([]);
    if (!result.ok) return;
    const view = [...result.files].find(([file]) => file === "browse/view.ts")?.[1] ?? "";
    expect(view.match(/overflow: "lines"/g)).toHaveLength(4);
    // title, status, kind and the entries' level stay excerpts: their schemas bound them.
    expect(view.match(/overflow: "excerpt"/g)).toHaveLength(4);
  });

  it("plans the paths as the view does: refs, tuples, nested arrays, a string root", () => {
    expect(
      unboundedStringPaths({
        type: "object",
        properties: {
          rows: { type: "array", items: { type: "array", items: { type: "string" } } },
          pair: { type: "array", prefixItems: [{ type: "string", maxLength: 3 }, { type: "string" }] },
          tree: { $ref: "#/$defs/node" },
        },
        $defs: { node: { type: "object", properties: { label: { type: "string" }, kids: { $ref: "#/$defs/node" } } } },
      }),
    ).toEqual(["/pair/*", "/rows/*/*", "/tree/kids/label", "/tree/label"]);
    expect(unboundedStringPaths({ type: "string" })).toEqual([""]);
    expect(unboundedStringPaths({ type: "string", maxLength: 10 })).toEqual([]);
  });

  it("writes no view for a text or JSON-in-text tool, nor for a schema whose strings are all bounded", async () => {
    const out = await freshFolder();
    const bounded = {
      name: "status",
      inputSchema: { type: "object" },
      outputSchema: { type: "object", properties: { state: { type: "string", maxLength: 20 } } },
    };
    const report = await importTools(
      sources(
        { name: "shell", inputSchema: { type: "object" } },
        { name: "query", inputSchema: { type: "object" } },
        bounded,
      ),
      { out, jsonText: ["query"] },
    );
    expect(report.imported.map((tool) => [tool.tool, tool.kind])).toEqual([
      ["query", "json_text"],
      ["shell", "text"],
      ["status", "structured"],
    ]);
    for (const name of ["query", "shell", "status"]) {
      expect((await contractOf(out, name))["x-toolgate"].view, name).toBeUndefined();
    }
  });

  it("keeps the user's view on re-import and --force, and adds nothing to a block it keeps", async () => {
    const out = await freshFolder();
    await importTools(sources(browse), { out });
    const file = path.join(out, "browse.tool.json");
    const contract = await contractOf(out, "browse");
    // The user wants the snapshot as an excerpt of 8000 characters, and the rest as import wrote it but the note.
    contract["x-toolgate"].view = { strings: { "/snapshot": { max: 8000, overflow: "excerpt" } } };
    await writeFile(file, `${JSON.stringify(contract, null, 2)}\n`);
    // The definition did not change: the contract, the user's block in it, is unchanged.
    const again = await importTools(sources(browse), { out, force: true });
    expect(again.imported[0]?.status).toBe("unchanged");
    expect((await contractOf(out, "browse"))["x-toolgate"].view).toEqual({
      strings: { "/snapshot": { max: 8000, overflow: "excerpt" } },
    });
    // The server adds a field: the kept block is the user's and gets no entry for it.
    const grown = structuredClone(browse);
    (grown.outputSchema.properties as Record<string, unknown>).log = { type: "string" };
    const forced = await importTools(sources(grown), { out, force: true });
    expect(forced.imported[0]?.notes).toContain("the existing x-toolgate block was kept");
    expect((await contractOf(out, "browse"))["x-toolgate"].view).toEqual({
      strings: { "/snapshot": { max: 8000, overflow: "excerpt" } },
    });
    // Unchanged when nothing changed.
    const same = await importTools(sources(grown), { out });
    expect(same.imported[0]?.status).toBe("unchanged");
  });

  it("is refused by the contract schema only for an overflow it does not know", async () => {
    const out = await freshFolder();
    await importTools(sources(browse), { out });
    const contract = await contractOf(out, "browse");
    contract["x-toolgate"].view.strings["/snapshot"] = { overflow: "paragraphs" };
    await writeFile(path.join(out, "browse.tool.json"), `${JSON.stringify(contract, null, 2)}\n`);
    const result = await generate({ schemas: out, projectRoot: repo });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(String).join("\n")).toMatch(/view\/strings\/~1snapshot\/overflow/);
  });
});
