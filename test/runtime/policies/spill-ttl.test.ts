/**
 * A spilled value's time to live holds for every way of reading it: `get` and `read` of the file and memory stores
 * refuse an entry past its `expiresAt` with a typed `SpillStoreError` (`expired`), never returning the value, and the
 * read-back tool reports it as `expired`. (The Redis store: `shared-stores.test.ts`.)
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FileSpillStore,
  MEMORY_SPILL_LIMITS,
  MemorySpillStore,
  readBack,
  type SpillEntry,
  type SpillStore,
  SpillStoreError,
} from "../../../runtime/index.js";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "toolgate-spill-ttl-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function entry(value: unknown, extra: Partial<SpillEntry> = {}): SpillEntry {
  const json = JSON.stringify(value);
  return { tool: "t", json, sha256: createHash("sha256").update(json).digest("hex"), ...extra };
}

/** What reading `handle` throws, or `undefined` when it does not. */
async function thrown(read: () => Promise<unknown>): Promise<unknown> {
  try {
    await read();
    return undefined;
  } catch (error) {
    return error;
  }
}

async function expectExpired(store: SpillStore, handle: string): Promise<void> {
  for (const read of [() => store.get(handle), () => (store.read as NonNullable<SpillStore["read"]>)(handle)]) {
    const error = await thrown(read);
    expect(error).toBeInstanceOf(SpillStoreError);
    expect((error as SpillStoreError).code).toBe("expired");
    expect((error as SpillStoreError).handle).toBe(handle);
    // The message names the handle and what is wrong, never the value.
    expect((error as Error).message).not.toContain("secret");
  }
}

const kinds: Array<[string, (now: () => number, ttlMs?: number) => SpillStore]> = [
  ["FileSpillStore", (now, ttlMs) => new FileSpillStore({ directory: join(scratch, "files"), now, ttlMs })],
  ["MemorySpillStore", (now, ttlMs) => new MemorySpillStore({ now, ttlMs })],
];

describe.each(kinds)("%s", (_name, make) => {
  it("get and read return the value within its time to live and refuse it past it", async () => {
    let clock = 1_000_000;
    const store = make(() => clock, 60_000);
    const { handle } = await store.put(entry({ note: "secret value" }));
    expect(await store.get(handle)).toEqual({ note: "secret value" });
    clock += 59_999;
    expect(await store.get(handle)).toEqual({ note: "secret value" });
    clock += 1;
    await expectExpired(store, handle);
    // The read-back tool, asked by a reader that never saw it, says expired too.
    const page = await readBack(store).handle({ handle }, { now: () => clock });
    expect(page.ok || page.error.code).toBe("expired");
  });

  it("an entry's own ttlMs holds in a store without one, and the store's own keeps the others", async () => {
    let clock = 5_000;
    const store = make(() => clock);
    const short = await store.put(entry(["secret", "short"], { ttlMs: 10 }));
    const kept = await store.put(entry(["kept"]));
    clock += 10;
    await expectExpired(store, short.handle);
    clock += 59 * 60_000;
    expect(await store.get(kept.handle)).toEqual(["kept"]);
  });
});

it("a file store without a ttl keeps a value until pruned", async () => {
  let clock = 5_000;
  const store = new FileSpillStore({ directory: join(scratch, "files"), now: () => clock });
  const kept = await store.put(entry(["kept"]));
  clock += 365 * 24 * 3_600_000;
  expect(await store.get(kept.handle)).toEqual(["kept"]);
});

describe("the memory store is bounded by time, count and size", () => {
  it("entries live an hour unless told otherwise", async () => {
    let clock = 0;
    const store = new MemorySpillStore({ now: () => clock });
    const { handle } = await store.put(entry({ note: "secret value" }));
    clock += MEMORY_SPILL_LIMITS.ttlMs - 1;
    expect(await store.get(handle)).toEqual({ note: "secret value" });
    clock += 1;
    await expectExpired(store, handle);
  });

  it("past maxEntries or maxChars the oldest go first, and the newest read back whole", async () => {
    const store = new MemorySpillStore({ maxEntries: 3, maxChars: 1_000 });
    const handles: string[] = [];
    for (let i = 0; i < 5; i++) handles.push((await store.put(entry({ i }))).handle);
    expect(await store.get(handles[0] as string)).toBeUndefined();
    expect(await store.get(handles[1] as string)).toBeUndefined();
    for (let i = 2; i < 5; i++) expect(await store.get(handles[i] as string)).toEqual({ i });
    const big = await store.put(entry({ text: "x".repeat(985) }));
    // Close to 1,000 characters in one entry leave room for none of the older ones.
    for (let i = 2; i < 5; i++) expect(await store.get(handles[i] as string)).toBeUndefined();
    expect(await store.get(big.handle)).toEqual({ text: "x".repeat(985) });
  });

  it("hands out random handles: the same value spilled twice, by the same tenant, gets two", async () => {
    const store = new MemorySpillStore();
    const first = await store.put(entry({ same: true }, { tenant: "acme" }));
    const second = await store.put(entry({ same: true }, { tenant: "acme" }));
    expect(first.handle).toMatch(/^spill_[0-9a-f]{32}$/);
    expect(second.handle).not.toBe(first.handle);
  });
});

it("a file store on the same directory, as another process opens it, refuses an expired file by its own clock", async () => {
  const directory = join(scratch, "shared");
  const writer = new FileSpillStore({ directory, ttlMs: 1000, now: () => 0 });
  const { handle } = await writer.put(entry("secret text\nsecond line"));
  expect(await new FileSpillStore({ directory, now: () => 999 }).get(handle)).toBe("secret text\nsecond line");
  await expectExpired(new FileSpillStore({ directory, now: () => 1000 }), handle);
});
