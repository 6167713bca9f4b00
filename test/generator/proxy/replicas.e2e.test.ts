/**
 * `toolgate proxy` on many replicas, end to end on the loopback: a real `redis-server`, the real server-everything
 * over Streamable HTTP, three proxy processes (`--listen 0 --redis … --url …`) and HAProxy balancing them
 * round-robin with no stickiness (`test/fixtures/replicas/cluster.mjs`). One host session is served by every
 * replica on one server session; a replica killed between two requests of the session costs the host at most one
 * request, retried, while every spill made before (on any replica, the dead one included) still reads back whole,
 * and each call is gated and recorded once. In front of a stdio server (its state in each replica's own child), HAProxy routes by
 * `Mcp-Session-Id` and the host is served; the same replicas balanced round-robin lose the session, which is why.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { type Cluster, ECHO_CONTRACT, startCluster } from "../../fixtures/replicas/cluster.mjs";
import { spillHandle } from "../../integrations/fixture.js";
import { scratchFolders } from "../mcp/scratch.js";

const scratch = scratchFolders("proxy-replicas-");
const START_MS = 400_000;

/** server-everything's slow tool: a call that is still under way when a replica is killed. */
const SLOW = {
  name: "trigger-long-running-operation",
  description: "Demonstrates a long running operation with progress updates.",
  inputSchema: {
    type: "object",
    properties: { duration: { type: "number", maximum: 30 }, steps: { type: "number", maximum: 30 } },
    additionalProperties: false,
  },
  "x-toolgate": {
    // Seconds of work that a busy machine may stretch well past the default 30 s.
    receive: { maxBytes: 64 * 1024, timeoutMs: 240_000 },
    context: { unit: "bytes", max: 4000 },
    result: { kind: "text", text: { maxLines: 100 } },
  },
};

/** All the text of a result's content. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? "").join("\n");
}

/** A host over Streamable HTTP at `url`. */
async function host(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "toolgate-replicas-host", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

/** The text a `text` view shows, from the gate's `tool_result` delimiter. */
function shownText(result: unknown): string {
  const body = /<tool_result[^>]*>\n([\s\S]*)\n<\/tool_result>/.exec(textOf(result))?.[1];
  return (JSON.parse(body ?? "{}") as { text?: string }).text ?? "";
}

/** Reads a spilled text back line range by line range through `client`; the whole text. */
async function readAll(client: Client, handle: string): Promise<string> {
  const lines: string[] = [];
  let args: Record<string, unknown> | undefined = { handle };
  for (let page = 0; args !== undefined && page < 200; page++) {
    const result = await client.callTool({ name: "read_tool_result", arguments: args });
    expect(result.isError, textOf(result)).toBeFalsy();
    const body = result.structuredContent as { lines?: string[]; next?: Record<string, unknown> };
    lines.push(...(body.lines ?? []));
    args = body.next;
  }
  return lines.join("\n");
}

/** A text of `count` numbered lines, `tag` in each: over the echo contract's 2,000 bytes, so it spills. */
const longText = (tag: string, count = 120) =>
  Array.from({ length: count }, (_, i) => `${tag} line ${String(i).padStart(4, "0")} of the long answer`).join("\n");

/** The gated calls each replica recorded, from their event files. */
async function events(files: readonly string[]): Promise<Array<{ tool: string }>> {
  const all: Array<{ tool: string }> = [];
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => "");
    for (const line of text.split("\n")) if (line.trim() !== "") all.push(JSON.parse(line) as { tool: string });
  }
  return all;
}

describe("three replicas in front of one Streamable HTTP server, balanced round-robin, sessions in Redis", () => {
  let cluster: Cluster;
  let eventFiles: string[];

  beforeAll(async () => {
    await ensureBuilt();
    const work = await scratch();
    const contracts = path.join(work, "contracts");
    await import("node:fs/promises").then((fs) => fs.mkdir(contracts));
    await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(ECHO_CONTRACT, null, 2));
    await writeFile(path.join(contracts, "slow.tool.json"), JSON.stringify(SLOW, null, 2));
    // One events file per replica: each gated call is one line, in whichever replica gated it.
    eventFiles = [0, 1, 2].map((i) => path.join(work, `events-${i}.jsonl`));
    const flags = ["--schemas", contracts];
    cluster = await startCluster({ replicas: 3, server: "http", flags, eventFiles });
  }, START_MS);

  afterAll(async () => {
    await cluster?.close();
  });

  it("serves one host session on every replica, on one server session, each answer whole", async () => {
    const before = cluster.serverOutput().match(/Session initialized/g)?.length ?? 0;
    const { client, transport } = await host(cluster.url);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(["echo", "read_tool_result", "trigger-long-running-operation"]);
    for (let i = 0; i < 12; i++) {
      const result = await client.callTool({ name: "echo", arguments: { message: `hello ${i}` } });
      // The ordinary answer reaches the model whole, on whichever replica served it.
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('complete="true"');
      expect(shownText(result)).toBe(`Echo: hello ${i}`);
    }
    const id = transport.sessionId as string;
    // The two replicas that did not open the session took it up; the server was initialized once for it.
    const tookUp = cluster.proxies.filter((proxy) => proxy.output().includes(`took up host session ${id}`));
    expect(tookUp).toHaveLength(2);
    expect(cluster.serverOutput().match(/Session initialized/g)?.length ?? 0).toBe(before + 1);
    // The host's DELETE, on one replica, ends the session on all three: none serves it on from what it held.
    await transport.terminateSession();
    await client.close();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(cluster.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": id,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(404);
    }
  }, 120_000);

  it("a replica killed mid-session costs at most one retried request; no spill is lost, none counted twice", async () => {
    const { client, transport } = await host(cluster.url);
    // Spills on every replica first (round-robin: three calls in a row reach three replicas).
    const texts = ["alpha", "bravo", "charlie"].map((tag) => longText(tag));
    const handles: string[] = [];
    for (const text of texts) {
      const result = await client.callTool({ name: "echo", arguments: { message: text } });
      expect(textOf(result)).toContain('policy="spill"');
      const handle = spillHandle(textOf(result));
      expect(handle).toMatch(/^spill_[0-9a-f]{32}$/);
      handles.push(handle as string);
    }

    // Replica 1 is killed between two requests of the session (SIGKILL: it says goodbye to no one).
    await cluster.kill(1);
    const slow = { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 1 } };
    const failures: string[] = [];
    const answers = [];
    for (let i = 0; i < 3; i++) {
      try {
        answers.push(await client.callTool(slow, undefined, { timeout: 90_000 }));
      } catch (error) {
        // What a host does when its request is lost: it sends it again.
        failures.push(String(error));
        answers.push(await client.callTool(slow, undefined, { timeout: 90_000 }));
      }
    }
    // The balancer tries a replica that refuses the connection elsewhere: at most one request is lost, and retried.
    expect(failures.length, failures.join("\n")).toBeLessThanOrEqual(1);
    for (const answer of answers) {
      expect(answer.isError, textOf(answer)).toBeFalsy();
      expect(shownText(answer)).toMatch(/Long running operation completed\. Duration: 1 seconds, Steps: 1\./);
    }

    // Every spill, the dead replica's included, reads back whole through the replicas left.
    for (const [i, handle] of handles.entries()) expect(await readAll(client, handle)).toBe(`Echo: ${texts[i]}`);
    // The session goes on: every call answered, none refused by a dead replica.
    for (let i = 0; i < 6; i++) {
      expect(shownText(await client.callTool({ name: "echo", arguments: { message: `after ${i}` } }))).toBe(
        `Echo: after ${i}`,
      );
    }
    await transport.terminateSession();
    await client.close();

    // Each answered call was gated and recorded once, on the replica that answered it: three, plus at most one for
    // each call the host gave up on (a call lost with the dead replica was never gated; one the host timed out on
    // may have been gated on a live replica before it gave up, and its retry is a call of its own).
    const recorded = await events(eventFiles);
    const slowEvents = recorded.filter((event) => event.tool === "trigger-long-running-operation");
    expect(slowEvents.length, failures.join("\n")).toBeGreaterThanOrEqual(3);
    expect(slowEvents.length, failures.join("\n")).toBeLessThanOrEqual(3 + failures.length);
  }, 600_000);
});

describe("three replicas in front of a stdio server each, balanced by session id", () => {
  let cluster: Cluster;

  beforeAll(async () => {
    await ensureBuilt();
    const contracts = path.join(await scratch(), "contracts");
    await import("node:fs/promises").then((fs) => fs.mkdir(contracts));
    await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(ECHO_CONTRACT, null, 2));
    cluster = await startCluster({ replicas: 3, server: "stdio", balance: "session", flags: ["--schemas", contracts] });
  }, START_MS);

  afterAll(async () => {
    await cluster?.close();
  });

  it("serves the host on the replica its session began on, and loses it when balanced round-robin", async () => {
    const { client, transport } = await host(cluster.url);
    for (let i = 0; i < 9; i++) {
      expect(shownText(await client.callTool({ name: "echo", arguments: { message: `stdio ${i}` } }))).toBe(
        `Echo: stdio ${i}`,
      );
    }
    // A spill reads back too: it stays with the session's replica, and in Redis.
    const spilled = await client.callTool({ name: "echo", arguments: { message: longText("delta") } });
    const handle = spillHandle(textOf(spilled)) as string;
    expect(await readAll(client, handle)).toBe(`Echo: ${longText("delta")}`);
    await transport.terminateSession();
    await client.close();

    // The control: the same replicas, round-robin. The session lives in one replica's child; the others refuse it.
    const roundRobin = await host(await cluster.balancer("roundrobin")).catch((error: unknown) => error);
    let refused = roundRobin instanceof Error;
    if (!refused) {
      const { client: other } = roundRobin as Awaited<ReturnType<typeof host>>;
      for (let i = 0; i < 3 && !refused; i++) {
        refused = await other.callTool({ name: "echo", arguments: { message: "x" } }).then(
          () => false,
          (error: unknown) => /404|Session not found/.test(String(error)),
        );
      }
      await other.close();
    }
    expect(refused).toBe(true);
  }, 120_000);
});
