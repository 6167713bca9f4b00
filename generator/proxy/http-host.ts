/**
 * `toolgate proxy --listen`: the host side over Streamable HTTP, the MCP SDK's `StreamableHTTPServerTransport` on
 * node:http at `/mcp`. Each host session (an `initialize` POST without a session id) is a proxy session of its own,
 * with its own server connection: `startProxy` ties one host to one server, and a server's state (its process,
 * its subscriptions, its cancelled calls) is then never shared between hosts. A session ends when its host sends
 * DELETE, when its server goes (the host's next request is answered 404, and it initializes anew), when it has
 * had no request open for {@link IDLE_MS} (a host that went without DELETE: a connected SDK client keeps its GET
 * stream open), or when the proxy stops.
 *
 * With a {@link SessionStore} (`--redis`, a server over Streamable HTTP), replicas share their sessions: the one that
 * handles a host's `initialize` stores what the session is before the host learns its id, and a replica given a
 * session id it does not hold takes the session up from the store (`sessions.ts`). A replica then lets a session go
 * (idle, or stopping) without ending the server's session, which the other replicas serve on; the host's DELETE,
 * on whichever replica, ends it everywhere.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, BlockList, isIPv4 } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { RESUME_AFTER_MS, resumableAnswers } from "./resume.js";
import type { RunningProxy } from "./serve.js";
import { adoptSession, type SessionStore, type SharedSession } from "./sessions.js";

/** A proxy session as the listener holds it. */
export interface HostedProxy extends RunningProxy {
  /** The server's session, when replicas can share it (a server over Streamable HTTP that gave one). */
  upstreamSession?(): SharedSession["upstream"] | undefined;
  /** Lets the session go here without ending the server's session, which other replicas serve on. */
  release?(): Promise<void>;
}

/** Where to listen, and how a host session becomes a proxy session. */
export interface HostListenOptions {
  port: number;
  host: string;
  /**
   * Starts the proxy for one host session (`startProxy` with a server transport of its own); given `resumed`, for
   * a session another replica opened, with a server transport that carries on that session.
   */
  open(host: Transport, resumed?: SharedSession): Promise<HostedProxy>;
  /** Where replicas share their host sessions; without it, a session lives in this process only. */
  store?: SessionStore | undefined;
  log(line: string): void;
  /** How long a session may have no request open before it is closed (default {@link IDLE_MS}). */
  idleMs?: number | undefined;
  /**
   * How long a session that has had only its `initialize` may wait for the host's next request (default
   * {@link UNCONFIRMED_MS}): a host that opened a session and never used it holds a server process no longer.
   */
  unconfirmedMs?: number | undefined;
  /** The most host sessions open at once (default {@link MAX_SESSIONS}); past it, `initialize` is answered 503. */
  maxSessions?: number | undefined;
}

/** The proxy listening for hosts. */
export interface HostListener {
  /** The endpoint hosts connect to, with the port actually bound. */
  url: string;
  /** Closes every session (and its server connection), then stops listening. */
  close(): Promise<void>;
}

/** How long a host session may have no request open before it is closed: 30 minutes. */
export const IDLE_MS = 30 * 60 * 1000;

/** How long a session that has had only its `initialize` waits for the host's next request: one minute. */
export const UNCONFIRMED_MS = 60 * 1000;

/**
 * The most host sessions one listener holds at once: each is a server connection (for a stdio server, a process),
 * so anonymous `initialize` requests must not open them without end.
 */
export const MAX_SESSIONS = 64;

/** One host session: its transport, its proxy, its requests open now (and since when it has none), and how many. */
interface Live {
  http: StreamableHTTPServerTransport;
  proxy: Promise<HostedProxy>;
  open: number;
  idleSince: number;
  requests: number;
}

/** The id of the `initialize` a replica replays to its server side when it takes a session up; never answered. */
const RESUME_ID = "toolgate-resume";

/** How long an idle host connection is kept open: longer than a balancer keeps its own. */
const KEEP_ALIVE_MS = 75_000;

/** The one path the proxy serves. */
const ENDPOINT = "/mcp";

/** The host names a browser may send for a loopback listener, besides the bound address: any other is refused. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"];

/** Every loopback address, however it is spelled: 127.0.0.0/8, `::1` in any form, and IPv4 loopback mapped to IPv6. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * Whether the listener's bound address is a loopback address. Decided on the address as an address, not as text:
 * a listener bound to `::ffff:127.0.0.1` or `127.0.0.2` is as reachable from a page in a browser by DNS rebinding as
 * one bound to `127.0.0.1`, so it gets the same `Host` check.
 */
export function isLoopbackAddress(address: string): boolean {
  return LOOPBACK.check(address, isIPv4(address) ? "ipv4" : "ipv6");
}

/**
 * The host's transport as its proxy session sees it: it says when the session started it (the proxy is then
 * reading, so the `initialize` POST may be handed over), and keeps that request's id to answer it when the
 * server cannot be reached.
 */
class HostSession implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  initializeId: RequestId | undefined;
  /** The host's `initialize` parameters, which another replica replays when it takes the session up. */
  hello: Record<string, unknown> = {};
  /**
   * Awaited before the host is answered its `initialize`: the session is stored for the other replicas first. It
   * resolves to why it could not be, and the host is then answered that instead.
   */
  beforeWelcome: (() => Promise<string | undefined>) | undefined;
  readonly started: Promise<void>;
  #started: () => void = () => undefined;
  #replayed: boolean;

  /** `resumed`: the host's `initialize` of a session another replica opened, replayed to the proxy at start. */
  constructor(
    readonly http: StreamableHTTPServerTransport,
    readonly resumed?: Record<string, unknown>,
  ) {
    this.#replayed = resumed === undefined;
    this.started = new Promise((resolve) => {
      this.#started = resolve;
    });
    http.onmessage = (message, extra) => {
      if (
        this.initializeId === undefined &&
        "method" in message &&
        message.method === "initialize" &&
        "id" in message
      ) {
        this.initializeId = message.id;
        this.hello = (message.params ?? {}) as Record<string, unknown>;
      }
      this.onmessage?.(message, extra);
    };
    http.onclose = () => this.onclose?.();
    http.onerror = (error) => this.onerror?.(error);
  }

  async start(): Promise<void> {
    await this.http.start();
    if (this.resumed !== undefined) {
      // The SDK's server learns the host's capabilities and version from an `initialize`, as it did on the replica
      // that opened the session; the server itself is not initialized again.
      this.onmessage?.({ jsonrpc: "2.0", id: RESUME_ID, method: "initialize", params: this.resumed as never });
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
    this.#started();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!this.#replayed && "id" in message && message.id === RESUME_ID && !("method" in message)) {
      this.#replayed = true;
      return;
    }
    if (this.beforeWelcome !== undefined && "result" in message && message.id === this.initializeId) {
      const share = this.beforeWelcome;
      this.beforeWelcome = undefined;
      const failed = await share();
      if (failed !== undefined) {
        return this.http.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: failed } }, options);
      }
    }
    return this.http.send(message, options);
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** The host sessions of one listener: each request routed to its session, or opening one. */
class Sessions {
  readonly #live = new Map<string, Live>();
  /** Sessions whose `initialize` POST is being handled (not yet in `#live`, or refused). */
  readonly #opening = new Set<HostSession>();
  /** Sessions being taken up from the store, so two requests at once take one up once. */
  readonly #resuming = new Map<string, Promise<Live | undefined>>();
  /** The `Host` headers accepted (DNS rebinding protection), when listening on a loopback address. */
  allowedHosts: string[] | undefined;

  readonly #sweep: NodeJS.Timeout;

  constructor(readonly options: HostListenOptions) {
    const idleMs = options.idleMs ?? IDLE_MS;
    const unconfirmedMs = Math.min(idleMs, options.unconfirmedMs ?? UNCONFIRMED_MS);
    this.#sweep = setInterval(() => this.#closeIdle(idleMs, unconfirmedMs), Math.min(unconfirmedMs, 60_000)).unref();
  }

  async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? "/", "http://proxy").pathname !== ENDPOINT) {
      return refusal(response, 404, -32000, `Not found: the MCP endpoint is ${ENDPOINT}`);
    }
    const id = request.headers["mcp-session-id"];
    if (typeof id === "string") {
      const held = await this.#stillShared(id);
      const session = held ?? (await this.#resume(id, response));
      if (session === null) return;
      if (session === undefined) return refusal(response, 404, -32001, "Session not found");
      this.#opened(session, response);
      return session.http.handleRequest(request, response);
    }
    if (request.method !== "POST")
      return refusal(response, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const max = this.options.maxSessions ?? MAX_SESSIONS;
    if (this.#live.size + this.#opening.size >= max) {
      this.options.log(`toolgate proxy: refused a new host session: ${max} are open`);
      return refusal(response, 503, -32000, `Service unavailable: the proxy holds its most sessions (${max})`);
    }
    return this.#open(request, response);
  }

  /** A new host session: its `initialize` POST handed to a proxy session once that is reading. */
  async #open(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      // A host whose answer stream breaks with a replica learns it on resuming, from any replica (`resume.ts`).
      eventStore: resumableAnswers(() => http),
      retryInterval: RESUME_AFTER_MS,
      onsessioninitialized: (id) => {
        const now = Date.now();
        const session: Live = { http, proxy, open: 0, idleSince: now, requests: 0 };
        this.#live.set(id, session);
        this.#opened(session, response);
      },
      ...(this.allowedHosts === undefined
        ? {}
        : { enableDnsRebindingProtection: true, allowedHosts: this.allowedHosts }),
    });
    const host = new HostSession(http);
    this.#opening.add(host);
    const proxy = this.options.open(host);
    const store = this.options.store;
    if (store !== undefined) host.beforeWelcome = () => share(store, http, host, proxy);
    proxy.then(
      (running) => void running.closed.then(({ by }) => this.#ended(http, by)),
      (error: unknown) => void this.#refuse(host, error),
    );
    await Promise.race([host.started, proxy.catch(() => undefined)]);
    await http.handleRequest(request, response);
    this.#opening.delete(host);
    // Not an initialize the transport accepted (it answered the host why): nothing was opened.
    if (http.sessionId === undefined) await http.close();
  }

  /**
   * The session `id` held here, its expiry in the store pushed back. A shared session the store no longer has ended
   * on another replica (the host's DELETE) or expired: it is let go here too, and the host is told it is not found.
   * When the store cannot be reached, the session is served on as held.
   */
  async #stillShared(id: string): Promise<Live | undefined> {
    const session = this.#live.get(id);
    const store = this.options.store;
    if (session === undefined || store === undefined) return session;
    if (await store.touch(id).catch(() => true)) return session;
    if (this.#live.get(id) === session) this.#live.delete(id);
    void session.proxy.then((running) => (running.release ?? running.close)()).catch(() => undefined);
    return undefined;
  }

  /**
   * The session `id` taken up from the store, when another replica opened it: undefined when the store has no such
   * session, null when it was refused here (the host was answered why).
   */
  #resume(id: string, response: ServerResponse): Promise<Live | undefined | null> {
    const store = this.options.store;
    if (store === undefined) return Promise.resolve(undefined);
    let resuming = this.#resuming.get(id);
    if (resuming === undefined) {
      resuming = this.#takeUp(store, id).finally(() => this.#resuming.delete(id));
      this.#resuming.set(id, resuming);
    }
    return resuming.then(
      (live) => live,
      (error: unknown) => {
        const reason = why(error);
        this.options.log(`toolgate proxy: could not take up host session ${id}: ${reason}`);
        refusal(response, 503, -32603, `The proxy could not take up the session: ${reason}`);
        return null;
      },
    );
  }

  async #takeUp(store: SessionStore, id: string): Promise<Live | undefined> {
    const shared = await store.load(id);
    if (shared === undefined) return undefined;
    const max = this.options.maxSessions ?? MAX_SESSIONS;
    if (this.#live.size + this.#opening.size >= max) throw new Error(`this replica holds its most sessions (${max})`);
    const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: resumableAnswers(() => http),
      retryInterval: RESUME_AFTER_MS,
      ...(this.allowedHosts === undefined
        ? {}
        : { enableDnsRebindingProtection: true, allowedHosts: this.allowedHosts }),
    });
    adoptSession(http, id);
    const proxy = this.options.open(new HostSession(http, shared.hello), shared);
    const running = await proxy;
    // Taken up: a session in use, held to the idle time (not the time an unconfirmed one gets).
    const now = Date.now();
    const session: Live = { http, proxy, open: 0, idleSince: now, requests: 2 };
    this.#live.set(id, session);
    void running.closed.then(({ by }) => this.#ended(http, by));
    this.options.log(`toolgate proxy: took up host session ${id}, opened by another replica`);
    return session;
  }

  /** A request of `session` is open until its response closes. */
  #opened(session: Live, response: ServerResponse): void {
    session.open++;
    session.requests++;
    response.once("close", () => {
      session.open--;
      session.idleSince = Date.now();
    });
  }

  /**
   * Closes each session that has had no request open for `idleMs`, or, when it has had only its `initialize`, for
   * `unconfirmedMs`.
   */
  #closeIdle(idleMs: number, unconfirmedMs: number): void {
    const now = Date.now();
    for (const [id, session] of this.#live) {
      const limit = session.requests > 1 ? idleMs : unconfirmedMs;
      if (session.open > 0 || now - session.idleSince < limit) continue;
      this.#live.delete(id);
      this.options.log(`toolgate proxy: closing host session ${id}: no request for ${Math.round(limit / 1000)} s`);
      void this.#letGo(id, session).catch(() => undefined);
    }
  }

  /**
   * Lets a session go here. Shared, it is only released while the store still holds it (another replica may be
   * serving it); once the store let it expire too, the server's session is ended with it.
   */
  async #letGo(id: string, session: Live): Promise<void> {
    const running = await session.proxy;
    const store = this.options.store;
    const shared = store !== undefined && running.release !== undefined && (await store.load(id)) !== undefined;
    await (shared ? running.release?.() : running.close());
  }

  #ended(http: StreamableHTTPServerTransport, by: "host" | "server"): void {
    const id = http.sessionId;
    // Still held here: the host ended the session (DELETE) or its server went, not this replica letting it go.
    if (id !== undefined && this.#live.get(id)?.http === http) {
      this.#live.delete(id);
      void this.options.store?.delete(id).catch(() => undefined);
    }
    if (by === "server")
      this.options.log(`toolgate proxy: the server of host session ${http.sessionId} went; it is closed`);
  }

  /** The server could not be reached: the host's `initialize` is answered with why, and its session closed. */
  async #refuse(host: HostSession, error: unknown): Promise<void> {
    if (host.http.sessionId !== undefined) this.#live.delete(host.http.sessionId);
    const reason = why(error);
    if (host.initializeId !== undefined) {
      this.options.log(`toolgate proxy: could not open a session with the server: ${reason}`);
      const message = `The proxy could not reach the server: ${reason}`;
      await host.http
        .send({ jsonrpc: "2.0", id: host.initializeId, error: { code: -32603, message } })
        .catch(() => undefined);
    }
    await host.http.close();
  }

  /** Closes every session, and with it its server connection. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const live = [...this.#live];
    this.#live.clear();
    // Shared sessions are only released: the other replicas serve them on.
    await Promise.allSettled(live.map(([id, session]) => this.#letGo(id, session)));
    await Promise.allSettled([...this.#opening].map((host) => host.close()));
  }
}

/**
 * Stores a new session for the other replicas, once its proxy reached the server; why it could not, if it could
 * not (a server that gave no session id serves no other replica).
 */
async function share(
  store: SessionStore,
  http: StreamableHTTPServerTransport,
  host: HostSession,
  proxy: Promise<HostedProxy>,
): Promise<string | undefined> {
  try {
    const running = await proxy;
    const upstream = running.upstreamSession?.();
    const id = http.sessionId;
    if (upstream === undefined || id === undefined) return "The server gave no session the proxy's replicas can share";
    await store.save(id, { hello: host.hello, upstream, ...running.shared });
    return undefined;
  } catch (error) {
    return `The proxy could not share the session with its replicas: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Listens on `host:port` (port 0: a free one) and serves each host session its own proxy. */
export async function listenForHosts(options: HostListenOptions): Promise<HostListener> {
  const sessions = new Sessions(options);
  const server = createServer((request, response) => {
    sessions.route(request, response).catch((error: unknown) => {
      options.log(`toolgate proxy: a host request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) refusal(response, 500, -32603, "Internal error");
      else response.end();
    });
  });
  // A balancer keeps its connections to the proxy open and reuses them: Node's default of closing an idle one after
  // 5 s races a request sent on it as it closes, which the host then sees as a lost request. Idle connections are
  // kept longer than balancers keep theirs (HAProxy and nginx: a minute at most by default).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const named = (name: string) => `${name.includes(":") ? `[${name}]` : name}:${port}`;
  if (isLoopbackAddress(address)) {
    // The bound address as written and as a URL writes it (`::ffff:127.0.0.1` is `[::ffff:7f00:1]` there).
    const canonical = new URL(`http://${named(address)}`).hostname.replace(/^\[|\]$/g, "");
    sessions.allowedHosts = [...new Set([...LOOPBACK_NAMES, address, canonical])].map(named);
  }
  return {
    url: `http://${named(address)}${ENDPOINT}`,
    close: async () => {
      await sessions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What went wrong, with its cause when it has one (`fetch failed` says nothing of why). */
function why(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/** A JSON-RPC error as the HTTP answer, as the SDK's transport answers its own refusals. */
function refusal(response: ServerResponse, status: number, code: number, message: string): void {
  response
    .writeHead(status, { "Content-Type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
