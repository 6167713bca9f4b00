/**
 * The memory probe of the replicas' load test (`test/fixtures/replicas/memory-probe.cjs`): a replica started with it
 * answers, over its IPC channel, what it retains after a full garbage collection, while serving hosts as usual.
 * Many calls through it leave it holding about what it held before (no state kept per call), and the probe's channel
 * does not keep it running when it is told to stop.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { type Cluster, ECHO_CONTRACT, type ReplicaMemory, startCluster } from "../../fixtures/replicas/cluster.mjs";
import { scratchFolders } from "../mcp/scratch.js";

const scratch = scratchFolders("proxy-replicas-memory-");
const START_MS = 400_000;

/** All the text of a result's content. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? "").join("\n");
}

/** What the probe says a replica retains: its heap in use and its memory outside the heap. */
const retained = (memory: ReplicaMemory) => memory.heapUsed + memory.external;

describe("a replica started with the memory probe", () => {
  let cluster: Cluster;

  beforeAll(async () => {
    await ensureBuilt();
    const contracts = path.join(await scratch(), "contracts");
    await mkdir(contracts);
    await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(ECHO_CONTRACT, null, 2));
    const flags = ["--schemas", contracts, "--turns", "session"];
    cluster = await startCluster({ replicas: 1, server: "http", flags, memoryProbe: true });
  }, START_MS);

  afterAll(async () => {
    await cluster?.close();
  });

  it("answers what it retains after a full collection, and 900 calls more leave no state behind", async () => {
    const [replica] = cluster.proxies;
    if (replica === undefined) throw new Error("no replica");
    const transport = new StreamableHTTPClientTransport(new URL(cluster.url));
    const client = new Client({ name: "toolgate-replicas-memory", version: "1" });
    await client.connect(transport);
    const call = async (i: number) => {
      const result = await client.callTool({ name: "echo", arguments: { message: `hello ${i}` } });
      // The ordinary answer reaches the host whole through a probed replica.
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain('complete="true"');
      expect(textOf(result)).toContain(`Echo: hello ${i}`);
    };
    // Warmed first: the code paths of a call compiled (what V8 keeps of them grows, more slowly each time, for
    // some thousand calls), the session's state made.
    for (let i = 0; i < 900; i++) await call(i);
    const before = await replica.memory();
    expect(before.heapUsed).toBeGreaterThan(0);
    expect(before.heapUsed).toBeLessThanOrEqual(before.heapTotal);
    expect(before.rss).toBeGreaterThan(before.heapUsed);
    for (let i = 900; i < 1800; i++) await call(i);
    const after = await replica.memory();
    // A replica keeping the 2 KB per call the load test's rule catches would hold 1.8 MB more.
    expect(retained(after) - retained(before)).toBeLessThan(1.5 * 2 ** 20);
    await transport.terminateSession();
    await client.close();
  }, 400_000);

  it("still stops on SIGTERM, the probe's channel open", async () => {
    const [replica] = cluster.proxies;
    if (replica === undefined) throw new Error("no replica");
    const exited = new Promise<string | null>((resolve) =>
      replica.child.once("exit", (_code, signal) => resolve(signal)),
    );
    replica.child.kill("SIGTERM");
    // Ended by its own SIGTERM handling (no signal left it), not the SIGKILL the cluster sends 3 s later.
    expect(await exited).toBeNull();
    expect(replica.child.exitCode).toBe(0);
  }, 30_000);
});
