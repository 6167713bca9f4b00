/**
 * Policy `spill`: the full validated result goes to the spill store, and the model reads a bounded preview with
 * the store's handle (and, when the call names one, the read-back tool that pages through it). The preview keeps
 * `spillPreview` items per array; when long text still does not fit, strings are cut to shorter marked excerpts,
 * step by step, until it fits or the excerpts would say nothing. The entry records the call's tenant and session,
 * so only they read it back.
 */
import { sha256Hex } from "../record/provenance.js";
import type { Measured } from "../stages/measure.js";
import type { SpillReference, Success } from "../types.js";
import { acceptCandidate, measureCandidate, previewCandidate } from "./candidate.js";
import { type OverBudget, type Policy, type PolicyVerdict, pass } from "./policy.js";
import { getDefaultSpillStore } from "./spill-store.js";

/** String bounds tried in turn for a spill preview: the plan's own, then shorter excerpts. */
const PREVIEW_STRING_STEPS: ReadonlyArray<number | undefined> = [undefined, 1000, 250, 60];

/** The first preview, by the steps, that fits the budget with a reference of the real one's length. */
async function fittedPreview<T, V, I>(
  over: OverBudget<T, V, I>,
  placeholder: SpillReference,
): Promise<Success<T, V> | undefined> {
  for (const maxChars of PREVIEW_STRING_STEPS) {
    const candidate = previewCandidate(over, maxChars, { spill: placeholder, policy: "spill" });
    const size: Measured = await measureCandidate(over, candidate);
    if (size.within) return candidate;
  }
  return undefined;
}

/** Spills the result and shows its preview, when a preview fits. */
export const spill: Policy = async <T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> => {
  const { spec, ctx, flags } = over.admission;
  const json = JSON.stringify(over.data);
  const value = new TextEncoder().encode(json);
  const readTool = ctx.readTool;
  // A placeholder of the real handle's length, so the preview is measured as the model will read it.
  const placeholder: SpillReference = {
    handle: `spill_${"0".repeat(32)}`,
    bytes: value.byteLength,
    ...(readTool === undefined ? {} : { readTool }),
  };
  const candidate = await fittedPreview(over, placeholder);
  if (candidate === undefined) return pass("preview_over_budget");
  try {
    const store = ctx.spillStore ?? getDefaultSpillStore();
    const reference = await store.put({
      tool: spec.name,
      json,
      sha256: await sha256Hex(value),
      tenant: ctx.tenant,
      session: ctx.session,
    });
    candidate.spill = readTool === undefined ? reference : { ...reference, readTool };
  } catch {
    return pass("store_failed");
  }
  // Measured again with the real handle: the placeholder has its length, not its token count (32 zeros are
  // about 13 tokens of o200k_base, 32 hex digits about 30), so a preview that fitted by a few tokens may not.
  const size = await measureCandidate(over, candidate);
  if (!size.within) return pass("preview_over_budget");
  return acceptCandidate(over, candidate, size, flags);
};
