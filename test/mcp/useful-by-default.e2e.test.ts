/**
 * Useful by default, against seven real MCP servers from npm (filesystem, memory, everything, sequential-thinking,
 * SQLite, git on a local repository, Playwright driving Debian's chromium on loopback pages): `toolgate import
 * --stdio` with import's defaults and no tuning, `generate`, then the calls a model makes, each admitted through the
 * generated adapter, and what the model reads of it (`toModelContent`, `toModelParts`) held to what the tool said:
 *
 * - every imported contract generates;
 * - every legitimate call whose answer fits the default budget reaches the model whole: `complete: true`, and every
 *   line of its text (or every value of its structured content) is in the model content;
 * - every call over the budget still gives the model a useful part: the head of the answer, marked incomplete;
 * - every call the server refuses is a typed failure (`tool_error`) that shows the tool's own words;
 * - no image or audio reaches the model as base64 text: it is passed on as a media part.
 *
 * The servers and calls are `real-servers/servers.ts`, shared with the measure the defaults were chosen from.
 */
import { createHash } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import type { Outcome } from "../../runtime/contract/types.js";
import * as builtRuntime from "../../runtime/dist/index.js";
import type { ToolAdapter } from "../../runtime/gate/context.js";
import type { OutputValidators } from "../../runtime/integrations/mcp-validator.js";
import { markupSafeText, toModelContent, toModelParts } from "../../runtime/stages/model-content.js";
import { toolgate } from "../cli.js";
import { ensureRuntimeBuilt, generateCatalog, scratchFolder } from "./fixture-catalog.js";
import { callServer, type RawCall } from "./real-servers/collect.js";
import { answerText, sizeOf } from "./real-servers/measure.js";
import {
  commandLine,
  LARGE_TEXT,
  type LegitimateCall,
  REAL_SERVERS,
  type RefusedCall,
  type StartedServer,
} from "./real-servers/servers.js";

type Adapter = ToolAdapter<unknown, unknown, unknown>;
type AnyOutcome = Outcome<unknown, unknown>;

/** The delimiter and the view's own fields, in tokens, beside the answer (see `measure.ts`). */
const OVERHEAD = 40;

/** One server's run: what import said, whether generation failed, and every call with its outcome. */
interface Run {
  imported: Awaited<ReturnType<typeof toolgate>>;
  listed: string[];
  generationError?: string;
  /** Each called tool's context budget, from its generated adapter. */
  budgets: Map<string, number>;
  /** Each tool's generated adapter, by name. */
  adapters: Map<string, Adapter>;
  legitimate: Array<{ call: LegitimateCall; raw: unknown; outcome: AnyOutcome }>;
  refused: Array<{ call: RefusedCall; raw: unknown; outcome: AnyOutcome }>;
}

const runs = new Map<string, Run>();

/** Import, generate, call and admit: one server, start to end. */
async function runServer(name: string, started: StartedServer, dir: string): Promise<Run> {
  const contracts = path.join(dir, "schemas");
  const imported = await toolgate("import", "--stdio", commandLine(started), "--out", contracts);
  const run: Run = { imported, listed: [], budgets: new Map(), adapters: new Map(), legitimate: [], refused: [] };
  let catalog: Awaited<ReturnType<typeof generateCatalog>>;
  try {
    catalog = await generateCatalog(contracts, path.join(dir, "generated"));
  } catch (error) {
    run.generationError = error instanceof Error ? error.message : String(error);
    return run;
  }
  const index = catalog.index as Record<string, unknown> & { outputValidators: OutputValidators };
  const adapters = run.adapters;
  for (const value of Object.values(index)) {
    const adapter = value as Adapter | undefined;
    if (typeof adapter?.admit !== "function") continue;
    adapters.set(adapter.name, adapter);
    run.budgets.set(adapter.name, adapter.spec.context.max);
  }
  const admit = (call: RawCall): Promise<AnyOutcome> => {
    const adapter = adapters.get(call.tool);
    if (adapter === undefined) throw new Error(`${name}: no adapter for ${call.tool}`);
    return adapter.admit(call.raw, { args: call.args });
  };
  const calls = await callServer(started, index.outputValidators);
  run.listed = calls.listed;
  for (const [i, call] of calls.legitimate.entries()) {
    run.legitimate.push({ call: started.calls[i] as LegitimateCall, raw: call.raw, outcome: await admit(call) });
  }
  for (const [i, call] of calls.refused.entries()) {
    run.refused.push({ call: started.errors[i] as RefusedCall, raw: call.raw, outcome: await admit(call) });
  }
  return run;
}

beforeAll(async () => {
  await ensureRuntimeBuilt();
  const scratch = await scratchFolder("useful-by-default");
  for (const server of REAL_SERVERS) {
    const dir = path.join(scratch, server.name);
    const workspace = path.join(dir, "workspace");
    await mkdir(workspace, { recursive: true });
    const started = await server.start(workspace);
    try {
      runs.set(server.name, await runServer(server.name, started, dir));
    } finally {
      await started.stop();
    }
  }
  return () => rm(scratch, { recursive: true, force: true });
}, 400_000);

function runOf(name: string): Run {
  const run = runs.get(name);
  if (run === undefined) throw new Error(`${name} did not run`);
  return run;
}

/** A server's run whose calls were made: one whose contracts did not generate has nothing to hold. */
function calledRun(name: string): Run {
  const run = runOf(name);
  if (run.generationError !== undefined) throw new Error(`${name}: no call was gated, ${run.generationError}`);
  return run;
}

/** What an outcome is, for an assertion message. */
function described(outcome: AnyOutcome): string {
  if (outcome.ok) return `ok, complete ${outcome.complete}`;
  return `${outcome.error.code} ${JSON.stringify(outcome.diagnostics.detail ?? {})}`;
}

/** A piece of a tool's answer as the model content spells it: inside a JSON string, markup escaped. */
function asShown(piece: string): string {
  return markupSafeText(JSON.stringify(piece).slice(1, -1));
}

/**
 * The pieces of a tool's answer the model must read when it is shown whole: every line of every string value of
 * its structured content, and every number and boolean; for a tool without one, every line of its text blocks.
 */
function answerPieces(raw: unknown): string[] {
  const result = raw as { structuredContent?: unknown; content?: Array<Record<string, unknown>> };
  const pieces: string[] = [];
  const lines = (text: string) => {
    for (const line of text.split(/\r?\n/)) if (line.trim() !== "") pieces.push(asShown(line));
  };
  if (result.structuredContent !== undefined) {
    const stack: unknown[] = [result.structuredContent];
    while (stack.length > 0) {
      const value = stack.pop();
      if (typeof value === "string") lines(value);
      else if (typeof value === "number" || typeof value === "boolean") pieces.push(JSON.stringify(value));
      else if (Array.isArray(value)) stack.push(...value);
      else if (value !== null && typeof value === "object") {
        const record = value as Record<string, unknown>;
        // An image or audio block's data reaches the model as media, never as text (checked on its own below).
        const media = (record.type === "image" || record.type === "audio") && typeof record.data === "string";
        stack.push(...Object.entries(record).flatMap(([key, item]) => (media && key === "data" ? [] : [item])));
      }
    }
    return pieces;
  }
  for (const block of result.content ?? [])
    if (block.type === "text" && typeof block.text === "string") lines(block.text);
  return pieces;
}

/** Every base64 image or audio payload in a raw result: its content blocks and any media shape in its structure. */
function mediaData(raw: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [raw];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      if ((record.type === "image" || record.type === "audio") && typeof record.data === "string") {
        found.push(record.data);
      }
      stack.push(...Object.values(record));
    }
  }
  return found;
}

/** The start of the first line of a tool's answer (its first string value's, when structured), as the model reads it. */
function firstLine(raw: unknown): string {
  const result = raw as { structuredContent?: unknown; content?: Array<Record<string, unknown>> };
  let text = "";
  const stack: unknown[] = [result.structuredContent ?? result.content?.find((block) => block.type === "text")?.text];
  while (stack.length > 0 && text === "") {
    const value = stack.shift();
    if (typeof value === "string") text = value;
    else if (Array.isArray(value)) stack.unshift(...value);
    else if (value !== null && typeof value === "object") stack.unshift(...Object.values(value));
  }
  const line = text.split(/\r?\n/).find((candidate) => candidate.trim() !== "") ?? "";
  return asShown(line.slice(0, 60));
}

describe.each(REAL_SERVERS.map((server) => server.name))("the %s server, with import's defaults", (name) => {
  it("imports the tools it lists and generates every contract import wrote", () => {
    const run = runOf(name);
    // Whatever import writes generates: a schema generate would refuse is refused at import, by name.
    expect(run.generationError).toBeUndefined();
    expect(run.listed.length).toBeGreaterThan(0);
    const [, written, refused] = /(\d+) written, 0 replaced, 0 unchanged, (\d+) refused\./.exec(run.imported.out) ?? [];
    expect(Number(written) + Number(refused), run.imported.out).toBe(run.listed.length);
    if (refused === "0") expect(run.imported.code, run.imported.err).toBe(0);
    // No tool a model calls here is refused.
    const called = new Set([...run.legitimate, ...run.refused].map(({ call }) => call.tool));
    for (const tool of called) expect(run.imported.err).not.toContain(`refused   ${tool}:`);
  });

  it("shows the model every legitimate result that fits the default budget whole", async () => {
    const run = calledRun(name);
    const fitting = run.legitimate.filter(({ call }) => call.size === "fits");
    expect(fitting.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const { call, raw, outcome } of fitting) {
      const label = `${call.tool} (${call.what}): ${described(outcome)}`;
      // The label holds: the answer, as the model reads it, is within the budget the contract applies.
      const { tokens } = await sizeOf(answerText(raw));
      expect(tokens + OVERHEAD, label).toBeLessThanOrEqual(run.budgets.get(call.tool) ?? 0);
      const content = toModelContent(outcome);
      const missing = answerPieces(raw).filter((piece) => !content.includes(piece));
      if (!outcome.ok || !outcome.complete || !/^<tool_result [^\n]*complete="true"/.test(content))
        failures.push(label);
      else if (missing.length > 0)
        failures.push(`${label}: the model does not read ${missing.slice(0, 3).join(" | ")}`);
    }
    expect(failures).toEqual([]);
  });

  it("gives the model a useful part of every legitimate result over the budget", async () => {
    const run = calledRun(name);
    const failures: string[] = [];
    for (const { call, raw, outcome } of run.legitimate.filter(({ call }) => call.size === "over")) {
      const label = `${call.tool} (${call.what}): ${described(outcome)}`;
      const { tokens } = await sizeOf(answerText(raw));
      const budget = run.budgets.get(call.tool) ?? Number.POSITIVE_INFINITY;
      expect(tokens, label).toBeGreaterThan(budget);
      const content = toModelContent(outcome);
      // The head of the answer, marked incomplete, not only a sign that something was left out.
      const useful =
        outcome.ok && !outcome.complete && content.includes(firstLine(raw)) && content.includes("<omitted>");
      if (!useful) failures.push(label);
      else expect(outcome.contextUsed.value, label).toBeLessThanOrEqual(budget);
    }
    expect(failures).toEqual([]);
  });

  it("shows the tool's own words inside a typed failure for every call it refuses", () => {
    const run = calledRun(name);
    expect(run.refused.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const { call, raw, outcome } of run.refused) {
      const label = `${call.tool} ${JSON.stringify(call.args).slice(0, 80)}: ${described(outcome)}`;
      expect((raw as { isError?: boolean }).isError, `${label}: the server answers it as a tool error`).toBe(true);
      expect(answerText(raw), `${label}: the tool's text names it`).toContain(call.words);
      expect(outcome.ok ? "ok" : outcome.error.code, label).toBe("tool_error");
      const content = toModelContent(outcome);
      expect(content, label).toMatch(/^<tool_result [^\n]*error="tool_error"/);
      if (!content.includes(asShown(call.words))) failures.push(`${label}: the model does not read "${call.words}"`);
    }
    expect(failures).toEqual([]);
  });

  it("passes every image and audio block on as media, never as base64 text", () => {
    const run = calledRun(name);
    const failures: string[] = [];
    for (const { call, raw, outcome } of run.legitimate) {
      const content = toModelContent(outcome);
      const parts = toModelParts(outcome);
      for (const data of mediaData(raw)) {
        const label = `${call.tool} (${call.what}): ${described(outcome)}`;
        if (content.includes(data.slice(0, 40))) failures.push(`${label}: base64 in the model's text`);
        if (!parts.some((part) => part.type !== "text" && part.data === data)) {
          failures.push(`${label}: not passed on as a media part`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("a large answer of a real server, hashed on the helper thread", () => {
  it("reaches the model the same as when it was first admitted", async () => {
    // The filesystem server's 900 KB file, admitted above by the adapter import wrote; its hash is now taken on
    // the helper thread (the built runtime's, which generated adapters import).
    const run = calledRun("filesystem");
    const large = run.legitimate.find(({ call }) => call.what === "a 900 KB file");
    if (large === undefined) throw new Error("the filesystem server's large file was not read");
    const adapter = run.adapters.get(large.call.tool) as Adapter;
    // The built runtime's thread: the first large payload starts it, and until it is ready payloads are hashed at
    // once. Admitted until one was handed over, then once more.
    for (let tries = 0; builtRuntime.threadJobs() === 0; tries++) {
      if (tries === 400) throw new Error("the built runtime's hash thread never became ready");
      await adapter.admit(large.raw, { args: large.call.args });
      await sleep(50);
    }
    const jobs = builtRuntime.threadJobs();
    const again = await adapter.admit(large.raw, { args: large.call.args });
    expect(builtRuntime.threadJobs()).toBe(jobs + 1);
    const comparable = (outcome: AnyOutcome) => ({
      ...outcome,
      provenance: { ...outcome.provenance, receivedAt: "", correlationId: "" },
    });
    expect(comparable(again)).toEqual(comparable(large.outcome));
    expect(toModelContent(again)).toBe(toModelContent(large.outcome));
    // The positive control: the model reads the head of the file, each line whole, under the source's hash.
    expect(again.ok && again.complete).toBe(false);
    expect(toModelContent(again)).toContain(asShown(LARGE_TEXT.split("\n")[0] as string));
    expect(again.provenance.rawSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("a real server's structured answer", () => {
  it("is admitted from its one text block of the same value, whole, under that text's hash", () => {
    // The positive control of receiving a structured result from its text block (`text-block.ts`): what the servers
    // answer with `structuredContent` and its JSON as one text block reaches the model as the same data.
    let seen = 0;
    for (const run of runs.values()) {
      for (const { call, raw, outcome } of run.legitimate) {
        const result = raw as { content?: Array<{ type: string; text?: string }>; structuredContent?: unknown };
        const texts = (result.content ?? []).filter((block) => block.type === "text");
        const text = texts[0]?.text;
        const adapter = run.adapters.get(call.tool);
        if (result.structuredContent === undefined || texts.length !== 1 || text === undefined) continue;
        if (adapter?.spec.result?.kind !== "structured") continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          continue;
        }
        if (JSON.stringify(parsed) !== JSON.stringify(result.structuredContent)) continue;
        seen++;
        const label = `${call.tool} (${call.what}): ${described(outcome)}`;
        expect(outcome.ok && outcome.data, label).toEqual(result.structuredContent);
        expect(outcome.provenance.rawSha256, label).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
        if (call.size === "fits") expect(outcome.ok && outcome.complete, label).toBe(true);
      }
    }
    expect(seen).toBeGreaterThan(0);
  });
});

describe("the real servers' calls", () => {
  it("include images, thoughts over 8.5 KB, and a call over the budget on most servers", () => {
    const all = [...runs.values()];
    const media = all.flatMap((run) => run.legitimate.filter(({ raw }) => mediaData(raw).length > 0));
    expect(media.length).toBeGreaterThanOrEqual(3);
    const thoughts = runOf("sequential-thinking").legitimate.map(({ call }) => String(call.args.thought ?? ""));
    expect(thoughts.some((thought) => Buffer.byteLength(thought) > 8.5 * 1024)).toBe(true);
    expect(all.filter((run) => run.legitimate.some(({ call }) => call.size === "over")).length).toBeGreaterThanOrEqual(
      4,
    );
  });
});
