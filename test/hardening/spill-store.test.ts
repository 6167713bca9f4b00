/**
 * `FileSpillStore` against someone else on the machine: a directory it does not own or that others may write, a
 * link where the directory or a file should be, a file swapped, edited or cut short under a handle, a handle that
 * names a path, and many admits spilling at once.
 *
 * What holds: the store writes only into a real directory of this user that nobody else may write (made 0700 when
 * missing), its files are 0600, `get` returns a value only from the very file written under the handle (else
 * `SpillStoreError`, code `tampered`), refuses handles that are not `spill_` + 32 hex digits, and concurrent puts of
 * one value each get a handle of their own and all succeed.
 */
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  truncate,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSpillStore, readBack, SpillStoreError } from "../../runtime/index.js";
import { goodRecord, recordTool } from "../runtime/fixture.js";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "toolgate-spill-hardening-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let folders = 0;
/** A path in the scratch folder where nothing is yet. */
function fresh(): string {
  folders += 1;
  return join(scratch, `case-${folders}`);
}

const entry = (json: string) => ({ tool: "t", json, sha256: "0".repeat(64) });
const isRoot = process.getuid?.() === 0;
const posix = process.platform !== "win32";

/** What a rejected promise was rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Asserts a `SpillStoreError` with this code. */
function expectStoreError(error: unknown, code: "unsafe_directory" | "tampered"): void {
  expect(error).toBeInstanceOf(SpillStoreError);
  expect((error as SpillStoreError).code).toBe(code);
}

describe.runIf(posix)("the spill directory", () => {
  it("is created owner-only, and its files are owner-only", async () => {
    const directory = fresh();
    const store = new FileSpillStore({ directory });
    const { handle } = await store.put(entry('{"a":1}'));
    expect((await lstat(directory)).mode & 0o777).toBe(0o700);
    expect((await lstat(join(directory, `${handle}.json`))).mode & 0o777).toBe(0o600);
    expect(await store.get(handle)).toEqual({ a: 1 });
  });

  it("a pre-existing world-writable directory is refused, by put, get and prune", async () => {
    // The example: `<tmp>/toolgate-spill` made 0777 by someone else beforehand.
    const directory = fresh();
    await mkdir(directory);
    await chmod(directory, 0o777);
    const store = new FileSpillStore({ directory });
    expectStoreError(await rejection(store.put(entry("1"))), "unsafe_directory");
    expectStoreError(await rejection(store.get(`spill_${"a".repeat(32)}`)), "unsafe_directory");
    expectStoreError(await rejection(store.prune(new Date())), "unsafe_directory");
    expect(await readdir(directory)).toEqual([]);
    // Group-writable is refused too; the store does not change the mode of a directory it did not make.
    await chmod(directory, 0o770);
    expectStoreError(await rejection(store.put(entry("1"))), "unsafe_directory");
    expect((await lstat(directory)).mode & 0o777).toBe(0o770);
  });

  it.runIf(isRoot)("a directory owned by another user is refused, even with mode 0700", async () => {
    const directory = fresh();
    await mkdir(directory, { mode: 0o700 });
    await chown(directory, 1234, 1234);
    const error = await rejection(new FileSpillStore({ directory }).put(entry("1")));
    expectStoreError(error, "unsafe_directory");
    expect((error as Error).message).toContain("uid 1234");
    expect(await readdir(directory)).toEqual([]);
  });

  it("a symbolic link at the directory's path is refused, whether it points at a directory or nowhere", async () => {
    const target = fresh();
    await mkdir(target, { mode: 0o700 });
    const link = fresh();
    await symlink(target, link);
    expectStoreError(await rejection(new FileSpillStore({ directory: link }).put(entry("1"))), "unsafe_directory");
    expect(await readdir(target)).toEqual([]);
    const dangling = fresh();
    await symlink(join(scratch, "nowhere"), dangling);
    expectStoreError(await rejection(new FileSpillStore({ directory: dangling }).put(entry("1"))), "unsafe_directory");
  });

  it("a file at the directory's path is refused", async () => {
    const path = fresh();
    await writeFile(path, "x");
    expectStoreError(await rejection(new FileSpillStore({ directory: path }).put(entry("1"))), "unsafe_directory");
  });

  it("through the gate, an unsafe directory makes spill pass to the next policy", async () => {
    const directory = fresh();
    await mkdir(directory);
    await chmod(directory, 0o777);
    const items = Array.from({ length: 40 }, (_, id) => ({ id, label: "x".repeat(80) }));
    const outcome = await recordTool({ context: { unit: "bytes", max: 700 }, oversize: ["spill", "drop"] }).admit(
      JSON.stringify(goodRecord({ items })),
      { spillStore: new FileSpillStore({ directory }) },
    );
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("oversize");
    expect(outcome.ok || outcome.diagnostics.detail?.spill).toBe("store_failed");
  });
});

describe.runIf(posix)("reading a spill back", () => {
  /** A store with one value spilled, and the path of its file. */
  async function spilled(json = '{"kept":"as written"}') {
    const directory = fresh();
    const store = new FileSpillStore({ directory });
    const { handle } = await store.put(entry(json));
    return { directory, store, handle, file: join(directory, `${handle}.json`) };
  }

  it("a file swapped in under a handle is detected, not returned", async () => {
    // The example: plain JSON written over the spilled file.
    const { store, handle, file } = await spilled();
    await writeFile(file, '{"kept":"swapped"}');
    expectStoreError(await rejection(store.get(handle)), "tampered");
  });

  it("another spill's file moved under the handle is detected, by this store and by a fresh one", async () => {
    const { directory, store, handle, file } = await spilled();
    const other = await store.put(entry('{"kept":"other"}'));
    await writeFile(file, await readFile(join(directory, `${other.handle}.json`)));
    expectStoreError(await rejection(store.get(handle)), "tampered");
    expectStoreError(await rejection(new FileSpillStore({ directory }).get(handle)), "tampered");
  });

  it("a forged file with a consistent header and digest is detected by the store that wrote the handle", async () => {
    const { directory, store, handle, file } = await spilled();
    const { createHash } = await import("node:crypto");
    const forged = '{"kept":"forged"}';
    const sha256 = createHash("sha256").update(forged).digest("hex");
    const header = JSON.stringify({ format: "toolgate-spill/1", handle, sha256, bytes: forged.length, tool: "t" });
    await writeFile(file, `${header.slice(0, -1)},"value":${forged}}`);
    expectStoreError(await rejection(store.get(handle)), "tampered");
    // A store that never wrote the handle has only the file to go by: the private directory is what protects it.
    expect(await new FileSpillStore({ directory }).get(handle)).toEqual({ kept: "forged" });
  });

  it("a header edited to another tenant, session or expiry is detected by the store that wrote it", async () => {
    const directory = fresh();
    const store = new FileSpillStore({ directory, ttlMs: 60_000 });
    const { handle } = await store.put({ ...entry('{"kept":"as written"}'), tenant: "acme", session: "s-1" });
    const file = join(directory, `${handle}.json`);
    const written = await readFile(file, "utf8");
    // The positive control: unedited, the tenant's own read returns the value.
    expect(await store.get(handle)).toEqual({ kept: "as written" });
    for (const [from, to] of [
      ['"tenant":"acme"', '"tenant":"evil"'],
      ['"session":"s-1"', '"session":"s-2"'],
      ['"expiresAt":', '"expiresAt":9'],
    ] as const) {
      expect(written).toContain(from);
      await writeFile(file, written.replace(from, to));
      expectStoreError(await rejection(store.get(handle)), "tampered");
      const page = await readBack(store).handle({ handle }, { tenant: "evil", session: "s-2" });
      expect(page.ok || page.error.code).toBe("tampered");
    }
  });

  it("a truncated file, an edited byte and a padded file are detected", async () => {
    const long = JSON.stringify({ text: "y".repeat(5000) });
    const truncated = await spilled(long);
    await truncate(truncated.file, 2000);
    expectStoreError(await rejection(truncated.store.get(truncated.handle)), "tampered");

    const edited = await spilled(long);
    const bytes = await readFile(edited.file);
    bytes[bytes.length - 100] = "z".charCodeAt(0);
    await writeFile(edited.file, bytes);
    expectStoreError(await rejection(edited.store.get(edited.handle)), "tampered");

    const padded = await spilled();
    await writeFile(padded.file, Buffer.concat([await readFile(padded.file), Buffer.from(" }")]));
    expectStoreError(await rejection(padded.store.get(padded.handle)), "tampered");
  });

  it("a symbolic link or a directory under a handle's name is detected and not followed", async () => {
    const { directory, store, handle, file } = await spilled();
    const secret = join(scratch, `secret-${folders}.json`);
    await writeFile(secret, '{"secret":true}');
    await rm(file);
    await symlink(secret, file);
    expectStoreError(await rejection(store.get(handle)), "tampered");
    await rm(file);
    await mkdir(file);
    expectStoreError(await rejection(store.get(handle)), "tampered");
    // Prune deletes neither the link's target nor a directory.
    expect(await store.prune(new Date(Date.now() + 60_000))).toBe(0);
    expect(await readFile(secret, "utf8")).toBe('{"secret":true}');
    expect(await readdir(directory)).toContain(`${handle}.json`);
  });

  it("a handle that names a path, or is not spill_ and 32 hex digits, is refused", async () => {
    const { directory, store, handle } = await spilled();
    // A file outside the store that a walking handle would reach.
    await writeFile(join(directory, "..", "outside.json"), '{"outside":true}');
    for (const bad of [
      "../outside",
      `../${handle}`,
      `${handle}/../${handle}`,
      `/etc/passwd`,
      `spill_${"a".repeat(31)}/`,
      `spill_..\\${"a".repeat(25)}`,
      `${handle}.json`,
      handle.toUpperCase(),
      `${handle}\n`,
      "",
      42 as unknown as string,
    ]) {
      expect(await store.get(bad)).toBeUndefined();
    }
    expect(await store.get(`spill_${"0".repeat(32)}`)).toBeUndefined();
    expect(await store.get(handle)).toEqual({ kept: "as written" });
  });
});

describe.runIf(posix)("concurrent spills", () => {
  it("20 concurrent admits of one oversize payload all spill, each under a handle of its own", async () => {
    // The example: temporary names used to collide and 14–18 of the 20 failed with `store_failed`.
    const directory = fresh();
    const store = new FileSpillStore({ directory });
    const items = Array.from({ length: 400 }, (_, id) => ({ id, label: "x".repeat(80) }));
    const raw = JSON.stringify(goodRecord({ items }));
    const tool = recordTool({ context: { unit: "bytes", max: 700 }, oversize: ["spill"], spillPreview: 1 });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => tool.admit(raw, { spillStore: store })));
    const handles = outcomes.map((outcome) => (outcome.ok ? outcome.spill?.handle : outcome.error.code));
    for (const handle of handles) expect(handle).toMatch(/^spill_[0-9a-f]{32}$/);
    expect(new Set(handles).size).toBe(20);
    expect((await readdir(directory)).sort()).toEqual(handles.map((handle) => `${handle}.json`).sort());
    for (const handle of handles) expect(await store.get(handle as string)).toEqual(JSON.parse(raw));
  });

  it("200 concurrent puts into a directory not made yet all succeed and leave no temporary file", async () => {
    const directory = fresh();
    const store = new FileSpillStore({ directory });
    const references = await Promise.all(Array.from({ length: 200 }, (_, i) => store.put(entry(`{"i":${i % 3}}`))));
    expect(new Set(references.map((reference) => reference.handle)).size).toBe(200);
    const names = await readdir(directory);
    expect(names).toHaveLength(200);
    expect(names.every((name) => name.endsWith(".json"))).toBe(true);
  });

  it("prune deletes a temporary file a crashed write left behind, and counts only spills", async () => {
    const directory = fresh();
    const store = new FileSpillStore({ directory });
    const { handle } = await store.put(entry("1"));
    const leftover = `${handle}.${"0".repeat(16)}.tmp`;
    await writeFile(join(directory, leftover), "half");
    await writeFile(join(directory, "notes.tmp"), "not ours");
    expect(await store.prune(new Date(Date.now() + 60_000))).toBe(1);
    expect(await readdir(directory)).toEqual(["notes.tmp"]);
  });
});
