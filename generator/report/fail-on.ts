/**
 * `--fail-on`: rules a recorded trace must meet in CI. The grammar:
 *
 *   RULES   = RULE *("," RULE)
 *   RULE    = [TOOL ":"] MEASURE OP NUMBER
 *   OP      = ">" / ">=" / "<" / "<="
 *
 * A rule trips when the measure, for the tool named (or for all tools together without one), compares true; a
 * measure with nothing behind it (no admits, no summaries, no labelled turns of that kind) never trips and is said so.
 */
import { UsageError } from "../cli/console.js";
import type { Decision } from "./decision.js";
import type { Report, ToolMeasures } from "./measures.js";
import { OVERSIZE_POLICIES, type OversizePolicyName } from "./tally.js";

/** Every measure a rule may name, and what it is (for `--help` and the README). */
export const MEASURES: ReadonlyArray<readonly [name: string, meaning: string]> = [
  ["reject_rate", "failures of any code over admits"],
  ["reject_rate.CODE", "failures with CODE (e.g. schema_mismatch) over admits"],
  ["oversize_rate", "admits over budget over admits"],
  ["mix.POLICY", "oversize admits handled by POLICY (drop, summarize, spill, recall) over oversize admits"],
  ["summarize_p50_ms, summarize_p95_ms, summarize_max_ms", "summarize latency"],
  ["cache_hit_rate", "summaries from the cache over summaries"],
  ["recalls_per_turn", "re-calls over turns the tool took part in"],
  ["recovered_POLICY", "labelled turns with an oversize event handled by POLICY that were correct"],
  ["recovered_clean", "labelled turns without an oversize event that were correct (no TOOL)"],
  ["wrong_decisions", "decision-rule comparisons that say the cap or the policy is wrong"],
  ["bad_lines", "lines that were not events of a known version (no TOOL)"],
];

/** A parsed rule. */
export interface FailRule {
  text: string;
  tool?: string | undefined;
  measure: string;
  op: ">" | ">=" | "<" | "<=";
  limit: number;
}

/** A rule checked against a report. */
export interface RuleResult {
  rule: string;
  /** The measured value; null when nothing is behind it. */
  value: number | null;
  tripped: boolean;
}

const RULE = /^(?:(.+):)?([a-z0-9_]+(?:\.[a-z_]+)?)(>=|<=|>|<)(-?\d+(?:\.\d+)?)$/;
const TOOL_LESS = new Set(["recovered_clean", "bad_lines"]);

function isPolicy(word: string): word is OversizePolicyName {
  return (OVERSIZE_POLICIES as readonly string[]).includes(word);
}

/** Whether `measure` is one a rule may name. */
function knownMeasure(measure: string): boolean {
  const [head, tail] = measure.split(".");
  if (tail !== undefined) return (head === "reject_rate" && tail !== "") || (head === "mix" && isPolicy(tail));
  if (measure.startsWith("recovered_")) return measure === "recovered_clean" || isPolicy(measure.slice(10));
  return [
    "reject_rate",
    "oversize_rate",
    "summarize_p50_ms",
    "summarize_p95_ms",
    "summarize_max_ms",
    "cache_hit_rate",
    "recalls_per_turn",
    "wrong_decisions",
    "bad_lines",
  ].includes(measure);
}

/** Parses `--fail-on`; a rule that does not parse, or names an unknown measure, is a usage error naming it. */
export function parseRules(text: string): FailRule[] {
  const rules: FailRule[] = [];
  for (const part of text.split(",")) {
    const word = part.replaceAll(" ", "");
    if (word === "") continue;
    const match = RULE.exec(word);
    if (match === null)
      throw new UsageError(
        `--fail-on: ${JSON.stringify(word)} is not a rule ([TOOL:]MEASURE OP NUMBER, OP one of > >= < <=)`,
      );
    const [, tool, measure = "", op, limit = ""] = match;
    if (!knownMeasure(measure))
      throw new UsageError(`--fail-on: unknown measure ${JSON.stringify(measure)} in ${JSON.stringify(word)}`);
    if (tool !== undefined && TOOL_LESS.has(measure))
      throw new UsageError(`--fail-on: ${measure} is not per tool, in ${JSON.stringify(word)}`);
    rules.push({ text: word, tool, measure, op: op as FailRule["op"], limit: Number(limit) });
  }
  return rules;
}

/** A tool's (or all tools') value of a measure; null when nothing is behind it. */
function measured(report: Report, decisions: readonly Decision[], rule: FailRule): number | null {
  const m: ToolMeasures | undefined =
    rule.tool === undefined ? report.all : report.tools.find((t) => t.tool === rule.tool);
  if (rule.measure === "bad_lines") return report.badLines;
  if (rule.measure === "wrong_decisions")
    return decisions.filter((d) => d.verdict === "wrong" && (rule.tool === undefined || d.tool === rule.tool)).length;
  if (rule.measure.startsWith("recovered_")) {
    const recovered = report.recovered;
    const policy = rule.measure.slice(10);
    if (recovered === undefined) return null;
    if (policy === "clean") return recovered.clean.rate;
    if (rule.tool === undefined) return recovered.byPolicy[policy as OversizePolicyName].rate;
    return recovered.byTool.find((c) => c.tool === rule.tool && c.policy === policy)?.rate ?? null;
  }
  if (m === undefined || m.admits === 0) return null;
  const [head, tail = ""] = rule.measure.split(".");
  if (head === "reject_rate" && tail !== "") return (m.rejects[tail] ?? 0) / m.admits;
  if (head === "mix") return m.mix[tail as OversizePolicyName].share;
  const values: Record<string, number | null> = {
    reject_rate: m.rejectRate,
    oversize_rate: m.oversizeRate,
    summarize_p50_ms: m.summarize.p50,
    summarize_p95_ms: m.summarize.p95,
    summarize_max_ms: m.summarize.max,
    cache_hit_rate: m.summarize.cacheHitRate,
    recalls_per_turn: m.recallsPerTurn,
  };
  return values[rule.measure] ?? null;
}

/** Checks every rule against the report. */
export function checkRules(report: Report, decisions: readonly Decision[], rules: readonly FailRule[]): RuleResult[] {
  return rules.map((rule) => {
    const value = measured(report, decisions, rule);
    const tripped =
      value !== null &&
      (rule.op === ">"
        ? value > rule.limit
        : rule.op === ">="
          ? value >= rule.limit
          : rule.op === "<"
            ? value < rule.limit
            : value <= rule.limit);
    return { rule: rule.text, value, tripped };
  });
}
