/**
 * The report as Markdown (for a pull-request comment or a CI summary). Tool names and file names come from the
 * trace: they go into code spans with `|` escaped, so none can break a table or inject markup. Every other cell is
 * written on one line with `|` escaped too, whatever it holds: a cell never ends its row or opens a heading.
 */
import { code, oneLine } from "../diff/report.js";
import type { BuiltReport } from "./build.js";
import { headline, problemLines, reportTables } from "./tables.js";

/** A cell: the first (a tool, or a row's name) as code, the rest on one line with `|` escaped. */
const cell = (text: string, column: number): string =>
  column === 0 ? code(text) : oneLine(text).replaceAll("|", "\\|");

/** The Markdown report. */
export function reportMarkdown(report: BuiltReport): string {
  const out = [`**${headline(report)}**`];
  for (const table of reportTables(report)) {
    out.push("", `### ${table.title}`, "", `| ${table.headers.join(" | ")} |`);
    out.push(`| ${table.headers.map((_, i) => (i === 0 || table.words?.includes(i) ? "---" : "---:")).join(" | ")} |`);
    for (const row of table.rows) out.push(`| ${row.map(cell).join(" | ")} |`);
  }
  if (report.decisions.length > 0) {
    out.push("", "### Decision rule", "");
    for (const d of report.decisions) {
      const sentence = d.text.slice(d.tool.length);
      out.push(`- ${d.verdict === "wrong" ? "**" : ""}${code(d.tool)}${sentence}${d.verdict === "wrong" ? "**" : ""}`);
    }
  }
  const problems = problemLines(report);
  if (problems.length > 0) out.push("", "### Lines not counted", "", ...problems.map((p) => `- ${code(p)}`));
  return `${out.join("\n")}\n`;
}
