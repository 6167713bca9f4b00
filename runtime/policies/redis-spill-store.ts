/**
 * A spill store in Redis, shared by every process that reaches the server: one process spills, another (on any
 * machine) reads the value back page by page. Each value is one key, `<prefix><handle>`, holding the same bytes a
 * {@link FileSpillStore} file holds (the header with the value's length, sha256, scope, expiry and index, then the
 * value), so reads verify it the same way. Keys expire by Redis itself: `ttlMs` after the spill plus `graceMs`, so
 * a read in the grace period is told the value expired rather than that it never existed.
 *
 * Imported from `@toolgate/runtime/redis` only: the main entry never loads it. It takes a connected node-redis
 * client (`redis` is an optional peer dependency) or connects one with {@link RedisSpillStore.connect}.
 */
import type { SpillReference } from "../contract/types.js";
import { decodeSpill, encodeSpill, rememberedDigest, unexpired } from "./spill-format.js";
import {
  isSpillHandle,
  type SpillEntry,
  type SpillRecord,
  type SpillStore,
  type SpillStoreOptions,
  spillMeta,
} from "./spill-store.js";

/** What the store needs of a Redis client: node-redis's `set` with an expiry and `get`. */
export interface RedisSpillClient {
  set(
    key: string,
    value: string,
    options: { expiration: { type: "PX"; value: number }; condition: "NX" },
  ): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/** Options of a {@link RedisSpillStore}. */
export interface RedisSpillStoreOptions extends SpillStoreOptions {
  /** The connected client. */
  client: RedisSpillClient;
  /** What every key starts with; default `toolgate:spill:`. */
  prefix?: string | undefined;
  /** How long a value stays readable, in milliseconds; default one hour. */
  ttlMs?: number | undefined;
  /** How long Redis keeps a value past its expiry, so a late read says `expired`; default ten minutes. */
  graceMs?: number | undefined;
}

/** How many handles a store remembers the sha256 of (the newest ones), for the check that a value was not replaced. */
const REMEMBERED_HANDLES = 10_000;

/** Spills to Redis (see the module comment). */
export class RedisSpillStore implements SpillStore {
  readonly #client: RedisSpillClient;
  readonly #prefix: string;
  readonly #graceMs: number;
  readonly #options: SpillStoreOptions;
  readonly #written = new Map<string, string>();
  #close: (() => Promise<unknown>) | undefined;

  constructor(options: RedisSpillStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "toolgate:spill:";
    this.#graceMs = options.graceMs ?? 600_000;
    this.#options = { ttlMs: options.ttlMs ?? 3_600_000, now: options.now };
  }

  /**
   * Connects a node-redis client to `url` (`redis://host:port`) and returns a store over it; {@link close} closes
   * the client. Needs the `redis` package.
   */
  static async connect(url: string, options: Omit<RedisSpillStoreOptions, "client"> = {}): Promise<RedisSpillStore> {
    const { createClient } = await import("redis");
    const client = createClient({ url });
    // A connection error is reported by the command that meets it; without a listener it would crash the process.
    client.on("error", () => undefined);
    await client.connect();
    const store = new RedisSpillStore({ ...options, client: client as unknown as RedisSpillClient });
    store.#close = () => client.close();
    return store;
  }

  /** Closes the client this store connected ({@link connect}); a client passed in is the caller's to close. */
  async close(): Promise<void> {
    await this.#close?.();
  }

  /** Keeps the entry under a new random handle, with Redis's expiry, and returns its reference. */
  async put(entry: SpillEntry): Promise<SpillReference> {
    const { randomBytes, createHash } = await import("node:crypto");
    const hash = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
    const handle = `spill_${randomBytes(16).toString("hex")}`;
    const sha256 = hash(new TextEncoder().encode(entry.json));
    const meta = spillMeta(handle, entry, sha256, this.#options);
    const { head, value } = encodeSpill(meta, entry.json, hash);
    const text = `${new TextDecoder().decode(head)}${entry.json}}`;
    const ttl = (meta.expiresAt ?? (meta.createdAt as number) + 3_600_000) - (meta.createdAt as number);
    await this.#client.set(`${this.#prefix}${handle}`, text, {
      expiration: { type: "PX", value: Math.max(1, ttl + this.#graceMs) },
      condition: "NX",
    });
    if (this.#written.size >= REMEMBERED_HANDLES) this.#written.delete(this.#written.keys().next().value as string);
    this.#written.set(handle, rememberedDigest(head, sha256, hash));
    return { handle, bytes: value.byteLength };
  }

  /**
   * The value under `handle`; `undefined` for a malformed handle or none. Throws `SpillStoreError` when tampered,
   * and (`expired`) past its time to live, in the grace period before Redis deletes the key.
   */
  async get(handle: string): Promise<unknown> {
    const record = await this.read(handle);
    return record === undefined ? undefined : JSON.parse(record.json);
  }

  /**
   * The entry under `handle` with its scope, expiry and index, verified; `undefined` for a malformed handle or none.
   * Throws as {@link get} does.
   */
  async read(handle: string): Promise<SpillRecord | undefined> {
    if (!isSpillHandle(handle)) return undefined;
    const text = await this.#client.get(`${this.#prefix}${handle}`);
    if (text === null || text === undefined) return undefined;
    const { createHash } = await import("node:crypto");
    const record = decodeSpill(new TextEncoder().encode(String(text)), handle, this.#written.get(handle), (bytes) =>
      createHash("sha256").update(bytes).digest("hex"),
    );
    return unexpired(record, (this.#options.now ?? Date.now)());
  }
}
