/**
 * Policy `recall`: the tool is called again, only through the caller. `ctx.hooks.recall(args, info)` narrows the
 * arguments and `ctx.call(narrowed)` fetches a new raw result, which is admitted again as part of this admit. At
 * most `spec.recallLimit` re-calls per tool per turn (counted on `ctx.turn`, or per admit without one); arguments
 * already used in the turn fail the call as `oversize` with `detail.recall = "repeated_arguments"`, since they
 * would return the same result.
 */
import { codeForThrown, transportFailure } from "../contract/failure.js";
import type { Success } from "../contract/types.js";
import { hashArguments } from "../record/provenance.js";
import { type OverBudget, type Policy, type PolicyVerdict, pass } from "./policy.js";

/** The hook's narrowed arguments, or a reason to pass. */
async function narrowedArguments<T, V, I>(
  over: OverBudget<T, V, I>,
): Promise<{ args: I; call: (args: I) => unknown } | string> {
  const { spec, ctx } = over.admission;
  const hook = ctx.hooks?.recall;
  const call = ctx.call;
  if (hook === undefined || call === undefined) return "no_hook";
  const attempt = ctx.turn.recallsOf(spec.name);
  if (attempt >= ctx.turn.recallLimitFor(spec.name, spec.recallLimit)) return "limit_reached";
  let narrowed: I | undefined;
  try {
    narrowed = await hook(ctx.args, {
      tool: spec.name,
      attempt,
      budget: { unit: spec.context.unit, max: spec.context.max },
      viewSize: over.measured.value,
      largest: over.largest,
      view: over.success.view,
    });
  } catch {
    return "hook_threw";
  }
  if (narrowed === undefined) return "declined";
  return { args: narrowed, call };
}

/** Re-calls the tool with narrowed arguments and admits what it returns. */
export const recall: Policy = async <T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> => {
  const found = await narrowedArguments(over);
  if (typeof found === "string") return pass(found);
  const { admission, measured } = over;
  const { spec, ctx, rawKind, flags } = admission;
  const narrowedHash = await hashArguments(found.args);
  // Arguments nested too deeply to serialise cannot be compared with earlier ones, so they are not used.
  if (narrowedHash === undefined) return pass("unhashable_arguments");
  if (ctx.turn.hasSeenArguments(spec.name, narrowedHash)) {
    const budget = spec.context;
    return admission.fail(
      "oversize",
      {
        stage: "policy",
        sizes: { ...admission.sizes, viewSize: measured.value, budget: budget.max, unit: budget.unit },
        detail: { recall: "repeated_arguments" },
      },
      { stage: "policy", rawKind, viewSize: measured.value, policy: "recall", flags },
      "The recall hook asked for arguments already used in this turn; the same call would return the same result.",
    );
  }
  ctx.turn.countRecall(spec.name);
  if (ctx.recalls !== undefined) ctx.recalls.made++;
  let nextRaw: unknown;
  try {
    nextRaw = await found.call(found.args);
  } catch (error) {
    nextRaw = transportFailure(codeForThrown(error), "The re-call with narrowed arguments failed.");
  }
  const again = await over.readmit(nextRaw, found.args);
  if (!again.ok) return admission.finish(again, { stage: again.diagnostics.stage, rawKind, policy: "recall", flags });
  const recalled: Success<T, V> = {
    ...again,
    policy: again.policy ?? "recall",
    flags: [...(again.flags ?? []), "recalled"],
  };
  return admission.finish(recalled, {
    stage: "policy",
    rawKind,
    viewSize: recalled.contextUsed.value,
    viewSizeExact: recalled.contextUsed.exact,
    policy: "recall",
    flags: recalled.flags,
  });
};
