/**
 * `toolgate proxy --watch` end to end, over stdio both ways, in front of the real `server-everything` (its contracts
 * made by `toolgate import`), with the MCP SDK's client as the host: a contract changed under the running proxy
 * gates every call that starts after the swap, a call under way finishes on the contract it began with, no call is
 * lost, the host is told the tool list changed, and a broken contract is refused by name with the catalog kept; over
 * Streamable HTTP, every host session is told and served the new contract.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { scratchFolders } from "../mcp/scratch.js";

const require = createRequire(import.meta.url);
const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const scratch = scratchFolders("proxy-reload-");
const ECHO = "echo.tool.json";
const LONG = "trigger_long_running_operation.tool.json";

let work: string;
let schemas: string;
let events: string;
let client: Client;
let stderr = "";
let listChanged = 0;

/** Resolves once the proxy's stderr matches `pattern` after `from` characters (polling; the proxy logs as it acts). */
async function logged(pattern: RegExp, from: number, timeoutMs = 60_000): Promise<string> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 25))) {
    const match = pattern.exec(stderr.slice(from));
    if (match !== null) return match[0];
  }
  throw new Error(`the proxy never logged ${pattern}; it logged:\n${stderr.slice(from)}`);
}

/** A contract of `schemas/` rewritten by `edit`. */
async function editContract(file: string, edit: (contract: Record<string, unknown>) => void): Promise<void> {
  const contract = JSON.parse(await readFile(path.join(schemas, file), "utf8"));
  edit(contract);
  await writeFile(path.join(schemas, file), JSON.stringify(contract, null, 2));
}

/** Every event the proxy wrote for `tool`, in the order the calls ended (waiting for `count` of them). */
async function eventsOf(tool: string, count: number): Promise<Array<{ contractVersion: string; code: string }>> {
  for (let wait = 0; ; wait++) {
    const lines = (await readFile(events, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((event) => event.tool === tool);
    if (lines.length >= count || wait > 80) return lines;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** All the text of a result's content. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? "").join("\n");
}

beforeAll(async () => {
  await ensureBuilt();
  work = await scratch();
  schemas = path.join(work, "schemas");
  events = path.join(work, "events.jsonl");
  execFileSync(process.execPath, [BIN, "import", "--stdio", `node ${EVERYTHING} stdio`, "--out", schemas], {
    cwd: REPO,
    stdio: "pipe",
  });
  // Two tools are enough, and each contract costs the reload a compile.
  for (const file of await readdir(schemas)) if (file !== ECHO && file !== LONG) await rm(path.join(schemas, file));
  await mkdir(path.join(work, "http-schemas"));
  await cp(path.join(schemas, ECHO), path.join(work, "http-schemas", ECHO));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      BIN,
      "proxy",
      "--watch",
      "--schemas",
      schemas,
      "--events",
      events,
      "--",
      process.execPath,
      EVERYTHING,
      "stdio",
    ],
    cwd: REPO,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  client = new Client({ name: "toolgate-reload-host", version: "1" });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++;
  });
  await client.connect(transport);
  await logged(/watching .*\(catalog [0-9a-f]{16}\)/, 0);
}, 180_000);
afterAll(() => client?.close());

describe("a contract changed under the running proxy", () => {
  it("gates calls before the swap with the old contract and after it with the new one, losing none", async () => {
    const before = await client.listTools();
    expect(before.tools.find((tool) => tool.name === "echo")?.description).toBe("Echoes back the input string");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "first" } }))).toContain("Echo: first");

    // A call under way when the contract changes: four seconds, in four steps.
    let progressed = 0;
    const long = client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 4, steps: 4 } },
      undefined,
      {
        onprogress: () => {
          progressed++;
        },
        timeout: 60_000,
      },
    );
    // Echo calls one after another, through the change and past the swap.
    const calls: Array<{ message: string; text: string; isError: boolean; startedAfterSwap: boolean }> = [];
    let swapped = false;
    let stop = false;
    const caller = (async () => {
      for (let i = 0; !stop; i++) {
        const startedAfterSwap = swapped;
        const message = `call-${i}`;
        const result = await client.callTool({ name: "echo", arguments: { message } });
        calls.push({ message, text: textOf(result), isError: result.isError === true, startedAfterSwap });
      }
    })();
    for (let wait = 0; progressed === 0 && wait < 200; wait++) await new Promise((r) => setTimeout(r, 25));
    expect(progressed).toBeGreaterThan(0);
    const callsBeforeEdit = calls.length;
    const from = stderr.length;
    await editContract(ECHO, (contract) => {
      contract.description = "Echoes back the input string, under contract 2";
      (contract["x-toolgate"] as Record<string, unknown>).version = "2";
    });
    await editContract(LONG, (contract) => {
      (contract["x-toolgate"] as Record<string, unknown>).version = "2";
    });
    await logged(/reloaded: catalog [0-9a-f]{16} gates 2 tool\(s\)/, from);
    swapped = true;
    const callsAtSwap = calls.length;
    for (let wait = 0; calls.length < callsAtSwap + 5 && wait < 400; wait++)
      await new Promise((r) => setTimeout(r, 25));
    stop = true;
    await caller;

    // The long call began on contract 1 and ended after the swap: its result was gated by contract 1.
    const longResult = await long;
    expect(longResult.isError ?? false).toBe(false);
    expect(textOf(longResult)).toMatch(/Long running operation completed/);
    const [longEvent] = await eventsOf("trigger-long-running-operation", 1);
    expect(longEvent).toMatchObject({ contractVersion: "1", code: "ok" });

    // Every call answered, whole; the echo events run 1…1 then 2…2, each call's by the contract it started on.
    for (const call of calls) {
      expect(call.isError).toBe(false);
      expect(call.text).toContain(`Echo: ${call.message}`);
    }
    const echoes = (await eventsOf("echo", calls.length + 1)).slice(1);
    expect(echoes).toHaveLength(calls.length);
    expect(echoes.every((event) => event.code === "ok")).toBe(true);
    const versions = echoes.map((event) => event.contractVersion);
    const firstNew = versions.indexOf("2");
    expect(firstNew).toBeGreaterThanOrEqual(callsBeforeEdit);
    expect(versions.slice(0, firstNew).every((version) => version === "1")).toBe(true);
    expect(versions.slice(firstNew).every((version) => version === "2")).toBe(true);
    calls.forEach((call, i) => {
      if (call.startedAfterSwap) expect(versions[i]).toBe("2");
    });
    expect(calls.filter((call) => call.startedAfterSwap).length).toBeGreaterThanOrEqual(5);

    // The host was told, and lists the new contract.
    for (let wait = 0; listChanged === 0 && wait < 100; wait++) await new Promise((r) => setTimeout(r, 20));
    expect(listChanged).toBeGreaterThan(0);
    const after = await client.listTools();
    expect(after.tools.find((tool) => tool.name === "echo")?.description).toBe(
      "Echoes back the input string, under contract 2",
    );
  }, 120_000);

  it("refuses a broken contract by name, keeps the catalog it serves, and takes the fix", async () => {
    const from = stderr.length;
    const good = await readFile(path.join(schemas, ECHO), "utf8");
    await writeFile(path.join(schemas, ECHO), "{");
    const refused = await logged(/reload refused, catalog [0-9a-f]{16} is kept:\n.*\n/, from);
    expect(refused).toContain(ECHO);
    const served = await client.callTool({ name: "echo", arguments: { message: "still served" } });
    expect(served.isError ?? false).toBe(false);
    expect(textOf(served)).toContain("Echo: still served");
    const [last] = (await eventsOf("echo", 0)).slice(-1);
    expect(last).toMatchObject({ contractVersion: "2", code: "ok" });
    const listed = await client.listTools();
    expect(listed.tools.find((tool) => tool.name === "echo")?.description).toBe(
      "Echoes back the input string, under contract 2",
    );

    // A contract that loads but is refused by the generator is refused too: a reload never takes a served tool away.
    const fromBad = stderr.length;
    const backtracking = JSON.parse(good);
    backtracking.inputSchema.properties.message.pattern = "^(a+)+$";
    await writeFile(path.join(schemas, ECHO), JSON.stringify(backtracking, null, 2));
    expect(await logged(/reload refused[^\n]*\n[^\n]*\n/, fromBad)).toMatch(
      /echo\.tool\.json#\/inputSchema\/properties\/message\/pattern/,
    );
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "kept" } }))).toContain("Echo: kept");

    // Mended: the fixed contract verifies and is served.
    const fromFix = stderr.length;
    await editContract(ECHO, (contract) => {
      delete (contract.inputSchema as { properties: { message: { pattern?: string } } }).properties.message.pattern;
      (contract["x-toolgate"] as Record<string, unknown>).version = "3";
    });
    await logged(/reloaded: catalog/, fromFix);
    await client.callTool({ name: "echo", arguments: { message: "mended" } });
    const [mended] = (await eventsOf("echo", 0)).slice(-1);
    expect(mended).toMatchObject({ contractVersion: "3", code: "ok" });
  }, 120_000);
});

describe("hosts over Streamable HTTP (--listen --watch)", () => {
  let child: ChildProcess;
  const hosts: Client[] = [];
  afterAll(async () => {
    for (const host of hosts) await host.close().catch(() => undefined);
    if (child?.exitCode === null) child.kill("SIGKILL");
  });

  it("tells every host session the tools changed, and each lists and is gated by the new contract", async () => {
    const folder = path.join(work, "http-schemas");
    child = spawn(
      process.execPath,
      [BIN, "proxy", "--listen", "0", "--watch", "--schemas", folder, "--", process.execPath, EVERYTHING, "stdio"],
      { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString("utf8");
        const found = /toolgate proxy: listening on (\S+)/.exec(err)?.[1];
        if (found !== undefined) resolve(found);
      });
      child.once("exit", (code) => reject(new Error(`the proxy exited (${code}): ${err}`)));
    });
    const told = [0, 0];
    for (const i of [0, 1]) {
      const host = new Client({ name: `toolgate-reload-http-host-${i}`, version: "1" });
      host.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        told[i] = (told[i] ?? 0) + 1;
      });
      await host.connect(new StreamableHTTPClientTransport(new URL(url)));
      hosts.push(host);
      expect(textOf(await host.callTool({ name: "echo", arguments: { message: `host ${i}` } }))).toContain(
        `Echo: host ${i}`,
      );
    }
    const contract = JSON.parse(await readFile(path.join(folder, ECHO), "utf8"));
    contract.description = "Echoes, as the reloaded contract says";
    await writeFile(path.join(folder, ECHO), JSON.stringify(contract, null, 2));
    for (let wait = 0; told.some((n) => n === 0) && wait < 2400; wait++) await new Promise((r) => setTimeout(r, 25));
    expect(told.every((n) => n > 0)).toBe(true);
    for (const host of hosts) {
      const { tools } = await host.listTools();
      expect(tools.find((tool) => tool.name === "echo")?.description).toBe("Echoes, as the reloaded contract says");
      expect(textOf(await host.callTool({ name: "echo", arguments: { message: "after" } }))).toContain("Echo: after");
    }
  }, 120_000);
});
