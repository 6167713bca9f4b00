/**
 * `toolgate proxy` between hosts and a server of the MCP 2026-07-28 revision (`@modelcontextprotocol/server` 2.4,
 * test/fixtures/mcp-servers/v2-server.mjs), over stdio and over Streamable HTTP to the server: the proxy negotiates
 * 2025-11-25 with both sides (a v2 host's `server/discover` probe is answered with the revisions the proxy speaks,
 * and it falls back to `initialize`; a v1 host is unaffected). The server's `input_required` reaches each host as
 * a request for input (`elicitation/create`), its text cleaned and bounded, and only the complete result that
 * follows is gated: exactly one event per call. Beside it, the positive control: an ordinary result reaches the
 * host whole.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client as V2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INPUT_TEXT_MAX_CHARS } from "../../../runtime/integrations/mcp-input-request.js";
import { ensureBuilt } from "../../build.js";
import { scratchFolders } from "../mcp/scratch.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const SERVER = path.join(REPO, "test", "fixtures", "mcp-servers", "v2-server.mjs");
const SCHEMAS = path.join(REPO, "test", "fixtures", "mcp-servers", "v2-contracts");
const TASK_SERVER = path.join(REPO, "test", "fixtures", "mcp-servers", "task-server.mjs");
/** What hides or reorders text, and what could close a delimiter. */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u;
const MARKUP = /[<>]/;

const scratch = scratchFolders("proxy-2026-");
let work: string;
/** The v2 server over Streamable HTTP, for the proxy's `--url`. */
let httpServer: { child: ChildProcess; url: string };

beforeAll(async () => {
  await ensureBuilt();
  work = await scratch();
  const child = spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8").trim()));
    child.once("exit", () => reject(new Error("the v2 server exited")));
  });
  httpServer = { child, url: `http://127.0.0.1:${port}/mcp` };
}, 120_000);

afterAll(() => {
  httpServer?.child.kill();
});

/** What a host does: list tools, call one, with the elicitations it was asked counted. */
interface Host {
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  elicited: string[];
  version(): string | undefined;
  close(): Promise<void>;
}

/** The proxy's arguments in front of the server: over stdio, or over Streamable HTTP (`--url`). */
function proxyArgs(upstream: "stdio" | "http", events: string): string[] {
  const flags = [BIN, "proxy", "--schemas", SCHEMAS, "--events", events];
  return upstream === "stdio" ? [...flags, "--", process.execPath, SERVER] : [...flags, "--url", httpServer.url];
}

/** A host on the v1 SDK (`@modelcontextprotocol/sdk` 1.32, 2025-11-25) that accepts every elicitation. */
async function v1Host(args: string[]): Promise<Host> {
  const elicited: string[] = [];
  const client = new Client({ name: "v1-host", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(String(request.params.message));
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: REPO, stderr: "ignore" }));
  return {
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
    elicited,
    // A v1 client speaks only 2025-11-25 and earlier; it checks the answer to its `initialize` itself.
    version: () => "2025-11-25",
    close: () => client.close(),
  };
}

/** A host on the v2 SDK (`@modelcontextprotocol/client` 2.4) that negotiates the revision and accepts elicitations. */
async function v2Host(args: string[]): Promise<Host> {
  const elicited: string[] = [];
  const client = new V2Client(
    { name: "v2-host", version: "1" },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: "auto" } },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    elicited.push(String((request.params as { message?: unknown }).message));
    return { action: "accept", content: { confirm: true } };
  });
  await client.connect(new V2StdioClientTransport({ command: process.execPath, args, cwd: REPO, stderr: "ignore" }));
  return {
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
    elicited,
    version: () => client.getNegotiatedProtocolVersion?.(),
    close: () => client.close(),
  };
}

/** The proxy's events for `tool`, once `count` of them are written (or what there is after two seconds). */
async function eventsOf(file: string, tool: string, count: number): Promise<Array<{ tool: string; code: string }>> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => "");
    const events = text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { tool: string; code: string })
      .filter((event) => event.tool === tool);
    if (events.length >= count || Date.now() > deadline) return events;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CASES = [
  ["a v1 host (2025-11-25)", v1Host, "stdio"],
  ["a v2 host negotiating", v2Host, "stdio"],
  ["a v1 host, the server over Streamable HTTP", v1Host, "http"],
  ["a v2 host negotiating, the server over Streamable HTTP", v2Host, "http"],
] as const;

describe.each(CASES)("%s through the proxy to a 2026-07-28 server", (name, connect, upstream) => {
  let host: Host;
  let events: string;

  beforeAll(async () => {
    events = path.join(work, `${name.replace(/[^a-z0-9]+/gi, "-")}.jsonl`);
    host = await connect(proxyArgs(upstream, events));
  }, 60_000);
  afterAll(async () => {
    await host?.close();
  });

  it("speaks 2025-11-25 with the proxy", () => {
    expect(host.version()).toBe("2025-11-25");
  });

  it("positive control: an ordinary complete result reaches the host whole, gated once", async () => {
    const result = await host.callTool("lookup", { id: "r1" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ id: "r1", name: "Record r1" });
    expect(JSON.stringify(result.content)).toContain("Record r1");
    expect(JSON.stringify(result)).not.toContain("PRIVATE KEY");
    expect((await eventsOf(events, "lookup", 1)).map((event) => event.code)).toEqual(["ok"]);
  });

  it("input_required reaches the host as a request for input, cleaned and bounded; the result is gated once", async () => {
    const result = await host.callTool("confirm_delete", { id: "r1" });
    expect(host.elicited).toHaveLength(1);
    const message = host.elicited[0] as string;
    expect(message).toContain("Delete r1?");
    expect(message).not.toMatch(INVISIBLE);
    expect(message).not.toMatch(MARKUP);
    expect(message.length).toBeLessThanOrEqual(INPUT_TEXT_MAX_CHARS + 64);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ deleted: true, id: "r1" });
    expect((await eventsOf(events, "confirm_delete", 1)).map((event) => event.code)).toEqual(["ok"]);
    // No second event comes late.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsOf(events, "confirm_delete", 2)).toHaveLength(1);
  });
});

describe("a task-augmented call through the proxy (2025-11-25 tasks)", () => {
  let client: Client;
  let events: string;
  const STATE_KEYS = ["createdAt", "lastUpdatedAt", "pollInterval", "status", "statusMessage", "taskId", "ttl"];

  beforeAll(async () => {
    events = path.join(work, "tasks.jsonl");
    client = new Client({ name: "task-host", version: "1" }, { capabilities: {} });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "proxy", "--schemas", SCHEMAS, "--events", events, "--", process.execPath, TASK_SERVER],
        cwd: REPO,
        stderr: "ignore",
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  /** A raw request of the host's, answered loosely (the test reads what the proxy sent). */
  const ask = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params } as never, ResultSchema) as Promise<Record<string, unknown>>;

  it("declares tasks for tool calls only because the server runs them", () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it("gates the task's result when it is fetched, once; its state carries no result content", async () => {
    const created = await ask("tools/call", { name: "lookup", arguments: { id: "r1" }, task: { ttl: 60_000 } });
    const task = created.task as Record<string, unknown>;
    expect(Object.keys(created)).toEqual(["task"]);
    expect(Object.keys(task).every((key) => STATE_KEYS.includes(key))).toBe(true);
    expect(task.statusMessage).not.toMatch(INVISIBLE);
    expect(task.statusMessage).not.toMatch(MARKUP);
    const taskId = task.taskId as string;

    let state = await ask("tasks/get", { taskId });
    for (let polls = 0; state.status !== "completed" && polls < 100; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await ask("tasks/get", { taskId });
    }
    expect(state.status).toBe("completed");
    expect(Object.keys(state).every((key) => STATE_KEYS.includes(key))).toBe(true);
    const listed = await ask("tasks/list", {});
    expect((listed.tasks as Array<{ taskId: string }>).map((entry) => entry.taskId)).toEqual([taskId]);
    for (const answer of [created, state, listed]) {
      expect(JSON.stringify(answer)).not.toContain("Record r1");
      expect(JSON.stringify(answer)).not.toContain("PRIVATE KEY");
    }
    expect(await eventsOf(events, "lookup", 1)).toEqual([]);

    const result = await ask("tasks/result", { taskId });
    expect(result.structuredContent).toEqual({ id: "r1", name: "Record r1" });
    expect(JSON.stringify(result)).not.toContain("PRIVATE KEY");
    expect(result._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId } });
    expect((await eventsOf(events, "lookup", 1)).map((event) => event.code)).toEqual(["ok"]);
    // Fetched again: the same gated answer, no second admit.
    expect(await ask("tasks/result", { taskId })).toEqual(result);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsOf(events, "lookup", 2)).toHaveLength(1);
  });

  it("refuses a task this session did not create, without its result", async () => {
    await expect(ask("tasks/result", { taskId: "0".repeat(32) })).rejects.toThrow(/no task/);
    await expect(ask("tasks/get", { taskId: "0".repeat(32) })).rejects.toThrow(/no task/);
  });

  it("positive control: the same tool called directly is gated and reaches the host whole", async () => {
    const before = (await eventsOf(events, "lookup", 1)).length;
    const result = await ask("tools/call", { name: "lookup", arguments: { id: "r2" } });
    expect(result.structuredContent).toEqual({ id: "r2", name: "Record r2" });
    expect(await eventsOf(events, "lookup", before + 1)).toHaveLength(before + 1);
  });
});
