/**
 * Reading traces: each line of each events file is a gate event (the JSON line `jsonLinesSink` writes), or a
 * problem reported with its file and line number while the rest is still counted: a line cut off or damaged (not
 * JSON), a line that is not an event, an event of a format version this report does not know.
 */
import { EVENT_VERSION, FAILURE_CODES, type GateEvent } from "@toolgate/runtime";
import { forEachLine, MAX_LINE_CHARS } from "./lines.js";

/** The fields of a gate event the report reads. */
export type TraceEvent = Pick<
  GateEvent,
  "tool" | "code" | "policy" | "turn" | "correlationId" | "recall" | "recalls" | "summarize" | "mode"
>;

/**
 * The event format versions this report reads: 1, written before observe mode (every such event was enforced), and
 * the current one, whose `mode: "observe"` marks an outcome enforcement would have given.
 */
const READ_VERSIONS: ReadonlySet<unknown> = new Set([1, EVENT_VERSION]);

/** Every `code` an event may hold: `ok` and the failure codes. */
const EVENT_CODES: ReadonlySet<string> = new Set(["ok", ...FAILURE_CODES]);

/** A line that was not counted, and why. */
export interface LineProblem {
  file: string;
  line: number;
  reason: string;
}

/** Problems kept to show; every one is counted, but a file of bad lines must not fill memory with them. */
export const PROBLEMS_KEPT = 100;

/** What was read besides the events: counts of lines and the first {@link PROBLEMS_KEPT} problems. */
export interface ReadSummary {
  events: number;
  badLines: number;
  problems: LineProblem[];
}

/** The reason a parsed line is not an event the report can count, or undefined when it is one. */
export function notAnEvent(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a gate event (not an object)";
  const event = value as Record<string, unknown>;
  if (!("v" in event)) return "not a gate event (no format version `v`)";
  if (!READ_VERSIONS.has(event.v))
    return `event format version ${JSON.stringify(event.v)} is not known (this report reads versions 1 to ${EVENT_VERSION})`;
  if (typeof event.tool !== "string" || typeof event.code !== "string") return "not a gate event (no `tool` or `code`)";
  // Only the codes the gate writes are counted: a code is printed in the report's tables as the gate's own word.
  if (!EVENT_CODES.has(event.code)) return "not a gate event (`code` is not one the gate writes)";
  if (event.policy !== undefined && typeof event.policy !== "string") return "not a gate event (`policy` not a name)";
  // Counted apart: an observed outcome is what enforcement would have done, never what the caller got.
  if (event.mode !== undefined && (event.v === 1 || event.mode !== "observe"))
    return "not a gate event (`mode` is not one the gate writes)";
  const summarize = event.summarize as Record<string, unknown> | undefined;
  if (summarize !== undefined && (typeof summarize !== "object" || typeof summarize?.ms !== "number"))
    return "not a gate event (`summarize` without `ms`)";
  return undefined;
}

/** The problem of a line past {@link MAX_LINE_CHARS}: no event is that long. */
export function overlongReason(): string {
  return `longer than ${MAX_LINE_CHARS} characters (no event is): not read`;
}

/**
 * Reads every file in order, handing each event to `onEvent`; problems are counted and the first ones kept.
 * A file that cannot be opened is an error (thrown): the report would be of less than was asked for.
 */
export async function readTraces(files: readonly string[], onEvent: (event: TraceEvent) => void): Promise<ReadSummary> {
  const summary: ReadSummary = { events: 0, badLines: 0, problems: [] };
  const problem = (file: string, line: number, reason: string) => {
    summary.badLines++;
    if (summary.problems.length < PROBLEMS_KEPT) summary.problems.push({ file, line, reason });
  };
  for (const file of files) {
    const read = await forEachLine(file, (text, line, ended, overlong) => {
      if (overlong) return problem(file, line, overlongReason());
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        problem(file, line, ended ? "not JSON (a damaged line)" : "truncated line (the file ends mid-line)");
        return;
      }
      const reason = notAnEvent(value);
      if (reason !== undefined) return problem(file, line, reason);
      summary.events++;
      onEvent(value as TraceEvent);
    });
    if (read.cutOff)
      problem(file, read.lines + 1, "the gzip stream is cut off here: this line and any after it are lost");
  }
  return summary;
}
