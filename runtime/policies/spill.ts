/**
 * Policy `spill`: the result as the view shows it, whole, goes to the spill store, and the model reads a bounded preview with
 * the store's handle (and, when the call names one, the read-back tool that pages through it). The preview keeps
 * `spillPreview` items per array; when long text still does not fit, strings are cut to shorter marked excerpts,
 * step by step, until it fits or the excerpts would say nothing. The entry records the call's tenant and session,
 * so only they read it back.
 *
 * A `text` or `content` result spills its text (a `content` result's text blocks joined, as its view shows them),
 * stored as lines so the read-back tool pages it by line ranges; its preview is the text view refitted with room for
 * the `<spilled …/>` line. Such a result reaches the chain not only over budget: a text view that fits but left lines
 * out goes through it too when the chain holds `spill` and the call names a store (`spillsIncompleteText` in
 * `direct.ts`), since the model would otherwise be told lines are missing with no way to read them.
 *
 * What a spill holds is model-safe by construction, so a read-back page needs no plan at read time and shows nothing
 * the view would not: a structured result is stored as the view plan's projection of the validated value with no
 * length or count cut ({@link spilledValue}: every field the view declares, none it omits or does not declare,
 * strings and keys cleaned as the view cleans them, media described and never their data), and a text result as its
 * cleaned text. The validated value itself is never stored; the application reads it from the outcome's `data`.
 */

import type { SpillReference, Success, ViewPlan } from "../contract/types.js";
import { sha256Hex } from "../record/provenance.js";
import type { Measured } from "../stages/measure.js";
import { project } from "../stages/project.js";
import { isJsonKind } from "../stages/result-kind.js";
import { textOf, textView } from "../stages/text-view.js";
import { cleanText } from "../text/hygiene.js";
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

/** A placeholder of a real handle's length, so a preview is measured as the model will read it. */
export function placeholderFor(bytes: number, readTool: string | undefined): SpillReference {
  return { handle: `spill_${"0".repeat(32)}`, bytes, ...(readTool === undefined ? {} : { readTool }) };
}

/**
 * `plan` without its length and count cuts: arrays untaken, strings and `any` values unbounded, the rest (which
 * fields, how media and unions are read) as it is. Copied node by node with a map of the copies, without recursion,
 * since the plan of a recursive schema may be cyclic.
 */
export function wholePlan(plan: ViewPlan): ViewPlan {
  const copies = new Map<ViewPlan, ViewPlan>();
  const pending: ViewPlan[] = [];
  const copyOf = (node: ViewPlan): ViewPlan => {
    let copy = copies.get(node);
    if (copy === undefined) {
      copy = { ...node } as ViewPlan;
      copies.set(node, copy);
      pending.push(node);
    }
    return copy;
  };
  const root = copyOf(plan);
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const copy = copies.get(node) as ViewPlan;
    switch (copy.kind) {
      case "value":
      case "any":
        copy.max = Number.POSITIVE_INFINITY;
        if (copy.kind === "any") copy.take = undefined;
        break;
      case "string":
        copy.max = Number.POSITIVE_INFINITY;
        break;
      case "array":
        copy.take = undefined;
        copy.items = copyOf(copy.items);
        break;
      case "tuple":
        copy.items = copy.items.map(copyOf);
        if (copy.rest !== undefined) copy.rest = copyOf(copy.rest);
        break;
      case "object": {
        const properties: Record<string, ViewPlan> = {};
        // Defined, not assigned: a field named `__proto__` stays a field.
        for (const [key, child] of Object.entries(copy.properties)) {
          Object.defineProperty(properties, key, { value: copyOf(child), enumerable: true, writable: true });
        }
        copy.properties = properties;
        break;
      }
      case "union":
        copy.options = copy.options.map(copyOf);
        break;
      case "media":
        if (copy.form === "block" && copy.otherwise !== undefined) copy.otherwise = copyOf(copy.otherwise);
        break;
    }
  }
  return root;
}

/**
 * What a structured result's spill holds: the view plan's projection of the validated value with no length or count
 * cut, as JSON text. Never the validated value, whose omitted and undeclared fields the view keeps from the model.
 */
export function spilledValue<T, V, I>(over: OverBudget<T, V, I>): string {
  const { view } = over.admission.spec;
  const whole = project(over.data, wholePlan(view.plan), { maxStringChars: Number.POSITIVE_INFINITY });
  return JSON.stringify(whole.view) ?? "null";
}

/** Puts the value in the call's store (or the default one); `undefined` when the store throws. */
export async function stored<T, V, I>(
  over: OverBudget<T, V, I>,
  json: string,
  value: Uint8Array,
): Promise<SpillReference | undefined> {
  const { spec, ctx } = over.admission;
  try {
    const store = ctx.spillStore ?? getDefaultSpillStore();
    const reference = await store.put({
      tool: spec.name,
      json,
      sha256: await sha256Hex(value),
      tenant: ctx.tenant,
      session: ctx.session,
    });
    return ctx.readTool === undefined ? reference : { ...reference, readTool: ctx.readTool };
  } catch {
    return undefined;
  }
}

/** Spills a structured value and shows its preview, when a preview fits. */
async function spillJson<T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> {
  const json = spilledValue(over);
  const value = new TextEncoder().encode(json);
  const candidate = await fittedPreview(over, placeholderFor(value.byteLength, over.admission.ctx.readTool));
  if (candidate === undefined) return pass("preview_over_budget");
  const reference = await stored(over, json, value);
  if (reference === undefined) return pass("store_failed");
  candidate.spill = reference;
  // Measured again with the real handle: the placeholder has its length, not its token count (32 zeros are
  // about 13 tokens of o200k_base, 32 hex digits about 30), so a preview that fitted by a few tokens may not.
  const size = await measureCandidate(over, candidate);
  if (!size.within) return pass("preview_over_budget");
  return acceptCandidate(over, candidate, size, over.admission.flags);
}

/** The text view refitted with room for `reference`, when it fits with it. */
async function fittedText<T, V, I>(
  over: OverBudget<T, V, I>,
  reference: SpillReference,
  policy: "spill" | "shorten",
): Promise<{ candidate: Success<T, V>; size: Measured } | undefined> {
  const candidate = await textView(over.admission, over.data, { spill: reference, policy });
  // A spilled result is never complete in the model's view, whatever the refitted excerpt holds.
  candidate.complete = false;
  const size = await measureCandidate(over, candidate);
  return size.within ? { candidate, size } : undefined;
}

/**
 * Spills a text (the result's text, cleaned as the text view cleans it, as one JSON string, which the stores keep as
 * lines) and shows its text view
 * refitted beside the reference, under `policy` (`shorten` spills a text this way too). A content result's media
 * and links stay in `parts` and its view, not in the spill.
 */
export async function spillText<T, V, I>(
  over: OverBudget<T, V, I>,
  policy: "spill" | "shorten" = "spill",
): Promise<PolicyVerdict<T, V>> {
  const text = cleanText(textOf(over.admission.result.kind, over.data));
  if (text === "") return pass("no_text");
  const json = JSON.stringify(text);
  const value = new TextEncoder().encode(json);
  const fitted = await fittedText(over, placeholderFor(value.byteLength, over.admission.ctx.readTool), policy);
  if (fitted === undefined) return pass("preview_over_budget");
  const reference = await stored(over, json, value);
  if (reference === undefined) return pass("store_failed");
  fitted.candidate.spill = reference;
  let size = await measureCandidate(over, fitted.candidate);
  let { candidate } = fitted;
  if (!size.within) {
    // The real handle counts more tokens than the placeholder: fitted once more, around the real one.
    const again = await fittedText(over, reference, policy);
    if (again === undefined) return pass("preview_over_budget");
    ({ candidate, size } = again);
  }
  return acceptCandidate(over, candidate, size, over.admission.flags);
}

/** Spills the result and shows its preview, when a preview fits. */
export const spill: Policy = async <T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> =>
  isJsonKind(over.admission.result.kind) ? spillJson(over) : spillText(over);
