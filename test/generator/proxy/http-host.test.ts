/**
 * The host sessions of `toolgate proxy --listen`, in process: the MCP SDK's HTTP client as the host, `startProxy`
 * in front of the orders fixture server (over the SDK's in-memory transport, one server per host session). A host
 * that goes without DELETE has its session, and its server, closed once no request of it is open for the idle time;
 * a connected host's open GET stream keeps it; stopping the listener closes every session.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, expect, it } from "vitest";
import { type HostListener, listenForHosts } from "../../../generator/proxy/http-host.js";
import { startProxy } from "../../../generator/proxy/serve.js";
import { ordersServer } from "../../integrations/fixture.js";

const IDLE_MS = 300;

let listener: HostListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

/** A listener whose every session reaches a fresh orders server; how many of those servers closed, and its log. */
async function listen(): Promise<{ url: string; closed: () => number; log: string[] }> {
  let closed = 0;
  const log: string[] = [];
  listener = await listenForHosts({
    port: 0,
    host: "127.0.0.1",
    idleMs: IDLE_MS,
    log: (line) => log.push(line),
    open: async (host) => {
      const [upstream, serverSide] = InMemoryTransport.createLinkedPair();
      const server = await ordersServer();
      await server.connect(serverSide);
      server.onclose = () => void closed++;
      return startProxy({
        findTool: () => undefined,
        allowUngated: true,
        upstream,
        host,
        log: (line) => log.push(line),
      });
    },
  });
  return { url: listener.url, closed: () => closed, log };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "toolgate-idle-host", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("keeps a connected host's session, and closes it once the host went without DELETE", async () => {
  const { url, closed, log } = await listen();
  const client = await connect(url);
  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_orders"]);
  await sleep(IDLE_MS * 3);
  expect(closed()).toBe(0);
  expect((await client.listTools()).tools).toHaveLength(1);

  await client.close();
  for (let i = 0; i < 40 && closed() === 0; i++) await sleep(50);
  expect(closed()).toBe(1);
  expect(log.join("\n")).toMatch(/closing host session [0-9a-f-]{36}: no request for 0 s/);
});

it("closes every session, and its server, when the listener closes", async () => {
  const { url, closed } = await listen();
  const clients = [await connect(url), await connect(url)];
  await listener?.close();
  listener = undefined;
  expect(closed()).toBe(2);
  await expect(clients[0]?.listTools()).rejects.toThrow();
  for (const client of clients) await client.close();
});
