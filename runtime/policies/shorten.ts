/**
 * Policy `shorten`, the default end of a chain: over budget, the model reads the most of the view that fits, cut by
 * its structure, never nothing while anything fits.
 *
 * For a JSON result the view the plan gave is cut to one level (`shorten-view.ts`): the largest arrays keep their
 * first items whole, in the plan's order, and the longest strings keep whole lines from their head and tail; each
 * cut is named in `omissions` with its count ("/hits: 32 items left out" beside the 8 hits kept). The level is the
 * largest that fits the budget, found with few measurements: a byte bound first (a cut view of at most `max` bytes
 * is within `max` tokens, since a token covers at least a byte), then, when the budget counts tokens, rounds that
 * aim the byte bound by the bytes per token the last count showed, then a binary search between the largest level
 * that fitted and the smallest that did not, each step one count. Only when not even the skeleton fits (every array
 * at its first item cut to nothing, every string at its markers) does the policy pass, and the chain ends
 * `oversize`.
 *
 * A `text` or `content` result's view is already whole lines from its head and tail fitted to the budget: that
 * excerpt is the shortened result.
 *
 * When the call names a store (`ctx.spillStore`, as `readBack(store).context` gives), the whole view is spilled (the
 * projection `spill` stores, `spilledValue`) and the shortened view carries the handle, its `<spilled …/>` line measured within the budget too.
 */

import type { SpillReference, Success } from "../contract/types.js";
import { type Measured, measureText } from "../stages/measure.js";
import { toModelContent } from "../stages/model-content.js";
import { isJsonKind } from "../stages/result-kind.js";
import { continuationOf } from "../stages/view.js";
import { utf8Length } from "../text/hygiene.js";
import { acceptCandidate, measureCandidate } from "./candidate.js";
import { type OverBudget, type Policy, type PolicyVerdict, pass } from "./policy.js";
import { cutOmissions, cutView, largestPart, type ViewNode, viewTree } from "./shorten-view.js";
import { placeholderFor, spilledValue, spillText, stored } from "./spill.js";

/** Rounds that aim the byte bound at a token budget before the binary search. */
const AIM_ROUNDS = 3;
/** Token counts the binary search may spend after the aiming rounds. */
const SEARCH_COUNTS = 4;
/** A first guess of bytes per token of rendered JSON (o200k_base reads English JSON at about 3.5 to 4.5). */
const FIRST_BYTES_PER_TOKEN = 3.5;
/** A count this close to the budget is taken as the fit: one more count would gain a line or an item at most. */
const CLOSE_ENOUGH = 0.97;

/** A view cut to one level, as the success the model would read. */
interface Cut<T, V> {
  level: number;
  candidate: Success<T, V>;
  bytes: number;
  /** Its token count within the budget, when the search counted it. */
  counted?: Measured;
}

/** What the search needs: the view's tree, and how to turn a level into a candidate. */
interface Shortening<T, V, I> {
  over: OverBudget<T, V, I>;
  tree: ViewNode;
  /** The level past which nothing is cut. */
  top: number;
  spill: SpillReference | undefined;
}

/** The success for the view cut to `level`. */
function cutAt<T, V, I>(s: Shortening<T, V, I>, level: number): Cut<T, V> {
  const { over } = s;
  const cut = cutView(s.tree, level);
  const candidate: Success<T, V> = {
    ...over.success,
    view: 0 as V,
    complete: false,
    omissions: cutOmissions(over.success.omissions, cut),
    continuation: continuationOf(over.data, over.admission.spec.view.continuation),
    policy: "shorten",
    ...(s.spill === undefined ? {} : { spill: s.spill }),
  };
  // Rendered around a one-byte view, plus what the cut view costs: the bytes of the whole rendering, without
  // writing a large view out at every step of the search.
  const bytes = utf8Length(toModelContent(candidate as Success<unknown, unknown>)) - 1 + cut.bytes;
  candidate.view = cut.view as V;
  return { level, candidate, bytes };
}

/** The largest level in `[low, high]` whose cut costs at most `bytes` (`low` when none does). */
function levelWithin<T, V, I>(s: Shortening<T, V, I>, low: number, high: number, bytes: number): Cut<T, V> {
  let best = cutAt(s, low);
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const cut = cutAt(s, mid);
    if (cut.bytes <= bytes) {
      best = cut;
      lo = mid;
    } else hi = mid - 1;
  }
  return best;
}

/** How far past the budget a count goes, so an overshoot says by how much without counting it all. */
const OVER_COUNT = 2;

/** Counts a cut's tokens, up to twice the budget. */
function countOf<T, V, I>(s: Shortening<T, V, I>, cut: Cut<T, V>): Promise<Measured> {
  const budget = s.over.admission.spec.context;
  return measureText(toModelContent(cut.candidate as Success<unknown, unknown>), budget, budget.max * OVER_COUNT);
}

/**
 * The largest level whose cut fits a token budget (see the module comment), or `undefined` when the skeleton does
 * not fit.
 */
async function fitTokens<T, V, I>(s: Shortening<T, V, I>): Promise<Cut<T, V> | undefined> {
  const max = s.over.admission.spec.context.max;
  // A cut within `max` bytes is within `max` tokens: the search starts from there, uncounted.
  let fit: Cut<T, V> | undefined = levelWithin(s, 0, s.top, max);
  if (fit.bytes > max) fit = undefined;
  let low = fit?.level ?? 0;
  let high = s.top;
  let perToken = FIRST_BYTES_PER_TOKEN;
  // The fewest bytes of a cut counted over the budget: the search aims between the fit's bytes and these.
  let overBytes = Number.POSITIVE_INFINITY;
  for (let round = 0; round < AIM_ROUNDS && low < high; round++) {
    const aimed = levelWithin(s, low, high, Math.floor(max * perToken));
    if (fit !== undefined && aimed.bytes <= fit.bytes) break;
    const counted = await countOf(s, aimed);
    // Past the count's limit it stopped: at least that far over.
    const tokens = counted.within ? Math.max(1, counted.value) : max * OVER_COUNT;
    if (tokens <= max) {
      fit = { ...aimed, counted: { ...counted, within: true } };
      low = aimed.level;
      if (tokens >= max * CLOSE_ENOUGH) return fit;
    } else {
      high = aimed.level - 1;
      overBytes = Math.min(overBytes, aimed.bytes);
    }
    perToken = (aimed.bytes / tokens) * (tokens <= max ? 1 : CLOSE_ENOUGH);
  }
  if (fit === undefined) {
    const skeleton = cutAt(s, 0);
    const counted = await countOf(s, skeleton);
    if (counted.value > max) return undefined;
    fit = { ...skeleton, counted: { ...counted, within: true } };
    low = 0;
  }
  // A binary search on the bytes between the largest cut that fitted and the smallest that did not, so levels that
  // cut alike (an array whose next item is large) cost no count.
  let best: Cut<T, V> = fit;
  for (let count = 0; count < SEARCH_COUNTS && low < high; count++) {
    const cut: Cut<T, V> =
      overBytes === Number.POSITIVE_INFINITY
        ? cutAt(s, Math.ceil((low + high) / 2))
        : levelWithin(s, low, high, Math.floor((best.bytes + overBytes) / 2));
    if (cut.bytes <= best.bytes) break;
    const counted = await countOf(s, cut);
    if (counted.value <= max) {
      best = { ...cut, counted: { ...counted, within: true } };
      low = cut.level;
    } else {
      high = cut.level - 1;
      overBytes = Math.min(overBytes, cut.bytes);
    }
  }
  return best;
}

/** The largest level whose cut fits the budget, or `undefined` when not even the skeleton does. */
async function fitted<T, V, I>(s: Shortening<T, V, I>): Promise<Cut<T, V> | undefined> {
  const budget = s.over.admission.spec.context;
  if (budget.unit === "tokens") return fitTokens(s);
  const fit = levelWithin(s, 0, s.top, budget.max);
  return fit.bytes <= budget.max ? fit : undefined;
}

/** The cut view that fits, spilled first when the call names a store; a reason to pass when none fits. */
async function shortenJson<T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> {
  const skipped = new Set(over.success.omissions.filter((o) => o.kind === "omitted").map((o) => o.path));
  const tree = viewTree(over.success.view, over.data, "", skipped);
  const s: Shortening<T, V, I> = { over, tree, top: largestPart(tree), spill: undefined };
  const { ctx } = over.admission;
  let value: { json: string; bytes: Uint8Array } | undefined;
  if (ctx.spillStore !== undefined) {
    const json = spilledValue(over);
    value = { json, bytes: new TextEncoder().encode(json) };
    s.spill = placeholderFor(value.bytes.byteLength, ctx.readTool);
  }
  let fit = await fitted(s);
  if (fit === undefined) return pass("skeleton_over_budget");
  if (value !== undefined) {
    const reference = await stored(over, value.json, value.bytes);
    // A store that fails leaves the shortened view without a handle: the model still reads what fits.
    s.spill = reference;
    fit = cutAt(s, fit.level);
  }
  // A cut the search counted, unchanged since, needs no second count.
  let size = fit.counted ?? (await measureCandidate(over, fit.candidate));
  if (!size.within) {
    // The real handle counts more tokens than its placeholder: fitted once more, around the real one.
    fit = await fitted(s);
    if (fit === undefined) return pass("skeleton_over_budget");
    size = await measureCandidate(over, fit.candidate);
    if (!size.within) return pass("skeleton_over_budget");
  }
  return acceptCandidate(over, fit.candidate, size, over.admission.flags);
}

/**
 * A text or content result: its text view is already the whole-line excerpt that fits, shown under `shorten`; with
 * a store, the text is spilled and the excerpt refitted beside its handle.
 */
async function shortenText<T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> {
  if (over.admission.ctx.spillStore !== undefined) {
    const spilled = await spillText(over, "shorten");
    if (!("pass" in spilled)) return spilled;
  }
  if (!over.measured.within) return pass("excerpt_over_budget");
  const candidate: Success<T, V> = { ...over.success, complete: false, policy: "shorten" };
  const size = await measureCandidate(over, candidate);
  if (!size.within) return pass("excerpt_over_budget");
  return acceptCandidate(over, candidate, size, over.admission.flags);
}

/** Shows the most of the view that fits the budget, cut by its structure, each cut named. */
export const shorten: Policy = async <T, V, I>(over: OverBudget<T, V, I>): Promise<PolicyVerdict<T, V>> =>
  isJsonKind(over.admission.result.kind) ? shortenJson(over) : shortenText(over);
