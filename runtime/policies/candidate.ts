/**
 * What `summarize` and `spill` both build: a bounded preview of the result (arrays cut to `spillPreview` items,
 * strings optionally to shorter excerpts) as a success that stands in for the full view, measured on what the
 * model reads, and finished once it fits.
 */

import type { GateFlag, Outcome, Success, ViewPlan } from "../contract/types.js";
import { contextUsedOf, type Measured, measureModelContent } from "../stages/measure.js";
import { pointerSegment, project } from "../stages/project.js";
import { isJsonKind } from "../stages/result-kind.js";
import { continuationOf } from "../stages/view.js";
import type { LargestArray, OverBudget } from "./policy.js";

/**
 * The largest non-empty array in a view, by an iterative walk; its path is made of plan-declared keys and indices
 * only.
 */
export function largestArray(view: unknown): LargestArray | undefined {
  let best: LargestArray | undefined;
  const stack: Array<{ value: unknown; path: string }> = [{ value: view, path: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (Array.isArray(value)) {
      // An empty array is never what a narrower call should ask less of.
      if (value.length > (best?.items ?? 0)) best = { path: path || "/", items: value.length };
      for (const [index, entry] of value.entries()) stack.push({ value: entry, path: `${path}/${index}` });
    } else if (value !== null && typeof value === "object") {
      for (const key of Object.keys(value)) {
        stack.push({ value: (value as Record<string, unknown>)[key], path: `${path}/${pointerSegment(key)}` });
      }
    }
  }
  return best;
}

/**
 * A copy of a view plan whose arrays keep at most `take` items and, when `maxChars` is given, whose strings keep at
 * most `maxChars` characters (a marked excerpt; a string the contract says to omit when long stays omitted): the
 * preview of a spilled or summarized result. Plans of recursive schemas may be cyclic, so nodes are copied once
 * each through a map, without recursion.
 */
export function previewPlan(plan: ViewPlan, take: number, maxChars?: number): ViewPlan {
  const copies = new Map<ViewPlan, ViewPlan>();
  const queue: ViewPlan[] = [];
  const copyOf = (node: ViewPlan): ViewPlan => {
    let copy = copies.get(node);
    if (copy === undefined) {
      copy = { ...node };
      copies.set(node, copy);
      queue.push(node);
    }
    return copy;
  };
  const root = copyOf(plan);
  for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
    const copy = copies.get(node) as ViewPlan;
    if (node.kind === "object" && copy.kind === "object") {
      copy.properties = Object.fromEntries(Object.entries(node.properties).map(([key, child]) => [key, copyOf(child)]));
    } else if (node.kind === "array" && copy.kind === "array") {
      copy.items = copyOf(node.items);
      copy.take = Math.min(node.take ?? take, take);
    } else if (node.kind === "tuple" && copy.kind === "tuple") {
      copy.items = node.items.map(copyOf);
      copy.rest = node.rest === undefined ? undefined : copyOf(node.rest);
    } else if (node.kind === "union" && copy.kind === "union") {
      copy.options = node.options.map(copyOf);
    } else if (maxChars !== undefined && node.kind === "string" && copy.kind === "string") {
      copy.max = Math.min(node.max, maxChars);
    } else if (maxChars !== undefined && node.kind === "value" && copy.kind === "value") {
      copy.max = Math.min(node.max ?? maxChars, maxChars);
    } else if (node.kind === "any" && copy.kind === "any") {
      // A value the schema says nothing of is cut like a planned one: its arrays to `take`, its strings to `maxChars`.
      copy.take = Math.min(node.take ?? take, take);
      if (maxChars !== undefined) copy.max = Math.min(node.max ?? maxChars, maxChars);
    }
  }
  return root;
}

/** What a policy adds to the preview: its name and what the model reads besides the preview. */
export type CandidateFields<T, V> = Pick<Success<T, V>, "summary" | "spill" | "policy" | "flags">;

/**
 * The success a policy offers instead of the full view: the preview (strings cut to `maxChars` when given), marked
 * incomplete, with the continuation token, and the policy's own fields.
 */
export function previewCandidate<T, V, I>(
  over: OverBudget<T, V, I>,
  maxChars: number | undefined,
  fields: CandidateFields<T, V>,
): Success<T, V> {
  const { spec, result } = over.admission;
  // A text or content result has no plan to cut: its preview is its text view, already as short as the budget
  // allowed, so the caller's `view` keeps its type.
  if (!isJsonKind(result.kind)) return { ...over.success, complete: false, ...fields };
  const shown = project(over.data, previewPlan(spec.view.plan, spec.spillPreview, maxChars), {
    maxStringChars: spec.view.maxStringChars,
  });
  return {
    ...over.success,
    view: shown.view as V,
    complete: false,
    omissions: shown.omissions,
    continuation: continuationOf(over.data, spec.view.continuation),
    ...fields,
  };
}

/** Measures a candidate against the contract's budget, on what the model reads. */
export function measureCandidate<T, V, I>(over: OverBudget<T, V, I>, candidate: Success<T, V>): Promise<Measured> {
  return measureModelContent(candidate, over.admission.spec.context);
}

/** Ends the admit with a candidate that fits: its measured context use, and the admit's one event. */
export function acceptCandidate<T, V, I>(
  over: OverBudget<T, V, I>,
  candidate: Success<T, V>,
  size: Measured,
  flags: GateFlag[] | undefined,
): Outcome<T, V> {
  const { admission } = over;
  const budget = admission.spec.context;
  candidate.contextUsed = contextUsedOf(size, budget);
  return admission.finish(candidate, {
    stage: "policy",
    rawKind: admission.rawKind,
    viewSize: size.value,
    viewSizeExact: candidate.contextUsed.exact,
    policy: candidate.policy,
    flags,
  });
}
