/**
 * Every tool of three real MCP servers gated, end to end: `toolgate import --stdio` writes a contract for every tool
 * the server lists (a tool without an output schema as a text contract), `generate` builds them, the generated code
 * type-checks, and then each tool is called over stdio, through the SDK client (with the generated validators as its
 * provider) and the tool's adapter, with legitimate arguments and with a few that the server refuses:
 *
 * - every legitimate call ends `ok` (or, over the context budget, in the contract's policy outcome, `oversize`);
 * - every refused call ends `tool_error`;
 * - no legitimate result is refused by the gate itself (no `schema_mismatch`, `invalid_json`, `result_too_large`);
 * - images arrive as media parts (`outcome.parts`, `toModelParts`), described in the view, never as text;
 * - a 900 KB text shows the model whole lines from its head and tail, with the gap between them marked, and so does
 *   a 900 KB file read as structured content (`read_text_file`'s `{ content }`, imported with overflow `lines`).
 *
 * The servers: `@modelcontextprotocol/server-filesystem`, `-memory` and `-everything`, as installed.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";
import { IMPORTED_LINES_MAX } from "../../generator/mcp/view-settings.js";
import type { Outcome } from "../../runtime/contract/types.js";
import type { ToolAdapter } from "../../runtime/gate/context.js";
import {
  mcpCallFailure,
  mcpValidatorProvider,
  type OutputValidators,
} from "../../runtime/integrations/mcp-validator.js";
import { toModelContent, toModelParts } from "../../runtime/stages/model-content.js";
import { toolgate } from "../cli.js";
import { typeCheck } from "../hardening/scratch.js";
import { ensureRuntimeBuilt, type FixtureCatalog, generateCatalog, scratchFolder } from "./fixture-catalog.js";

const resolve = createRequire(import.meta.url).resolve;
type Adapter = ToolAdapter<unknown, unknown, unknown>;
type Args = Record<string, unknown>;

/** A 1x1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/eL9GtQAAAABJRU5ErkJggg==",
  "base64",
);

/** A WAV file of 64 silent 8-bit mono samples at 8 kHz: a RIFF header and its data. */
const WAV = (() => {
  const samples = 64;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + samples, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(samples, 40);
  return wav;
})();

/** About 900 KB of numbered lines: what a model must never see whole, and may see in part. */
const LARGE_LINES = Array.from(
  { length: 9000 },
  (_, i) => `line ${String(i + 1).padStart(5, "0")}: ${"the quick brown fox jumps over the lazy dog ".repeat(2)}`,
);
const LARGE_TEXT = `${LARGE_LINES.join("\n")}\n`;

let scratch: string;
let files: string;

interface Server {
  name: string;
  /** The command `toolgate import --stdio` runs, with its environment. */
  env: Record<string, string>;
  args: () => string[];
  /** Legitimate calls, in order (later calls may rely on earlier ones): tool → arguments. */
  calls: () => Array<[string, Args]>;
  /** Calls the server refuses as a tool error. */
  errors: () => Array<[string, Args]>;
}

/** A tool that runs only as a task (`execution.taskSupport: "required"`): the SDK client will not call it plainly. */
const TASK_ONLY = "simulate-research-query";

const SERVERS: Server[] = [
  {
    name: "filesystem",
    env: {},
    args: () => [resolve("@modelcontextprotocol/server-filesystem/dist/index.js"), files],
    calls: () => {
      const at = (name: string) => path.join(files, name);
      return [
        ["list_allowed_directories", {}],
        ["write_file", { path: at("notes.txt"), content: "alpha\nbeta\ngamma\n" }],
        ["read_text_file", { path: at("notes.txt") }],
        ["read_text_file", { path: at("large.txt") }],
        ["read_file", { path: at("notes.txt"), head: 2 }],
        ["read_media_file", { path: at("pixel.png") }],
        ["read_media_file", { path: at("tone.wav") }],
        ["read_multiple_files", { paths: [at("notes.txt"), at("pixel.png")] }],
        ["edit_file", { path: at("notes.txt"), edits: [{ oldText: "beta", newText: "BETA" }] }],
        ["create_directory", { path: at("sub") }],
        ["move_file", { source: at("notes.txt"), destination: at("sub/notes.txt") }],
        ["list_directory", { path: files }],
        ["list_directory_with_sizes", { path: files, sortBy: "size" }],
        ["directory_tree", { path: files }],
        ["search_files", { path: files, pattern: "*.txt" }],
        ["get_file_info", { path: at("sub/notes.txt") }],
      ];
    },
    errors: () => [
      ["read_text_file", { path: "/etc/passwd" }],
      ["get_file_info", { path: path.join(files, "missing.txt") }],
      ["move_file", { source: path.join(files, "missing.txt"), destination: path.join(files, "x.txt") }],
    ],
  },
  {
    name: "memory",
    env: {},
    args: () => [resolve("@modelcontextprotocol/server-memory/dist/index.js")],
    calls: () => [
      [
        "create_entities",
        {
          entities: [
            { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
            { name: "Engine", entityType: "machine", observations: ["analytical"] },
          ],
        },
      ],
      ["create_relations", { relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] }],
      ["add_observations", { observations: [{ entityName: "Ada", contents: ["born 1815"] }] }],
      ["read_graph", {}],
      ["search_nodes", { query: "Ada" }],
      ["open_nodes", { names: ["Ada", "Engine"] }],
      ["delete_observations", { deletions: [{ entityName: "Ada", observations: ["born 1815"] }] }],
      ["delete_relations", { relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] }],
      ["delete_entities", { entityNames: ["Engine"] }],
    ],
    errors: () => [["add_observations", { observations: [{ entityName: "Nobody", contents: ["x"] }] }]],
  },
  {
    name: "everything",
    env: {},
    args: () => [resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
    calls: () => [
      ["echo", { message: "hello" }],
      ["echo", { message: LARGE_TEXT }],
      ["get-annotated-message", { messageType: "success", includeImage: true }],
      ["get-env", {}],
      ["get-resource-links", { count: 3 }],
      ["get-resource-reference", { resourceType: "Text", resourceId: 1 }],
      ["get-resource-reference", { resourceType: "Blob", resourceId: 2 }],
      ["get-structured-content", { location: "Chicago" }],
      ["get-sum", { a: 2, b: 3 }],
      ["get-tiny-image", {}],
      ["gzip-file-as-resource", { name: "hello.gz", data: "data:text/plain;base64,aGVsbG8=" }],
      ["gzip-file-as-resource", { name: "hello2.gz", data: "data:text/plain;base64,aGVsbG8=", outputType: "resource" }],
      ["toggle-simulated-logging", {}],
      ["toggle-subscriber-updates", {}],
      ["trigger-long-running-operation", { duration: 1, steps: 1 }],
    ],
    errors: () => [
      ["get-sum", { a: "two", b: 3 }],
      ["get-annotated-message", { messageType: "shout" }],
    ],
  },
];

/** A server's folder, its import's report, its catalog, and the outcome of every call. */
interface Run {
  server: Server;
  dir: string;
  imported: Awaited<ReturnType<typeof toolgate>>;
  listed: string[];
  catalog: FixtureCatalog;
  adapters: Map<string, Adapter>;
  legitimate: Array<{ tool: string; args: Args; outcome: Outcome<unknown, unknown> }>;
  refused: Array<{ tool: string; args: Args; outcome: Outcome<unknown, unknown> }>;
  /** The task-only tool called plainly, where the server has one. */
  taskOnly?: Outcome<unknown, unknown> | undefined;
}

const runs = new Map<string, Run>();

function commandLine(server: Server): string {
  const env = Object.entries(server.env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return [...env, "node", ...server.args().map((arg) => JSON.stringify(arg))].join(" ");
}

async function prepare(server: Server): Promise<Run> {
  const dir = path.join(scratch, server.name);
  const contracts = path.join(dir, "schemas");
  const imported = await toolgate("import", "--stdio", commandLine(server), "--out", contracts);
  const catalog = await generateCatalog(contracts, path.join(dir, "generated"));
  const index = catalog.index as Record<string, unknown> & { outputValidators: OutputValidators };
  const adapters = new Map<string, Adapter>();
  for (const value of Object.values(index)) {
    const adapter = value as Adapter | undefined;
    if (typeof adapter?.admit === "function") adapters.set(adapter.name, adapter);
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: server.args(),
    env: { ...(process.env as Record<string, string>), ...server.env },
    stderr: "pipe",
  });
  const client = new Client(
    { name: "toolgate-every-tool", version: "1.0.0" },
    { jsonSchemaValidator: mcpValidatorProvider(index.outputValidators) },
  );
  await client.connect(transport);
  const run: Run = { server, dir, imported, listed: [], catalog, adapters, legitimate: [], refused: [] };
  try {
    run.listed = (await client.listTools()).tools.map((tool) => tool.name);
    const call = async (tool: string, args: Args) => {
      const adapter = adapters.get(tool);
      if (adapter === undefined) throw new Error(`no adapter for ${tool}`);
      const raw = await client.callTool({ name: tool, arguments: args }).catch(mcpCallFailure);
      return adapter.admit(raw, { args });
    };
    for (const [tool, args] of server.calls()) run.legitimate.push({ tool, args, outcome: await call(tool, args) });
    for (const [tool, args] of server.errors()) run.refused.push({ tool, args, outcome: await call(tool, args) });
    if (run.listed.includes(TASK_ONLY)) run.taskOnly = await call(TASK_ONLY, { topic: "tides" });
  } finally {
    await client.close();
  }
  return run;
}

beforeAll(async () => {
  await ensureRuntimeBuilt();
  scratch = await scratchFolder("every-tool");
  files = path.join(scratch, "files");
  await mkdir(files, { recursive: true });
  await writeFile(path.join(files, "pixel.png"), PNG);
  await writeFile(path.join(files, "tone.wav"), WAV);
  await writeFile(path.join(files, "large.txt"), LARGE_TEXT);
  SERVERS[1] = { ...(SERVERS[1] as Server), env: { MEMORY_FILE_PATH: path.join(scratch, "memory.jsonl") } };
  for (const server of SERVERS) runs.set(server.name, await prepare(server));
  return () => rm(scratch, { recursive: true, force: true });
}, 240_000);

function runOf(name: string): Run {
  const run = runs.get(name);
  if (run === undefined) throw new Error(`${name} did not run`);
  return run;
}

/** What a failed outcome says, for an assertion message. */
function described(outcome: Outcome<unknown, unknown>): string {
  return outcome.ok ? "ok" : `${outcome.error.code} ${JSON.stringify(outcome.diagnostics.detail ?? {})}`;
}

describe.each(SERVERS.map((server) => server.name))("every tool of the %s server", (name) => {
  it("is imported (import exits 0) and generated, and the generated code type-checks", async () => {
    const run = runOf(name);
    expect(run.imported.err).toBe("");
    expect(run.imported.code).toBe(0);
    expect(run.imported.out).toMatch(new RegExp(`${run.listed.length} written, 0 replaced, 0 unchanged, 0 refused\\.`));
    expect([...run.adapters.keys()].sort()).toEqual([...run.listed].sort());
    expect(await typeCheck({ out: path.join(run.dir, "generated") } as never)).toBe("");
  });

  it("ends every legitimate call ok, or over budget in its policy outcome, and never refuses one", () => {
    const run = runOf(name);
    const called = new Set(run.legitimate.map((call) => call.tool));
    // Every tool is called legitimately at least once, but the one that runs only as a task.
    expect([...called].sort()).toEqual(run.listed.filter((tool) => tool !== TASK_ONLY).sort());
    for (const { tool, outcome } of run.legitimate) {
      const code = outcome.ok ? "ok" : outcome.error.code;
      expect(["ok", "oversize"], `${tool}: ${described(outcome)}`).toContain(code);
      expect(toModelContent(outcome)).toMatch(/^<tool_result /);
    }
  });

  it("ends every call the server refuses as tool_error, the server's words inside the typed failure", () => {
    const { refused, taskOnly } = runOf(name);
    expect(refused.length).toBeGreaterThan(0);
    for (const { tool, outcome } of refused) {
      expect(outcome.ok ? "ok" : outcome.error.code, `${tool}: ${described(outcome)}`).toBe("tool_error");
      // Imported contracts show the model the tool's own error text, so it can correct its call.
      const [open, message, close] = toModelContent(outcome).split("\n");
      expect(open).toMatch(/^<tool_result [^>]*error="tool_error" retryable="(true|false)">$/);
      const words = /^<tool_message>(.+)<\/tool_message>$/.exec(message ?? "")?.[1];
      expect(words, tool).toBeDefined();
      expect(JSON.parse(words as string)).toBe(outcome.ok ? "" : outcome.diagnostics.toolMessage);
      expect((JSON.parse(words as string) as string).length).toBeGreaterThan(10);
      expect(close).toBe("</tool_result>");
    }
    // The SDK client refuses to call a task-only tool plainly: its throw is one typed transport failure.
    if (taskOnly !== undefined) expect(taskOnly.ok ? "ok" : taskOnly.error.code).toBe("transport_error");
  });
});

describe("what the model reads of real results", () => {
  const success = (name: string, tool: string, index = 0) => {
    const found = runOf(name).legitimate.filter((call) => call.tool === tool)[index];
    if (found === undefined || !found.outcome.ok) throw new Error(`${tool}: ${found && described(found.outcome)}`);
    return found.outcome;
  };

  it("a text tool's result is its text, the view the same text when it fits", () => {
    const outcome = success("everything", "get-sum");
    expect(outcome.data).toBe("The sum of 2 and 3 is 5.");
    expect(outcome.view).toMatchObject({ text: "The sum of 2 and 3 is 5.", lines: 1, media: [], links: [] });
    expect(outcome.complete).toBe(true);
  });

  it("images arrive as media parts, described in the view and passed on as media, never as text", () => {
    const outcome = success("everything", "get-tiny-image");
    expect(outcome.parts).toEqual([expect.objectContaining({ type: "image", mimeType: "image/png" })]);
    const image = outcome.parts?.[0] as { data: string; bytes: number };
    expect(Buffer.from(image.data, "base64").byteLength).toBe(image.bytes);
    expect(outcome.view).toMatchObject({ media: [{ type: "image", mimeType: "image/png", bytes: image.bytes }] });
    const content = toModelContent(outcome);
    expect(content).toContain(`<media type="image/png" bytes="${image.bytes}"/>`);
    expect(content).not.toContain(image.data.slice(0, 40));
    const parts = toModelParts(outcome);
    expect(parts.map((part) => part.type)).toEqual(["text", "image"]);
    expect(parts[1]).toEqual({ type: "image", data: image.data, mimeType: "image/png" });
    // The filesystem server sends a file's image as structured content and as a media block beside it.
    const media = success("filesystem", "read_media_file");
    expect(media.parts).toEqual([expect.objectContaining({ type: "image", mimeType: "image/png", bytes: PNG.length })]);
  });

  it("media declared in a structured result reach the model as media, described in the view, never as base64 text", () => {
    for (const [index, type, mimeType, file] of [
      [0, "image", "image/png", PNG],
      [1, "audio", "audio/wav", WAV],
    ] as const) {
      const outcome = success("filesystem", "read_media_file", index);
      const data = file.toString("base64");
      // The structured content holds the block, data and all; the view holds its description in its place.
      expect(outcome.data).toEqual({ content: [{ type, data, mimeType }] });
      expect(outcome.view).toEqual({ content: [{ type, mimeType, bytes: file.length }] });
      expect(outcome.complete).toBe(true);
      const content = toModelContent(outcome);
      expect(content).not.toContain(data);
      expect(content).not.toContain(data.slice(0, 24));
      expect(content.match(/<media /g)).toEqual(["<media "]);
      expect(content).toContain(`<media type="${mimeType}" bytes="${file.length}"/>`);
      // Handed on once, as media: the same block sent beside the structured content is not added twice.
      const parts = toModelParts(outcome);
      expect(parts.map((part) => part.type)).toEqual(["text", type]);
      expect(parts[1]).toEqual({ type, data, mimeType });
      expect(content.length).toBeLessThan(400);
    }
  });

  it("resource links reach the view as links, cleaned, and their URIs stay in the parts", () => {
    const outcome = success("everything", "get-resource-links");
    expect(outcome.parts?.filter((part) => part.type === "resource_link")).toHaveLength(3);
    expect((outcome.view as { links: unknown[] }).links).toHaveLength(3);
  });

  it("a 900 KB text shows whole lines from its head and tail, with the gap marked", () => {
    const outcome = success("everything", "echo", 1);
    expect(outcome.data).toBe(`Echo: ${LARGE_TEXT}`);
    const view = outcome.view as { text: string; lines: number; gap?: { from: number; to: number } };
    expect(view.lines).toBe(LARGE_LINES.length);
    expect(view.gap).toBeDefined();
    const { from, to } = view.gap as { from: number; to: number };
    expect(from).toBeGreaterThan(1);
    expect(to).toBeLessThan(LARGE_LINES.length);
    expect(outcome.complete).toBe(false);
    expect(outcome.omissions).toEqual([{ path: "", kind: "lines", count: to - from + 1 }]);
    // Whole lines: the head, the marker, the tail, each line exactly as sent.
    const lines = view.text.split("\n");
    const original = `Echo: ${LARGE_TEXT}`.split("\n");
    expect(lines.slice(0, from - 1)).toEqual(original.slice(0, from - 1));
    expect(lines[from - 1]).toMatch(new RegExp(`lines ${from}–${to} of ${LARGE_LINES.length}`));
    expect(lines.slice(from)).toEqual(original.slice(to, LARGE_LINES.length));
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(outcome.contextUsed.budget);
  });

  it("a 900 KB file read through the filesystem server reaches the model as whole lines with a marked gap", async () => {
    // The server advertises an output schema ({ content: string }): import shows its unbounded string as lines.
    const contract = JSON.parse(
      await readFile(path.join(runOf("filesystem").dir, "schemas", "read_text_file.tool.json"), "utf8"),
    );
    expect(contract["x-toolgate"].view).toEqual({
      strings: { "/content": { overflow: "lines", max: IMPORTED_LINES_MAX } },
    });
    const outcome = success("filesystem", "read_text_file", 1);
    expect((outcome.data as { content: string }).content).toBe(await readFile(path.join(files, "large.txt"), "utf8"));
    expect(outcome.complete).toBe(false);
    const shown = (outcome.view as { content: string }).content;
    const [, from, to] = /lines (\d+)–(\d+) of 9000 …\]/.exec(shown)?.map(Number) ?? [];
    if (from === undefined || to === undefined) throw new Error(`no gap marker in ${shown.slice(0, 200)}`);
    expect(from).toBeGreaterThan(1);
    expect(to).toBeLessThan(LARGE_LINES.length);
    expect(outcome.omissions).toEqual([{ path: "/content", kind: "lines", count: to - from + 1, from, to }]);
    // Whole lines exactly as in the file: its first lines, the marker, its last lines.
    const lines = shown.split("\n");
    expect(lines.slice(0, from - 1)).toEqual(LARGE_LINES.slice(0, from - 1));
    expect(lines[from - 1]).toBe(`[… ${to - from + 1} lines left out: lines ${from}–${to} of ${LARGE_LINES.length} …]`);
    expect(lines.slice(from)).toEqual(LARGE_LINES.slice(to));
    expect(lines.length).toBeGreaterThan(3);
    // Over the budget, the default chain's shorten keeps the most whole lines that fit (far more than a 2,000-character
    // excerpt), within the context budget as the model reads it.
    expect(outcome.ok && outcome.policy).toBe("shorten");
    expect([...shown].length).toBeGreaterThan(2000);
    const content = toModelContent(outcome);
    expect(content).toContain(`{"content":${JSON.stringify(shown)}}`);
    expect(content).toContain(
      `<omitted>[{"path":"/content","kind":"lines","count":${to - from + 1},"from":${from},"to":${to}}]`,
    );
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(outcome.contextUsed.budget);
  });
});
