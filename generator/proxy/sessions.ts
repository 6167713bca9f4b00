/**
 * Host sessions shared by every replica of `toolgate proxy --listen --url … --redis …`: what one replica learned when
 * the host initialized (the host's `initialize`, the server's session id, protocol version, capabilities and
 * instructions, and the id spilled results are read back under) is kept in Redis under the host's session id, so any
 * replica behind a round-robin balancer carries the session on: it connects to the same server session without a
 * new `initialize`, and reads back the same spills. Only a server over Streamable HTTP can be shared this way; a
 * stdio server's state lives in one child process, so its replicas are balanced by session id instead.
 *
 * The host's session id stays a random UUID: it names a record in Redis and carries nothing itself, so a host
 * learns nothing from it, and a record the replicas did not write cannot be named into being.
 */
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** What the server said when the session began, as the proxy serves it on. */
export interface ServerHello {
  capabilities: Record<string, unknown>;
  serverInfo: { name?: unknown; version?: unknown } | undefined;
  instructions: string | undefined;
}

/** What a replica needs to carry on a host session another replica opened. */
export interface SharedSession {
  /** The host's `initialize` parameters, replayed to this replica's server side. */
  hello: Record<string, unknown>;
  /** The server's session: its `Mcp-Session-Id`, and the protocol version it agreed to. */
  upstream: { sessionId: string; protocolVersion: string | undefined };
  server: ServerHello;
  /** The session spilled results are kept and read back under. */
  readBack: string;
}

/** Where the replicas keep their host sessions. */
export interface SessionStore {
  save(id: string, session: SharedSession): Promise<void>;
  /** The session, or undefined when no replica opened it, it ended, or it expired. */
  load(id: string): Promise<SharedSession | undefined>;
  /** Keeps the session for another idle period; false when it is gone. */
  touch(id: string): Promise<boolean>;
  delete(id: string): Promise<void>;
}

/** What the store needs of a Redis client: node-redis's `set` with an expiry, `get`, `pExpire` and `del`. */
export interface RedisSessionClient {
  set(key: string, value: string, options: { expiration: { type: "PX"; value: number } }): Promise<unknown>;
  get(key: string): Promise<string | null>;
  pExpire(key: string, ms: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

/** Host sessions in Redis, one key each (`<prefix><id>`), expiring after `ttlMs` without a touch. */
export class RedisSessionStore implements SessionStore {
  readonly #client: RedisSessionClient;
  readonly #prefix: string;
  readonly #ttlMs: number;

  constructor(options: { client: RedisSessionClient; prefix?: string | undefined; ttlMs: number }) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "toolgate:session:";
    this.#ttlMs = options.ttlMs;
  }

  async save(id: string, session: SharedSession): Promise<void> {
    await this.#client.set(this.#prefix + id, JSON.stringify(session), {
      expiration: { type: "PX", value: this.#ttlMs },
    });
  }

  async load(id: string): Promise<SharedSession | undefined> {
    const text = await this.#client.get(this.#prefix + id);
    return text === null ? undefined : sharedSession(text);
  }

  async touch(id: string): Promise<boolean> {
    // node-redis answers PEXPIRE with 1 when the key exists, 0 when it does not.
    return Number(await this.#client.pExpire(this.#prefix + id, this.#ttlMs)) === 1;
  }

  async delete(id: string): Promise<void> {
    await this.#client.del(this.#prefix + id);
  }
}

/**
 * A stored session read back, or undefined when it is not one: Redis is the replicas' own, but a record left by
 * another version of the proxy must end the session (the host initializes anew), not crash a replica.
 */
export function sharedSession(text: string): SharedSession | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = value as Partial<SharedSession> | null;
  const isObject = (item: unknown): item is Record<string, unknown> =>
    typeof item === "object" && item !== null && !Array.isArray(item);
  if (!isObject(record) || !isObject(record.hello) || !isObject(record.upstream) || !isObject(record.server)) {
    return undefined;
  }
  const { upstream, server } = record;
  if (typeof upstream.sessionId !== "string" || typeof record.readBack !== "string") return undefined;
  if (!isObject(server.capabilities)) return undefined;
  return {
    hello: record.hello,
    upstream: {
      sessionId: upstream.sessionId,
      protocolVersion: typeof upstream.protocolVersion === "string" ? upstream.protocolVersion : undefined,
    },
    server: {
      capabilities: server.capabilities,
      serverInfo: isObject(server.serverInfo) ? server.serverInfo : undefined,
      instructions: typeof server.instructions === "string" ? server.instructions : undefined,
    },
    readBack: record.readBack,
  };
}

/**
 * The SDK's server transport for a session another replica initialized: it answers requests carrying `id` as if it
 * had handled that session's `initialize` itself. The SDK has no public way to adopt a session, so its two fields
 * are set (the SDK is pinned by the lock; this throws if they moved, rather than serve every request 400).
 */
export function adoptSession(http: StreamableHTTPServerTransport, id: string): void {
  const inner = (http as unknown as { _webStandardTransport?: Record<string, unknown> })._webStandardTransport;
  if (inner === undefined || inner._initialized !== false) {
    throw new Error("this version of the MCP SDK's Streamable HTTP transport cannot adopt a session");
  }
  inner.sessionId = id;
  inner._initialized = true;
}
