/**
 * The real filesystem MCP server over stdio, through the real SDK client, into the gate: a text file read as a text
 * result and as structured content with prose beside it, and a file too large for the SDK client's read buffer,
 * whose session the client closes, named as the cause by `watchMcpClient`.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defineTool,
  mcpCallFailure,
  project,
  type TextView,
  type ToolSpec,
  toModelContent,
  type ViewPlan,
  watchMcpClient,
} from "../../runtime/index.js";
import { compile, textSpec, textTool } from "./fixture.js";

const repo = path.resolve(import.meta.dirname, "../..");
const filesystemServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);
let root: string;
let client: Client;

/** A client connected to the filesystem server over `root`. */
async function connect(): Promise<Client> {
  const connected = new Client({ name: "toolgate-test", version: "1.0.0" });
  await connected.connect(
    new StdioClientTransport({ command: process.execPath, args: [filesystemServer, root], stderr: "ignore" }),
  );
  return connected;
}

beforeAll(async () => {
  await mkdir(path.join(repo, ".tmp"), { recursive: true });
  root = await mkdtemp(path.join(repo, ".tmp", "mcp-transport-"));
  const lines = Array.from({ length: 400 }, (_, index) => `line ${index + 1}: ${"words ".repeat(8)}`);
  await writeFile(path.join(root, "notes.txt"), `${lines.join("\n")}\n`);
  // Past the SDK client's 10 MB read buffer once the server writes it as a JSON-RPC message.
  await writeFile(path.join(root, "big.txt"), "x".repeat(11 * 1024 * 1024));
  client = await connect();
}, 60_000);

afterAll(async () => {
  await client?.close();
  await rm(root, { recursive: true, force: true });
});

describe("a real server's text", () => {
  it("is a text result: the file is the data, and the model reads whole lines with the gap named", async () => {
    const raw = await client.callTool({ name: "read_text_file", arguments: { path: path.join(root, "notes.txt") } });
    const outcome = await textTool({ context: { unit: "bytes", max: 1500 } }).admit(raw);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.data.startsWith("line 1: words")).toBe(true);
    expect(outcome.data.split("\n")).toHaveLength(401);
    const view = outcome.view as TextView;
    expect(view.lines).toBe(400);
    expect(view.gap?.from).toBeGreaterThan(1);
    expect(view.gap?.to).toBeLessThan(400);
    expect(view.text).toContain("line 1: words");
    expect(view.text).toContain("line 400: words");
    expect(outcome.complete).toBe(false);
    expect(outcome.omissions).toEqual([
      { path: "", kind: "lines", count: (view.gap?.to ?? 0) - (view.gap?.from ?? 0) + 1 },
    ]);
    const content = toModelContent(outcome);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(1500);
    expect(outcome.contextUsed.value).toBe(Buffer.byteLength(content));
  });

  it("beside structured content is prose, which is normal and not flagged", async () => {
    const raw = await client.callTool({ name: "read_text_file", arguments: { path: path.join(root, "notes.txt") } });
    const schema = { type: "object", properties: { content: { type: "string" } }, required: ["content"] };
    const plan: ViewPlan = {
      kind: "object",
      properties: { content: { kind: "string", max: 200, overflow: "excerpt" } },
    };
    const spec: ToolSpec<{ content: string }, unknown> = {
      ...textSpec(),
      validateResult: compile<{ content: string }>(schema),
      view: { plan, maxStringChars: 200 },
      buildView: (data) => project(data, plan, { maxStringChars: 200 }),
      result: { kind: "structured", content: { maxBlocks: 16, text: { maxCount: 16 } } },
    };
    const tool = defineTool(spec);
    const outcome = await tool.admit(raw);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.flags).toBeUndefined();
    expect((outcome.data as { content: string }).content.startsWith("line 1:")).toBe(true);
  });
});

describe("a message past the SDK client's read buffer", () => {
  it("closes the session; the watch names the cause and the call is not retryable with the same arguments", {
    timeout: 60_000,
  }, async () => {
    const reading = await connect();
    const watch = watchMcpClient(reading);
    let rejection: unknown;
    const raw = await reading
      .callTool({ name: "read_text_file", arguments: { path: path.join(root, "big.txt") } })
      .catch((error: unknown) => {
        rejection = error;
        return watch.callFailure(error);
      });
    // What the SDK itself says: only that the connection closed.
    expect(rejection).toMatchObject({ code: -32000 });
    const outcome = await textTool().admit(raw);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ code: "transport_error", retryable: false });
    expect(outcome.diagnostics.detail).toEqual({ reason: "sdk_buffer_exceeded" });
    expect(toModelContent(outcome)).toMatch(/error="transport_error" retryable="false"/);
    // Without the watch the same rejection reads as a retryable transport error with no cause.
    const blind = await textTool().admit(mcpCallFailure(rejection));
    expect(blind.ok || [blind.error.retryable, blind.diagnostics.detail]).toEqual([true, undefined]);
    watch.stop();
    await reading.close();
  });

  it("a session closed for another reason is a retryable connection_closed", async () => {
    const watch = watchMcpClient({});
    const outcome = await textTool().admit(watch.callFailure({ code: -32000, message: "Connection closed" }));
    expect(outcome.ok || [outcome.error.retryable, outcome.diagnostics.detail]).toEqual([
      true,
      { reason: "connection_closed" },
    ]);
  });

  it("a rejection whose properties cannot be read is a transport_error, never a throw", async () => {
    const watch = watchMcpClient({});
    const hostile = Object.defineProperty({}, "code", {
      get() {
        throw new Error("a code getter");
      },
    });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const rejection of [hostile, proxy]) {
      const outcome = await textTool().admit(watch.callFailure(rejection));
      expect(outcome.ok || outcome.error.code).toBe("transport_error");
    }
  });

  it("chains the client's own handlers and gives them back when stopped", () => {
    const seen: string[] = [];
    const watched = { onerror: (error: Error) => seen.push(error.message), onclose: () => seen.push("closed") };
    const own = { onerror: watched.onerror, onclose: watched.onclose };
    const watch = watchMcpClient(watched);
    watched.onerror(new Error("ReadBuffer exceeded maximum size of 10485760 bytes"));
    watched.onclose();
    expect(seen).toEqual(["ReadBuffer exceeded maximum size of 10485760 bytes", "closed"]);
    expect(watch.callFailure({ code: -32000 })).toMatchObject({ reason: "sdk_buffer_exceeded", retryable: false });
    // The next session closes for no reported cause.
    watched.onclose();
    expect(watch.callFailure({ code: -32000 })).toMatchObject({ reason: "connection_closed" });
    watch.stop();
    expect(watched).toEqual(own);
  });
});
