/**
 * What a generated projector calls: the pieces of the view projection (`project.ts`) that a tool's own `buildView`
 * needs when it walks its plan in straight-line code instead of interpreting it.
 *
 * `toolgate generate` writes, for each structured result, a function per object and array node of the view plan
 * (`templates/projector.ts`): constant keys read and written in plan order, strings bounded in place. Whatever is
 * not that simple (a union that needs a search, a tuple, an `any` or `media` node, or a value whose JSON type does not
 * fit its node) is handed to the interpreter with {@link viewNode}, at its path, into the same lists of omissions
 * and media, so the projection is the interpreter's on every value: the same view, the same omissions in the same
 * order, the same media. A property test holds the two equal on random plans and values. The strings it places
 * ({@link viewText}) are priced for the model's content as they are cleaned, so the measure stage counts the view
 * without writing its JSON (`content-size.ts`). A projector that counts (`startView(…, true)`) adds the rest as it
 * places it: each key it writes by a constant of its own, each number, boolean and null ({@link viewValue}), the
 * brackets and commas of each container; the measure stage then reads the view's whole cost from the build instead
 * of walking the view. Anything it cannot vouch for (a value the interpreter places, a value JSON would write
 * otherwise, a `toJSON` on a prototype) leaves the walk to count.
 */

import type { Projection, StringOverflow, ViewPlan } from "../contract/types.js";
import { cleanText, lastCleanPlain } from "../text/hygiene.js";
import { cleanStringBytes, plainStringBytes, primitiveBytes, type TextTally } from "./content-size.js";
import {
  defineOwn,
  lastShownPlain,
  onObjectPrototype,
  projectInto,
  projectionOf,
  projectString,
  type ViewSink,
} from "./project.js";

/**
 * What a generated projector gathers while it builds one view: the interpreter's sink, the strings it placed, and
 * what it has counted of the view's JSON so far.
 */
export interface ViewBuild extends ViewSink {
  readonly tally: TextTally;
  /** The bytes of the view's JSON counted so far, as `content-size.ts` counts them. */
  size: number;
  /** Whether `size` is the whole view's once it is built: the projector counts, and placed nothing it cannot count. */
  counted: boolean;
}

/** Each finished projection's tally, for the measure stage ({@link tallyOf}). */
const tallies = new WeakMap<object, TextTally>();

/**
 * The strings the generated projector placed in `projection`'s view, with their cost in the model's content
 * (`content-size.ts`), once: `undefined` for a projection the interpreter made, or one asked for before.
 */
export function tallyOf(projection: object): TextTally | undefined {
  const tally = tallies.get(projection);
  if (tally !== undefined) tallies.delete(projection);
  return tally;
}

/** What {@link viewNode} returns for a value the view leaves out (nothing is placed for it). */
export const LEFT_OUT: unique symbol = Symbol("left out");

/**
 * A new build, for one call of a generated `buildView`; `counts` when the projector counts what it places (projectors
 * generated before counting was added call this without it, and their views are walked).
 */
export function startView(maxStringChars: number, counts = false): ViewBuild {
  return { omissions: [], media: [], maxStringChars, tally: { texts: [], bytes: [] }, size: 0, counted: counts };
}

/** The projection a build made: its view, whether nothing was left out, the omissions and any lifted media. */
export function finishView<V>(view: unknown, build: ViewBuild): Projection<V> {
  const projection = projectionOf<V>(view, build);
  const { tally } = build;
  // `JSON.stringify` calls a `toJSON` it finds on an object's prototype: only the walk tells what is written then.
  if (build.counted && view !== undefined && toJsonFree()) tally.viewBytes = build.size;
  tallies.set(projection, tally);
  return projection;
}

/** Whether neither prototype a view's containers have holds a `toJSON` (someone may have added one). */
function toJsonFree(): boolean {
  return (
    (Object.prototype as { toJSON?: unknown }).toJSON === undefined &&
    (Array.prototype as { toJSON?: unknown }).toJSON === undefined
  );
}

/**
 * A number, boolean or null a counting projector places, with its cost added to the build; anything else JSON would
 * not write as it is (a number that is not finite, `undefined`, a function) leaves the count to the walk.
 */
export function viewValue(build: ViewBuild, value: unknown): unknown {
  const bytes = primitiveBytes(value);
  if (bytes < 0) build.counted = false;
  else build.size += bytes;
  return value;
}

/**
 * A string under a bound: the cleaned string when it is shown (whole when it has no more units than the bound),
 * `undefined` when the view leaves it out, every shortening reported at the string's path (the container's `base` and
 * its key or index). What it costs in the model's content goes to the build's tally while it is at hand.
 */
export function viewText(
  build: ViewBuild,
  text: string,
  max: number,
  overflow: StringOverflow,
  base: string,
  segment: string | number | undefined,
): string | undefined {
  // Within its bound, a string is shown whole and cleaned, as `projectString` shows it, with nothing to report: most
  // strings of a view, taken here without the calls between.
  if (text.length <= max) {
    const cleaned = cleanText(text);
    priced(build, cleaned, lastCleanPlain());
    return cleaned;
  }
  const shown = projectString(build.omissions, text, max, overflow, base, segment);
  if (shown !== undefined) priced(build, shown, lastShownPlain());
  return shown;
}

/**
 * What a string placed in the view costs in the model's content (`plain` when the pass that cleaned it found nothing
 * JSON or the markup escapes), added to the build's count; a build that does not count keeps it in its tally instead,
 * and so does one that stopped counting (the walk prices again the strings it placed before).
 */
function priced(build: ViewBuild, shown: string, plain: boolean): void {
  const bytes = plain ? plainStringBytes(shown) : cleanStringBytes(shown);
  if (build.counted) build.size += bytes;
  else {
    build.tally.texts.push(shown);
    build.tally.bytes.push(bytes);
  }
}

/**
 * {@link viewText}, under the name projectors generated before it call (for a string longer than its bound only: the
 * shorter ones they clean themselves, and the measure stage counts those as it meets them).
 */
export const viewString = viewText;

/** A value projected by the interpreter with its plan node: what the view shows of it, or {@link LEFT_OUT}. */
export function viewNode(
  build: ViewBuild,
  value: unknown,
  plan: ViewPlan,
  base: string,
  segment: string | number | undefined,
): unknown {
  // What the interpreter places is not counted: the walk counts the view.
  build.counted = false;
  const holder = projectInto(build, value, plan, base, segment);
  return Object.hasOwn(holder, "view") ? holder.view : LEFT_OUT;
}

/**
 * Places a key that is a member of `Object.prototype` (`constructor`, `toString`, `__proto__`, …) as an own
 * property: assigning it would run the inherited setter or fail on a read-only member.
 */
export function viewDefine(into: Record<string, unknown>, key: string, value: unknown): void {
  defineOwn(into, key, value);
}

/**
 * Whether none of `keys` is a member of `Object.prototype` now. A generated projector assigns the keys that were
 * not when it was generated; should something have added one since, it projects with the interpreter instead,
 * which defines such keys, so no key a view writes ever runs a setter.
 */
export function viewKeysFree(keys: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) if (onObjectPrototype(keys[i] as string)) return false;
  return true;
}

/** The node of `plan` at `path` (property names and indexes): where a generated projector finds its nodes. */
export function viewPlanAt(plan: ViewPlan, path: readonly (string | number)[]): ViewPlan {
  let node: unknown = plan;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node as ViewPlan;
}
