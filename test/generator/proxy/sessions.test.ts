/**
 * The pieces replicas share host sessions with (`generator/proxy/sessions.ts`): a stored session read back only when
 * it is one (a record of another shape ends the session rather than a replica), and the MCP SDK's server transport
 * adopting a session another replica initialized, which holds only while the SDK keeps the two fields it is set
 * through (the SDK is pinned; this test is what says it moved).
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { adoptSession, type SharedSession, sharedSession } from "../../../generator/proxy/sessions.js";

const SESSION: SharedSession = {
  hello: { protocolVersion: "2025-11-25", capabilities: { roots: {} }, clientInfo: { name: "host", version: "1" } },
  upstream: { sessionId: "3f1c0e2a-upstream", protocolVersion: "2025-11-25" },
  server: { capabilities: { tools: {} }, serverInfo: { name: "server", version: "2" }, instructions: "Use echo." },
  readBack: "0d9e6c1b-read-back",
};

describe("a stored session", () => {
  it("reads back as it was stored", () => {
    expect(sharedSession(JSON.stringify(SESSION))).toEqual(SESSION);
  });

  it("is no session when it is not one: not JSON, or a field missing or of another type", () => {
    const broken = [
      "not json",
      "null",
      "[]",
      JSON.stringify({ ...SESSION, hello: "initialize" }),
      JSON.stringify({ ...SESSION, upstream: { protocolVersion: "2025-11-25" } }),
      JSON.stringify({ ...SESSION, upstream: { sessionId: 7 } }),
      JSON.stringify({ ...SESSION, server: { capabilities: [] } }),
      JSON.stringify({ ...SESSION, readBack: undefined }),
    ];
    for (const text of broken) expect(sharedSession(text), text).toBeUndefined();
  });

  it("keeps what is optional optional: a server with no instructions, an upstream with no version", () => {
    const bare = {
      ...SESSION,
      upstream: { sessionId: "s" },
      server: { capabilities: {}, serverInfo: "x", instructions: 3 },
    };
    expect(sharedSession(JSON.stringify(bare))).toEqual({
      ...SESSION,
      upstream: { sessionId: "s", protocolVersion: undefined },
      server: { capabilities: {}, serverInfo: undefined, instructions: undefined },
    });
  });
});

describe("a transport adopting a session", () => {
  let http: HttpServer | undefined;
  afterEach(async () => {
    http?.closeAllConnections();
    await new Promise<void>((resolve) => (http === undefined ? resolve() : http.close(() => resolve())));
    http = undefined;
  });

  /** POSTs `tools/list` naming session `id`; the status and the body. */
  async function listTools(url: string, id: string): Promise<{ status: number; body: string }> {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    return { status: response.status, body: await response.text() };
  }

  it("answers the adopted session's requests without an initialize of its own, and refuses any other id", async () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => "adopted" });
    adoptSession(transport, "adopted");
    const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "echo", inputSchema: { type: "object" } }],
    }));
    await server.connect(transport);
    http = createServer((request, response) => void transport.handleRequest(request, response));
    await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

    const served = await listTools(url, "adopted");
    expect(served.status).toBe(200);
    expect(served.body).toContain('"name":"echo"');
    expect((await listTools(url, "another")).status).toBe(404);
    await server.close();
  });

  it("refuses a transport that already has a session of its own", () => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => "x" });
    adoptSession(transport, "first");
    expect(() => adoptSession(transport, "second")).toThrow(/cannot adopt/);
  });
});
