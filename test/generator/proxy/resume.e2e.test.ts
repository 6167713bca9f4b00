/**
 * A replica killed while a call's answer stream is open, end to end: Redis, three replicas in front of
 * server-everything over Streamable HTTP, and HAProxy sending every request to the first replica that is up (so the
 * test knows which replica holds the call). The host's call must fail within seconds, with an error that says the
 * answer was lost and a retry may help, not wait out its request timeout; the host's retry, on the replica that is
 * left, is answered whole (`generator/proxy/resume.ts`).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { type Cluster, startCluster } from "../../fixtures/replicas/cluster.mjs";
import { scratchFolders } from "../mcp/scratch.js";

const scratch = scratchFolders("proxy-resume-");
const START_MS = 400_000;
/** The host's request timeout: what a lost answer cost the host before. */
const HOST_TIMEOUT_MS = 120_000;

/** server-everything's slow tool: an answer stream that stays open, with progress, for `duration` seconds. */
const SLOW = {
  name: "trigger-long-running-operation",
  description: "Demonstrates a long running operation with progress updates.",
  inputSchema: {
    type: "object",
    properties: { duration: { type: "number", maximum: 60 }, steps: { type: "number", maximum: 60 } },
    additionalProperties: false,
  },
  "x-toolgate": {
    receive: { maxBytes: 64 * 1024, timeoutMs: 240_000 },
    context: { unit: "bytes", max: 4000 },
    result: { kind: "text", text: { maxLines: 100 } },
  },
};

/** All the text of a result's content. */
const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  ((result.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");

describe("a replica killed with an answer's stream open", () => {
  let cluster: Cluster;
  let url: string;

  beforeAll(async () => {
    await ensureBuilt();
    const work = await scratch();
    const contracts = path.join(work, "contracts");
    await mkdir(contracts);
    await writeFile(path.join(contracts, "slow.tool.json"), JSON.stringify(SLOW, null, 2));
    cluster = await startCluster({ replicas: 3, server: "http", flags: ["--schemas", contracts] });
    url = await cluster.balancer("first");
  }, START_MS);

  afterAll(async () => {
    await cluster?.close();
  });

  it("costs the host one retried request, not its request timeout", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: "toolgate-resume-host", version: "1" });
    await client.connect(transport);
    const errors: string[] = [];
    client.onerror = (error) => errors.push(String(error));
    let progressed: () => void = () => undefined;
    const streaming = new Promise<void>((resolve) => {
      progressed = resolve;
    });
    const call = client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 60, steps: 60 } },
      undefined,
      { timeout: HOST_TIMEOUT_MS, onprogress: () => progressed() },
    );
    const settled = call.then(
      (result) => ({ result, at: Date.now() }),
      (error: unknown) => ({ error, at: Date.now() }),
    );
    // The answer's stream is open on replica 0 (the first one up) once a progress notification came through it.
    await streaming;
    const killed = Date.now();
    await cluster.kill(0);
    const outcome = await settled;
    expect("error" in outcome, JSON.stringify(outcome)).toBe(true);
    const error = (outcome as { error: { code?: number; message?: string } }).error;
    expect(error.code).toBe(-32000);
    expect(error.message).toMatch(/stopped before its answer was sent: send the request again/);
    // Told within seconds (a resume after half a second, on a busy machine), not at the host's timeout.
    expect(outcome.at - killed).toBeLessThan(30_000);

    // The host sends it again: the replica left answers it whole.
    const again = await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 1 } },
      undefined,
      { timeout: HOST_TIMEOUT_MS },
    );
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(textOf(again)).toContain('complete="true"');
    expect(textOf(again)).toMatch(/Long running operation completed\. Duration: 1 seconds, Steps: 1\./);
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }, 240_000);
});
