/**
 * The contract's oversize chain, composed the way middleware is: each policy in the contract's order either ends
 * the admit or passes to the next, and when none is left the call fails as `drop` does. Adding a policy is one file
 * implementing {@link Policy} and one line in {@link POLICIES} (and its name in `OversizePolicy`).
 *
 * A text view that fits but left lines out reaches the chain too when it could be spilled (`spillsIncompleteText`):
 * its policies run as for any oversize result, with the excerpt as the preview, but nothing is refused for it. At
 * `drop`, or when every policy passed, the admit ends `direct` with the excerpt, as it would have without the chain.
 */

import type { Outcome, OversizePolicy } from "../contract/types.js";
import { finishDirect } from "./direct.js";
import { drop, oversizeFailure } from "./drop.js";
import { type OverBudget, type Policy, passes } from "./policy.js";
import { recall } from "./recall.js";
import { shorten } from "./shorten.js";
import { spill } from "./spill.js";
import { summarize } from "./summarize.js";

/** Every policy a contract may name, by name. */
export const POLICIES: Readonly<Record<OversizePolicy, Policy>> = { drop, summarize, spill, recall, shorten };

/** Runs the contract's chain on a result over budget: exactly one outcome. */
export async function runPolicies<T, V, I>(over: OverBudget<T, V, I>): Promise<Outcome<T, V>> {
  // A view within budget (an incomplete text view) is never refused: `drop` ends its chain with the view itself.
  const fits = over.measured.within;
  for (const name of over.admission.spec.oversize) {
    if (fits && name === "drop") break;
    const verdict = await POLICIES[name](over);
    if (!passes(verdict)) return verdict;
    over.passed[name] = verdict.pass;
  }
  if (fits) return finishDirect(over.admission, over.success, over.measured);
  // A chain that named `drop` ended there; one that ran out fails the same way.
  return oversizeFailure(over);
}
