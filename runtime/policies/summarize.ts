/**
 * Policy `summarize`: the caller's `summarize` hook writes a short text that the model reads instead of the view,
 * beside a bounded preview for the caller. Summaries are cached per adapter and hook by the raw payload's sha256
 * (at most {@link SUMMARY_CACHE_SIZE} per hook, oldest out first), and the summary must fit its own budget
 * (`summaryMax`) as well as the whole outcome the contract's. The admit's event records how long the summary took
 * and whether the cache had it.
 */
import { measureText } from "../stages/measure.js";
import { cleanText } from "../text/hygiene.js";
import { acceptCandidate, measureCandidate, previewCandidate } from "./candidate.js";
import { type OverBudget, type Policy, type PolicyVerdict, pass } from "./policy.js";

/** Summaries kept per adapter and summarize hook. */
export const SUMMARY_CACHE_SIZE = 256;

/** The summary of the raw payload, from the cache or the hook; a reason to pass when there is none. */
async function summaryOf<T, V, I>(over: OverBudget<T, V, I>): Promise<{ summary: string; cached: boolean } | string> {
  const { admission, gate, data, success } = over;
  const { spec } = admission;
  const hook = admission.ctx.hooks?.summarize;
  if (hook === undefined) return "no_hook";
  const rawSha256 = admission.provenance.rawSha256 as string;
  let cache = gate.summaries.get(hook);
  if (cache === undefined) {
    cache = new Map();
    gate.summaries.set(hook, cache);
  }
  const kept = cache.get(rawSha256);
  if (kept !== undefined) return { summary: kept, cached: true };
  let written: string | undefined;
  try {
    written = await hook(data, {
      tool: spec.name,
      rawSha256,
      budget: { unit: spec.context.unit, max: spec.summaryMax },
      view: success.view,
    });
  } catch {
    return "hook_threw";
  }
  if (typeof written !== "string") return "declined";
  const summary = cleanText(written);
  // Oldest first out: a Map iterates in insertion order.
  if (cache.size >= SUMMARY_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(rawSha256, summary);
  return { summary, cached: false };
}

/** Shows the summary with a preview when both fit. The admit's event reports how long the summary took. */
export const summarize: Policy = async <T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> => {
  const started = performance.now();
  const found = await summaryOf(over);
  if (found !== "no_hook") {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    over.admission.summarize = { ms, cached: typeof found !== "string" && found.cached };
  }
  if (typeof found === "string") return pass(found);
  const { summary, cached } = found;
  const { spec, flags } = over.admission;
  const own = await measureText(summary, { ...spec.context, max: spec.summaryMax });
  const candidate = previewCandidate(over, undefined, {
    summary,
    policy: "summarize",
    flags: cached ? [...flags, "summary_cached"] : flags,
  });
  const size = await measureCandidate(over, candidate);
  if (!own.within || !size.within) return pass("summary_over_budget");
  return acceptCandidate(over, candidate, size, candidate.flags);
};
