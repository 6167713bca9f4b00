/**
 * The labelled set: one JSON line per turn, `{ "turn": "t-17", "correct": true }`, or per call,
 * `{ "correlationId": "req-9", "correct": false }`, saying whether the agent reached a correct final answer there.
 * A bad line is reported with its file and line number, like a bad event line.
 */
import { forEachLine } from "./lines.js";
import { type LineProblem, overlongReason, PROBLEMS_KEPT } from "./read.js";

/** Labels by key: `turn:<id>` or `call:<correlationId>`. */
export type Labels = Map<string, boolean>;

/** The key a turn's label is kept under. */
export const turnKey = (turn: string): string => `turn:${turn}`;
/** The key a call's label is kept under. */
export const callKey = (correlationId: string): string => `call:${correlationId}`;

/** The key of a parsed label line, or the reason it is not a label. */
function labelKey(value: unknown): { key: string; correct: boolean } | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a label (not an object)";
  const label = value as Record<string, unknown>;
  if (typeof label.correct !== "boolean") return "not a label (`correct` is not true or false)";
  if (typeof label.turn === "string") return { key: turnKey(label.turn), correct: label.correct };
  if (typeof label.correlationId === "string") return { key: callKey(label.correlationId), correct: label.correct };
  return "not a label (no `turn` or `correlationId`)";
}

/** Reads a labels file; problems are appended to `problems` (the first {@link PROBLEMS_KEPT}) and counted. */
export async function readLabels(file: string, problems: LineProblem[]): Promise<{ labels: Labels; bad: number }> {
  const labels: Labels = new Map();
  let bad = 0;
  await forEachLine(file, (text, line, ended, overlong) => {
    let found: ReturnType<typeof labelKey>;
    try {
      found = overlong ? overlongReason() : labelKey(JSON.parse(text));
    } catch {
      found = ended ? "not JSON (a damaged line)" : "truncated line (the file ends mid-line)";
    }
    if (typeof found === "string") {
      bad++;
      if (problems.length < PROBLEMS_KEPT) problems.push({ file, line, reason: found });
      return;
    }
    labels.set(found.key, found.correct);
  });
  return { labels, bad };
}
