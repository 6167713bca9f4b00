/**
 * The decision rule, in words. For each tool, the recovered rate of each way its oversize results were handled is
 * compared with a reference: the tool's summarized turns (the seed's comparison: dropping, spilling or re-calling
 * should recover about as often as a summary), or clean turns (no oversize event) for summarized turns themselves and
 * for a tool without summarized turns. The verdict:
 *
 * - `wrong`: the handling's 95% interval lies wholly below the reference's: "the cap or the policy is wrong";
 * - `unclear`: it recovers less often, but the intervals overlap: label more turns before acting;
 * - `fine`: it recovers at least as often as the reference.
 */
import type { Rate } from "./interval.js";
import type { RecoveredMeasures } from "./measures.js";
import type { OversizePolicyName } from "./tally.js";

/** One comparison and its sentence. */
export interface Decision {
  tool: string;
  policy: OversizePolicyName;
  against: "summarize" | "clean";
  verdict: "wrong" | "unclear" | "fine";
  text: string;
}

/** How each handling is named in a sentence. */
const TURNS: Record<OversizePolicyName | "clean", string> = {
  drop: "dropped",
  summarize: "summarized",
  spill: "spilled",
  recall: "re-called",
  shorten: "shortened",
  clean: "clean turns",
};

/** A rate as a whole percentage. */
export function percent(rate: number | null): string {
  return rate === null ? "–" : `${Math.round(rate * 100)}%`;
}

function verdictOf(rate: Rate, reference: Rate): Decision["verdict"] {
  if ((rate.rate ?? 0) >= (reference.rate ?? 0)) return "fine";
  return (rate.high ?? 1) < (reference.low ?? 0) ? "wrong" : "unclear";
}

const ENDINGS: Record<Decision["verdict"], string> = {
  wrong: "the cap or the policy is wrong",
  unclear: "lower, but the intervals overlap; label more turns before changing the cap or the policy",
  fine: "no sign the cap or the policy is wrong",
};

/** The sentence for one comparison. */
export function decisionText(
  tool: string,
  policy: OversizePolicyName,
  rate: Rate,
  against: "summarize" | "clean",
  reference: Rate,
  verdict: Decision["verdict"],
): string {
  return (
    `${tool}: ${TURNS[policy]} turns recover ${percent(rate.rate)} (n=${rate.n}) against ` +
    `${percent(reference.rate)} for ${TURNS[against]} (n=${reference.n}): ${ENDINGS[verdict]}`
  );
}

/** Every comparison the labelled turns allow, by tool then policy. */
export function decisions(recovered: RecoveredMeasures): Decision[] {
  const out: Decision[] = [];
  for (const cell of recovered.byTool) {
    if (cell.n === 0) continue;
    const summarized = recovered.byTool.find((c) => c.tool === cell.tool && c.policy === "summarize");
    const against = cell.policy !== "summarize" && summarized !== undefined && summarized.n > 0 ? "summarize" : "clean";
    const reference = against === "summarize" ? (summarized as Rate) : recovered.clean;
    if (reference.n === 0) continue;
    const verdict = verdictOf(cell, reference);
    out.push({
      tool: cell.tool,
      policy: cell.policy,
      against,
      verdict,
      text: decisionText(cell.tool, cell.policy, cell, against, reference, verdict),
    });
  }
  return out;
}
