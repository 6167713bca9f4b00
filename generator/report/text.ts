/**
 * The report as plain text for a terminal: aligned columns, numbers to the right. Every cell and sentence is written
 * on one line (a line break in a tool name from the trace is shown as `\n`), so nothing from the trace can start a
 * row or a section of its own.
 */
import { oneLine } from "../diff/report.js";
import type { BuiltReport } from "./build.js";
import { headline, problemLines, reportTables, type Table } from "./tables.js";

/** A table with its columns padded to their widest cell; numbers right-aligned, words left. */
function aligned(written: Table): string[] {
  const table = { ...written, rows: written.rows.map((row) => row.map(oneLine)) };
  const widths = table.headers.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) =>
        i === 0 || table.words?.includes(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [table.title, line(table.headers), ...table.rows.map(line)];
}

/** The text report. */
export function reportText(report: BuiltReport): string {
  const out = [headline(report)];
  for (const table of reportTables(report)) out.push("", ...aligned(table));
  if (report.decisions.length > 0)
    out.push("", "Decision rule", ...report.decisions.map((d) => `  ${oneLine(d.text)}`));
  const problems = problemLines(report);
  if (problems.length > 0) out.push("", "Lines not counted", ...problems.map((p) => `  ${oneLine(p)}`));
  return `${out.join("\n")}\n`;
}
