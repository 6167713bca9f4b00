/**
 * The contract's oversize chain, composed the way middleware is: each policy in the contract's order either ends
 * the admit or passes to the next, and when none is left the call fails as `drop` does. Adding a policy is one file
 * implementing {@link Policy} and one line in {@link POLICIES} (and its name in `OversizePolicy`).
 */
import type { Outcome, OversizePolicy } from "../types.js";
import { drop, oversizeFailure } from "./drop.js";
import { type OverBudget, type Policy, passes } from "./policy.js";
import { recall } from "./recall.js";
import { spill } from "./spill.js";
import { summarize } from "./summarize.js";

/** Every policy a contract may name, by name. */
export const POLICIES: Readonly<Record<OversizePolicy, Policy>> = { drop, summarize, spill, recall };

/** Runs the contract's chain on a result over budget: exactly one outcome. */
export async function runPolicies<T, V, I>(over: OverBudget<T, V, I>): Promise<Outcome<T, V>> {
  for (const name of over.admission.spec.oversize) {
    const verdict = await POLICIES[name](over);
    if (!passes(verdict)) return verdict;
    over.passed[name] = verdict.pass;
  }
  // A chain that named `drop` ended there; one that ran out fails the same way.
  return oversizeFailure(over);
}
