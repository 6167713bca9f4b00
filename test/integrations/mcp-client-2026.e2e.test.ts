/**
 * `gateClient` with the MCP SDK v2 client on the 2026-07-28 revision, end to end: the real `Client` of
 * `@modelcontextprotocol/client` 2.4, pinned to 2026-07-28, over stdio and over Streamable HTTP to a v2 server
 * (`@modelcontextprotocol/server` 2.4, test/fixtures/mcp-servers/v2-server.mjs) whose `confirm_delete` answers
 * `input_required` (an elicitation with hostile text) before it answers. Each call's complete result is admitted
 * exactly once (one event), whether the client fulfils the request for input itself or hands it back
 * (`allowInputRequired`), in which case the application gets the request cleaned and bounded and nothing is
 * admitted. A task-augmented call to a server that runs the tool as a task (test/fixtures/mcp-servers/task-server.mjs)
 * answers the task's state, cleaned, and the task's result is admitted when fetched, once. Beside each, the positive
 * control: an ordinary complete result reaches the model whole.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolCatalog } from "../../runtime/gate/context.js";
import type { GateEvent } from "../../runtime/index.js";
import { gateClient } from "../../runtime/integrations/mcp-client.js";
import { INPUT_TEXT_MAX_CHARS } from "../../runtime/integrations/mcp-input-request.js";
import { ensureRuntimeBuilt, fixtures, generateCatalog, scratchFolder } from "../mcp/fixture-catalog.js";

const SERVER = path.join(fixtures, "v2-server.mjs");
/** What hides or reorders text, and what could close a delimiter. */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u;
const MARKUP = /[<>]/;

let catalog: ToolCatalog;
beforeAll(async () => {
  await ensureRuntimeBuilt();
  const out = path.join(await scratchFolder("mcp-client-2026"), "generated");
  catalog = (await generateCatalog(path.join(fixtures, "v2-contracts"), out)).index.catalog as ToolCatalog;
}, 120_000);

/** A v2 client pinned to the 2026-07-28 revision that accepts every elicitation, counting them. */
function modernClient(): { client: Client; elicited: string[] } {
  const elicited: string[] = [];
  const client = new Client(
    { name: "toolgate-2026", version: "1" },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    elicited.push(String((request.params as { message?: unknown }).message));
    return { action: "accept", content: { confirm: true } };
  });
  return { client, elicited };
}

/** The v2 server over Streamable HTTP, started for the file's tests. */
let http: { child: ChildProcess; url: string } | undefined;
afterAll(() => {
  http?.child.kill();
});

async function httpServer(): Promise<string> {
  if (http !== undefined) return http.url;
  const child = spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8").trim()));
    child.once("exit", () => reject(new Error("the v2 server exited")));
  });
  http = { child, url: `http://127.0.0.1:${port}/mcp` };
  return http.url;
}

const TRANSPORTS = [
  ["stdio", async () => new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" })],
  ["Streamable HTTP", async () => new StreamableHTTPClientTransport(new URL(await httpServer()))],
] as const;

describe.each(TRANSPORTS)("gateClient and a 2026-07-28 server over %s", (_, transport) => {
  let client: Client;
  let elicited: string[];
  const events: GateEvent[] = [];
  let gated: ReturnType<typeof gateClient<Client>>;

  beforeAll(async () => {
    ({ client, elicited } = modernClient());
    await client.connect(await transport());
    gated = gateClient(client, catalog, { context: { sink: (event) => events.push(event) } });
    await gated.listTools();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("speaks 2026-07-28", () => {
    expect(client.getNegotiatedProtocolVersion?.()).toBe("2026-07-28");
  });

  it("positive control: an ordinary complete result reaches the model whole, admitted once", async () => {
    events.length = 0;
    const result = await gated.callTool({ name: "lookup", arguments: { id: "r1" } });
    expect(result.gate).toBe("admitted");
    if (result.gate !== "admitted") return;
    expect(result.outcome.ok).toBe(true);
    expect(result.outcome.ok && result.outcome.data).toEqual({
      id: "r1",
      name: "Record r1",
      privateKey: "BEGIN PRIVATE KEY",
    });
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    expect(text).toContain("Record r1");
    expect(text).not.toContain("PRIVATE KEY");
    expect(events.map((event) => [event.tool, event.code])).toEqual([["lookup", "ok"]]);
  });

  it("a request for input the client fulfils: only the complete result is admitted, once", async () => {
    events.length = 0;
    elicited.length = 0;
    const result = await gated.callTool({ name: "confirm_delete", arguments: { id: "r1" } });
    expect(elicited).toHaveLength(1);
    expect(result.gate).toBe("admitted");
    if (result.gate !== "admitted") return;
    expect(result.outcome.ok && result.outcome.data).toEqual({ deleted: true, id: "r1" });
    expect(events.map((event) => [event.tool, event.code])).toEqual([["confirm_delete", "ok"]]);
  });

  it("a request for input handed back: cleaned and bounded, nothing admitted; the retried call admitted once", async () => {
    events.length = 0;
    const first = await gated.callTool(
      { name: "confirm_delete", arguments: { id: "r1" } },
      { allowInputRequired: true },
    );
    expect(first.gate).toBe("input_required");
    if (first.gate !== "input_required") return;
    expect(first.content).toEqual([]);
    expect(events).toEqual([]);
    const confirm = first.input.inputRequests.confirm as { method: string; params: { message: string } };
    expect(confirm.method).toBe("elicitation/create");
    expect(confirm.params.message).toContain("Delete r1?");
    expect(confirm.params.message).not.toMatch(INVISIBLE);
    expect(confirm.params.message).not.toMatch(MARKUP);
    expect(confirm.params.message.length).toBeLessThanOrEqual(INPUT_TEXT_MAX_CHARS + 64);
    expect(first.input.requestState).toBe("state-1");

    // The retry carries the answers and the server's state (the revision's parameters the v2 types leave out).
    const retry = {
      name: "confirm_delete",
      arguments: { id: "r1" },
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
      requestState: first.input.requestState,
    } as Parameters<Client["callTool"]>[0];
    const retried = await gated.callTool(retry, { allowInputRequired: true });
    expect(retried.gate).toBe("admitted");
    if (retried.gate !== "admitted") return;
    expect(retried.outcome.ok && retried.outcome.data).toEqual({ deleted: true, id: "r1" });
    expect(events.map((event) => [event.tool, event.code])).toEqual([["confirm_delete", "ok"]]);
  });
});

describe("gateClient and a task-augmented call (2025-11-25 tasks, through the v2 client's request)", () => {
  const TASK_SERVER = path.join(fixtures, "task-server.mjs");
  let client: Client;
  const events: GateEvent[] = [];
  let gated: ReturnType<typeof gateClient<Client>>;

  beforeAll(async () => {
    client = new Client({ name: "toolgate-tasks", version: "1" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [TASK_SERVER], stderr: "ignore" }),
    );
    gated = gateClient(client, catalog, { context: { sink: (event) => events.push(event) } });
    await gated.listTools();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("answers the task's state cleaned, admits nothing; the task's result is admitted when fetched, once", async () => {
    events.length = 0;
    const started = await gated.callTool({ name: "lookup", arguments: { id: "r1" }, task: { ttl: 60_000 } } as never);
    expect(started.gate).toBe("task");
    if (started.gate !== "task") return;
    expect(started.content).toEqual([]);
    expect(started.task.statusMessage).toContain("working");
    expect(started.task.statusMessage).not.toMatch(INVISIBLE);
    expect(started.task.statusMessage).not.toMatch(MARKUP);
    expect(events).toEqual([]);

    const result = await gated.taskResult(started.task.taskId);
    expect(result.gate).toBe("admitted");
    if (result.gate !== "admitted") return;
    expect(result.outcome.ok && result.outcome.data).toEqual({
      id: "r1",
      name: "Record r1",
      privateKey: "BEGIN PRIVATE KEY",
    });
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
    expect(text).toContain("Record r1");
    expect(text).not.toContain("PRIVATE KEY");
    expect(events.map((event) => [event.tool, event.code])).toEqual([["lookup", "ok"]]);
    // Fetched again: the same outcome, no second admit.
    expect(await gated.taskResult(started.task.taskId)).toBe(result);
    expect(events).toHaveLength(1);
  });

  it("refuses the result of a task it did not start", async () => {
    const result = await gated.taskResult("0".repeat(32));
    expect(result.gate).toBe("refused");
  });

  it("positive control: the tool called directly is admitted once and reaches the model whole", async () => {
    events.length = 0;
    const result = await gated.callTool({ name: "lookup", arguments: { id: "r2" } });
    expect(result.gate === "admitted" && result.outcome.ok && result.outcome.data).toMatchObject({ name: "Record r2" });
    expect(events.map((event) => [event.tool, event.code])).toEqual([["lookup", "ok"]]);
  });
});
