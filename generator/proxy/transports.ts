/**
 * The server side of `toolgate proxy`: a command started over stdio ({@link UpstreamTransport}) or a Streamable
 * HTTP server (`--url`, the MCP SDK's client transport over {@link boundedFetch}), the wire ceiling holding on
 * both. Each host session gets a transport of its own, so a proxy serving several hosts (`--listen`) gives each
 * its own server process or server session.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { UsageError } from "../cli/console.js";
import { boundedFetch } from "./http-bound.js";
import { UpstreamTransport } from "./upstream.js";

/** Where the server is: its command, or its URL and the HTTP headers every request to it carries. */
export type ServerTarget =
  | { command: string; args: readonly string[]; cwd?: string | undefined }
  | { url: URL; headers: Readonly<Record<string, string>> };

/** The server's transport, made anew for each host session; given a server session, one that carries it on. */
export type UpstreamFactory = (resume?: ServerSession) => Transport;

/** A session a server over Streamable HTTP gave: its `Mcp-Session-Id`, and the protocol version it agreed to. */
export interface ServerSession {
  sessionId: string;
  protocolVersion: string | undefined;
}

/** How long closing waits for the server to end its HTTP session (a DELETE) before it lets go. */
const TERMINATE_MS = 2000;

/**
 * The SDK's Streamable HTTP client transport that ends its server session (an HTTP DELETE) when it closes, unless
 * it was {@link HttpUpstream.keepSession kept} for other replicas.
 */
export class HttpUpstream extends StreamableHTTPClientTransport {
  #kept = false;

  /** Closing will leave the server's session open: other replicas serve the host's session on. */
  keepSession(): void {
    this.#kept = true;
  }

  /** The server's session, once it gave one. */
  serverSession(): ServerSession | undefined {
    const sessionId = this.sessionId;
    return sessionId === undefined ? undefined : { sessionId, protocolVersion: this.protocolVersion };
  }

  override async close(): Promise<void> {
    if (!this.#kept) {
      const waited = new Promise<void>((resolve) => setTimeout(resolve, TERMINATE_MS).unref());
      await Promise.race([this.terminateSession().catch(() => undefined), waited]);
    }
    await super.close();
  }
}

/** `--header "Name: value"` words as headers; a word without a name and a colon is a usage error. */
export function parseHeaders(words: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const word of words) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(word);
    if (match === null) throw new UsageError(`--header must be "Name: value", not ${JSON.stringify(word)}`);
    headers[match[1] as string] = (match[2] as string).trim();
  }
  return headers;
}

/** The server's URL, http or https; anything else is a usage error. */
export function parseServerUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url must be an http(s) URL, not ${JSON.stringify(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--url must be an http(s) URL, not ${JSON.stringify(text)}`);
  }
  return url;
}

/** The server's transports, each reading at most `maxMessageBytes` per message; a cut is told to `log`. */
export function upstreamFactory(target: ServerTarget, maxMessageBytes: number, log: (line: string) => void) {
  const cut = (bytes: number, exact = true) =>
    log(
      `toolgate proxy: cut an answer of ${exact ? "" : "at least "}${bytes} bytes on the wire (over ${maxMessageBytes})`,
    );
  if ("url" in target) {
    const fetch = boundedFetch(maxMessageBytes, ({ bytes, exact }) => cut(bytes, exact));
    return (resume?: ServerSession): Transport => {
      const requestInit = { headers: { ...target.headers } };
      // Carrying a session on: the SDK's client then sends no `initialize`, and every request names the session.
      const transport = new HttpUpstream(target.url, { fetch, requestInit, sessionId: resume?.sessionId });
      if (resume?.protocolVersion !== undefined) transport.setProtocolVersion(resume.protocolVersion);
      return transport;
    };
  }
  // The host set the proxy's environment for the server (a host config's `env` block): all of it is the server's.
  const env = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return (_resume?: ServerSession): Transport =>
    new UpstreamTransport({
      command: target.command,
      args: target.args,
      env,
      cwd: target.cwd,
      maxMessageBytes,
      onOversize: ({ bytes }) => cut(bytes),
    });
}
