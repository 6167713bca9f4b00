/**
 * `toolgate report`: the gate measured from recorded events.
 *
 *   toolgate report EVENTS.jsonl… [--labels LABELS.jsonl] [--format text|markdown|json|html] [--out FILE]
 *                   [--fail-on RULES]
 *
 * Exit codes: 0 the report was written (and no `--fail-on` rule tripped); 1 a rule tripped; 2 a usage error (an
 * unknown option, format or rule, no events file, a file that cannot be read).
 */
import path from "node:path";
import { type Console, isParseArgsError, parseCommandArgs, reportUsage, UsageError } from "../cli/console.js";
import { realFolder, writeFileInside } from "../files.js";
import { type BuiltReport, buildReport } from "./build.js";
import { checkRules, type FailRule, MEASURES, parseRules } from "./fail-on.js";
import { reportHtml } from "./html.js";
import { reportMarkdown } from "./markdown.js";
import { reportText } from "./text.js";

/** The `report` lines of `toolgate --help`. */
export const REPORT_HELP = `  toolgate report EVENTS.jsonl... [--labels LABELS.jsonl] [--format text|markdown|json|html] [--out FILE]
                  [--fail-on RULES]
      Measure the gate from the events jsonLinesSink wrote (gzip read too, streamed): per tool, admits, rejects
      per code, oversize rate and policy mix, summarize latency p50/p95/max and cache hits, re-calls per turn,
      turns where the tool's result was partial or failed. --labels (JSON lines {"turn" or "correlationId": ID,
      "correct": true|false}) adds the recovered rate per tool and policy against clean turns, with its 95%
      Wilson interval, and the decision rule in words. Events of observe mode are counted apart, as "would
      have" rows: per tool and code, what enforcement would have refused, shortened, spilled, summarized or
      re-called. --out FILE writes the report there. Lines that are not
      events (cut off, damaged, of an unknown version) are named by file and line; the rest is still counted.
      --fail-on RULES exits 1 when a rule holds. RULES: RULE[,RULE...], RULE: [TOOL:]MEASURE OP NUMBER, OP one of
      > >= < <=, rates as fractions (0.05 is 5%); without TOOL the measure is of all tools together; a measure
      with no data never trips. MEASURE:
${MEASURES.map(([name, meaning]) => `        ${name}: ${meaning}`).join("\n")}`;

/** The formats `--format` takes. */
const FORMATS = ["text", "markdown", "json", "html"] as const;
type Format = (typeof FORMATS)[number];

/** The options of `toolgate report`, as parsed. */
export interface ReportOptions {
  files: string[];
  labels?: string | undefined;
  format: Format;
  out?: string | undefined;
  rules: FailRule[];
}

/** The flags of `toolgate report`. */
export const REPORT_OPTIONS = {
  labels: { type: "string" },
  format: { type: "string" },
  out: { type: "string" },
  "fail-on": { type: "string" },
} as const;

/** Parses the arguments after `report`. */
export function parseReportArguments(argv: readonly string[]): ReportOptions {
  const { values, positionals } = parseCommandArgs(argv, REPORT_OPTIONS);
  if (positionals.length === 0) throw new UsageError("report: no events file given");
  const format = values.format ?? "text";
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not ${JSON.stringify(format)}`);
  return {
    files: positionals,
    labels: values.labels,
    format: format as Format,
    out: values.out,
    rules: parseRules(values["fail-on"] ?? ""),
  };
}

/** The report in a format. */
export function formatReport(report: BuiltReport, format: Format): string {
  if (format === "json") return `${JSON.stringify(report, null, 2)}\n`;
  if (format === "markdown") return reportMarkdown(report);
  if (format === "html") return reportHtml(report);
  return reportText(report);
}

/** Run `toolgate report` with the arguments after the command name; resolves to the exit code. */
export async function runReport(argv: readonly string[], io: Console): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out(`Usage:\n${REPORT_HELP}\n\nExit codes: 0 the report was written, 1 a --fail-on rule holds, 2 usage error.`);
    return 0;
  }
  let options: ReportOptions;
  try {
    options = parseReportArguments(argv);
  } catch (error) {
    if (isParseArgsError(error)) return reportUsage(io, new UsageError(error.message));
    if (!(error instanceof UsageError)) throw error;
    return reportUsage(io, error);
  }
  let report: BuiltReport;
  try {
    report = await buildReport(options.files, options.labels);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "EISDIR" && code !== "EACCES" && code !== "Z_DATA_ERROR") throw error;
    io.err(`toolgate: report: ${(error as Error).message}`);
    return 2;
  }
  const text = formatReport(report, options.format);
  if (options.out === undefined) io.out(text.replace(/\n$/, ""));
  else {
    // The folder is the one the user named (followed, as a shell would); the file itself is never a link followed:
    // a planted `report.md` link in a shared folder is refused, and the report is renamed into place.
    const out = path.resolve(options.out);
    await writeFileInside(await realFolder(path.dirname(out)), path.basename(out), text);
  }
  // The lines not counted are in the report; a report written to a file says so on the terminal too.
  if (options.out !== undefined && report.badLines > 0)
    io.err(`toolgate report: ${report.badLines} line${report.badLines === 1 ? "" : "s"} not counted (see the report)`);
  const results = checkRules(report, report.decisions, options.rules);
  for (const result of results) {
    const value = result.value === null ? "no data" : String(Number(result.value.toFixed(4)));
    if (result.tripped) io.err(`toolgate report: --fail-on ${result.rule} holds (${value})`);
  }
  return results.some((r) => r.tripped) ? 1 : 0;
}
