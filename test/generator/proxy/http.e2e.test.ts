/**
 * `toolgate proxy` over Streamable HTTP, both ways, with the MCP SDK's own HTTP transports on the loopback: hosts
 * served at `--listen` in front of the stdio fixture server, and a host over stdio in front of a server reached at
 * `--url` (the orders fixture, answering over SSE streams and over JSON bodies), the wire ceiling holding there.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import {
  advertisedTool,
  contractFile,
  expectModelSaw,
  ordersCallResult,
  PRIVATE_MARKER,
  serveOverHttp,
  spillHandle,
  TOOL,
  VARIANTS,
  type Variant,
} from "../../integrations/fixture.js";
import { scratchFolders } from "../mcp/scratch.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const FIXTURE = path.join(REPO, "test", "fixtures", "mcp-servers", "proxy-server.mjs");
const FIXTURE_CONTRACTS = path.join(REPO, "test", "fixtures", "mcp-servers", "proxy-contracts");
/** The proxy's ceiling in the `--url` tests: the `large` answer (about 11 KB) is under it, a flood is over. */
const MAX_MESSAGE_BYTES = 64 * 1024;

const scratch = scratchFolders("proxy-http-");
let work: string;

beforeAll(async () => {
  await ensureBuilt();
  work = await scratch();
}, 120_000);

/** All the text of a result's content. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? "").join("\n");
}

/** A host over Streamable HTTP. */
async function httpHost(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "toolgate-http-host", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

/** `toolgate proxy --listen 0 …`, once it printed the URL it listens on. */
async function listeningProxy(flags: string[]): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, "proxy", "--listen", "0", ...flags], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
      const found = /toolgate proxy: listening on (\S+)/.exec(err)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${err}`)));
  });
  return { url, child, stderr: () => err };
}

describe("hosts over Streamable HTTP (--listen), the server over stdio", () => {
  let proxy: Awaited<ReturnType<typeof listeningProxy>>;
  const hosts: Client[] = [];

  beforeAll(async () => {
    proxy = await listeningProxy(["--schemas", FIXTURE_CONTRACTS, "--", process.execPath, FIXTURE]);
  }, 60_000);
  afterAll(async () => {
    for (const host of hosts) await host.close().catch(() => undefined);
    if (proxy?.child.exitCode === null) proxy.child.kill("SIGKILL");
  });

  async function host(): Promise<Client> {
    const { client } = await httpHost(proxy.url);
    hosts.push(client);
    return client;
  }

  it("prints the URL it listens on, with the port it was given", () => {
    const port = Number(/^http:\/\/127\.0\.0\.1:(\d+)\/mcp$/.exec(proxy.url)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(proxy.stderr()).toMatch(/toolgate proxy: gating 5 tool\(s\) of /);
  });

  it("lists the tools with their views' schemas and answers a gated call, its progress passed back", async () => {
    const client = await host();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["cancelled", "crash", "lookup", "progress", "wait"]);
    expect(tools.find((tool) => tool.name === "progress")?.outputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { steps: expect.any(Object) },
      additionalProperties: false,
    });
    const seen: number[] = [];
    const result = await client.callTool({ name: "progress", arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(result.isError ?? false).toBe(false);
    expect(textOf(result)).toMatch(/^<tool_result tool="progress" source="sha256:[0-9a-f]{16}" complete="true">/);
    expect(result.structuredContent).toEqual({ steps: 3 });
    expect(seen).toEqual([1, 2, 3]);
  });

  it("gives each host session a server of its own", async () => {
    const [first, second] = [await host(), await host()];
    const controller = new AbortController();
    const waiting = first.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await expect(waiting).rejects.toThrow();
    const cancelled = async (client: Client) =>
      ((await client.callTool({ name: "cancelled", arguments: {} })).structuredContent as { cancelled: number })
        .cancelled;
    let count = 0;
    for (let i = 0; i < 20 && count === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      count = await cancelled(first);
    }
    expect(count).toBe(1);
    expect(await cancelled(second)).toBe(0);
  });

  it("closes only the session whose server exits, and a session its host ends", async () => {
    const [crashing, ending, staying] = [await host(), await host(), await host()];
    const crashed = await crashing.callTool({ name: "crash", arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(/<tool_result tool="crash" .*error="transport_error" retryable="true"/);
    await expect(crashing.listTools()).rejects.toThrow(/Session not found/);
    expect(proxy.stderr()).toMatch(/the server of host session [0-9a-f-]{36} went/);

    const transport = ending.transport as StreamableHTTPClientTransport;
    const ended = transport.sessionId;
    await transport.terminateSession();
    const after = await fetch(proxy.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": String(ended),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
    expect(await after.json()).toMatchObject({ error: { code: -32001, message: "Session not found" } });
    expect((await staying.listTools()).tools).toHaveLength(5);
  }, 30_000);

  it("refuses a request naming another host (DNS rebinding)", async () => {
    const { port } = new URL(proxy.url);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const request = httpRequest(
        { host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { Host: `attacker.example:${port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on("error", reject);
      request.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }));
    });
    expect(status).toBe(403);
  });

  it("closes every session and stops on SIGTERM", async () => {
    const exited = new Promise<number | null>((resolve) => proxy.child.once("exit", (code) => resolve(code)));
    proxy.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(fetch(proxy.url, { method: "POST" })).rejects.toThrow();
  }, 30_000);
});

describe("a host over Streamable HTTP, the server at a --url nothing listens on", () => {
  it("answers the host's initialize with why, and goes on listening", async () => {
    const proxy = await listeningProxy(["--schemas", FIXTURE_CONTRACTS, "--url", "http://127.0.0.1:1/mcp"]);
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        await expect(httpHost(proxy.url)).rejects.toThrow(/The proxy could not reach the server/);
      }
      expect(proxy.stderr()).toMatch(/toolgate proxy: could not open a session with the server: /);
    } finally {
      proxy.child.kill("SIGTERM");
    }
  }, 30_000);
});

/** What the test's orders server saw: each request's method and headers. */
interface Seen {
  method: string | undefined;
  headers: IncomingHttpHeaders;
}

/**
 * The orders fixture server (a fresh one per session), with one more answer: for the customer `flood`, orders far
 * past the proxy's ceiling.
 */
async function floodingOrdersServer(): Promise<Server> {
  const tool = await advertisedTool();
  const server = new Server({ name: "toolgate-orders", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as { customer?: string; variant?: Variant };
    if (args.customer === "flood") {
      const orders = Array.from({ length: 400 }, (_, i) => ({ id: `ord_${i}`, total: i, note: "x".repeat(390) }));
      return { content: [{ type: "text", text: JSON.stringify({ customer: "flood", orders }) }] } as never;
    }
    return ordersCallResult(String(args.customer ?? ""), args.variant ?? "ok") as never;
  });
  return server;
}

/** The orders server over Streamable HTTP on the loopback, answering as SSE streams or as JSON bodies. */
async function serveOrders(answers: "sse" | "json"): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const served = await serveOverHttp(floodingOrdersServer, {
    answers,
    onRequest: (req) => seen.push({ method: req.method, headers: req.headers }),
  });
  return { ...served, seen };
}

describe.each(["sse", "json"] as const)(
  "a host over stdio, the server over Streamable HTTP (--url, %s answers)",
  (answers) => {
    let server: Awaited<ReturnType<typeof serveOrders>>;
    let client: Client;
    let transport: StdioClientTransport;
    let events: string;
    let err = "";

    beforeAll(async () => {
      server = await serveOrders(answers);
      events = path.join(work, `events-${answers}.jsonl`);
      transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          BIN,
          "proxy",
          ...["--schemas", path.dirname(contractFile), "--events", events],
          ...["--max-message-bytes", String(MAX_MESSAGE_BYTES)],
          ...["--url", server.url, "--header", "Authorization: Bearer t0ken-7"],
        ],
        cwd: REPO,
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString("utf8");
      });
      client = new Client({ name: "toolgate-stdio-host", version: "1" });
      await client.connect(transport);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await server?.close();
    });

    it("lists the tool with its view's schema, and the read-back tool", async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([TOOL, "read_tool_result"]);
      const schema = JSON.stringify(tools[0]?.outputSchema);
      expect(schema).toContain('"orders"');
      expect(schema).not.toContain("internalNotes");
    });

    it.each(VARIANTS)("gates the %s answer: the view or a typed failure, never the raw data", async (variant) => {
      const result = await client.callTool({ name: TOOL, arguments: { customer: "acme", variant } });
      expectModelSaw(textOf(result), variant, "mcp");
      expect(JSON.stringify(result)).not.toContain(PRIVATE_MARKER);
      expect(result.isError ?? false).toBe(variant === "invalid" || variant === "error");
      if (variant === "ok") expect((result.structuredContent as { orders: unknown[] }).orders).toHaveLength(10);
    });

    it("reads a spilled answer back through the proxy with the handle it gave", async () => {
      const spilled = await client.callTool({ name: TOOL, arguments: { customer: "acme", variant: "large" } });
      const handle = spillHandle(textOf(spilled));
      expect(handle).toBeDefined();
      const page = await client.callTool({
        name: "read_tool_result",
        arguments: { handle, pointer: "/orders", limit: 20 },
      });
      expect(page.isError ?? false).toBe(false);
      const items = (page.structuredContent as { items?: Array<{ id: string }> }).items ?? [];
      expect(items.map((item) => item.id)).toContain("ord_0011");
    });

    it("ends an answer over --max-message-bytes as result_too_large, and the session goes on", async () => {
      const flood = await client.callTool({ name: TOOL, arguments: { customer: "flood" } });
      expect(flood.isError).toBe(true);
      expect(textOf(flood)).toMatch(/<tool_result tool="list_orders" .*error="result_too_large" retryable="false"/);
      expect(err).toMatch(/toolgate proxy: cut an answer of (at least )?\d+ bytes on the wire \(over 65536\)/);
      const next = await client.callTool({ name: TOOL, arguments: { customer: "acme", variant: "ok" } });
      expectModelSaw(textOf(next), "ok");
    });

    it("sends the --header with every request to the server", () => {
      expect(server.seen.length).toBeGreaterThan(5);
      for (const request of server.seen) expect(request.headers.authorization).toBe("Bearer t0ken-7");
    });

    it("writes one event per gated call", async () => {
      // The proxy appends through a file stream: the last event may reach the file a moment after its answer.
      const read = async () => (await readFile(events, "utf8")).trim().split("\n");
      for (let wait = 0; wait < 40 && (await read()).length < 7; wait++) await new Promise((r) => setTimeout(r, 50));
      const lines = (await read()).map((line) => JSON.parse(line) as { tool: string; code: string });
      expect(lines.map((event) => event.code)).toEqual([
        "ok",
        "schema_mismatch",
        "tool_error",
        "ok",
        "ok",
        "result_too_large",
        "ok",
      ]);
    });

    it("ends its server session when the host goes", async () => {
      const exited = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
      });
      await client.close();
      await exited;
      for (let i = 0; i < 50 && !server.seen.some((request) => request.method === "DELETE"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(server.seen.map((request) => request.method)).toContain("DELETE");
    });
  },
);
