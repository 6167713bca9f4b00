/**
 * `watchCatalog`: a long-lived process's catalog replaced when its compiled folder changes and verifies against its
 * lock; an adapter taken before the swap keeps gating by its contract; a folder that does not verify (an adapter
 * left from an earlier build, a validator edited by hand, a lock half written) is refused by name and the current
 * catalog kept.
 */
import { execFileSync } from "node:child_process";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CatalogRefusedError, type CatalogWatch, watchCatalog } from "../../runtime/index.js";
import { ensureBuilt } from "../build.js";
import { scratchFolders } from "../generator/mcp/scratch.js";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const scratch = scratchFolders("catalog-watch-");

/** The contract of `lookup`, at `version`, showing its note to the model or not. */
function contract(version: string, showNote: boolean): string {
  return JSON.stringify({
    name: "lookup",
    inputSchema: { type: "object", properties: { id: { type: "integer" } } },
    outputSchema: {
      type: "object",
      properties: { id: { type: "integer" }, note: { type: "string", maxLength: 100 } },
      required: ["id"],
      additionalProperties: false,
    },
    "x-toolgate": { version, receive: { maxBytes: 4096 }, ...(showNote ? {} : { view: { omit: ["/note"] } }) },
  });
}

/** The catalog of `contractText` generated, then compiled to JavaScript beside its lock, as an application ships it. */
async function build(work: string, contractText: string): Promise<string> {
  const schemas = path.join(work, "schemas");
  const generated = path.join(work, "generated");
  const compiled = path.join(work, "compiled");
  await rm(schemas, { recursive: true, force: true });
  await mkdir(schemas, { recursive: true });
  await writeFile(path.join(schemas, "lookup.tool.json"), contractText);
  execFileSync(process.execPath, [BIN, "generate", "--schemas", schemas, "--out", generated], { cwd: work });
  const { ts } = await import("ts-morph");
  await rm(compiled, { recursive: true, force: true });
  for (const entry of await readdir(generated, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith(".d.ts")) continue;
    const from = path.join(entry.parentPath, entry.name);
    const to = path.join(compiled, path.relative(generated, from)).replace(/\.ts$/, ".js");
    await mkdir(path.dirname(to), { recursive: true });
    const text = await readFile(from, "utf8");
    const js = entry.name.endsWith(".ts")
      ? ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
          .outputText
      : text;
    await writeFile(to, js);
  }
  return compiled;
}

/** Waits until `done` holds. */
async function until(done: () => boolean, timeoutMs = 30_000): Promise<void> {
  for (const started = Date.now(); !done() && Date.now() - started < timeoutMs; ) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  expect(done()).toBe(true);
}

const RESULT = JSON.stringify({ id: 7, note: "the customer asked for a call back" });

describe("watchCatalog", () => {
  let work: string;
  let served: string;
  let stash: string;
  let watch: CatalogWatch;
  const swaps: string[] = [];
  const refused: CatalogRefusedError[] = [];

  beforeAll(async () => {
    await ensureBuilt();
    work = await scratch();
    stash = await scratch();
    // Version 1, kept aside: its adapter is what an earlier build left.
    await cp(await build(stash, contract("1", true)), path.join(stash, "v1"), { recursive: true });
    served = path.join(work, "app", "catalog");
    await cp(path.join(stash, "v1"), served, { recursive: true });
    watch = await watchCatalog(served, {
      debounceMs: 100,
      onSwap: (next) => swaps.push(next.version),
      onRefuse: (error) => refused.push(error),
    });
  }, 120_000);

  it("loads the catalog at start: a legitimate result reaches the model whole", async () => {
    expect(Object.keys(watch.current.catalog)).toEqual(["lookup"]);
    const outcome = await watch.adapter("lookup")?.admit(RESULT);
    expect(outcome?.ok).toBe(true);
    expect(outcome?.ok && outcome.view).toEqual({ id: 7, note: "the customer asked for a call back" });
    expect(watch.adapter("constructor")).toBeUndefined();
  });

  it("swaps in the changed folder once it verifies; an adapter taken before keeps its contract", async () => {
    const before = watch.adapter("lookup");
    const version = watch.current.version;
    const next = await build(work, contract("2", false));
    await rm(served, { recursive: true, force: true });
    await cp(next, served, { recursive: true });
    await until(() => watch.current.version !== version && watch.adapter("lookup")?.spec.contract.version === "2");
    expect(swaps).toContain(watch.current.version);
    const now = await watch.adapter("lookup")?.admit(RESULT);
    expect(now?.ok && now.view).toEqual({ id: 7 });
    const old = await before?.admit(RESULT);
    expect(old?.ok && old.view).toEqual({ id: 7, note: "the customer asked for a call back" });
  }, 60_000);

  it("refuses an adapter left from an earlier build, naming it, and keeps the catalog", async () => {
    const version = watch.current.version;
    refused.length = 0;
    await cp(path.join(stash, "v1", "lookup", "adapter.js"), path.join(served, "lookup", "adapter.js"));
    await watch.reload();
    expect(watch.current.version).toBe(version);
    expect(refused.map(String).join("\n")).toMatch(/lookup's adapter: was built from another contract/);
    const outcome = await watch.adapter("lookup")?.admit(RESULT);
    expect(outcome?.ok && outcome.view).toEqual({ id: 7 });
  });

  it("refuses a validator edited by hand, and a lock half written", async () => {
    const version = watch.current.version;
    await cp(path.join(work, "compiled", "lookup", "adapter.js"), path.join(served, "lookup", "adapter.js"));
    refused.length = 0;
    const validators = path.join(served, "validators.js");
    const original = await readFile(validators, "utf8");
    await writeFile(validators, `${original}\n// edited\n`);
    await watch.reload();
    expect(refused.map((error) => error.message)).toContain(
      "validators.js: is not the file the lock records (stale, or edited by hand)",
    );
    await writeFile(validators, original);
    refused.length = 0;
    const lock = path.join(served, "toolgate.lock.json");
    await writeFile(lock, (await readFile(lock, "utf8")).slice(0, 100));
    await watch.reload();
    expect(refused.map(String).join("\n")).toMatch(/toolgate\.lock\.json: is not JSON/);
    expect(refused.every((error) => error instanceof CatalogRefusedError)).toBe(true);
    expect(watch.current.version).toBe(version);
    expect((await watch.adapter("lookup")?.admit(RESULT))?.ok).toBe(true);
    await watch.close();
  });
});
