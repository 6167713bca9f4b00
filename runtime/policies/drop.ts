/**
 * Policy `drop`, and the end of every chain: a typed `oversize` failure that says how large the view was, which
 * part is largest (what a narrower call should ask less of), and why each policy tried before it passed.
 */

import type { Failure } from "../contract/types.js";
import { locationText } from "../stages/issues.js";
import type { OverBudget, Policy } from "./policy.js";

/** The call's `oversize` failure, with a hint that would narrow it. */
export function oversizeFailure<T, V, I>(over: OverBudget<T, V, I>): Failure {
  const { admission, measured, largest, passed } = over;
  const budget = admission.spec.context;
  const unit = budget.unit;
  const needed = measured.exact ? `${measured.value} ${unit}` : `more than ${budget.max} ${unit}`;
  // The path is made of view keys, which under a `value` node may be the tool's own: shown bounded and escaped.
  const largestPath = largest === undefined ? undefined : locationText(largest.path);
  // The argument's name is the contract's own (an input property), shown bounded and escaped like a path.
  const argument = admission.spec.pageArgument === undefined ? undefined : locationText(admission.spec.pageArgument);
  const how = argument === undefined ? "a page size, a filter, a cursor" : `argument ${argument}, a filter, a cursor`;
  const narrowHint =
    largest !== undefined && largest.items > 1
      ? ` The largest part is ${largestPath} with ${largest.items} items: ask for fewer (${how}).`
      : " Ask for less: a narrower filter, fewer fields or a smaller page.";
  return admission.fail(
    "oversize",
    {
      stage: "policy",
      sizes: { ...admission.sizes, viewSize: measured.value, budget: budget.max, unit },
      detail: {
        viewSizeIsFloor: !measured.exact,
        ...(largest ? { narrowPath: largestPath as string, narrowItems: largest.items } : {}),
        ...(largest && argument !== undefined ? { narrowArgument: argument } : {}),
        ...passed,
      },
    },
    { stage: "policy", rawKind: admission.rawKind, viewSize: measured.value, policy: "drop", flags: admission.flags },
    `The view needs ${needed}, over the budget of ${budget.max} ${unit}.${narrowHint}`,
  );
}

/** Fails the call as `oversize`: never passes. */
export const drop: Policy = async (over) => oversizeFailure(over);
