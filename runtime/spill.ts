/**
 * Where the `spill` policy puts a validated result that is too large for the model's context: the model gets an
 * opaque handle and a bounded preview, and the caller's code (or a later tool) reads the full value back.
 *
 * Handles are `spill_` plus 32 hex digits of the value's sha256: opaque (never a path, URL or command), stable for
 * the same value, and checked on read so a handle cannot walk out of the store.
 */
import type { SpillReference } from "./types.js";

/** A validated value to keep. */
export interface SpillEntry {
  tool: string;
  /** The validated value serialised as JSON. */
  json: string;
  /** sha256 (hex) of `json`'s UTF-8 bytes. */
  sha256: string;
}

/** A place to keep spilled results. Implement it to spill to object storage, a database, a cache… */
export interface SpillStore {
  /** Keeps the entry and returns the handle the model will see. */
  put(entry: SpillEntry): Promise<SpillReference>;
  /** The value kept under `handle`, or `undefined` when there is none (or the handle is not one of ours). */
  get(handle: string): Promise<unknown>;
}

const HANDLE = /^spill_[0-9a-f]{32}$/;

/** The handle for an entry. */
export function spillHandle(entry: SpillEntry): string {
  return `spill_${entry.sha256.slice(0, 32)}`;
}

/** The byte length of a JSON string. */
function byteLength(json: string): number {
  return new TextEncoder().encode(json).byteLength;
}

/**
 * Spills to files in one directory: `<directory>/<handle>.json`, written to a temporary name and renamed so a
 * reader never sees half a file, with owner-only permissions. The default directory is `toolgate-spill` under the
 * OS temp directory. Node modules are imported on first use, so the runtime loads in environments without a file
 * system until this store is actually used.
 */
export class FileSpillStore implements SpillStore {
  /** The directory, or `undefined` until first use when it defaults to the OS temp directory. */
  #directory: string | undefined;

  /** @param options.directory where to write; default `<os.tmpdir()>/toolgate-spill`. */
  constructor(options: { directory?: string } = {}) {
    this.#directory = options.directory;
  }

  async #dir(): Promise<string> {
    if (this.#directory === undefined) {
      const [{ tmpdir }, { join }] = await Promise.all([import("node:os"), import("node:path")]);
      this.#directory = join(tmpdir(), "toolgate-spill");
    }
    return this.#directory;
  }

  /** Writes the entry (once: the same value gets the same handle) and returns its reference. */
  async put(entry: SpillEntry): Promise<SpillReference> {
    const [{ mkdir, writeFile, rename }, { join }] = await Promise.all([
      import("node:fs/promises"),
      import("node:path"),
    ]);
    const directory = await this.#dir();
    const handle = spillHandle(entry);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const target = join(directory, `${handle}.json`);
    const temporary = join(directory, `${handle}.${process.pid}.${Date.now()}.tmp`);
    await writeFile(temporary, entry.json, { mode: 0o600 });
    await rename(temporary, target);
    return { handle, bytes: byteLength(entry.json) };
  }

  /** Reads a spilled value back; `undefined` for an unknown or malformed handle. */
  async get(handle: string): Promise<unknown> {
    if (!HANDLE.test(handle)) return undefined;
    const [{ readFile }, { join }] = await Promise.all([import("node:fs/promises"), import("node:path")]);
    try {
      return JSON.parse(await readFile(join(await this.#dir(), `${handle}.json`), "utf8"));
    } catch {
      return undefined;
    }
  }

  /**
   * Deletes spilled results last written before `olderThan` (run it on a schedule: spilled results are kept until
   * then). Touches only files named like handles. Returns how many were deleted.
   */
  async prune(olderThan: Date): Promise<number> {
    const [{ readdir, stat, unlink }, { join }] = await Promise.all([import("node:fs/promises"), import("node:path")]);
    const directory = await this.#dir();
    let names: string[];
    try {
      names = await readdir(directory);
    } catch {
      return 0;
    }
    let deleted = 0;
    for (const name of names) {
      if (!name.endsWith(".json") || !HANDLE.test(name.slice(0, -".json".length))) continue;
      const file = join(directory, name);
      try {
        if ((await stat(file)).mtime < olderThan) {
          await unlink(file);
          deleted++;
        }
      } catch {
        // Deleted meanwhile by another process: nothing left to do.
      }
    }
    return deleted;
  }
}

/** Keeps spilled results in memory: for tests, and for short-lived processes that read them back themselves. */
export class MemorySpillStore implements SpillStore {
  readonly #entries = new Map<string, string>();

  /** Keeps the entry and returns its reference. */
  async put(entry: SpillEntry): Promise<SpillReference> {
    const handle = spillHandle(entry);
    this.#entries.set(handle, entry.json);
    return { handle, bytes: byteLength(entry.json) };
  }

  /** The value kept under `handle`, parsed afresh on every read so callers cannot change the stored copy. */
  async get(handle: string): Promise<unknown> {
    const json = this.#entries.get(handle);
    return json === undefined ? undefined : JSON.parse(json);
  }
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
