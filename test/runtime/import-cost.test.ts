/**
 * `@toolgate/runtime` stays cheap to import: the tokenizer, OpenTelemetry and Node's file system are loaded only
 * when a contract or a sink needs them, and the runtime never pulls in build-time code. What a first result that
 * fits its budget does not run stays out of the import graph too (the oversize policies, the read-back pages), and
 * that first result loads none of Node's lazy modules it has no use for (fetch's undici, Web Crypto, the worker
 * threads a large payload's hash is taken on).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { ensureBuilt } from "../build.js";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../..");

async function runtimeGraph(): Promise<Metafile> {
  const result = await build({
    entryPoints: ["runtime/index.ts"],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    external: ["gpt-tokenizer/*", "@opentelemetry/*", "node:*"],
    logLevel: "silent",
  });
  return result.metafile;
}

/** Every module `from` loads when it is imported: its static imports, followed to the end. */
function loadedAtImport(metafile: Metafile, from: string): Set<string> {
  const loaded = new Set([from]);
  const pending = [from];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const entry of metafile.inputs[file]?.imports ?? []) {
      if (entry.kind !== "import-statement" || entry.external || loaded.has(entry.path)) continue;
      loaded.add(entry.path);
      pending.push(entry.path);
    }
  }
  return loaded;
}

/** Modules only an over-budget result, a text result or a read-back call runs, each reached by a dynamic import. */
const LOADED_ON_DEMAND = [
  "runtime/policies/chain.ts",
  "runtime/policies/drop.ts",
  "runtime/policies/recall.ts",
  "runtime/policies/shorten.ts",
  "runtime/policies/shorten-view.ts",
  "runtime/policies/spill.ts",
  "runtime/policies/summarize.ts",
  "runtime/read-back/open.ts",
  "runtime/read-back/pages.ts",
  "runtime/read-back/render.ts",
  "runtime/read-back/select.ts",
  "runtime/stages/text-view.ts",
];

/**
 * A fresh process imports the built runtime, admits an MCP result within its budget and reports which of Node's
 * lazily loaded internals that loaded; then it admits one over budget (which loads the policy chain) and answers a
 * read-back call (which loads the pages), so the modules loaded on demand are found in the built package too.
 */
const RUNTIME = pathToFileURL(path.join(REPO, "runtime/dist/index.js")).href;
const SCRIPT = `
const { defineTool, MemorySpillStore, project, readBack } = await import(${JSON.stringify(RUNTIME)});
const plan = { kind: "object", properties: { items: { kind: "array", items: { kind: "value" } } } };
const adapter = defineTool({
  name: "list_items",
  contract: { version: "1", sha256: "c".repeat(64), file: "list_items.tool.json" },
  validateResult: (value) => typeof value === "object" && value !== null && Array.isArray(value.items),
  view: { plan, maxStringChars: 2000 },
  buildView: (data) => project(data, plan, { maxStringChars: 2000 }),
  limits: { maxBytes: 65536, maxDepth: 4 },
  context: { unit: "bytes", max: 400 },
  oversize: ["shorten"], recallLimit: 1, summaryMax: 200, spillPreview: 2, retry: {}, fields: [],
  exposeToolError: false, mcp: {},
  result: { kind: "structured", content: { maxBlocks: 16, text: { maxCount: 16 }, resourceLink: { maxCount: 32 } } },
});
const mcpResult = (items) => ({
  structuredContent: { items },
  content: [{ type: "text", text: JSON.stringify({ items }) }],
});
const lazy = () => process.moduleLoadList.filter((name) => /undici|webcrypto|worker_threads/.test(name));
const fits = await adapter.admit(mcpResult([1, 2, 3]));
const afterFit = lazy();
const over = await adapter.admit(mcpResult(Array.from({ length: 200 }, (_, i) => i)));
const read = await readBack(new MemorySpillStore()).handle({ handle: "spill_" + "0".repeat(32) });
console.log(JSON.stringify({
  fits: fits.ok && (fits.policy ?? "direct"),
  over: over.ok && over.policy,
  read: read.ok || read.error.code,
  afterFit,
}));
`;

describe("runtime imports", () => {
  it("loads gpt-tokenizer and node modules only through dynamic import, and no build-time code", async () => {
    const metafile = await runtimeGraph();
    const inputs = Object.entries(metafile.inputs);
    // Build-time code (the generator, the templates) never reaches the runtime.
    expect(inputs.map(([path]) => path).filter((path) => /^(generator|templates)\//.test(path))).toEqual([]);
    const imports = inputs.flatMap(([from, input]) => input.imports.map((entry) => ({ from, ...entry })));
    const external = imports.filter((entry) => entry.external);
    expect(external.length).toBeGreaterThan(0);
    for (const entry of external) expect([entry.path, entry.kind]).toEqual([entry.path, "dynamic-import"]);
    expect(external.map((entry) => entry.path)).toContain("gpt-tokenizer/encoding/o200k_base");
    expect(imports.some((entry) => entry.path.includes("@opentelemetry"))).toBe(false);
  });

  it("leaves the oversize policies and the read-back pages out of what importing the runtime loads", async () => {
    const metafile = await runtimeGraph();
    const atImport = loadedAtImport(metafile, "runtime/index.ts");
    // The graph is read right: what every admit runs is there.
    expect(atImport).toContain("runtime/gate/admit.ts");
    expect(atImport).toContain("runtime/policies/direct.ts");
    for (const file of LOADED_ON_DEMAND) {
      // Still part of the runtime, through a dynamic import, and not loaded with it.
      expect(Object.keys(metafile.inputs)).toContain(file);
      expect([file, atImport.has(file)]).toEqual([file, false]);
    }
  });

  it("admits a first MCP result without loading fetch, Web Crypto or threads, then one over budget through shorten", async () => {
    await ensureBuilt();
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", SCRIPT], { cwd: REPO });
    expect(JSON.parse(stdout)).toEqual({
      fits: "direct",
      over: "shorten",
      read: "unknown_handle",
      afterFit: [],
    });
  }, 60_000);
});
