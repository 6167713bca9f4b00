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

  it("an entry's own ttlMs holds in a store without one, and no ttl keeps the value", async () => {
    let clock = 5_000;
    const store = make(() => clock);
    const short = await store.put(entry(["secret", "short"], { ttlMs: 10 }));
    const kept = await store.put(entry(["kept"]));
    clock += 10;
    await expectExpired(store, short.handle);
    clock += 365 * 24 * 3_600_000;
    expect(await store.get(kept.handle)).toEqual(["kept"]);
  });
});

it("a file store on the same directory, as another process opens it, refuses an expired file by its own clock", async () => {
  const directory = join(scratch, "shared");
  const writer = new FileSpillStore({ directory, ttlMs: 1000, now: () => 0 });
  const { handle } = await writer.put(entry("secret text\nsecond line"));
  expect(await new FileSpillStore({ directory, now: () => 999 }).get(handle)).toBe("secret text\nsecond line");
  await expectExpired(new FileSpillStore({ directory, now: () => 1000 }), handle);
});
