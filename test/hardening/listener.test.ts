/**
 * `toolgate proxy --listen` as an attacker meets it: the DNS-rebinding guard decides on the bound address as an
 * address (a loopback listener spelled `::ffff:127.0.0.1` or `127.0.0.2` checks `Host` like `127.0.0.1` does), and
 * anonymous `initialize` requests cannot hold server connections without end (a cap on open sessions, and a short
 * wait for a host that opened a session and never used it). Beside each, a real host connects and calls as before.
 */
import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { type HostListener, isLoopbackAddress, listenForHosts } from "../../generator/proxy/http-host.js";
import { startProxy } from "../../generator/proxy/serve.js";
import { ordersServer } from "../integrations/fixture.js";

let listener: HostListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function listen(host: string, options: { maxSessions?: number; unconfirmedMs?: number } = {}) {
  const servers = { opened: 0, closed: 0 };
  listener = await listenForHosts({
    port: 0,
    host,
    log: () => undefined,
    ...options,
    open: async (side) => {
      const [upstream, serverSide] = InMemoryTransport.createLinkedPair();
      const server = await ordersServer();
      await server.connect(serverSide);
      servers.opened++;
      server.onclose = () => void servers.closed++;
      return startProxy({ findTool: () => undefined, allowUngated: true, upstream, host: side, log: () => undefined });
    },
  });
  return { url: new URL(listener.url), servers };
}

/** An `initialize` POST as any client may send it, with the `Host` header given; its status. */
function initialize(url: URL, hostHeader: string): Promise<number | undefined> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "anonymous", version: "1" } },
  });
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ""),
        port: url.port,
        path: "/mcp",
        method: "POST",
        headers: {
          Host: hostHeader,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

async function connect(url: URL): Promise<Client> {
  const client = new Client({ name: "toolgate-host", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the DNS-rebinding guard", () => {
  it("knows loopback by address, not by spelling", () => {
    for (const address of ["127.0.0.1", "127.0.0.2", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) {
      expect(isLoopbackAddress(address)).toBe(true);
    }
    for (const address of ["0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "192.168.1.1"]) {
      expect(isLoopbackAddress(address)).toBe(false);
    }
  });

  for (const host of ["::ffff:127.0.0.1", "127.0.0.2", "127.0.0.1"]) {
    it(`bound to ${host}, refuses Host: attacker.example and serves a host that names the listener`, async () => {
      const { url } = await listen(host);
      expect(await initialize(url, `attacker.example:${url.port}`)).toBe(403);
      expect(await initialize(url, `localhost.attacker.example:${url.port}`)).toBe(403);
      const client = await connect(url);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_orders"]);
      await client.close();
    });
  }
});

describe("sessions opened and never used", () => {
  it("at most maxSessions are open; past it initialize is 503, and a host that never came back is closed", async () => {
    const { url, servers } = await listen("127.0.0.1", { maxSessions: 3, unconfirmedMs: 300 });
    const named = `127.0.0.1:${url.port}`;
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push(await initialize(url, named));
    expect(statuses).toEqual([200, 200, 200, 503, 503]);
    expect(servers.opened).toBe(3);
    // None of the three came back: each is closed after the short wait, its server with it.
    for (let i = 0; i < 60 && servers.closed < 3; i++) await sleep(50);
    expect(servers.closed).toBe(3);
    // The positive control: a real host is served, and keeps its session past the short wait.
    const client = await connect(url);
    await sleep(900);
    expect((await client.listTools()).tools).toHaveLength(1);
    expect(servers.closed).toBe(3);
    await client.close();
  });
});
