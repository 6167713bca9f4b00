/**
 * Benchmark: what the model reads, per token, under toolgate's defaults and under what hosts do without it.
 *
 * A fixed set of real-shaped tool results, made here from a seeded generator (the same bytes on every run): a
 * service log, a SQL table, a JSON list of issues, a directory tree, a Markdown document and an error with its stack
 * trace. Each is read four ways:
 *
 * - **toolgate's defaults**: the contract `toolgate import` writes for the tool (its view plan from the schema, the
 *   default budget of `o200k_base` tokens, the chain `["shorten"]`), admitted as an MCP result; the model reads
 *   `toModelContent` of the outcome.
 * - **head+tail 10 KiB / 256 lines**: what coding harnesses do with a long tool output: the text as the server wrote
 *   it (JSON pretty-printed with two spaces, as most servers send it), whole when within 256 lines and 10 KiB, else
 *   its first lines and its last lines, at most 128 lines and 5 KiB each (a line longer than that cut at the byte),
 *   with a marker between.
 * - **25k-token cap**: the text's first 25,000 tokens and a marker (a host's hard cap on a tool output).
 * - **drop**: the same contract as toolgate's defaults with the chain `["drop"]`: whole within budget, else nothing.
 *
 * **What the model reads** is counted in units a reader can use whole: a line of a text result; a record of a JSON
 * result (a table row, an issue, a file of the tree), all of its fields. A unit counts as read when it reaches the
 * model intact: every character of the unit's text inside what the model reads (for truncation, the unit's span of
 * the server's text lies within the kept part; for toolgate, the unit's value is in the view whole, equal to the
 * tool's). A unit cut in two, or a record missing a field, is not read. Reported per result and contender: units
 * read, as a share of the result's units, and per 1,000 tokens of what the model reads (tokens of `o200k_base`).
 */

import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { applyDefaults } from "../dist/generator/contract/x-toolgate.js";
import { importedResult } from "../dist/generator/mcp/result-settings.js";

/** The budget every imported contract gets: what the rows measure under. */
const DEFAULT_CONTEXT = applyDefaults({}).context;

import { importedView } from "../dist/generator/mcp/view-settings.js";
import { planView, runtimePlan } from "../dist/generator/model/view-plan.js";

/** The harness's head+tail bounds: 10 KiB and 256 lines in all, half of each for the head and half for the tail. */
const HARNESS = { bytes: 10 * 1024, lines: 256 };
/** The host's hard cap on a tool output, in tokens. */
const HOST_CAP_TOKENS = 25_000;

/** A seeded generator: the same results on every run. */
function seeded(seed) {
  let state = seed >>> 0;
  const next = (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const pick = (list) => list[next(list.length)];
  return { next, pick };
}

const WORDS = (
  "the request handler reads its settings from the environment and retries each upstream call with a backoff " +
  "when the node is replaced the cache is warmed before traffic moves and the queue drains in order of arrival"
).split(" ");

/** A sentence of `n` seeded words. */
function sentence(r, n) {
  const words = Array.from({ length: n }, () => r.pick(WORDS));
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return `${words.join(" ")}.`;
}

/** A service log of `count` lines. */
function logText(count) {
  const r = seeded(1);
  const levels = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
  return Array.from({ length: count }, (_, i) => {
    const time = new Date(Date.UTC(2026, 11, 1, 10, 0, 0) + i * 137).toISOString();
    return `${time} ${r.pick(levels).padEnd(5)} worker-${r.next(12)} req=${(i * 7919).toString(16)} ${sentence(r, 4 + r.next(10))}`;
  }).join("\n");
}

/** A Markdown document of about `count` lines: headings, paragraphs, lists and code. */
function documentText(count) {
  const r = seeded(2);
  const lines = [];
  for (let section = 1; lines.length < count; section++) {
    lines.push(`## ${section}. ${sentence(r, 3 + r.next(4)).slice(0, -1)}`, "");
    for (let p = 0; p < 3; p++) lines.push(sentence(r, 10 + r.next(14)), sentence(r, 8 + r.next(10)), "");
    for (let item = 0; item < 4; item++) lines.push(`- ${sentence(r, 5 + r.next(6))}`);
    lines.push("", "```sh", `toolgate generate --schemas schemas/${section}`, "```", "");
  }
  return lines.slice(0, count).join("\n");
}

/** An error with its stack trace. */
function errorText() {
  const r = seeded(3);
  const frames = Array.from(
    { length: 40 },
    (_, i) =>
      `    at ${r.pick(["handle", "dispatch", "retry", "connect", "query"])}${i} (/srv/app/src/${r.pick(["db", "http", "queue"])}/${r.pick(["pool", "client", "worker"])}.ts:${10 + r.next(400)}:${1 + r.next(40)})`,
  );
  return [
    'error: relation "userz" does not exist',
    "  code: 42P01",
    "  position: 15",
    '  hint: Perhaps you meant to reference the table "users".',
    'QueryFailedError: relation "userz" does not exist',
    ...frames,
  ].join("\n");
}

/** A SQL result: column names and `count` rows. */
function tableValue(count) {
  const r = seeded(4);
  const rows = Array.from({ length: count }, (_, i) => [
    i + 1,
    `${r.pick(["ana", "bo", "chen", "dara", "eli", "femi"])}.${r.pick(["smith", "ng", "okafor", "silva"])}${i}`,
    `user${i}@example.com`,
    new Date(Date.UTC(2025, r.next(12), 1 + r.next(28))).toISOString().slice(0, 10),
    r.next(100_000) / 100,
  ]);
  return { columns: ["id", "name", "email", "created_at", "balance"], rows };
}

const tableSchema = {
  type: "object",
  properties: {
    columns: { type: "array", items: { type: "string" } },
    rows: { type: "array", items: { type: "array", items: { type: ["string", "number"] } } },
  },
  required: ["columns", "rows"],
};

/** A list of `count` issues, each with a body of a few sentences. */
function issuesValue(count) {
  const r = seeded(5);
  const items = Array.from({ length: count }, (_, i) => ({
    number: 4000 - i,
    title: sentence(r, 4 + r.next(6)).slice(0, -1),
    state: r.pick(["open", "open", "closed"]),
    labels: Array.from({ length: r.next(3) }, () => r.pick(["bug", "docs", "perf", "gate", "proxy"])),
    author: r.pick(["ana", "bo", "chen", "dara"]),
    created_at: new Date(Date.UTC(2026, r.next(12), 1 + r.next(28))).toISOString(),
    body: Array.from({ length: 2 + r.next(5) }, () => sentence(r, 8 + r.next(12))).join(" "),
  }));
  return { total: count, items };
}

const issuesSchema = {
  type: "object",
  properties: {
    total: { type: "integer" },
    items: {
      type: "array",
      items: {
        type: "object",
        properties: {
          number: { type: "integer" },
          title: { type: "string" },
          state: { enum: ["open", "closed"] },
          labels: { type: "array", items: { type: "string" } },
          author: { type: "string" },
          created_at: { type: "string" },
          body: { type: "string" },
        },
        required: ["number", "title", "state", "labels", "author", "created_at", "body"],
      },
    },
  },
  required: ["total", "items"],
};

/** A directory tree: directories of directories of files, as a filesystem server's `directory_tree` answers. */
function treeValue(dirs) {
  const r = seeded(6);
  const file = (d, f) => ({
    name: `${r.pick(["index", "util", "types", "main", "test"])}-${d}-${f}.${r.pick(["ts", "js", "json", "md"])}`,
    type: "file",
    size: 200 + r.next(40_000),
  });
  const children = Array.from({ length: dirs }, (_, d) => ({
    name: `pkg-${d}`,
    type: "directory",
    children: Array.from({ length: 3 }, (_, s) => ({
      name: `src-${s}`,
      type: "directory",
      children: Array.from({ length: 4 + r.next(8) }, (_, f) => file(d, `${s}${f}`)),
    })),
  }));
  return { name: "repo", type: "directory", children };
}

const fileSchema = {
  type: "object",
  properties: { name: { type: "string" }, type: { const: "file" }, size: { type: "integer" } },
  required: ["name", "type", "size"],
};
const dirSchema = (children) => ({
  type: "object",
  properties: { name: { type: "string" }, type: { const: "directory" }, children: { type: "array", items: children } },
  required: ["name", "type", "children"],
});
const treeSchema = dirSchema(dirSchema(dirSchema(fileSchema)));

/**
 * The fixed set: each result with its kind, its schema (JSON kinds), its text as the server writes it, and its
 * units: for each, a test of whether it reached the model through the view and its span in the server's text.
 */
export function usefulnessResults() {
  const text = (name, what, body) => ({ name, what, kind: "text", text: body, unit: "lines" });
  const json = (name, what, schema, value, unitPaths) => ({
    name,
    what,
    kind: "structured",
    schema,
    value,
    text: JSON.stringify(value, null, 2),
    unit: "records",
    unitPaths,
  });
  const table = tableValue(3000);
  const issues = issuesValue(300);
  const tree = treeValue(60);
  return [
    text("log", "service log", logText(6000)),
    json(
      "table",
      "SQL table",
      tableSchema,
      table,
      table.rows.map((_, i) => ["rows", i]),
    ),
    json(
      "list",
      "JSON list of issues",
      issuesSchema,
      issues,
      issues.items.map((_, i) => ["items", i]),
    ),
    json(
      "tree",
      "directory tree",
      treeSchema,
      tree,
      tree.children.flatMap((dir, d) =>
        dir.children.flatMap((src, s) => src.children.map((_, f) => ["children", d, "children", s, "children", f])),
      ),
    ),
    text("document", "Markdown document", documentText(1500)),
    text("error", "error with stack trace", errorText()),
  ];
}

/** The value at a path of keys and indices. */
function at(value, path) {
  let node = value;
  for (const key of path) node = node?.[key];
  return node;
}

/** JSON text with every object's keys sorted: the view writes keys in its plan's order, the tool in its own. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Deep equality of JSON values, whatever their keys' order. */
function equal(a, b) {
  return canonical(a) === canonical(b);
}

/**
 * Where each unit sits in the server's text: a text result's lines, a JSON result's records found in its
 * pretty-printed text (each record's own pretty text at its indentation, searched in order).
 */
function spans(result) {
  if (result.kind === "text") {
    const out = [];
    let from = 0;
    for (const line of result.text.split("\n")) {
      if (line.trim() !== "") out.push([from, from + line.length]);
      from += line.length + 1;
    }
    return out;
  }
  let cursor = 0;
  return result.unitPaths.map((path) => {
    const indent = " ".repeat(2 * path.length);
    const own = JSON.stringify(at(result.value, path), null, 2).replaceAll("\n", `\n${indent}`);
    const start = result.text.indexOf(own, cursor);
    if (start < 0) throw new Error(`${result.name}: a record's text was not found in the server's text`);
    cursor = start + own.length;
    return [start, cursor];
  });
}

/** Units whose whole span lies within the kept ranges of the server's text. */
function readInRanges(unitSpans, ranges) {
  return unitSpans.filter(([from, to]) => ranges.some(([start, end]) => from >= start && to <= end)).length;
}

/** Head+tail truncation at 10 KiB / 256 lines: what the model reads and the ranges of the text it keeps. */
export function headTail(text) {
  const lines = text.split("\n");
  if (lines.length <= HARNESS.lines && Buffer.byteLength(text) <= HARNESS.bytes)
    return { read: text, ranges: [[0, text.length]] };
  const bytes = HARNESS.bytes / 2;
  const count = HARNESS.lines / 2;
  let head = 0;
  let headBytes = 0;
  while (head < count && head < lines.length && headBytes + Buffer.byteLength(lines[head]) + 1 <= bytes) {
    headBytes += Buffer.byteLength(lines[head]) + 1;
    head++;
  }
  let tail = 0;
  let tailBytes = 0;
  while (tail < count && head + tail < lines.length) {
    const line = lines[lines.length - 1 - tail];
    if (tailBytes + Buffer.byteLength(line) + 1 > bytes) break;
    tailBytes += Buffer.byteLength(line) + 1;
    tail++;
  }
  // A line longer than the whole half: its first bytes, cut where the bound falls.
  const headText = head > 0 ? lines.slice(0, head).join("\n") : Buffer.from(text).subarray(0, bytes).toString();
  const tailStart = lines.slice(0, lines.length - tail).join("\n").length + 1;
  const tailText = tail > 0 ? text.slice(tailStart) : "";
  const left = lines.length - head - tail;
  const read = `${headText}\n[... ${left} lines truncated ...]\n${tailText}`;
  const ranges = [[0, headText.length]];
  if (tail > 0) ranges.push([tailStart, text.length]);
  return { read, ranges };
}

/** The first 25,000 tokens of the text: what the model reads and the range it keeps. */
export function tokenCap(text) {
  if (countTokens(text) <= HOST_CAP_TOKENS) return { read: text, ranges: [[0, text.length]] };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(text.slice(0, mid)) <= HOST_CAP_TOKENS) lo = mid;
    else hi = mid - 1;
  }
  return { read: `${text.slice(0, lo)}\n[output truncated at ${HOST_CAP_TOKENS} tokens]`, ranges: [[0, lo]] };
}

/** The spec of the contract `toolgate import` writes for a result, with the chain given. */
export function importedSpecFor(result, oversize, runtime) {
  const settings = {
    version: "1",
    ...importedView(result.kind, result.schema),
    result: importedResult(result.kind),
    oversize,
  };
  const applied = applyDefaults(settings, result.kind === "structured");
  const plan =
    result.kind === "structured"
      ? runtimePlan(planView(result.schema, applied.view, applied.view.maxStringChars, `${result.name}.tool.json`))
      : { kind: "string", max: applied.view.maxStringChars, overflow: "excerpt" };
  return {
    name: result.name,
    contract: { version: "1", sha256: "0".repeat(64), file: `schemas/${result.name}.tool.json` },
    // The results are valid by construction; what is measured here is what the view shows of them.
    validateResult: result.kind === "structured" ? () => true : undefined,
    view: { plan, maxStringChars: applied.view.maxStringChars },
    buildView: (data) => runtime.project(data, plan, { maxStringChars: applied.view.maxStringChars }),
    limits: { maxBytes: 64 * 1024 * 1024, maxDepth: 32 },
    context: applied.context,
    oversize: applied.oversize,
    recallLimit: 1,
    summaryMax: 1000,
    spillPreview: 3,
    retry: {},
    fields: [],
    exposeToolError: false,
    result: {
      kind: result.kind,
      ...(result.kind === "text" ? { text: applied.result.text } : {}),
      content: applied.result.content,
    },
    mcp: {},
  };
}

/** Units of a result that reached the model through a gate outcome, read back from the model content itself. */
function readThroughGate(result, content, unitSpans) {
  const lines = content.split("\n");
  // A failure renders no view: nothing of the result is read.
  if (lines.length < 3 || lines[0].includes('error="')) return 0;
  const view = JSON.parse(lines[1]);
  if (result.kind === "text") {
    const source = result.text.split("\n");
    const shown = view.text.split("\n");
    const gap = view.gap;
    let read = 0;
    shown.forEach((line, i) => {
      // Lines after the gap's marker are the text's last lines.
      const index = gap === undefined || i < gap.from - 1 ? i : gap.to + (i - gap.from);
      if (line.trim() !== "" && line === source[index]) read++;
    });
    return Math.min(read, unitSpans.length);
  }
  return result.unitPaths.filter((path) => equal(at(view, path), at(result.value, path))).length;
}

/** Reads every result every way; deterministic, so one run is the figure. */
export async function runUsefulness() {
  const runtime = await import("@toolgate/runtime");
  const rows = [];
  for (const result of usefulnessResults()) {
    const unitSpans = spans(result);
    const raw =
      result.kind === "text"
        ? { content: [{ type: "text", text: result.text }] }
        : { content: [{ type: "text", text: result.text }], structuredContent: result.value };
    const figures = {};
    for (const [name, oversize] of [
      ["toolgate", undefined],
      ["drop", ["drop"]],
    ]) {
      const adapter = runtime.defineTool(importedSpecFor(result, oversize, runtime));
      const started = performance.now();
      const outcome = await adapter.admit(raw);
      const ms = performance.now() - started;
      const content = runtime.toModelContent(outcome);
      figures[name] = {
        read: readThroughGate(result, content, unitSpans),
        tokens: countTokens(content),
        ms,
        outcome: outcome.ok ? (outcome.policy ?? "direct") : outcome.error.code,
      };
    }
    for (const [name, cut] of [
      ["headTail", headTail],
      ["tokenCap", tokenCap],
    ]) {
      const { read, ranges } = cut(result.text);
      figures[name] = { read: readInRanges(unitSpans, ranges), tokens: countTokens(read) };
    }
    for (const figure of Object.values(figures)) {
      figure.share = figure.read / unitSpans.length;
      figure.per1kTokens = figure.tokens === 0 ? 0 : (figure.read * 1000) / figure.tokens;
    }
    rows.push({
      name: result.name,
      what: result.what,
      unit: result.unit,
      units: unitSpans.length,
      bytes: Buffer.byteLength(result.text),
      serverTokens: countTokens(result.text),
      figures,
    });
  }
  return {
    definition:
      "a unit (a line of a text result; a record of a JSON result: table row, issue, file of a tree) is read when it " +
      "reaches the model intact, every character of it; reported as units read, their share of the result, and " +
      "units read per 1,000 tokens of what the model reads (o200k_base)",
    budget: `toolgate: the contract import writes (${DEFAULT_CONTEXT.max.toLocaleString("en-US")} ${DEFAULT_CONTEXT.unit} of ${DEFAULT_CONTEXT.tokenizer}, chain [${applyDefaults({}).oversize.join(", ")}]); drop: the same with [drop]`,
    rows,
  };
}
