/**
 * Policy `spill`: the full validated result goes to the spill store, and the model reads a bounded preview with
 * the store's handle. The preview keeps `spillPreview` items per array; when long text still does not fit, strings
 * are cut to shorter marked excerpts, step by step, until it fits or the excerpts would say nothing.
 */
import { sha256Hex } from "../record/provenance.js";
import type { Measured } from "../stages/measure.js";
import type { Success } from "../types.js";
import { acceptCandidate, measureCandidate, previewCandidate } from "./candidate.js";
import { type OverBudget, type Policy, type PolicyVerdict, pass } from "./policy.js";
import { getDefaultSpillStore } from "./spill-store.js";

/** String bounds tried in turn for a spill preview: the plan's own, then shorter excerpts. */
const PREVIEW_STRING_STEPS: ReadonlyArray<number | undefined> = [undefined, 1000, 250, 60];

/** The first preview, by the steps, that fits the budget with a handle of the real one's length. */
async function fittedPreview<T, V, I>(over: OverBudget<T, V, I>): Promise<Success<T, V> | undefined> {
  for (const maxChars of PREVIEW_STRING_STEPS) {
    const candidate = previewCandidate(over, maxChars, {
      // A placeholder of the real handle's length, so the preview is measured as the model will read it.
      spill: { handle: `spill_${"0".repeat(32)}`, bytes: 0 },
      policy: "spill",
    });
    const size: Measured = await measureCandidate(over, candidate);
    if (size.within) return candidate;
  }
  return undefined;
}

/** Spills the result and shows its preview, when a preview fits. */
export const spill: Policy = async <T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> => {
  const candidate = await fittedPreview(over);
  if (candidate === undefined) return pass("preview_over_budget");
  const { spec, ctx, flags } = over.admission;
  const json = JSON.stringify(over.data);
  try {
    const store = ctx.spillStore ?? getDefaultSpillStore();
    candidate.spill = await store.put({
      tool: spec.name,
      json,
      sha256: await sha256Hex(new TextEncoder().encode(json)),
    });
  } catch {
    return pass("store_failed");
  }
  // Measured again with the real handle: the placeholder has its length, not its token count (32 zeros are
  // about 13 tokens of o200k_base, 32 hex digits about 30), so a preview that fitted by a few tokens may not.
  const size = await measureCandidate(over, candidate);
  if (!size.within) return pass("preview_over_budget");
  return acceptCandidate(over, candidate, size, flags);
};
