/**
 * Where the `spill` policy puts a validated result that is too large for the model's context: the model gets an
 * opaque handle and a bounded preview, and the caller's code, or the model through the read-back tool
 * (`readBack`, `read_tool_result`), reads the full value back.
 *
 * Handles are `spill_` plus 32 hex digits: opaque (never a path, URL or command) and checked on read, so a handle
 * cannot walk out of the store. Every store draws them from 128 random bits, so nobody can guess one or tell from a
 * value whether it was spilled.
 *
 * Every store keeps, with the value, who may read it back (the tenant and session of the call that spilled it),
 * when it expires (`ttlMs`), and the index that makes every array item or line addressable (`spill-layout.ts`).
 */
import { errorProperty } from "../contract/failure.js";
import type { SpillReference } from "../contract/types.js";
import { hasInvisible } from "../text/hygiene.js";
import {
  decodeSpill,
  encodeSpill,
  rememberedDigest,
  type SpillMeta,
  type SpillRecord,
  type SpillScope,
  SpillStoreError,
  unexpired,
} from "./spill-format.js";
import { indexSpill, spillKindOf } from "./spill-layout.js";

export {
  type SpillMeta,
  type SpillRecord,
  type SpillScope,
  SpillStoreError,
  type SpillStoreErrorCode,
} from "./spill-format.js";

/** A validated value to keep. */
export interface SpillEntry extends SpillScope {
  tool: string;
  /** The validated value serialised as JSON (a JSON string is kept as a text, paged by lines). */
  json: string;
  /** sha256 (hex) of `json`'s UTF-8 bytes. */
  sha256: string;
  /** How long the value stays readable, in milliseconds; default: the store's `ttlMs`. */
  ttlMs?: number | undefined;
}

/** A place to keep spilled results. Implement it to spill to object storage, a database, a cache… */
export interface SpillStore {
  /** Keeps the entry and returns the handle the model will see. */
  put(entry: SpillEntry): Promise<SpillReference>;
  /**
   * The value kept under `handle`, or `undefined` when there is none (or the handle is not one of ours). The stores
   * of this package throw `SpillStoreError` for an entry they cannot vouch for (`tampered`) or whose time to live
   * is over (`expired`).
   */
  get(handle: string): Promise<unknown>;
  /**
   * The entry kept under `handle` with its scope, expiry and index, verified; `undefined` when there is none.
   * What the read-back tool pages through; a store without it can only be read whole, with `get`. The stores of
   * this package throw as `get` does.
   */
  read?(handle: string): Promise<SpillRecord | undefined>;
}

/** Options every store of this module takes. */
export interface SpillStoreOptions {
  /** How long a spilled value stays readable, in milliseconds; default: until pruned (the file store) or forever. */
  ttlMs?: number | undefined;
  /** The clock (tests pass a fixed one); default `Date.now`. */
  now?: (() => number) | undefined;
}

/** Whether `handle` is one a store could have made: `spill_` and 32 lower-case hex digits, nothing else. */
export function isSpillHandle(handle: unknown): handle is string {
  return typeof handle === "string" && HANDLE.test(handle);
}

const HANDLE = /^spill_[0-9a-f]{32}$/;

/** A temporary file of a write in progress: the handle, 16 random hex digits, `.tmp`. */
const TEMPORARY = /^spill_[0-9a-f]{32}\.[0-9a-f]{16}\.tmp$/;

/** The byte length of a JSON string. */
function byteLength(json: string): number {
  return new TextEncoder().encode(json).byteLength;
}

/** What a store records of an entry it keeps under `handle`, with the value's own sha256. */
export function spillMeta(handle: string, entry: SpillEntry, sha256: string, options: SpillStoreOptions): SpillMeta {
  const createdAt = (options.now ?? Date.now)();
  const ttl = entry.ttlMs ?? options.ttlMs;
  return {
    handle,
    tool: entry.tool,
    kind: spillKindOf(entry.json),
    sha256,
    bytes: byteLength(entry.json),
    createdAt,
    expiresAt: ttl === undefined ? undefined : createdAt + ttl,
    tenant: entry.tenant,
    session: entry.session,
    invisible: hasInvisible(entry.json),
  };
}

/** The first line of defence of every file operation: the directory is ours alone, or it is not used. */
interface DirectoryFacts {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  uid: number;
  mode: number;
}

/**
 * What is wrong with the spill directory, or `undefined` when it is safe: a real directory (not a symbolic link,
 * read with `lstat`), owned by this process's user, and writable by nobody else. Anyone who can write into it could
 * swap a spilled file or plant a link under a handle's name. `uid` is `undefined` where the platform has none
 * (Windows), and then ownership and mode bits are not checked.
 */
function directoryProblem(facts: DirectoryFacts, uid: number | undefined): string | undefined {
  if (facts.isSymbolicLink()) return "is a symbolic link";
  if (!facts.isDirectory()) return "is not a directory";
  if (uid === undefined) return undefined;
  if (facts.uid !== uid) return `is owned by uid ${facts.uid}, not by this process's uid ${uid}`;
  if ((facts.mode & 0o022) !== 0) {
    return `is writable by its group or by others (mode ${(facts.mode & 0o777).toString(8).padStart(3, "0")})`;
  }
  return undefined;
}

/** How many handles a store remembers the sha256 of (the newest ones), for the check that a file was not replaced. */
const REMEMBERED_HANDLES = 10_000;

/**
 * Spills to files in one directory, `<directory>/<handle>.json`, and trusts neither the directory nor the files:
 *
 * - the directory is created with mode 0700 and, on every operation, refused (`SpillStoreError`, code
 *   `unsafe_directory`) when it is a symbolic link, not a directory, owned by another user or writable by group or
 *   others: a pre-existing `<tmp>/toolgate-spill` made by someone else is never used;
 * - handles are 128 random bits; each write goes to a temporary file of its own (random suffix, created with
 *   `O_EXCL`, mode 0600) and is renamed into place, so a reader never sees half a file and concurrent writes never
 *   collide;
 * - each file states its handle, the value's byte length and its sha256, and `get` checks all three (and the sha256
 *   this store remembers for the handles it wrote) before it parses anything: a replaced, truncated or edited file,
 *   a link or anything but a regular file of this user under a handle's name throws `SpillStoreError` (code
 *   `tampered`). Without a remembered sha256 (a file written by another process), a file rewritten whole with a
 *   consistent header is caught only by the directory being private.
 *
 * `get` returns `undefined` for a handle that is not one (`../x`, a path, anything but `spill_` and 32 hex digits)
 * and for a spill that is not there. Node modules are imported on first use, so the runtime loads in environments
 * without a file system until this store is actually used.
 */
export class FileSpillStore implements SpillStore {
  /** The directory, or `undefined` until first use when it defaults to the OS temp directory. */
  #directory: string | undefined;
  /** sha256 of what this store wrote, by handle (the newest {@link REMEMBERED_HANDLES}). */
  readonly #written = new Map<string, string>();
  readonly #options: SpillStoreOptions;

  /**
   * @param options.directory where to write; default `<os.tmpdir()>/toolgate-spill`. Any process of the same user
   *   on the machine that opens a store on the same directory reads what this one wrote.
   */
  constructor(options: { directory?: string | undefined } & SpillStoreOptions = {}) {
    this.#directory = options.directory;
    this.#options = { ttlMs: options.ttlMs, now: options.now };
  }

  async #dir(): Promise<string> {
    if (this.#directory === undefined) {
      const [{ tmpdir }, { join }] = await Promise.all([import("node:os"), import("node:path")]);
      this.#directory = join(tmpdir(), "toolgate-spill");
    }
    return this.#directory;
  }

  /**
   * The directory, checked (see {@link directoryProblem}); created first (mode 0700) when `create`. `undefined`
   * when it does not exist and is not to be created.
   */
  async #checkedDirectory(create: boolean): Promise<string | undefined> {
    const { mkdir, lstat } = await import("node:fs/promises");
    const directory = await this.#dir();
    // A failure here (a dangling link in the way, say) is told apart below, by what is at the path.
    if (create) await mkdir(directory, { recursive: true, mode: 0o700 }).catch(() => undefined);
    let facts: DirectoryFacts;
    try {
      facts = await lstat(directory);
    } catch (error) {
      if (!create && errorProperty(error, "code") === "ENOENT") return undefined;
      throw error;
    }
    const uid = process.platform === "win32" ? undefined : process.getuid?.();
    const problem = directoryProblem(facts, uid);
    if (problem !== undefined) {
      throw new SpillStoreError("unsafe_directory", `The spill directory ${directory} ${problem}; it is not used.`);
    }
    return directory;
  }

  #remember(handle: string, sha256: string): void {
    if (this.#written.size >= REMEMBERED_HANDLES) {
      // Oldest first out: a Map iterates in insertion order.
      const oldest = this.#written.keys().next().value;
      if (oldest !== undefined) this.#written.delete(oldest);
    }
    this.#written.set(handle, sha256);
  }

  /** Writes the entry under a new random handle and returns its reference. */
  async put(entry: SpillEntry): Promise<SpillReference> {
    const [{ writeFile, rename, unlink }, { join }, { randomBytes, createHash }] = await Promise.all([
      import("node:fs/promises"),
      import("node:path"),
      import("node:crypto"),
    ]);
    const directory = (await this.#checkedDirectory(true)) as string;
    const handle = `spill_${randomBytes(16).toString("hex")}`;
    const hash = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    // Hashed here, from the bytes written: the file's digest is what a read checks, whatever the caller passed.
    const sha256 = hash(new TextEncoder().encode(entry.json));
    const { head, value, tail } = encodeSpill(spillMeta(handle, entry, sha256, this.#options), entry.json, hash);
    const temporary = join(directory, `${handle}.${randomBytes(8).toString("hex")}.tmp`);
    try {
      // `wx`: O_CREAT | O_EXCL, so nothing already at the name (a file, a planted link) is opened or followed.
      await writeFile(temporary, [head, value, tail], { flag: "wx", mode: 0o600 });
      await rename(temporary, join(directory, `${handle}.json`));
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    this.#remember(handle, rememberedDigest(head, sha256, hash));
    return { handle, bytes: value.byteLength };
  }

  /**
   * Reads a spilled value back: `undefined` for a malformed handle or one with no spill; throws
   * {@link SpillStoreError} when the directory is unsafe, the file under the handle is not the one written
   * (`tampered`), or its time to live is over (`expired`, by the store's clock; the file stays until pruned).
   */
  async get(handle: string): Promise<unknown> {
    const record = await this.read(handle);
    if (record === undefined) return undefined;
    try {
      return JSON.parse(record.json);
    } catch {
      throw new SpillStoreError("tampered", `The spilled file for ${handle} does not hold JSON; it is not returned.`);
    }
  }

  /**
   * The entry under `handle` with its scope, expiry and index, verified as {@link get} does; `undefined` for a
   * malformed handle or one with no spill.
   */
  async read(handle: string): Promise<SpillRecord | undefined> {
    if (!isSpillHandle(handle)) return undefined;
    const [{ open, constants }, { join }, { createHash }] = await Promise.all([
      import("node:fs/promises"),
      import("node:path"),
      import("node:crypto"),
    ]);
    const directory = await this.#checkedDirectory(false);
    if (directory === undefined) return undefined;
    const tampered = (what: string) =>
      new SpillStoreError("tampered", `The spilled file for ${handle} ${what}; it is not returned.`, handle);
    let file: Awaited<ReturnType<typeof open>>;
    try {
      // No following a link, and no blocking on a FIFO planted under the name.
      file = await open(
        join(directory, `${handle}.json`),
        constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
      );
    } catch (error) {
      const code = errorProperty(error, "code");
      if (code === "ENOENT") return undefined;
      if (code === "ELOOP" || code === "EMLINK") throw tampered("is a symbolic link");
      if (code === "EACCES" || code === "EPERM") throw tampered("cannot be read by this user");
      throw error;
    }
    let bytes: Uint8Array;
    try {
      const stats = await file.stat();
      if (!stats.isFile()) throw tampered("is not a regular file");
      const uid = process.platform === "win32" ? undefined : process.getuid?.();
      if (uid !== undefined && stats.uid !== uid) throw tampered(`is owned by uid ${stats.uid}`);
      bytes = await file.readFile();
    } finally {
      await file.close();
    }
    const record = decodeSpill(bytes, handle, this.#written.get(handle), (value) =>
      createHash("sha256").update(value).digest("hex"),
    );
    return unexpired(record, (this.#options.now ?? Date.now)());
  }

  /**
   * Deletes spilled results last written before `olderThan` (run it on a schedule: spilled results are kept until
   * then), and temporary files of writes that never finished. Touches only names like a handle's files, and never
   * follows a link (a link is deleted itself). Returns how many spilled results were deleted.
   */
  async prune(olderThan: Date): Promise<number> {
    const [{ readdir, lstat, unlink }, { join }] = await Promise.all([import("node:fs/promises"), import("node:path")]);
    const directory = await this.#checkedDirectory(false);
    if (directory === undefined) return 0;
    let names: string[];
    try {
      names = await readdir(directory);
    } catch {
      return 0;
    }
    let deleted = 0;
    for (const name of names) {
      const handle = name.endsWith(".json") ? name.slice(0, -".json".length) : undefined;
      const spilled = handle !== undefined && HANDLE.test(handle);
      if (!spilled && !TEMPORARY.test(name)) continue;
      const file = join(directory, name);
      try {
        const facts = await lstat(file);
        if (facts.isDirectory() || facts.mtime >= olderThan) continue;
        await unlink(file);
        if (spilled) {
          this.#written.delete(handle);
          deleted++;
        }
      } catch {
        // Deleted meanwhile by another process: nothing left to do.
      }
    }
    return deleted;
  }
}

/** Options of {@link MemorySpillStore}: bounds on what it holds, besides every store's. */
export interface MemorySpillStoreOptions extends SpillStoreOptions {
  /** The most entries kept; past it the oldest go first. Default {@link MEMORY_SPILL_LIMITS}. */
  maxEntries?: number | undefined;
  /** The most characters of spilled JSON kept, all entries together; past it the oldest go first. */
  maxChars?: number | undefined;
}

/**
 * The in-memory store's bounds when its options say nothing: entries live an hour, at most 1,000 of them and
 * 64 Mi characters of JSON (about 128 MiB of strings, plus their indexes). A long-running process (the proxy's
 * default store) spilling large results must not grow without end.
 */
export const MEMORY_SPILL_LIMITS = { ttlMs: 60 * 60 * 1000, maxEntries: 1000, maxChars: 64 * 1024 * 1024 } as const;

/**
 * Keeps spilled results in memory: for tests, and for processes that read them back themselves. Bounded by time,
 * count and size ({@link MEMORY_SPILL_LIMITS}): an entry past its time to live reads as `expired` and is dropped
 * when the store next writes, and the oldest entries go first when a bound is reached (they then read as unknown).
 * Handles are 128 random bits, like the other stores': nobody can guess one or tell from a value whether it was
 * spilled.
 */
export class MemorySpillStore implements SpillStore {
  readonly #entries = new Map<string, SpillRecord>();
  readonly #options: SpillStoreOptions;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor(options: MemorySpillStoreOptions = {}) {
    this.#options = { ttlMs: options.ttlMs ?? MEMORY_SPILL_LIMITS.ttlMs, now: options.now };
    this.#maxEntries = options.maxEntries ?? MEMORY_SPILL_LIMITS.maxEntries;
    this.#maxChars = options.maxChars ?? MEMORY_SPILL_LIMITS.maxChars;
  }

  /** Keeps the entry under a new random handle and returns its reference, dropping the oldest past a bound. */
  async put(entry: SpillEntry): Promise<SpillReference> {
    const handle = randomHandle();
    const meta = spillMeta(handle, entry, entry.sha256, this.#options);
    this.#drop(meta.createdAt as number, entry.json.length);
    this.#entries.set(handle, { meta, json: entry.json, index: indexSpill(entry.json) });
    this.#chars += entry.json.length;
    return { handle, bytes: meta.bytes };
  }

  /** Drops expired entries, then the oldest until one of `chars` more characters fits the bounds. */
  #drop(now: number, chars: number): void {
    for (const [handle, record] of this.#entries) {
      const expired = record.meta.expiresAt !== undefined && now >= record.meta.expiresAt;
      const full = this.#entries.size >= this.#maxEntries || this.#chars + chars > this.#maxChars;
      if (!expired && !full) break;
      this.#entries.delete(handle);
      this.#chars -= record.json.length;
    }
  }

  /**
   * The value kept under `handle`, parsed afresh on every read so callers cannot change the stored copy; throws
   * {@link SpillStoreError} (`expired`) past its time to live.
   */
  async get(handle: string): Promise<unknown> {
    const record = await this.read(handle);
    return record === undefined ? undefined : JSON.parse(record.json);
  }

  /** The entry kept under `handle`, with its scope, expiry and index; throws as {@link get} does. */
  async read(handle: string): Promise<SpillRecord | undefined> {
    const record = isSpillHandle(handle) ? this.#entries.get(handle) : undefined;
    return record === undefined ? undefined : unexpired(record, (this.#options.now ?? Date.now)());
  }
}

/** `spill_` and 128 random bits as hex, from the platform's cryptographic source (Node's, or a browser's). */
function randomHandle(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return `spill_${hex}`;
}

let defaultStore: SpillStore | undefined;

/** The store `spill` uses when the call's context names none: a {@link FileSpillStore} unless set otherwise. */
export function getDefaultSpillStore(): SpillStore {
  defaultStore ??= new FileSpillStore();
  return defaultStore;
}

/** Replaces the process-wide default spill store (e.g. with one configured directory). */
export function setDefaultSpillStore(store: SpillStore): void {
  defaultStore = store;
}
