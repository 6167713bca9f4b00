/**
 * The report as tables and sentences, in one model the text and Markdown formats both print: each section a title,
 * headers and rows of cells, then the decision rule's sentences and the lines that could not be read.
 */
import type { BuiltReport } from "./build.js";
import { percent } from "./decision.js";
import type { Rate } from "./interval.js";
import type { ToolMeasures } from "./measures.js";
import type { WouldHaveRow } from "./observed.js";
import { OVERSIZE_POLICIES } from "./tally.js";

/** One table. */
export interface Table {
  title: string;
  headers: string[];
  rows: string[][];
  /** Columns of words rather than numbers (aligned left); the first always is. */
  words?: number[] | undefined;
}

/** A rate to one decimal place, as a percentage. */
export function percent1(rate: number | null): string {
  return rate === null ? "–" : `${(rate * 100).toFixed(1)}%`;
}

/** Milliseconds, or a dash. */
const ms = (value: number | null): string => (value === null ? "–" : value.toFixed(1));

/** The report's opening line. */
export function headline(report: BuiltReport): string {
  const files = `${report.files.length} file${report.files.length === 1 ? "" : "s"}`;
  const bad = report.badLines === 0 ? "" : `, ${report.badLines} line${report.badLines === 1 ? "" : "s"} not counted`;
  const labels =
    report.recovered === undefined
      ? ""
      : `; ${report.recovered.labels} labels, ${report.recovered.matched} matched in the trace`;
  const observed = report.observed.events === 0 ? "" : ` (${report.observed.events} in observe mode)`;
  return `toolgate report: ${report.events} events${observed} from ${files}, ${report.tools.length} tools${bad}${labels}.`;
}

function rejectRow(m: ToolMeasures): string[] {
  const rejected = Object.values(m.rejects).reduce((sum, n) => sum + n, 0);
  const codes = Object.entries(m.rejects).map(([code, n]) => `${code} ${n}`);
  return [m.tool, String(m.admits), String(rejected), percent1(m.rejectRate), codes.join(", ") || "–"];
}

function mixRow(m: ToolMeasures): string[] {
  const cells = OVERSIZE_POLICIES.map((p) =>
    m.mix[p].count === 0 ? "–" : `${m.mix[p].count} (${percent(m.mix[p].share)})`,
  );
  return [m.tool, String(m.oversize), percent1(m.oversizeRate), ...cells];
}

function summarizeRow(m: ToolMeasures): string[] {
  const s = m.summarize;
  const cached = s.n === 0 ? "–" : `${s.cached} (${percent(s.cacheHitRate)})`;
  return [m.tool, String(s.n), ms(s.p50), ms(s.p95), ms(s.max), cached];
}

function turnRow(m: ToolMeasures): string[] {
  const perTurn = m.recallsPerTurn === null ? "–" : m.recallsPerTurn.toFixed(2);
  return [m.tool, String(m.turns), String(m.recalls), perTurn, String(m.partialTurns), String(m.failedTurns)];
}

/** A rate's cells: correct of n, the rate, and its interval. */
function rateCells(rate: Rate): string[] {
  return [
    `${rate.hits}/${rate.n}`,
    percent1(rate.rate),
    rate.low === null ? "–" : `${percent1(rate.low)} – ${percent1(rate.high)}`,
  ];
}

/** Every table of the report: per tool, then the row for all tools. */
export function reportTables(report: BuiltReport): Table[] {
  const every = [...report.tools, report.all];
  const tables: Table[] = [
    {
      title: "Admits and rejects",
      headers: ["tool", "admits", "rejected", "reject rate", "rejects by code"],
      rows: every.map(rejectRow),
      words: [4],
    },
    {
      title: "Oversize and policy mix",
      headers: ["tool", "oversize", "oversize rate", ...OVERSIZE_POLICIES],
      rows: every.map(mixRow),
    },
    {
      title: "Summarize latency (ms)",
      headers: ["tool", "summaries", "p50", "p95", "max", "cache hits"],
      rows: every.map(summarizeRow),
    },
    {
      title: "Turns",
      headers: ["tool", "turns", "re-calls", "re-calls per turn", "partial turns", "failed turns"],
      rows: every.map(turnRow),
    },
  ];
  if (report.observed.events > 0) tables.push(wouldHaveTable(report));
  const recovered = report.recovered;
  if (recovered !== undefined) {
    const byPolicy = OVERSIZE_POLICIES.filter((p) => recovered.byPolicy[p].n > 0).map((p) => [
      "all tools",
      p,
      ...rateCells(recovered.byPolicy[p]),
    ]);
    tables.push({
      title: "Recovered rate (labelled turns reaching a correct answer, 95% Wilson interval)",
      headers: ["tool", "oversize handled by", "correct", "recovered", "interval"],
      rows: [
        ...recovered.byTool.map((c) => [c.tool, c.policy, ...rateCells(c)]),
        ...byPolicy,
        ["clean turns", "no oversize event", ...rateCells(recovered.clean)],
      ],
      words: [1],
    });
  }
  return tables;
}

/** A "would have" row's cells. */
function wouldHaveRow(row: WouldHaveRow): string[] {
  return [
    row.tool,
    `would have ${row.wouldHave}`,
    row.code,
    String(row.calls),
    String(row.observed),
    percent1(row.share),
  ];
}

/**
 * What observe mode saw: per tool and code, the observed calls enforcement would have refused, shortened, spilled,
 * summarized or re-called; when enforcement would have passed every observed result whole, one row says so.
 */
function wouldHaveTable(report: BuiltReport): Table {
  const { events, wouldHave } = report.observed;
  return {
    title: `Would have (observe mode: ${events} observed calls, the original result passed on; enforcement would have done this)`,
    headers: ["tool", "enforcement", "code", "calls", "observed", "share"],
    rows:
      wouldHave.length === 0
        ? [["all tools", "would have passed every result whole", "ok", "0", String(events), percent1(0)]]
        : wouldHave.map(wouldHaveRow),
    words: [1, 2],
  };
}

/** The lines that were not counted, one sentence each, and how many more there were. */
export function problemLines(report: BuiltReport): string[] {
  const lines = report.problems.map((p) => `${p.file}:${p.line}: ${p.reason}`);
  const more = report.badLines - report.problems.length;
  if (more > 0) lines.push(`… and ${more} more`);
  return lines;
}
