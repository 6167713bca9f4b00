/**
 * `toolgate proxy --observe` end to end, over stdio both ways, with the MCP SDK's client as the host, in front of the
 * fixture server that says more than its contracts (a private key the view omits, a listing changed after review):
 * the host gets exactly what the server sent, as a host talking to the server directly does, and each call's event
 * records what enforcement would have done. Beside it, the same proxy without `--observe` gates the same calls.
 */
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GateEvent } from "../../../runtime/index.js";
import { ensureBuilt } from "../../build.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const FIXTURE = path.join(REPO, "test", "fixtures", "mcp-servers", "proxy-server.mjs");
const SCHEMAS = path.join(REPO, "test", "fixtures", "mcp-servers", "proxy-contracts");
const EVENTS = path.join(REPO, ".tmp", `observe-proxy-events-${process.pid}.jsonl`);
const PRIVATE_KEY = "BEGIN PRIVATE KEY";

/** A host connected to `args` (the proxy, or the server itself). */
async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: REPO, stderr: "pipe" });
  const client = new Client({ name: "toolgate-observe-host", version: "1" });
  await client.connect(transport);
  return client;
}

let direct: Client;
let observed: Client;
let enforced: Client;

beforeAll(async () => {
  await ensureBuilt();
  await rm(EVENTS, { force: true });
  [direct, observed, enforced] = await Promise.all([
    connect([FIXTURE]),
    connect([BIN, "proxy", "--observe", "--schemas", SCHEMAS, "--events", EVENTS, "--", process.execPath, FIXTURE]),
    connect([BIN, "proxy", "--schemas", SCHEMAS, "--", process.execPath, FIXTURE]),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([direct?.close(), observed?.close(), enforced?.close()]);
  await rm(EVENTS, { force: true });
});

/** What the host's model reads of a result: all its text. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? "").join("\n");
}

describe("toolgate proxy --observe", () => {
  it("answers a call with the server's result exactly as the server sends it", async () => {
    const call = { name: "lookup", arguments: { id: "r1" } };
    const [original, through] = await Promise.all([direct.callTool(call), observed.callTool(call)]);
    expect(through).toEqual(original);
    // Observe mode protects nothing: the private key the contract's view omits reaches the host.
    expect(JSON.stringify(through.structuredContent)).toContain(PRIVATE_KEY);
  });

  it("lists each tool as the server lists it, and forwards arguments the contract would refuse", async () => {
    const [original, through] = await Promise.all([direct.listTools(), observed.listTools()]);
    const lookup = (tools: typeof original.tools) => tools.find((tool) => tool.name === "lookup");
    expect(lookup(through.tools)).toEqual(lookup(original.tools));
    const call = { name: "lookup", arguments: { id: "r2", exfiltrate: "elsewhere" } };
    expect(await observed.callTool(call)).toEqual(await direct.callTool(call));
  });

  it("records each call's would-be outcome as an event marked observe", async () => {
    const lines = (await readFile(EVENTS, "utf8")).trim().split("\n");
    const events = lines.map((line) => JSON.parse(line) as GateEvent);
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const event of events) expect(event).toMatchObject({ v: 2, tool: "lookup", mode: "observe", code: "ok" });
  });

  it("positive control: without --observe the same call is gated (the key omitted, the text delimited)", async () => {
    const result = await enforced.callTool({ name: "lookup", arguments: { id: "r1" } });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ id: "r1", name: "Record r1" });
    expect(textOf(result)).toMatch(/^<tool_result tool="lookup" source="sha256:[0-9a-f]{16}" complete="true">/);
    expect(textOf(result)).not.toContain(PRIVATE_KEY);
    const refused = await enforced.callTool({ name: "lookup", arguments: { id: "r2", exfiltrate: "elsewhere" } });
    expect(refused.isError).toBe(true);
  });
});
