/**
 * The front door for contracts: `generate`, `diff` and `import` read a contract through the same stages, so they
 * agree. Invariants: a schema one of them refuses, each refuses with the same pointer and message; a loaded file
 * keeps its errors and names the earlier file of a duplicate tool; the settings every command sees have the same
 * defaults applied.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { loadContracts, prepareContract } from "../../../generator/contract/index.js";
import { applyDefaults, DEFAULTS } from "../../../generator/contract/x-toolgate.js";
import { effectiveSettings, snapshotFolder } from "../../../generator/diff/snapshot.js";
import { importTools } from "../../../generator/mcp/import.js";
import { generate } from "../../../generator/pipeline.js";

const WORK = path.resolve(".tmp", "front-door");
const SCHEMAS = path.join(WORK, "schemas");

const BOUNDED = { type: "object", properties: { id: { type: "string", maxLength: 8 } }, additionalProperties: false };

function tool(name: string, outputSchema: unknown, extra: object = {}) {
  return { name, outputSchema, ...extra };
}

async function contracts(files: Record<string, unknown>): Promise<void> {
  await rm(WORK, { recursive: true, force: true });
  await mkdir(SCHEMAS, { recursive: true });
  for (const [file, document] of Object.entries(files)) {
    await writeFile(path.join(SCHEMAS, file), JSON.stringify(document));
  }
}

const resolveOptions = () => ({ projectRoot: process.cwd(), remotes: [], roots: [SCHEMAS] });

describe("one front door for contracts", () => {
  beforeEach(async () => {
    await contracts({});
  });

  it("refuses a schema the same way in generate, diff and import", async () => {
    // Declared 2020-12, an `items` array checks nothing: refused (undeclared, it would be read as draft-07).
    const tuple = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      items: [{ type: "string" }],
    };
    await contracts({ "t.tool.json": tool("t", tuple) });
    const generated = await generate({ schemas: SCHEMAS });
    const reviewed = await snapshotFolder(SCHEMAS, resolveOptions());
    const imported = await importTools([{ definition: tool("t", tuple), origin: "x" }], {
      out: path.join(WORK, "imported"),
    });
    expect(generated.ok).toBe(false);
    const errors = generated.ok ? [] : generated.errors;
    expect(errors.map((e) => [e.pointer, e.message])).toEqual(reviewed.errors.map((e) => [e.pointer, e.message]));
    expect(errors[0]?.pointer).toBe("/outputSchema/items");
    expect(imported.refused).toEqual([{ tool: "t", reason: `#${errors[0]?.pointer}: ${errors[0]?.message}` }]);
  });

  it.each([
    [
      "an input pattern that backtracks with nothing bounding it",
      {
        ...tool("t", BOUNDED),
        inputSchema: { type: "object", properties: { q: { type: "string", pattern: "x+x+y" } } },
      },
      "/inputSchema/properties/q/pattern",
    ],
    [
      "an exponential output pattern, bounded or not",
      tool("t", { type: "string", maxLength: 16, pattern: "^(a|a)*b$" }),
      "/outputSchema/pattern",
    ],
    [
      "a schema the validator stage refuses (a property named __proto__)",
      JSON.parse(
        '{"name":"t","outputSchema":{"type":"object","properties":{"__proto__":{"type":"string","maxLength":3}}},"x-toolgate":{"receive":{"maxBytes":4096}}}',
      ),
      "/outputSchema",
    ],
  ])(
    "import refuses what generate refuses past the front door, with the same message: %s",
    async (_name, definition, at) => {
      await contracts({ "t.tool.json": definition });
      const generated = await generate({ schemas: SCHEMAS });
      const imported = await importTools([{ definition, origin: "x" }], { out: path.join(WORK, "imported") });
      expect(generated.ok).toBe(false);
      const errors = generated.ok ? [] : generated.errors;
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]?.pointer.startsWith(at)).toBe(true);
      expect(imported.refused).toEqual([
        { tool: "t", reason: errors.map((e) => `#${e.pointer}: ${e.message}`).join("; ") },
      ]);
      expect(imported.imported).toEqual([]);
    },
  );

  it("import writes, and generate accepts, a bounded polynomial pattern (positive control)", async () => {
    const label = { type: "string", maxLength: 63, pattern: "^[a-z0-9]+(?:[a-z0-9-]*[a-z0-9])?$" };
    const definition = { ...tool("t", BOUNDED), inputSchema: { type: "object", properties: { name: label } } };
    const out = path.join(WORK, "imported");
    const imported = await importTools([{ definition, origin: "x" }], { out });
    expect(imported.refused).toEqual([]);
    expect(imported.imported.map((entry) => entry.status)).toEqual(["written"]);
    const generated = await generate({ schemas: out });
    expect(generated.ok ? [] : generated.errors.map(String)).toEqual([]);
  });

  it("keeps every file, its errors, and the earlier file of a duplicate tool", async () => {
    await contracts({ "a.tool.json": tool("same", BOUNDED), "b.tool.json": tool("same", BOUNDED), "c.tool.json": [] });
    const loaded = await loadContracts(SCHEMAS, [process.cwd()]);
    expect(loaded.map((entry) => path.basename(entry.file))).toEqual(["a.tool.json", "b.tool.json", "c.tool.json"]);
    expect(loaded[0]?.duplicateOf).toBeUndefined();
    expect(loaded[1]?.duplicateOf).toBe(loaded[0]?.contract?.file);
    expect(loaded[2]?.contract).toBeUndefined();
    expect(loaded[2]?.errors.map((e) => e.message)).toEqual(["a contract is a JSON object (an MCP Tool)"]);
  });

  it("prepares a contract with its defaults applied, as diff compares them", async () => {
    await contracts({ "t.tool.json": tool("t", BOUNDED, { "x-toolgate": { context: { unit: "bytes" } } }) });
    const [entry] = await loadContracts(SCHEMAS, [process.cwd()]);
    const prepared = await prepareContract(entry?.contract as never, resolveOptions());
    expect(prepared.result?.dialect).toBe("2020-12");
    expect(prepared.input).toBeUndefined();
    expect(prepared.settings).toEqual(applyDefaults({ context: { unit: "bytes" } }));
    expect(prepared.settings.context).toEqual({ unit: "bytes", max: DEFAULTS.context.max, tokenizer: undefined });
    expect(prepared.settings.receive).toEqual({ maxBytes: undefined, maxDepth: undefined, timeoutMs: 30_000 });
    const shown = effectiveSettings({ context: { unit: "bytes" } });
    expect(shown.context).toEqual({ unit: "bytes", max: DEFAULTS.context.max, tokenizer: null });
    expect(shown.receive).toEqual({ maxBytes: "derived", maxDepth: "derived", timeoutMs: 30_000 });
  });
});
