/**
 * The review report: Markdown for a pull-request comment (a summary line, then one table per tool), or JSON for
 * machines. Everything shown from a contract is untrusted text: in Markdown it goes into code spans with `|` escaped
 * and line breaks written as `\n`, so a hostile description cannot break the table or inject markup.
 */
import type { ContractError } from "../contract/errors.js";
import { CHANGE_CLASSES, type ChangeClass } from "./classes.js";
import type { ContractChange } from "./contract-diff.js";

/**
 * The JSON report (`toolgate diff --format json`). Its shape is stable:
 *
 * ```jsonc
 * {
 *   "base": "HEAD (1a2b3c4)",          // how each side was named
 *   "head": "working tree",
 *   "summary": {
 *     "tools": { "base": 3, "head": 4, "changed": ["get_record"] },   // changed: tools with any change, sorted
 *     "classes": { "breaking": 1, "exposure": 0, … }                    // every class, in CHANGE_CLASSES order
 *   },
 *   "changes": [ {                      // tools in name order, most severe class first within a tool
 *     "tool": "get_record", "class": "breaking", "kind": "enum-value-added", "area": "result",
 *     "pointer": "/outputSchema/properties/status/enum", "path": "/status",
 *     "summary": "value added", "after": "archived"          // before/after absent when there was no value
 *   } ],
 *   "errors": [ { "side": "head", "file": "schemas/x.tool.json", "pointer": "/outputSchema", "message": "…" } ]
 * }
 * ```
 */
export interface DiffReport {
  base: string;
  head: string;
  summary: {
    tools: { base: number; head: number; changed: string[] };
    classes: Record<ChangeClass, number>;
  };
  changes: ContractChange[];
  /** Contracts that could not be read on either side; their tools are left out of `changes`. */
  errors: Array<{ side: "base" | "head"; file: string; pointer: string; message: string }>;
}

/** Assemble the report. */
export function buildReport(
  sides: { base: string; head: string; baseTools: number; headTools: number },
  changes: ContractChange[],
  errors: { base: readonly ContractError[]; head: readonly ContractError[] },
): DiffReport {
  const classes = Object.fromEntries(CHANGE_CLASSES.map((c) => [c, 0])) as Record<ChangeClass, number>;
  for (const change of changes) classes[change.class]++;
  return {
    base: sides.base,
    head: sides.head,
    summary: {
      tools: { base: sides.baseTools, head: sides.headTools, changed: [...new Set(changes.map((c) => c.tool))] },
      classes,
    },
    changes,
    errors: [
      ...errors.base.map((e) => ({ side: "base" as const, file: e.file, pointer: e.pointer, message: e.message })),
      ...errors.head.map((e) => ({ side: "head" as const, file: e.file, pointer: e.pointer, message: e.message })),
    ],
  };
}

/** The JSON text of a report, two-space indented, ending in a newline. */
export function reportJson(report: DiffReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Longest value shown in a Markdown cell; the JSON report always has the whole value. */
const MAX_CELL = 160;

/** The Markdown text of a report. */
export function reportMarkdown(report: DiffReport): string {
  const lines: string[] = [];
  const changed = report.summary.tools.changed;
  const counts = CHANGE_CLASSES.filter((c) => report.summary.classes[c] > 0).map(
    (c) => `${report.summary.classes[c]} ${c}`,
  );
  const sides = `${code(report.base)} → ${code(report.head)}`;
  if (report.changes.length === 0) {
    lines.push(
      `**toolgate diff** ${sides}: no contract changes (${report.summary.tools.head} tool${plural(report.summary.tools.head)}).`,
    );
  } else {
    // Removed tools are counted too: they are among the changed ones.
    const tools = report.summary.tools.head + report.summary.classes.removed;
    lines.push(
      `**toolgate diff** ${sides}: ${report.changes.length} change${plural(report.changes.length)} in ` +
        `${changed.length} of ${tools} tool${plural(tools)}: ${counts.join(", ")}.`,
    );
  }
  if (report.errors.length > 0) {
    lines.push(
      "",
      `**${report.errors.length} contract error${plural(report.errors.length)}** (those tools are not compared):`,
      "",
    );
    for (const error of report.errors)
      lines.push(`- ${error.side}: ${code(`${error.file}#${error.pointer}`)} ${code(error.message)}`);
  }
  for (const tool of changed) {
    lines.push(
      "",
      `### ${code(tool)}`,
      "",
      "| pointer | change | before | after | class |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const change of report.changes.filter((c) => c.tool === tool)) {
      const where = change.path === undefined ? "" : `${change.area} ${code(change.path === "" ? "/" : change.path)}: `;
      const klass =
        change.class === "breaking" || change.class === "exposure" || change.class === "removed"
          ? `**${change.class}**`
          : change.class;
      lines.push(
        `| ${code(change.pointer === "" ? "/" : change.pointer)} | ${where}${cell(change.summary)} | ${value(change.before)} | ${value(change.after)} | ${klass} |`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

function plural(n: number): string {
  return n === 1 ? "" : "s";
}

/** A value from a contract as a table cell: its JSON text, shortened with a mark, in a code span. */
function value(v: unknown): string {
  if (v === undefined) return "";
  let text = JSON.stringify(v) ?? String(v);
  if (text.length > MAX_CELL) text = `${text.slice(0, MAX_CELL)}… (${text.length} chars)`;
  return code(text);
}

/** Plain text in a table cell: `|` escaped, line breaks written out, Markdown and HTML characters escaped. */
function cell(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_[\]<>&#!~]/g, (c) => `\\${c}`)
    .replaceAll("|", "\\|");
}

/**
 * Text as a code span inside a table cell (CommonMark 6.1, GFM tables): a fence longer than any run of backticks
 * inside, a space on each side when the text starts or ends with a backtick, `|` escaped (GFM splits cells before it
 * reads code spans), and every line break written as `\n` so the row stays one line.
 */
export function code(text: string): string {
  const flat = oneLine(text).replaceAll("|", "\\|");
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  if (flat === "") return "` `";
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Every character that could end a line (in Markdown or on a terminal), written as an escape. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029\u0085]/g, (c) =>
    c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
