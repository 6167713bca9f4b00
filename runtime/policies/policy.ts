/**
 * The one interface every oversize policy implements. A policy is handed the result whose view is over budget
 * and either ends the admit (a finished {@link Outcome}) or passes to the next policy of the contract's chain with
 * a short reason (`{ pass: "no_hook" }`), which the final `oversize` failure reports in `detail`.
 */

import type { Outcome, Success } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import type { GateState } from "../gate/context.js";
import type { Measured } from "../stages/measure.js";

/** The largest array in a view and its length: usually what a narrower call should ask less of. */
export interface LargestArray {
  path: string;
  items: number;
}

/** A result whose view is over the contract's budget, as every policy sees it. */
export interface OverBudget<T, V, I> {
  readonly admission: Admission<T, V, I>;
  readonly gate: GateState<T, V, I>;
  /** The validated value. */
  readonly data: T;
  /** The success with the full view, the one that was over budget. */
  readonly success: Success<T, V>;
  /** What the full view measured (a floor when counting stopped at the budget). */
  readonly measured: Measured;
  readonly largest: LargestArray | undefined;
  /** Why each policy tried so far passed, by policy name. */
  readonly passed: Record<string, string>;
  /** Admits a re-call's raw result, with the arguments it was called with, as part of this admit. */
  readmit(raw: unknown, args: I): Promise<Outcome<T, V>>;
}

/** A policy that cannot apply here (no hook, limit reached, result still over budget) and why. */
export interface Pass {
  readonly pass: string;
}

/** What a policy decides. */
export type PolicyVerdict<T, V> = Outcome<T, V> | Pass;

/** An oversize policy. */
export type Policy = <T, V, I>(over: OverBudget<T, V, I>) => Promise<PolicyVerdict<T, V>>;

/** Passes to the next policy, for `reason`. */
export function pass(reason: string): Pass {
  return { pass: reason };
}

/** Whether a verdict passes. */
export function passes<T, V>(verdict: PolicyVerdict<T, V>): verdict is Pass {
  return "pass" in verdict;
}
