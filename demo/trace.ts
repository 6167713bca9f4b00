/**
 * The labelled example trace of `toolgate report` (test/fixtures/report/): an agent loop over the example
 * contracts with a scripted model, 120 turns, each asking one question whose answer is in a tool's result. The
 * model calls the tool, reads what the gate showed it, and answers; the turn is labelled correct when the answer
 * is the value in the tool's raw result (the rule, stated in test/fixtures/report/README.md). Deterministic: a fixed
 * clock (wall and monotonic, advanced by scripted summarizer latencies), fixed turn and call ids.
 *
 *   npx esbuild demo/trace.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=dist/demo/trace.js && node dist/demo/trace.js
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { jsonLinesSink, MemorySpillStore, type Outcome, ownedByTenant, Turn, toModelContent } from "@toolgate/runtime";
import { catalog } from "../generated/index.js";

const PAYLOADS = path.join("test", "fixtures", "payloads");
const OUT = path.join("test", "fixtures", "report");

/** Each tool's question: the field whose first string value the model must report. */
const QUESTIONS: Record<keyof typeof catalog, string> = {
  get_record: "recordId",
  query_database: "name",
  read_file: "path",
  read_graph: "name",
  search_docs: "query",
};
const TOOLS = Object.keys(QUESTIONS) as Array<keyof typeof catalog>;
/** Turns in the trace: the plan below twice over for every tool. */
const TURNS = 120;

/**
 * What each turn's call returns, in a cycle of twelve: `+` with the caller's summarize and recall hooks, `-` without
 * (so a tool whose chain is summarize or recall, then drop, drops; spilling needs no hook).
 */
const PLAN = [
  "good",
  "good",
  "good",
  "good",
  "oversize+",
  "oversize+",
  "oversize-",
  "invalid",
  "good",
  "malformed",
  "oversize+",
  "hostile",
];

/** The monotonic clock the gate reads for summarize latency: advanced only by the scripted summarizer. */
let monotonic = 0;
performance.now = () => monotonic;

/** How long the scripted summarizer takes in the current turn (ms of the monotonic clock). */
let latency = 0;

/**
 * The caller's hooks, one set for the whole run (the gate caches summaries per hook, so a result summarized before
 * costs nothing the second time), and the same without summarize and recall, so an oversize result is dropped.
 */
const HOOKS = {
  semantic: ownedByTenant("/owner/tenantId"),
  summarize: async (data: unknown) => {
    monotonic += latency;
    return `A summary of ${JSON.stringify(data).length} characters of rows, by the caller's model.`;
  },
  recall: async (args: unknown) => ({ ...(args as object), limit: 5 }),
};
const NO_POLICY_HOOKS = { semantic: HOOKS.semantic };

/** The first string value of `field` in a text (a raw result, or what the model was shown). */
function firstValue(text: string, field: string): string | undefined {
  return new RegExp(`"${field}"\\s*:\\s*"([^"]*)"`).exec(text)?.[1];
}

/** The scripted model: asked for `field`, it answers with the first value of it in its prompt, or says it cannot. */
function scriptedModel(prompt: string, field: string): string | undefined {
  return firstValue(prompt, field);
}

/** A payload file of the example fixtures. */
async function payload(tool: string, variant: string): Promise<Buffer> {
  const ext = variant === "malformed" ? "txt" : "json";
  return readFile(path.join(PAYLOADS, tool, `${variant}.${ext}`));
}

/** One turn: the model calls the tool, the gate admits its result, the model answers from what it was shown. */
async function runTurn(i: number, sink: ReturnType<typeof jsonLinesSink>, spillStore: MemorySpillStore) {
  const tool = TOOLS[i % TOOLS.length] as keyof typeof catalog;
  const step = PLAN[Math.floor(i / TOOLS.length) % PLAN.length] as string;
  const variant = step.replace(/[+-]$/, "");
  const withHooks = !step.endsWith("-");
  const raw = await payload(tool, variant);
  const turn = new Turn({ id: `turn-${String(i + 1).padStart(3, "0")}` });
  latency = 150 + ((i * 53) % 300);
  const admit = catalog[tool].adapter.admit as (raw: unknown, ctx: object) => Promise<Outcome<unknown, unknown>>;
  const outcome = await admit(raw, {
    correlationId: `call-${String(i + 1).padStart(3, "0")}`,
    tenant: "tn_acme0042",
    args: {},
    hooks: withHooks ? HOOKS : NO_POLICY_HOOKS,
    turn,
    sink,
    now: () => new Date(Date.UTC(2026, 0, 1, 9, 0, i)),
    // Always a store of the run's own: a call without one would spill to the process's default (files on disk).
    spillStore,
    ...(withHooks ? { call: async () => payload(tool, "good") } : {}),
  });
  const field = QUESTIONS[tool];
  const answer = scriptedModel(toModelContent(outcome), field);
  const truth = firstValue(raw.toString("utf8"), field);
  return { turn: turn.id, correct: answer !== undefined && answer === truth };
}

const lines: string[] = [];
const sink = jsonLinesSink((line) => lines.push(line));
const spillStore = new MemorySpillStore({ now: () => Date.UTC(2026, 0, 1, 9, 0, 0) });
const labels: string[] = [];
for (let i = 0; i < TURNS; i++) labels.push(JSON.stringify(await runTurn(i, sink, spillStore)));
await writeFile(path.join(OUT, "events.jsonl"), lines.join(""));
await writeFile(path.join(OUT, "labels.jsonl"), `${labels.join("\n")}\n`);
console.log(`${lines.length} events and ${labels.length} labels written to ${OUT}/`);
