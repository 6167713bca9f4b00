import { existsSync } from "node:fs";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import {
  listServerTools,
  parseServerCommand,
  ServerListError,
  STDERR_TAIL_BYTES,
  STDERR_TAIL_LINES,
  StderrTail,
} from "../../../generator/mcp/server-tools.js";
import { toolgate } from "../../cli.js";
import { scratchFolders } from "./scratch.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const require = createRequire(import.meta.url);
const failing = path.join(repo, "test/fixtures/mcp-servers/failing-server.mjs");
const memoryServer = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const filesystemServer = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const freshFolder = scratchFolders("mcp-server-");

const node = (...words: string[]) => ["node", ...words].map((word) => JSON.stringify(word)).join(" ");

describe("parseServerCommand: leading NAME=value words set the server's environment", () => {
  it.each([
    ["MEMORY_FILE_PATH=/tmp/m.json node server.js", { MEMORY_FILE_PATH: "/tmp/m.json" }, "node", ["server.js"]],
    [`A=1 _B="two words" C= node s.js D=4`, { A: "1", _B: "two words", C: "" }, "node", ["s.js", "D=4"]],
    ["A=1 A=2 node", { A: "2" }, "node", []],
    // Quoted or escaped before the `=`, or not a name: a word like any other, as a shell reads it.
    [`"A=1" node`, {}, "A=1", ["node"]],
    [`A\\=1 node`, {}, "A=1", ["node"]],
    ["1A=x node", {}, "1A=x", ["node"]],
    ["=x node", {}, "=x", ["node"]],
    ["A-B=x node", {}, "A-B=x", ["node"]],
  ])("%s", (line, env, command, args) => {
    expect(parseServerCommand(line)).toEqual({ command, args, env, cwd: undefined });
  });

  it("refuses a line that sets variables and names no command", () => {
    expect(() => parseServerCommand("A=1 B=2")).toThrow(/sets variables but names no server command/);
    expect(() => parseServerCommand("   ")).toThrow(/no server command given/);
  });
});

describe("StderrTail", () => {
  it("keeps the last lines and bytes, without colour codes or controls", () => {
    const tail = new StderrTail();
    for (let i = 1; i <= 200; i++) tail.push(`line ${i}\n`);
    expect(tail.lines()).toEqual(Array.from({ length: STDERR_TAIL_LINES }, (_, i) => `line ${181 + i}`));
    const coloured = new StderrTail();
    coloured.push("\u001b[1;31mError:\u001b[0m bad\r\n\u0007bell\u202eflip\n\n");
    expect(coloured.lines()).toEqual(["Error: bad", "\\u0007bell\\u202eflip"]);
  });

  it("holds at most its byte bound of one long line, and marks where it was cut", () => {
    const tail = new StderrTail();
    // Multi-byte characters across chunk and cut boundaries: no broken character is shown.
    for (let i = 0; i < 1000; i++) tail.push(Buffer.from("héllo wörld ✓ "));
    const [line, ...rest] = tail.lines();
    expect(rest).toEqual([]);
    expect(line?.startsWith("…")).toBe(true);
    expect(line).not.toContain("\ufffd");
    expect(Buffer.byteLength(line as string)).toBeLessThanOrEqual(STDERR_TAIL_BYTES + 3);
    expect(Buffer.byteLength(line as string)).toBeGreaterThan(STDERR_TAIL_BYTES - 8);
  });
});

describe("a server that fails shows the tail of its stderr", () => {
  it("dies on connect: the error names the step and the server's last lines, cleaned", async () => {
    const run = await toolgate("import", "--stdio", node(failing), "--out", await freshFolder());
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/cannot list the server's tools: the server closed the connection during initialize/);
    expect(run.err).toContain("the server's stderr, last 3 lines:");
    expect(run.err).toContain("  Error: ENOENT: no such file or directory, open '/etc/failing-server.json'");
    expect(run.err).toContain("  failing-server: config \\u0007unreadable, exiting");
    expect(run.err).not.toContain("\u0007");
    expect(run.err).not.toContain("\u001b");
  });

  it("writes a lot before it exits: only the last lines are shown", async () => {
    const run = await toolgate("import", "--stdio", node(failing, "--lines", "500"), "--out", await freshFolder());
    expect(run.code).toBe(2);
    const shown = run.err.split("\n").filter((line) => line.startsWith("  failing-server: line"));
    expect(shown).toHaveLength(STDERR_TAIL_LINES);
    expect(shown.at(-1)).toBe("  failing-server: line 500 of 500");
    expect(run.err).toContain(`last ${STDERR_TAIL_LINES} lines`);
  });

  it("never answers: the timeout says so, with what the server wrote", async () => {
    const error = await listServerTools(node(failing, "--hang"), { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerListError);
    expect((error as Error).message).toMatch(/did not answer initialize within 300 ms/);
    expect((error as ServerListError).stderrTail).toEqual(["failing-server: waiting for a database that never comes"]);
  });

  it("cannot start: the program is named, and nothing else is claimed", async () => {
    const error = await listServerTools("/no/such/server --flag").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cannot start "\/no\/such\/server": no such program/);
    expect((error as ServerListError).stderrTail).toEqual([]);
  });
});

describe("--stdio with NAME=value and --cwd", () => {
  it("sets the variable for the server alone", async () => {
    const line = `GREETING='hello there' ${node(failing, "--print-env", "GREETING")}`;
    const run = await toolgate("import", "--stdio", line, "--out", await freshFolder());
    expect(run.err).toContain("  GREETING=hello there");
    expect(process.env.GREETING).toBeUndefined();
  });

  it("imports the memory server with MEMORY_FILE_PATH, which the server then writes to", async () => {
    const dir = await freshFolder();
    const memoryFile = path.join(dir, "graph.jsonl");
    const line = `MEMORY_FILE_PATH=${JSON.stringify(memoryFile)} ${node(memoryServer)}`;
    const out = path.join(dir, "schemas");
    const run = await toolgate("import", "--stdio", line, "--out", out);
    expect(run.err).toBe("");
    expect(run.out).toMatch(/memory-server \S+: 9 tools in 1 page/);
    expect(run.code).toBe(0);
    expect(await readdir(out)).toContain("create_entities.tool.json");

    // The same command line, started the same way, and one call: the server keeps its graph where the variable says.
    const launch = parseServerCommand(line);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StdioClientTransport({ ...launch, stderr: "ignore" }));
    try {
      await client.callTool({
        name: "create_entities",
        arguments: { entities: [{ name: "toolgate", entityType: "project", observations: ["gates results"] }] },
      });
    } finally {
      await client.close();
    }
    expect(JSON.parse((await readFile(memoryFile, "utf8")).trim())).toMatchObject({ type: "entity", name: "toolgate" });
  });

  it("runs the server in --cwd: a relative root of the filesystem server is found there", async () => {
    const dir = await freshFolder();
    await mkdir(path.join(dir, "project-root"));
    const line = node(filesystemServer, "project-root");

    // Without --cwd the folder is not found from here: the server says so on stderr and exits.
    const lost = await toolgate("import", "--stdio", line, "--out", path.join(dir, "lost"));
    expect(lost.code).toBe(2);
    expect(lost.err).toMatch(/the server's stderr, last \d+ lines?:/);
    expect(lost.err).toMatch(/project-root/);
    expect(existsSync(path.join(dir, "lost"))).toBe(false);

    const run = await toolgate("import", "--stdio", line, "--cwd", dir, "--out", path.join(dir, "schemas"));
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/secure-filesystem-server \S+: \d+ tools in 1 page/);
  });

  it.each([
    [["--cwd", "/no/such/folder", "--stdio", "node x"], /--cwd: no folder at \/no\/such\/folder/],
    [["--cwd", ".", "tools.json"], /--cwd is the server's folder: give it with --stdio/],
    [["--stdio", "A=1"], /sets variables but names no server command/],
  ])("exits 2 on %j", async (args, message) => {
    const run = await toolgate("import", ...args, "--out", await freshFolder());
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
  });
});
