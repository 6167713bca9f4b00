/**
 * Spill stores shared across processes: the file store between two Node processes on one machine, and the Redis
 * store against a real `redis-server` this test starts on a free port (`.ci/run` installs it where it is missing).
 * One side spills, the other reads the value back page by page through the read-back tool.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FileSpillStore,
  type ReadBackArgs,
  type ReadBackOutcome,
  readBack,
  type SpillStore,
  SpillStoreError,
  toModelContent,
} from "../../../runtime/index.js";
import { RedisSpillStore } from "../../../runtime/redis.js";
import { ensureBuilt } from "../../build.js";
import { goodRecord, recordTool } from "../fixture.js";

const run = promisify(execFile);
const runtimeEntry = join(import.meta.dirname, "../../../runtime/dist/index.js");
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "toolgate-shared-stores-"));
  await ensureBuilt();
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const items = Array.from({ length: 300 }, (_, id) => ({ id, label: `label ${id} ${"z".repeat(40)}` }));

/** Spills a record of 300 items through the gate into `store`; returns the handle. */
async function spillInto(store: SpillStore, ctx: { tenant?: string } = {}): Promise<string> {
  const tool = recordTool({ context: { unit: "bytes", max: 550 }, oversize: ["spill"] });
  const outcome = await tool.admit(JSON.stringify(goodRecord({ items })), { spillStore: store, ...ctx });
  if (!outcome.ok || outcome.spill === undefined) throw new Error(`expected a spill: ${toModelContent(outcome)}`);
  return outcome.spill.handle;
}

/** Every item of /items, read page by page. */
async function readItems(store: SpillStore, handle: string, ctx = {}): Promise<unknown[]> {
  const reader = readBack(store, { budget: { unit: "bytes", max: 1500 } });
  const out: unknown[] = [];
  let args: ReadBackArgs | undefined = { handle, pointer: "/items" };
  while (args !== undefined) {
    const page: ReadBackOutcome = await reader.handle(args, ctx);
    if (!page.ok) throw new Error(`${page.error.code}: ${page.error.message}`);
    expect(page.contextUsed.value).toBeLessThanOrEqual(1500);
    out.push(...(page.page.items ?? []));
    args = page.page.next;
  }
  return out;
}

describe("the file store across processes", () => {
  it("a value another process spilled reads back here page by page, and one spilled here reads back there", async () => {
    const directory = join(scratch, "files");
    // The other process spills with the built runtime, as an application would.
    const writer = `
      import { FileSpillStore } from ${JSON.stringify(runtimeEntry)};
      const store = new FileSpillStore({ directory: ${JSON.stringify(directory)} });
      const json = JSON.stringify({ items: ${JSON.stringify(items)} });
      const { createHash } = await import("node:crypto");
      const ref = await store.put({ tool: "other", json, sha256: createHash("sha256").update(json).digest("hex"), tenant: "acme" });
      process.stdout.write(ref.handle);`;
    const { stdout: handle } = await run(process.execPath, ["--input-type=module", "-e", writer]);
    expect(handle).toMatch(/^spill_[0-9a-f]{32}$/);
    expect(await readItems(new FileSpillStore({ directory }), handle, { tenant: "acme" })).toEqual(items);
    const other = await readBack(new FileSpillStore({ directory })).handle({ handle, pointer: "/items" });
    expect(other.ok || other.error.code).toBe("unknown_handle");

    const mine = await spillInto(new FileSpillStore({ directory }));
    const reader = `
      import { FileSpillStore, readBack } from ${JSON.stringify(runtimeEntry)};
      const reader = readBack(new FileSpillStore({ directory: ${JSON.stringify(directory)} }));
      const page = await reader.handle({ handle: ${JSON.stringify(mine)}, pointer: "/items", offset: 295 });
      process.stdout.write(JSON.stringify(page.page));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", reader]);
    expect(JSON.parse(stdout)).toMatchObject({ items: items.slice(295), note: "items 296–300 of 300 at /items" });
  });
});

/** A free TCP port on the loopback interface. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("the Redis store", () => {
  let server: ChildProcess;
  let url: string;
  const stores: RedisSpillStore[] = [];

  beforeAll(async () => {
    const port = await freePort();
    url = `redis://127.0.0.1:${port}`;
    server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    const started = new Promise<void>((_, reject) => {
      server.once("error", (error) =>
        reject(new Error(`redis-server did not start (is it installed?): ${error.message}`)),
      );
    });
    // Ready once it answers a PING.
    const ready = (async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const client = createClient({ url, socket: { reconnectStrategy: false } });
        client.on("error", () => undefined);
        try {
          await client.connect();
          await client.ping();
          await client.close();
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      throw new Error("redis-server did not answer");
    })();
    await Promise.race([started, ready]);
  }, 20_000);

  afterAll(async () => {
    for (const store of stores) await store.close();
    server?.kill();
  });

  async function connect(options: Parameters<typeof RedisSpillStore.connect>[1] = {}) {
    const store = await RedisSpillStore.connect(url, options);
    stores.push(store);
    return store;
  }

  it("one client spills, another reads every item back page by page", async () => {
    const handle = await spillInto(await connect(), { tenant: "acme" });
    expect(await readItems(await connect(), handle, { tenant: "acme" })).toEqual(items);
    const other = await readBack(await connect()).handle({ handle, pointer: "/items" }, { tenant: "globex" });
    expect(other.ok || other.error.code).toBe("unknown_handle");
  });

  it("a value past its time to live is expired, and gone from Redis once its grace is over", async () => {
    const store = await connect({ ttlMs: 150, graceMs: 250 });
    const handle = await spillInto(store);
    expect((await readBack(store).handle({ handle, pointer: "/items", limit: 1 })).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const expired = await readBack(await connect()).handle({ handle, pointer: "/items" });
    expect(expired.ok || expired.error.code).toBe("expired");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const gone = await readBack(await connect()).handle({ handle, pointer: "/items" });
    expect(gone.ok || gone.error.code).toBe("unknown_handle");
  });

  it("a value read whole past its time to live, while Redis still holds the key, is a typed failure", async () => {
    const store = await connect({ ttlMs: 100, graceMs: 60_000 });
    const handle = await spillInto(store);
    expect(await store.get(handle)).toMatchObject({ recordId: "r-1" });
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (const reader of [store, await connect()]) {
      const whole = await reader.get(handle).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(whole).toBeInstanceOf(SpillStoreError);
      expect((whole as SpillStoreError).code).toBe("expired");
      await expect(reader.read(handle)).rejects.toMatchObject({ code: "expired" });
    }
  });

  it("a value edited in Redis is tampered, and a handle that names a key pattern is refused", async () => {
    const handle = await spillInto(await connect());
    const client = createClient({ url });
    client.on("error", () => undefined);
    await client.connect();
    const key = `toolgate:spill:${handle}`;
    const text = (await client.get(key)) as string;
    await client.set(key, text.replace("label 7 ", "label 8 "));
    await client.close();
    const outcome = await readBack(await connect()).handle({ handle, pointer: "/items" });
    expect(outcome.ok || outcome.error.code).toBe("tampered");
    for (const bad of ["*", "toolgate:spill:*", `${handle}*`]) {
      const refused = await readBack(await connect()).handle({ handle: bad });
      expect(refused.ok || refused.error.code).toBe("invalid_handle");
    }
  });
});
