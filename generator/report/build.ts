/**
 * A report from trace files (and a labels file): read the labels, stream the events through a {@link Tally}, and
 * turn the counts into measures and the decision rule's sentences. Events of observe mode are counted apart.
 */
import { type Decision, decisions } from "./decision.js";
import { readLabels } from "./labels.js";
import { type Report, recoveredMeasures, toolMeasures } from "./measures.js";
import { type ObservedMeasures, ObservedTally } from "./observed.js";
import { type LineProblem, PROBLEMS_KEPT, readTraces } from "./read.js";
import { Tally } from "./tally.js";

/** A report, its decisions, and what observe mode saw. */
export interface BuiltReport extends Report {
  decisions: Decision[];
  /**
   * Events marked `mode: "observe"`, counted apart (the tables of what the gate did leave them out): what
   * enforcement would have refused, shortened, spilled, summarized or re-called, per tool and code.
   */
  observed: ObservedMeasures;
}

/** Reads `files` (and `labelsFile`) and builds the report. */
export async function buildReport(files: readonly string[], labelsFile?: string): Promise<BuiltReport> {
  const labelProblems: LineProblem[] = [];
  const read = labelsFile === undefined ? undefined : await readLabels(labelsFile, labelProblems);
  const tally = new Tally(read?.labels);
  const observed = new ObservedTally();
  const summary = await readTraces(files, (event) => (event.mode === "observe" ? observed : tally).add(event));
  const recovered = read === undefined ? undefined : recoveredMeasures(tally, read.labels);
  return {
    files: [...files],
    events: summary.events,
    badLines: summary.badLines + (read?.bad ?? 0),
    problems: [...labelProblems, ...summary.problems].slice(0, PROBLEMS_KEPT),
    tools: tally.tools().map(toolMeasures),
    all: toolMeasures(tally.all),
    recovered,
    decisions: recovered === undefined ? [] : decisions(recovered),
    observed: observed.measures(),
  };
}
