/**
 * The replicas' catalog version in a real `redis-server` (started on a free port): a change one replica verifies
 * becomes every replica's catalog once its own folder verifies as it, a replica whose folder is behind keeps what it
 * serves and says so, a replica that starts with an older folder does not move the others back, and a version a
 * replica held before is served again without a compile.
 */
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProxyCatalog } from "../../../generator/proxy/catalog.js";
import { type CatalogVersions, connectCatalogVersions } from "../../../generator/proxy/catalog-version.js";
import { CatalogReloader, LiveCatalog } from "../../../generator/proxy/reload.js";
import { freePort, type RedisServer, startRedisServer } from "../../fixtures/redis-server.js";

const KEY = "test:catalog";
const OLD = "0000000000000001";
const NEW = "0000000000000002";

let server: RedisServer;
let url: string;

beforeAll(async () => {
  server = await startRedisServer();
  url = server.url;
}, 20_000);

afterAll(() => {
  server?.stop();
});

/** A catalog with no tools, known by its version. */
function catalog(version: string): ProxyCatalog {
  return {
    findTool: () => undefined,
    names: [],
    prefixes: [],
    folder: "",
    version,
    refused: { errors: [], tools: new Set(), unnamed: 0 },
  };
}

/** One replica: what its folder verifies as now, its live catalog, its reloader tied to Redis, and its log. */
async function replica(folderVersion: string) {
  const state = { folder: folderVersion, loads: 0, lines: [] as string[] };
  const live = new LiveCatalog(catalog(folderVersion));
  let versions: CatalogVersions | undefined;
  const reloader = new CatalogReloader({
    live,
    load: async () => {
      state.loads++;
      return catalog(state.folder);
    },
    folders: [],
    log: (line) => state.lines.push(line),
    onChange: async (next) => versions?.publish(next.version),
  });
  versions = await connectCatalogVersions({
    url,
    key: KEY,
    serving: folderVersion,
    follow: (version) => void reloader.follow(version),
    log: (line) => state.lines.push(line),
  });
  return { state, live, reloader, close: () => Promise.all([reloader.close(), versions?.close()]) };
}

/** Waits until `done` holds (a published version reaches subscribers a moment later). */
async function until(done: () => boolean): Promise<void> {
  for (let wait = 0; !done() && wait < 200; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}

describe("the replicas' catalog version", () => {
  it("is every replica's once its folder verifies as it, and a restart does not move it back", async () => {
    const redis = createClient({ url });
    await redis.connect();
    const a = await replica(OLD);
    const b = await replica(OLD);
    expect(await redis.get(KEY)).toBe(OLD);

    // A's folder changes first; B's is not there yet: B keeps serving, and says why.
    a.state.folder = NEW;
    await a.reloader.request("change");
    expect(a.live.current.version).toBe(NEW);
    expect(await redis.get(KEY)).toBe(NEW);
    await until(() => b.state.loads > 0);
    await b.reloader.idle();
    expect(b.live.current.version).toBe(OLD);
    expect(b.state.lines.join("\n")).toContain(`the replicas serve catalog ${NEW}, this folder verifies as ${OLD}`);

    // B's folder catches up: it serves the replicas' version.
    b.state.folder = NEW;
    await b.reloader.request("change");
    expect(b.live.current.version).toBe(NEW);

    // A replica started from an older folder serves it (it has nothing else) but does not move the others back.
    const c = await replica(OLD);
    await until(() => c.state.loads > 0);
    await c.reloader.idle();
    expect(await redis.get(KEY)).toBe(NEW);
    expect(a.live.current.version).toBe(NEW);
    expect(b.live.current.version).toBe(NEW);
    expect(c.state.lines.join("\n")).toContain(`the replicas serve catalog ${NEW}`);

    // Rolled back on A: B held the old catalog verified, and serves it again without loading its folder.
    a.state.folder = OLD;
    const loads = b.state.loads;
    await a.reloader.request("change");
    await until(() => b.live.current.version === OLD);
    expect(b.state.loads).toBe(loads);
    expect(await redis.get(KEY)).toBe(OLD);

    await Promise.all([a.close(), b.close(), c.close()]);
    await redis.close();
  }, 30_000);

  it("ignores a value in the key that is no catalog version", async () => {
    const redis = createClient({ url });
    await redis.connect();
    const a = await replica(OLD);
    await redis.publish(KEY, "../../etc/passwd");
    await until(() => a.state.lines.some((line) => line.includes("ignored a catalog version")));
    expect(a.live.current.version).toBe(OLD);
    expect(a.state.loads).toBe(0);
    await a.close();
    await redis.close();
  });

  it("refuses a Redis nobody answers at, instead of waiting for it", async () => {
    const port = await freePort();
    const connecting = connectCatalogVersions({
      url: `redis://127.0.0.1:${port}`,
      serving: OLD,
      follow: () => undefined,
      log: () => undefined,
    });
    await expect(connecting).rejects.toThrow(/ECONNREFUSED/);
  });
});
