/**
 * The proxy's turns on replicas, end to end on the loopback: a real `redis-server`, server-everything over Streamable
 * HTTP, three `toolgate proxy --listen --redis … --turns session --turn-budget …` replicas and HAProxy balancing
 * them round-robin (`test/fixtures/replicas/cluster.mjs`). Consecutive requests of one host session reach
 * different replicas, and every replica counts the same turn in Redis: the re-call cap (`recall.max` re-calls of the
 * same call per turn) and the turn budget hold for the session as a whole, and a replica killed between two calls
 * takes no count with it. Ordinary calls, each with its own arguments and under the budget, are answered whole.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { type Cluster, ECHO_CONTRACT, startCluster } from "../../fixtures/replicas/cluster.mjs";
import { scratchFolders } from "../mcp/scratch.js";

const scratch = scratchFolders("proxy-turns-");
const START_MS = 400_000;
/** The turn budget every replica holds turns to, in bytes of gated results. */
const BUDGET = 2500;

/** server-everything's `echo` as a text result, each call allowed two re-calls of itself per turn. */
const ECHO = {
  ...ECHO_CONTRACT,
  "x-toolgate": { ...ECHO_CONTRACT["x-toolgate"], oversize: ["drop"], recall: { max: 2 } },
};

type Result = Awaited<ReturnType<Client["callTool"]>>;

/** All the text of a result's content. */
const textOf = (result: Result) =>
  ((result.content ?? []) as Array<{ text?: string }>).map((part) => part.text ?? "").join("\n");

/** The text a `text` view shows, from the gate's `tool_result` delimiter. */
function shownText(result: Result): string {
  const body = /<tool_result[^>]*>\n([\s\S]*)\n<\/tool_result>/.exec(textOf(result))?.[1];
  return (JSON.parse(body ?? "{}") as { text?: string }).text ?? "";
}

/** A host over Streamable HTTP at `url`. */
async function host(url: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "toolgate-turns-host", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

/** Calls echo with `message` (in turn `turn` when given), sending the request again once if it was lost. */
async function echo(client: Client, message: string, turn?: string): Promise<Result> {
  const call = {
    name: "echo",
    arguments: { message },
    ...(turn === undefined ? {} : { _meta: { "toolgate/turn": turn } }),
  };
  try {
    return await client.callTool(call, undefined, { timeout: 90_000 });
  } catch {
    // What a host does when a request is lost with a replica: it sends it again.
    return client.callTool(call, undefined, { timeout: 90_000 });
  }
}

/** Each replica's gated calls, from its events file: the message each was made with and the turn it counted in. */
async function gated(files: readonly string[]): Promise<Array<Array<{ turn: string; argumentsHash?: string }>>> {
  return Promise.all(
    files.map(async (file) =>
      (await readFile(file, "utf8").catch(() => ""))
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as { turn: string; argumentsHash?: string }),
    ),
  );
}

describe("turns counted in Redis by three replicas balanced round-robin", () => {
  let cluster: Cluster;
  let eventFiles: string[];

  beforeAll(async () => {
    await ensureBuilt();
    const work = await scratch();
    const contracts = path.join(work, "contracts");
    await mkdir(contracts);
    await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(ECHO, null, 2));
    eventFiles = [0, 1, 2].map((i) => path.join(work, `events-${i}.jsonl`));
    const flags = ["--schemas", contracts, "--turns", "session", "--turn-budget", String(BUDGET)];
    cluster = await startCluster({ replicas: 3, server: "http", flags, eventFiles });
  }, START_MS);

  afterAll(async () => {
    await cluster?.close();
  });

  it("answers ordinary calls whole, and counts the same call again across replicas as one turn's re-calls", async () => {
    const { client, transport } = await host(cluster.url);
    // Positive control: calls each with its own arguments are no re-calls, and each answer reaches the host whole.
    for (let i = 0; i < 6; i++) {
      const result = await echo(client, `hello ${i}`);
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toContain('complete="true"');
      expect(shownText(result)).toBe(`Echo: hello ${i}`);
    }
    // The same call: once, then its two re-calls, each on another replica, answered whole; the next is refused.
    for (let i = 0; i < 3; i++) expect(shownText(await echo(client, "same"))).toBe("Echo: same");
    const refused = await echo(client, "same");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^<tool_result tool="echo" source="none" complete="false" error="recall_limit"/);
    expect(textOf(refused)).toContain('{"recalls":2,"limit":2}');
    // Other arguments still pass: the cap is on the repeated call only.
    expect(shownText(await echo(client, "different"))).toBe("Echo: different");

    // The gated calls of the session were spread over the replicas, and every one counted in the same turn.
    const perReplica = await gated(eventFiles);
    const mine = perReplica.map((events) => events.filter((event) => event.turn.length > 0));
    expect(mine.filter((events) => events.length > 0).length).toBeGreaterThanOrEqual(2);
    const turns = new Set(mine.flat().map((event) => event.turn));
    expect(turns.size).toBe(1);
    // Six + three + one gated; the refused call never reached the server nor the gate.
    expect(mine.flat()).toHaveLength(10);
    await transport.terminateSession();
    await client.close();
  }, 240_000);

  it("a replica killed between two calls takes no count with it", async () => {
    const { client, transport } = await host(cluster.url);
    expect(shownText(await echo(client, "kept"))).toBe("Echo: kept");
    expect(shownText(await echo(client, "kept"))).toBe("Echo: kept");
    // Replica 0 dies with the session's counts made (SIGKILL: it says goodbye to no one).
    await cluster.kill(0);
    // One re-call is left in the turn, on whichever replica is left; then none.
    expect(shownText(await echo(client, "kept"))).toBe("Echo: kept");
    const refused = await echo(client, "kept");
    expect(textOf(refused)).toContain('error="recall_limit"');
    // The session goes on: an ordinary call is answered whole.
    expect(shownText(await echo(client, "after the kill"))).toBe("Echo: after the kill");
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }, 240_000);

  it("holds a turn named in _meta to the budget, apart from the session's other turns", async () => {
    const { client, transport } = await host(cluster.url);
    const text = (tag: string) => `${tag} ${"x".repeat(1400)}`;
    // Under the budget: answered whole.
    expect(shownText(await echo(client, text("one"), "t1"))).toBe(`Echo: ${text("one")}`);
    expect(shownText(await echo(client, text("two"), "t1"))).toBe(`Echo: ${text("two")}`);
    // The turn's results now take more than the budget: its next call is refused before the server.
    const refused = await echo(client, text("three"), "t1");
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/error="turn_budget" retryable="false">/);
    expect(textOf(refused)).toContain(`{"budget":{"bytes":${BUDGET}}}`);
    // Another turn of the same session, and the session's own turn, start with nothing spent.
    expect(shownText(await echo(client, text("three"), "t2"))).toBe(`Echo: ${text("three")}`);
    expect(shownText(await echo(client, "short"))).toBe("Echo: short");
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }, 240_000);
});
