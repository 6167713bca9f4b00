/**
 * `toolgate proxy --listen`: the host side over Streamable HTTP, the MCP SDK's `StreamableHTTPServerTransport` on
 * node:http at `/mcp`. Each host session (an `initialize` POST without a session id) is a proxy session of its own,
 * with its own server connection: `startProxy` ties one host to one server, and a server's state (its process,
 * its subscriptions, its cancelled calls) is then never shared between hosts. A session ends when its host sends
 * DELETE, when its server goes (the host's next request is answered 404, and it initializes anew), when it has
 * had no request open for {@link IDLE_MS} (a host that went without DELETE: a connected SDK client keeps its GET
 * stream open), or when the proxy stops.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { RunningProxy } from "./serve.js";

/** Where to listen, and how a host session becomes a proxy session. */
export interface HostListenOptions {
  port: number;
  host: string;
  /** Starts the proxy for one host session (`startProxy` with a server transport of its own). */
  open(host: Transport): Promise<RunningProxy>;
  log(line: string): void;
  /** How long a session may have no request open before it is closed (default {@link IDLE_MS}). */
  idleMs?: number | undefined;
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

/** One host session: its transport, its proxy, and its requests open now (and since when it has none). */
interface Live {
  http: StreamableHTTPServerTransport;
  proxy: Promise<RunningProxy>;
  open: number;
  idleSince: number;
}

/** The one path the proxy serves. */
const ENDPOINT = "/mcp";

/** The host names a browser may send for a loopback listener: any other is DNS rebinding, and refused. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

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
  readonly started: Promise<void>;
  #started: () => void = () => undefined;

  constructor(readonly http: StreamableHTTPServerTransport) {
    this.started = new Promise((resolve) => {
      this.#started = resolve;
    });
    http.onmessage = (message, extra) => {
      if (this.initializeId === undefined && "method" in message && message.method === "initialize" && "id" in message)
        this.initializeId = message.id;
      this.onmessage?.(message, extra);
    };
    http.onclose = () => this.onclose?.();
    http.onerror = (error) => this.onerror?.(error);
  }

  async start(): Promise<void> {
    await this.http.start();
    this.#started();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
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
  /** The `Host` headers accepted (DNS rebinding protection), when listening on a loopback address. */
  allowedHosts: string[] | undefined;

  readonly #sweep: NodeJS.Timeout;

  constructor(readonly options: HostListenOptions) {
    const idleMs = options.idleMs ?? IDLE_MS;
    this.#sweep = setInterval(() => this.#closeIdle(idleMs), Math.min(idleMs, 60_000)).unref();
  }

  async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? "/", "http://proxy").pathname !== ENDPOINT) {
      return refusal(response, 404, -32000, `Not found: the MCP endpoint is ${ENDPOINT}`);
    }
    const id = request.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = this.#live.get(id);
      if (session === undefined) return refusal(response, 404, -32001, "Session not found");
      this.#opened(session, response);
      return session.http.handleRequest(request, response);
    }
    if (request.method !== "POST")
      return refusal(response, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    return this.#open(request, response);
  }

  /** A new host session: its `initialize` POST handed to a proxy session once that is reading. */
  async #open(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        const session: Live = { http, proxy, open: 0, idleSince: Date.now() };
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

  /** A request of `session` is open until its response closes. */
  #opened(session: Live, response: ServerResponse): void {
    session.open++;
    response.once("close", () => {
      session.open--;
      session.idleSince = Date.now();
    });
  }

  /** Closes each session that has had no request open for `idleMs`. */
  #closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const [id, session] of this.#live) {
      if (session.open > 0 || now - session.idleSince < idleMs) continue;
      this.#live.delete(id);
      this.options.log(`toolgate proxy: closing host session ${id}: no request for ${Math.round(idleMs / 1000)} s`);
      void session.proxy.then((running) => running.close()).catch(() => undefined);
    }
  }

  #ended(http: StreamableHTTPServerTransport, by: "host" | "server"): void {
    if (http.sessionId !== undefined) this.#live.delete(http.sessionId);
    if (by === "server")
      this.options.log(`toolgate proxy: the server of host session ${http.sessionId} went; it is closed`);
  }

  /** The server could not be reached: the host's `initialize` is answered with why, and its session closed. */
  async #refuse(host: HostSession, error: unknown): Promise<void> {
    if (host.http.sessionId !== undefined) this.#live.delete(host.http.sessionId);
    const reason = error instanceof Error ? error.message : String(error);
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
    const running = await Promise.allSettled([...this.#live.values()].map((session) => session.proxy));
    await Promise.allSettled(running.map((result) => (result.status === "fulfilled" ? result.value.close() : null)));
    await Promise.allSettled([...this.#opening].map((host) => host.close()));
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
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const named = (name: string) => `${name.includes(":") ? `[${name}]` : name}:${port}`;
  if (LOOPBACK.has(address)) sessions.allowedHosts = [...LOOPBACK].map(named);
  return {
    url: `http://${named(address)}${ENDPOINT}`,
    close: async () => {
      await sessions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON-RPC error as the HTTP answer, as the SDK's transport answers its own refusals. */
function refusal(response: ServerResponse, status: number, code: number, message: string): void {
  response
    .writeHead(status, { "Content-Type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
