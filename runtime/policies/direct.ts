/**
 * How an admit ends without the oversize chain: a view within budget finishes `direct`, and the one case where a
 * view within budget still goes to the chain. Apart from `chain.ts`, so the gate reaches the policies only for a
 * result that needs them: every policy module is loaded at the first such result, not at import.
 */

import type { Outcome, Success } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { contextUsedOf, type Measured } from "../stages/measure.js";
import { isJsonKind } from "../stages/result-kind.js";

/** Ends the admit with a view that is within budget as it is: policy `direct`, its measured size as context used. */
export function finishDirect<T, V, I>(
  admission: Admission<T, V, I>,
  success: Success<T, V>,
  measured: Measured,
): Outcome<T, V> {
  success.contextUsed = contextUsedOf(measured, admission.spec.context);
  return admission.finish(success, {
    stage: "done",
    rawKind: admission.rawKind,
    viewSize: measured.value,
    viewSizeExact: success.contextUsed.exact,
    policy: "direct",
    flags: admission.flags,
  });
}

/**
 * Whether a result whose view fits goes through the chain all the same: a `text` or `content` view that left lines
 * (or part of its first line) out, under a chain that holds `spill` or `shorten` (which spills it the same way), for
 * a call that names its store (`ctx.spillStore`, as `readBack(store).context` gives). Without a store of the call's
 * own, nothing the model could read back with would hold the text, and the excerpt stays the answer.
 */
export function spillsIncompleteText<T, V, I>(admission: Admission<T, V, I>, success: Success<T, V>): boolean {
  return (
    !success.complete &&
    !isJsonKind(admission.result.kind) &&
    admission.ctx.spillStore !== undefined &&
    (admission.spec.oversize.includes("spill") || admission.spec.oversize.includes("shorten"))
  );
}
