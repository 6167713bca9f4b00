/**
 * Acceptance for large text results: the real `@modelcontextprotocol/server-everything`'s `echo` tool, over stdio,
 * answers with 5,000 lines through a text contract (`result.kind: "text"`, spill then drop). The text view leaves
 * lines out, so the gate spills the whole text and shows the excerpt beside the handle and the read-back tool; a
 * scripted agent, reading only what the model reads, pages it back through `read_tool_result` by line ranges, from
 * the end and by a literal pattern. Each page is whole lines with their numbers, within the read-back's budget, and
 * the pages over all ranges concatenate to exactly the text. A text handle read for another tenant is
 * `unknown_handle` (as a handle nobody spilled), and a spill file edited on disk is `tampered`.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolAdapter } from "../../runtime/gate/context.js";
import {
  FileSpillStore,
  type ReadBackArgs,
  type ReadBackOutcome,
  readBack,
  type TextView,
  toModelContent,
} from "../../runtime/index.js";
import { ensureRuntimeBuilt, generateCatalog, scratchFolder } from "./fixture-catalog.js";

const require = createRequire(import.meta.url);
const everythingServer = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const LINES = 5000;
/** The admit's budget and each read-back page's, in o200k_base tokens. */
const VIEW_TOKENS = 2000;
const PAGE_TOKENS = 3000;
/** Every 97th line holds the literal the agent searches for, with characters a pattern must not read as a regex. */
const NEEDLE = "needle.(*)";

const message = Array.from({ length: LINES }, (_, i) => {
  const n = String(i + 1).padStart(5, "0");
  const tail = (i + 1) % 97 === 0 ? ` found ${NEEDLE} here` : " the quick brown fox jumps over the lazy dog";
  // Markup and quotes in the text: escaped on every page, and still read back exactly.
  return `row ${n}:${tail} <b>&amp;</b> "quoted"`;
}).join("\n");

let scratch: string;
let client: Client;
let adapter: ToolAdapter<unknown, unknown, unknown>;

beforeAll(async () => {
  await ensureRuntimeBuilt();
  scratch = await scratchFolder("text-spill");
  const contract = {
    name: "echo",
    description: "Echoes back the input string",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string", maxLength: 1_000_000 } },
      required: ["message"],
      additionalProperties: false,
    },
    "x-toolgate": {
      receive: { maxBytes: 2 * 1024 * 1024 },
      context: { unit: "tokens", max: VIEW_TOKENS, tokenizer: "o200k_base" },
      oversize: ["spill", "drop"],
      result: { kind: "text", text: { maxLines: 10_000 } },
    },
  };
  const contracts = path.join(scratch, "contracts");
  await mkdir(contracts);
  await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(contract, null, 2));
  const catalog = await generateCatalog(contracts, path.join(scratch, "generated"));
  adapter = (catalog.index as { echo: typeof adapter }).echo;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [everythingServer, "stdio"],
    env: process.env as Record<string, string>,
    stderr: "pipe",
  });
  client = new Client({ name: "toolgate-text-spill", version: "1.0.0" });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** The JSON body of a model-facing page: the line after the opening tag. */
function body(content: string): { lines?: string[]; matches?: Array<{ line: number; text: string }> } {
  return JSON.parse(content.split("\n")[1] as string);
}

/** The page's note as the model reads it. */
function noteOf(content: string): string {
  return JSON.parse(/^<page>(.*)<\/page>$/m.exec(content)?.[1] as string);
}

/** The next page's arguments as the model reads them, or none on the last page. */
function nextOf(content: string): ReadBackArgs | undefined {
  const match = /^<next>(.*)<\/next>$/m.exec(content);
  return match === null ? undefined : JSON.parse(match[1] as string);
}

/** A page read as the model would: within budget, whole lines of the text at the numbers its range gives. */
function checkedPage(
  page: ReadBackOutcome,
  textLines: readonly string[],
): { from: number; to: number; lines: string[] } {
  if (!page.ok) throw new Error(`${page.error.code}: ${page.error.message}`);
  expect(page.contextUsed).toMatchObject({ unit: "tokens", budget: PAGE_TOKENS });
  expect(page.contextUsed.value).toBeLessThanOrEqual(PAGE_TOKENS);
  expect(countTokens(page.content)).toBe(page.contextUsed.value);
  expect(page.page.cut).toBeUndefined();
  const { from, to, total } = page.page.range;
  expect(total).toBe(LINES);
  expect(noteOf(page.content)).toBe(
    `lines ${from.toLocaleString("en-US")}–${to.toLocaleString("en-US")} of ${LINES.toLocaleString("en-US")}`,
  );
  const lines = body(page.content).lines as string[];
  expect(lines).toHaveLength(to - from + 1);
  expect(lines).toEqual(textLines.slice(from - 1, to));
  expect(page.page.lines).toEqual(lines);
  return { from, to, lines };
}

describe("a 5,000-line echo spilled and read back by lines", () => {
  it("spills under the contract's chain and reads back by ranges, from the end and by pattern", async () => {
    const store = new FileSpillStore({ directory: path.join(scratch, "spill") });
    const reader = readBack(store, { budget: { unit: "tokens", max: PAGE_TOKENS, tokenizer: "o200k_base" } });
    const raw = await client.callTool({ name: "echo", arguments: { message } });
    const outcome = await adapter.admit(raw, { ...reader.context, tenant: "acme" });
    if (!outcome.ok) throw new Error(`echo failed: ${outcome.error.code}`);
    const text = outcome.data as string;
    expect(text).toBe(`Echo: ${message}`);
    const textLines = text.split("\n");
    expect(textLines).toHaveLength(LINES);

    // What the model sees first: the excerpt, the lines it leaves out, and one line naming the handle and the tool.
    expect(outcome.policy).toBe("spill");
    expect(outcome.complete).toBe(false);
    const first = toModelContent(outcome);
    expect(countTokens(first)).toBe(outcome.contextUsed.value);
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(VIEW_TOKENS);
    const spilled = /^<spilled handle="(spill_[0-9a-f]{32})" bytes="(\d+)" read_with="read_tool_result"\/>$/m.exec(
      first,
    );
    expect(spilled).not.toBeNull();
    const handle = spilled?.[1] as string;
    expect(Number(spilled?.[2])).toBe(Buffer.byteLength(JSON.stringify(text)));
    const view = outcome.view as TextView;
    const gap = view.gap as { from: number; to: number };
    expect(view.text).toContain(`lines left out: lines ${gap.from}–${gap.to} of ${LINES}`);
    expect(first).toContain(`<omitted>[{"path":"","kind":"lines","count":${gap.to - gap.from + 1}}]</omitted>`);
    const seen = [first];

    // By ranges the agent chooses: 173 lines asked at a time, each next range starting after what the page held.
    const ranged: string[] = [];
    for (let offset = 0; offset < LINES; ) {
      const read = await reader.handle({ handle, offset, limit: 173 }, { tenant: "acme" });
      const page = checkedPage(read, textLines);
      expect(page.from).toBe(offset + 1);
      ranged.push(...page.lines);
      seen.push(read.content);
      offset = page.to;
    }
    expect(ranged.join("\n")).toBe(text);

    // By each page's own next arguments, from the start.
    const forward: string[] = [];
    for (let args: ReadBackArgs | undefined = { handle }; args !== undefined; ) {
      const page = await reader.handle(args, { tenant: "acme" });
      forward.push(...checkedPage(page, textLines).lines);
      args = nextOf(page.content);
      expect(forward.length).toBeLessThanOrEqual(LINES);
    }
    expect(forward.join("\n")).toBe(text);

    // From the end: each page the lines before the last one, put back in order.
    const backward: string[][] = [];
    for (let args: ReadBackArgs | undefined = { handle, fromEnd: true, offset: 0 }; args !== undefined; ) {
      const page = await reader.handle(args, { tenant: "acme" });
      const checked = checkedPage(page, textLines);
      if (backward.length === 0) expect(checked.to).toBe(LINES);
      backward.unshift(checked.lines);
      args = nextOf(page.content);
      expect(backward.length).toBeLessThan(LINES);
    }
    expect(backward.flat().join("\n")).toBe(text);

    // By a literal pattern (regex characters in it are plain text): every line holding it, with its number.
    const expected = textLines.flatMap((line, i) => (line.includes(NEEDLE) ? [{ line: i + 1, text: line }] : []));
    expect(expected).toHaveLength(Math.floor(LINES / 97));
    const matched: Array<{ line: number; text: string }> = [];
    for (let args: ReadBackArgs | undefined = { handle, pattern: NEEDLE, limit: 20 }; args !== undefined; ) {
      const page = await reader.handle(args, { tenant: "acme" });
      if (!page.ok) throw new Error(page.error.code);
      expect(page.contextUsed.value).toBeLessThanOrEqual(PAGE_TOKENS);
      expect(noteOf(page.content)).toMatch(/^matches \d+–\d+ of 51 for "needle\.\(\*\)" in 5,000 lines$/);
      matched.push(...(body(page.content).matches ?? []));
      args = nextOf(page.content);
    }
    expect(matched).toEqual(expected);

    const sawTokens = seen.reduce((sum, content) => sum + countTokens(content), 0);
    process.stderr.write(
      `text-spill e2e: ${JSON.stringify({ lines: LINES, viewTokens: outcome.contextUsed.value, rangePages: seen.length - 1, rangeTokens: sawTokens, wholeTokens: countTokens(JSON.stringify(text)) })}\n`,
    );
  }, 120_000);

  it("a text handle read for another tenant is unknown_handle, and a spill file edited on disk is tampered", async () => {
    const directory = path.join(scratch, "spill-tamper");
    const store = new FileSpillStore({ directory });
    const reader = readBack(store, { budget: { unit: "tokens", max: PAGE_TOKENS, tokenizer: "o200k_base" } });
    const raw = await client.callTool({ name: "echo", arguments: { message } });
    const outcome = await adapter.admit(raw, { ...reader.context, tenant: "acme" });
    if (!outcome.ok || outcome.spill === undefined) throw new Error("expected a spill");
    const { handle } = outcome.spill;

    for (const tenant of ["globex", undefined]) {
      const other = await reader.handle({ handle, limit: 5 }, { tenant });
      expect(other.ok || other.error.code).toBe("unknown_handle");
      expect(other.content).toContain('error="unknown_handle"');
      expect(other.content).not.toContain("row 0");
    }
    const mine = await reader.handle({ handle, limit: 5 }, { tenant: "acme" });
    expect(mine.ok && mine.page.lines?.[4]).toMatch(/^row 00005:/);

    // One line of the value changed on disk, its header left as written.
    const file = path.join(directory, `${handle}.json`);
    const bytes = await readFile(file, "utf8");
    expect(bytes).toContain("row 02500:");
    await writeFile(file, bytes.replace("row 02500: the quick", "row 02500: THE quick"));
    for (const fresh of [readBack(store), readBack(new FileSpillStore({ directory }))]) {
      const page = await fresh.handle({ handle, offset: 2499, limit: 1 }, { tenant: "acme" });
      expect(page.ok || page.error.code).toBe("tampered");
      expect(page.content).not.toContain("THE quick");
    }
    await expect(store.get(handle)).rejects.toMatchObject({ code: "tampered" });
    // The reader that verified the entry before keeps that copy between pages: it shows what was spilled.
    const kept = await reader.handle({ handle, offset: 2499, limit: 1 }, { tenant: "acme" });
    expect(kept.ok && kept.page.lines).toEqual([
      `row 02500: the quick brown fox jumps over the lazy dog <b>&amp;</b> "quoted"`,
    ]);

    // The index edited instead: a line start moved, its sha256 left as written.
    await writeFile(
      file,
      bytes.replace(/"lines":\[0,(\d+)/, (_, start) => `"lines":[0,${Number(start) + 1}`),
    );
    const moved = await readBack(store).handle({ handle, offset: 1, limit: 1 }, { tenant: "acme" });
    expect(moved.ok || moved.error.code).toBe("tampered");
  }, 120_000);
});
