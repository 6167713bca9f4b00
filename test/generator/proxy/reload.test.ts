/**
 * The proxy's reloader: one load at a time with one more queued, a burst of changes settled into one load, a stale
 * generated folder refused by name with the served catalog kept, a newly refused contract refused, and another
 * replica's version followed only when this folder verifies as it.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ContractError } from "../../../generator/contract/errors.js";
import { loadProxyCatalog, type ProxyCatalog } from "../../../generator/proxy/catalog.js";
import { CatalogReloader, LiveCatalog } from "../../../generator/proxy/reload.js";
import { scratchFolders } from "../mcp/scratch.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const scratch = scratchFolders("proxy-reloader-");

/** A catalog with no tools but a version (and the contract errors it refused). */
function catalog(version: string, errors: ContractError[] = []): ProxyCatalog {
  return {
    findTool: () => undefined,
    names: [],
    prefixes: [],
    folder: "",
    version,
    refused: { errors, tools: new Set(), unnamed: 0 },
  };
}

/** A load whose every call waits until `release` is called, counting the calls. */
function gatedLoad(result: () => ProxyCatalog) {
  const waiting: Array<() => void> = [];
  let calls = 0;
  return {
    load: async () => {
      calls++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return result();
    },
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
    calls: () => calls,
  };
}

describe("CatalogReloader", () => {
  it("loads once at a time, and queues one more load for any number of changes during one", async () => {
    const live = new LiveCatalog(catalog("v1"));
    let next = 2;
    const gated = gatedLoad(() => catalog(`v${next++}`));
    const reloader = new CatalogReloader({ live, load: gated.load, folders: [], log: () => undefined });
    void reloader.request("change");
    for (let i = 0; i < 10; i++) void reloader.request("change");
    await new Promise((r) => setTimeout(r, 20));
    expect(gated.calls()).toBe(1);
    gated.release();
    await new Promise((r) => setTimeout(r, 20));
    expect(gated.calls()).toBe(2);
    gated.release();
    await reloader.idle();
    expect(gated.calls()).toBe(2);
    expect(live.current.version).toBe("v3");
  });

  it("settles a burst of writes in a watched folder into one load", async () => {
    const folder = await scratch();
    const live = new LiveCatalog(catalog("v1"));
    let loads = 0;
    const reloader = new CatalogReloader({
      live,
      load: async () => catalog(`v${++loads + 1}`),
      folders: [folder],
      debounceMs: 300,
      log: () => undefined,
    });
    reloader.start();
    for (let i = 0; i < 10; i++) await writeFile(path.join(folder, `c${i}.tool.json`), "{}");
    for (let wait = 0; loads === 0 && wait < 100; wait++) await new Promise((r) => setTimeout(r, 20));
    await reloader.idle();
    await new Promise((r) => setTimeout(r, 400));
    await reloader.close();
    expect(loads).toBe(1);
    expect(live.current.version).toBe("v2");
  });

  it("swaps in one step and tells each subscriber; a call that took the old catalog keeps it", async () => {
    const live = new LiveCatalog(catalog("v1"));
    const seen: string[] = [];
    const unsubscribe = live.subscribe(() => seen.push(live.current.version));
    const taken = live.current;
    const reloader = new CatalogReloader({ live, load: async () => catalog("v2"), folders: [], log: () => undefined });
    await reloader.request("change");
    expect(taken.version).toBe("v1");
    expect(live.current.version).toBe("v2");
    expect(seen).toEqual(["v2"]);
    unsubscribe();
  });

  it("refuses a contract the served catalog does not refuse, and keeps serving", async () => {
    const known = new ContractError("schemas/old.tool.json", "/outputSchema", "already refused");
    const live = new LiveCatalog(catalog("v1", [known]));
    const lines: string[] = [];
    const fresh = new ContractError("schemas/echo.tool.json", "/inputSchema/properties/q/pattern", "backtracks");
    let offer = catalog("v2", [known, fresh]);
    const reloader = new CatalogReloader({ live, load: async () => offer, folders: [], log: (l) => lines.push(l) });
    await reloader.request("change");
    expect(live.current.version).toBe("v1");
    expect(lines.join("\n")).toMatch(/reload refused, catalog v1 is kept:\n.*echo\.tool\.json#\/inputSchema/);
    expect(lines.join("\n")).not.toContain("old.tool.json");
    // A contract that was refused at start and still is does not hold back a reload of the others.
    offer = catalog("v3", [known]);
    await reloader.request("change");
    expect(live.current.version).toBe("v3");
  });

  it("refuses a stale generated folder, naming the file, and keeps the catalog it serves", async () => {
    const copy = path.join(await scratch(), "generated");
    await cp(path.join(REPO, "generated"), copy, { recursive: true });
    const load = () => loadProxyCatalog({ generated: copy, projectRoot: REPO });
    const live = new LiveCatalog(await load());
    const served = live.current;
    const lines: string[] = [];
    const reloader = new CatalogReloader({ live, load, folders: [], log: (line) => lines.push(line) });
    const adapter = path.join(copy, "get_record", "adapter.ts");
    await writeFile(adapter, `${await readFile(adapter, "utf8")}\n// edited by hand\n`);
    await reloader.request("change");
    expect(live.current).toBe(served);
    expect(lines.join("\n")).toMatch(
      /reload refused, catalog [0-9a-f]{16} is kept:\n.*get_record\/adapter\.ts.*run toolgate generate/,
    );
    // The served catalog still gates.
    const outcome = await live.findTool("get_record")?.adapter.admit("{");
    expect(outcome?.ok).toBe(false);
    expect(live.findTool("get_record")?.adapter.name).toBe("get_record");
  }, 120_000);

  it("follows another replica's version only when this folder verifies as it", async () => {
    const live = new LiveCatalog(catalog("aaaa"));
    const lines: string[] = [];
    let folder = catalog("bbbb");
    let loads = 0;
    const reloader = new CatalogReloader({
      live,
      load: async () => {
        loads++;
        return folder;
      },
      folders: [],
      log: (line) => lines.push(line),
    });
    await reloader.follow("cccc");
    expect(live.current.version).toBe("aaaa");
    expect(lines.join("\n")).toMatch(
      /the replicas serve catalog cccc, this folder verifies as bbbb: catalog aaaa is kept/,
    );
    folder = catalog("cccc");
    await reloader.follow("cccc");
    expect(live.current.version).toBe("cccc");
    // A version it held verified before is served again without a load.
    const before = loads;
    await reloader.follow("aaaa");
    expect(live.current.version).toBe("aaaa");
    expect(loads).toBe(before);
  });
});
