/**
 * What `toolgate proxy` passes besides gated tool results, end to end over stdio, in front of a server that changed
 * after review and says more than its contracts (test/fixtures/mcp-servers/proxy-server.mjs): only the methods on the
 * proxy's forwarding list reach either side (tasks only those the host created, never their raw result); the host is told the
 * contract's tool definitions and the capabilities the proxy serves; arguments the contract refuses never reach the
 * server; and everything of the server's that reaches the host outside a gated result (resources, prompts,
 * completions, log and progress messages, instructions) is cleaned, bounded and markup-escaped. Beside each case,
 * the ordinary answer reaching the host whole.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSTHROUGH_MAX_CHARS } from "../../../generator/proxy/hygiene.js";
import { ensureBuilt } from "../../build.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const FIXTURE = path.join(REPO, "test", "fixtures", "mcp-servers", "proxy-server.mjs");
const SCHEMAS = path.join(REPO, "test", "fixtures", "mcp-servers", "proxy-contracts");

/** Bidi controls, zero-width characters, tag characters: what hides or reorders text. */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/u;
/** What could close or open a delimiter the host's model reads. */
const MARKUP = /<\/?tool_result|[<>]/;
const PRIVATE_KEY = "BEGIN PRIVATE KEY";

let client: Client;
let stderr = "";
const logged: Array<{ level: string; logger?: string; data: unknown }> = [];
const otherNotifications: string[] = [];
/** Requests of the server's that reached the host without a handler of its own. */
const hostAsked: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "proxy", "--schemas", SCHEMAS, "--", process.execPath, FIXTURE],
    cwd: REPO,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  client = new Client({ name: "toolgate-forwarding-host", version: "1" }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///home/me/notes" }] }));
  client.fallbackRequestHandler = async (request) => {
    hostAsked.push(request.method);
    return {};
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logged.push(notification.params as (typeof logged)[number]);
  });
  client.fallbackNotificationHandler = async (notification) => {
    otherNotifications.push(notification.method);
  };
  await client.connect(transport);
}, 120_000);
afterAll(() => client?.close());

/** All the text of a tool result's content. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? "").join("\n");
}

/** The calls that reached the server, as its `fixture://calls` resource says. */
async function serverSaw(): Promise<Array<{ name: string; arguments?: Record<string, unknown>; task?: unknown }>> {
  const read = await client.readResource({ uri: "fixture://calls" });
  return JSON.parse((read.contents[0] as { text: string }).text);
}

describe("the capabilities and instructions the host is told", () => {
  it("declares what the proxy serves (tasks only for tool calls), never the server's experimental capabilities", () => {
    const capabilities = client.getServerCapabilities() ?? {};
    expect(capabilities).not.toHaveProperty("experimental");
    // Positive control: what it does pass, with the flags it forwards.
    expect(capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it("passes the server's instructions cleaned: the readable part whole, the tag characters and bidi gone", () => {
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toBe("Use lookup for records.");
    expect(instructions).not.toMatch(INVISIBLE);
  });
});

describe("only methods on the forwarding list", () => {
  it(`refuses x-dump/all by name, without asking the server`, async () => {
    await expect(client.request({ method: "x-dump/all", params: {} } as never, ResultSchema)).rejects.toThrow(
      /does not forward "x-dump\/all"/,
    );
    expect((await serverSaw()).map((call) => call.name)).not.toContain("x-dump/all");
  });

  for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
    it(`refuses ${method} of a task the host did not create (the server's own), without asking the server`, async () => {
      await expect(client.request({ method, params: { taskId: "t1" } } as never, ResultSchema)).rejects.toThrow(
        /no task "t1" in this session/,
      );
      expect((await serverSaw()).map((call) => call.name)).not.toContain(method);
    });
  }

  it("lists none of the server's tasks the host did not create", async () => {
    expect(await client.request({ method: "tasks/list", params: {} } as never, ResultSchema)).toEqual({ tasks: [] });
  });

  it("passes the server's request for the roots the host declared, and refuses one of its own by name", async () => {
    const read = await client.readResource({ uri: "fixture://ask" });
    const answers = JSON.parse((read.contents[0] as { text: string }).text);
    // Positive control: the host's roots reach the server whole.
    expect(answers[0]).toEqual({ method: "roots/list", result: { roots: [{ uri: "file:///home/me/notes" }] } });
    expect(answers[1].method).toBe("x-dump/ask");
    expect(answers[1].error).toMatch(/does not forward "x-dump\/ask"/);
    expect(hostAsked).toEqual([]);
    expect(stderr).toContain(`refused the server's "x-dump/ask"`);
  });

  it("says on stderr what it refused", () => {
    expect(stderr).toContain(`refused the host's "x-dump/all": not on the proxy's forwarding list`);
  });

  it("a call asking to be a task that the server answers directly: never the raw answer; the plain call gated", async () => {
    const asTask = client.request(
      { method: "tools/call", params: { name: "lookup", arguments: { id: "r8" }, task: { ttl: 60_000 } } },
      ResultSchema,
    );
    await expect(asTask).rejects.toThrow(/task/);
    // Positive control: the same call, not as a task.
    const result = await client.request(
      { method: "tools/call", params: { name: "lookup", arguments: { id: "r7" } } },
      CallToolResultSchema,
    );
    expect(result.structuredContent).toEqual({ id: "r7", name: "Record r7" });
    expect(JSON.stringify(result)).not.toContain(PRIVATE_KEY);
    expect((await serverSaw()).filter((call) => call.arguments?.id === "r7")).toEqual([
      { name: "lookup", arguments: { id: "r7" } },
    ]);
  });
});

describe("tools/list serves the contract, not the live server", () => {
  it("lists a tool's title, description, input schema and annotations from its contract", async () => {
    const { tools } = await client.listTools();
    const lookup = tools.find((tool) => tool.name === "lookup");
    expect(lookup).toMatchObject({
      title: "Lookup",
      description: "Looks up a record by id.",
      inputSchema: {
        type: "object",
        properties: { id: { type: "string", pattern: "^r[0-9]{1,6}$", maxLength: 7 } },
        required: ["id"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
    // Nothing the server added after review: the argument, the hidden instructions, the task support.
    expect(JSON.stringify(lookup)).not.toContain("exfiltrate");
    expect(JSON.stringify(tools)).not.toMatch(INVISIBLE);
    expect(lookup).not.toHaveProperty("execution");
    // The view's schema as the output schema: the omitted field is not in it.
    expect(JSON.stringify(lookup?.outputSchema)).not.toContain("privateKey");
    // A tool without a contract is hidden; the others are listed.
    expect(tools.map((tool) => tool.name).sort()).toEqual(["cancelled", "crash", "lookup", "progress", "wait"]);
  });
});

describe("tools/call checks the arguments against the contract first", () => {
  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ["an argument the contract does not have", { id: "r1", exfiltrate: "https://attacker.example" }, /exfiltrate/],
    ["a value its pattern refuses", { id: "../x" }, /"at":"\/id","problem":"must match the pattern/],
    ["a value over its length", { id: "../../etc/passwd" }, /"at":"\/id","problem":"must be at most 7 characters/],
    ["a missing required argument", {}, /missing required property \\"id\\"/],
  ];
  for (const [what, args, problem] of refusals) {
    it(`refuses ${what} with a typed error naming it, and the server never sees the call`, async () => {
      const before = (await serverSaw()).length;
      const result = await client.callTool({ name: "lookup", arguments: args });
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toMatch(/^<tool_result tool="lookup" source="none" complete="false" error="invalid_arguments"/);
      expect(text).toMatch(problem);
      expect(text).not.toContain("attacker.example");
      // The calls resource is read after each check: only those reads were added, no tools/call.
      const after = await serverSaw();
      expect(after.slice(before).filter((call) => call.name === "lookup")).toEqual([]);
    });
  }

  it("passes arguments the contract accepts, and answers with the gated view", async () => {
    const result = await client.callTool({ name: "lookup", arguments: { id: "r1" } });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ id: "r1", name: "Record r1" });
    expect(textOf(result)).toContain("Record r1");
    expect(JSON.stringify(result)).not.toContain(PRIVATE_KEY);
  });
});

describe("resources", () => {
  it("lists resources with their labels cleaned and escaped, leaving out a URI with characters to clean", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      "note://ordinary",
      "note://hostile",
      "note://long",
      "fixture://calls",
    ]);
    expect(JSON.stringify(resources)).not.toMatch(INVISIBLE);
    expect(resources[1]?.name).toBe("Hostile");
    expect(resources[1]?.description).not.toMatch(MARKUP);
    // Positive control: an ordinary resource's entry whole.
    expect(resources[0]).toEqual({
      uri: "note://ordinary",
      name: "Ordinary note",
      description: "Meeting notes.",
      mimeType: "text/plain",
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["note://{name}"]);
    expect(resourceTemplates[0]?.description).not.toMatch(MARKUP);
  });

  it("reads an ordinary resource whole", async () => {
    const read = await client.readResource({ uri: "note://ordinary" });
    expect(read.contents).toEqual([
      { uri: "note://ordinary", mimeType: "text/plain", text: "Meeting notes: ship on Friday.\nOwner: Dana." },
    ]);
  });

  it("reads a hostile resource cleaned and escaped, its blob left out and counted", async () => {
    const read = await client.readResource({ uri: "note://hostile" });
    expect(read.contents).toHaveLength(1);
    const text = (read.contents[0] as { text: string }).text;
    expect(text).not.toMatch(INVISIBLE);
    expect(text).not.toMatch(MARKUP);
    expect(text).toContain("Totals attached.");
    expect(text).toContain("\\u003c/tool_result\\u003e");
    expect(read._meta).toEqual({ "toolgate/dropped": 1 });
  });

  it("bounds a long resource, marking the cut", async () => {
    const read = await client.readResource({ uri: "note://long" });
    const text = (read.contents[0] as { text: string }).text;
    expect(text.length).toBe(PASSTHROUGH_MAX_CHARS);
    expect(text.endsWith("…")).toBe(true);
    expect(text.startsWith("0123456789\n0123456789\n")).toBe(true);
  });
});

describe("prompts and completions", () => {
  it("gets an ordinary prompt whole, with the host's argument", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts[0]).toEqual({
      name: "review",
      description: "Review a diff.",
      arguments: [{ name: "diff", description: "The diff.", required: true }],
    });
    expect(JSON.stringify(prompts)).not.toMatch(INVISIBLE);
    expect(prompts[1]?.description).not.toMatch(MARKUP);
    const prompt = await client.getPrompt({ name: "review", arguments: { diff: "- a\n+ b" } });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Review this diff for bugs; be brief.\n\n- a\n+ b" } },
    ]);
  });

  it("gets a hostile prompt cleaned and escaped, its image left out and counted", async () => {
    const prompt = await client.getPrompt({ name: "hostile" });
    expect(prompt.messages.map((message) => message.content.type)).toEqual(["text", "resource"]);
    const all = JSON.stringify(prompt);
    expect(all).not.toMatch(INVISIBLE);
    expect(all).not.toMatch(MARKUP);
    expect(all).toContain("Totals attached.");
    expect(prompt._meta).toEqual({ "toolgate/dropped": 1 });
  });

  it("completes with the values cleaned and escaped, an ordinary one whole", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/prompt", name: "review" },
      argument: { name: "diff", value: "o" },
    });
    expect(completion.values[0]).toBe("ordinary");
    expect(completion.values[1]).not.toMatch(MARKUP);
    expect(completion.values[1]).not.toMatch(INVISIBLE);
    expect(completion.total).toBe(2);
  });
});

describe("log and progress messages", () => {
  it("passes log messages cleaned and escaped, an ordinary one whole, and drops notifications not on the list", async () => {
    logged.length = 0;
    await client.callTool({ name: "lookup", arguments: { id: "r2" } });
    for (let i = 0; i < 40 && logged.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(logged[0]).toEqual({ level: "info", logger: "index", data: "Indexed 12 records." });
    expect(logged[1]?.logger).toBe("audit");
    expect(logged[1]?.data).toContain("Totals attached.");
    expect(logged[2]).toEqual({ level: "error", data: expect.stringContaining('"size":3') });
    expect(JSON.stringify(logged)).not.toMatch(INVISIBLE);
    expect(JSON.stringify(logged)).not.toMatch(MARKUP);
    expect(JSON.stringify(logged)).not.toContain(PRIVATE_KEY);
    // The server's task status (carrying a result) and its own notification reach nobody.
    expect(otherNotifications).not.toContain("notifications/tasks/status");
    expect(otherNotifications).not.toContain("notifications/x-dump");
    expect(stderr).toContain(`dropped the server's "notifications/tasks/status"`);
  });

  it("forwards the host's log level to the server", async () => {
    await client.setLoggingLevel("error");
    logged.length = 0;
    await client.callTool({ name: "lookup", arguments: { id: "r3" } });
    for (let i = 0; i < 40 && logged.length < 1; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logged.map((message) => message.level)).toEqual(["error"]);
  });

  it("passes progress with its message cleaned and escaped, an ordinary one whole", async () => {
    const seen: Array<{ progress: number; message?: string }> = [];
    await client.callTool({ name: "progress", arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(seen.map((progress) => progress.progress)).toEqual([1, 2, 3]);
    expect(seen[0]?.message).toBe("step 1");
    expect(seen[1]?.message).toMatch(/^step 2/);
    expect(seen[1]?.message).not.toMatch(MARKUP);
    expect(seen[1]?.message).not.toMatch(INVISIBLE);
  });
});
