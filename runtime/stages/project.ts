/**
 * The view projection: turns a validated value into what the model may see, following a {@link ViewPlan}.
 *
 * The walk is iterative (an explicit stack), so no payload shape can overflow the call stack, and no key it writes
 * ever runs a setter: a key found on the prototype chain (`__proto__`, `constructor`, anything added to
 * `Object.prototype`) is defined with `Object.defineProperty`, so `__proto__` stays an own property and never
 * becomes a prototype; any other key is simply assigned.
 */

import type { LiftedMedia, Omission, Projection, StringOverflow, ViewPlan } from "../contract/types.js";
import { boundText, cleanText, lastCleanPlain } from "../text/hygiene.js";
import { lineExcerpt, viewCost } from "./line-excerpt.js";
import { liftMedia } from "./project-media.js";

/** Options for {@link project}. */
export interface ProjectOptions {
  /** Character bound for strings under a `value` node without its own `max` (the contract's `view.maxStringChars`). */
  maxStringChars?: number | undefined;
}

/** The default bound for strings the plan does not bound itself, as in `x-toolgate.view.maxStringChars`. */
export const DEFAULT_MAX_STRING_CHARS = 2000;

/**
 * One value waiting to be projected, and where its projection goes. Its path is written out ({@link pathOf}) only
 * where something needs it: an omission, or the children of a container; most values are shown and need none.
 */
interface Frame {
  value: unknown;
  plan: ViewPlan;
  /** The path of the container the value is in (`""` for the root's). */
  base: string;
  /** The value's key or index in it, unescaped; `undefined` for the root. */
  segment: string | number | undefined;
  /** The container that receives the projection: an array (appended) or an object (under `key`). */
  into: unknown[] | Record<string, unknown>;
  /** The key the projection is placed under in an object (`""` in an array, which appends). */
  key: string;
}

/** An object node's properties as two lists in plan order: its keys, and the plan of each. */
interface PropertyList {
  keys: readonly string[];
  plans: readonly ViewPlan[];
}

/**
 * Each object node's {@link PropertyList}, made on its first projection. A plan is a constant of generated code,
 * projected on every admit: listing its keys again for every object of every result was a share of projecting a
 * small one. Keyed by the `properties` object, which a plan does not change once it is in use.
 */
const PROPERTY_LISTS = new WeakMap<Record<string, ViewPlan>, PropertyList>();

function propertyList(properties: Record<string, ViewPlan>): PropertyList {
  let list = PROPERTY_LISTS.get(properties);
  if (list === undefined) {
    const keys: string[] = [];
    const plans: ViewPlan[] = [];
    for (const key of Object.keys(properties)) {
      const plan = properties[key];
      // A key listed with no plan (an optional member left undefined) projects nothing, as before.
      if (plan === undefined) continue;
      keys.push(key);
      plans.push(plan);
    }
    list = { keys, plans };
    PROPERTY_LISTS.set(properties, list);
  }
  return list;
}

/** Escapes one key for a JSON pointer (RFC 6901 §3). */
export function pointerSegment(key: string): string {
  // Most keys need no escaping; `includes` is cheaper than two replacements that find nothing.
  if (!key.includes("~") && !key.includes("/")) return key;
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The JSON pointer of a frame's value. */
function pathOf(frame: Frame): string {
  return pathAt(frame.base, frame.segment);
}

/** The JSON pointer of the member `segment` (a key, unescaped, or an index) of the container at `base`. */
export function pathAt(base: string, segment: string | number | undefined): string {
  if (segment === undefined) return base;
  return `${base}/${typeof segment === "number" ? segment : pointerSegment(segment)}`;
}

const ownOfObjectPrototype = Object.prototype.hasOwnProperty;

/**
 * Whether `key` is a member of `Object.prototype` now: on every object a view makes, exactly the keys an assignment
 * could find a setter or a read-only member for.
 */
export function onObjectPrototype(key: string): boolean {
  return ownOfObjectPrototype.call(Object.prototype, key);
}

/** Places `key` as an own data property, never through an inherited setter (a `__proto__` key stays own). */
export function defineOwn(into: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Puts a value into an object or array without ever invoking a setter (a `__proto__` key stays an own key). Every
 * object a view places into is a `{}` the projection made, and it places each key once (a plan's keys are distinct,
 * an `any` node's cleaned keys are made so), so a key is on its prototype chain exactly when it is an own key of
 * `Object.prototype`, whose own prototype cannot be changed: asked of that one object, the question is several times
 * cheaper than `in` on objects of as many shapes as the view has.
 */
function place(into: unknown[] | Record<string, unknown>, key: string, value: unknown): void {
  if (Array.isArray(into)) {
    into.push(value);
  } else if (onObjectPrototype(key)) {
    // Inherited (`__proto__`, `constructor`, or anything added to `Object.prototype`): assigning could run a setter
    // or fail on a read-only property, so the key is defined as an own property.
    defineOwn(into, key, value);
  } else {
    // Nowhere on the prototype chain, so no setter can run: plain assignment, many times cheaper than defining.
    into[key] = value;
  }
}

/** The JSON types a plan node is matched against: what {@link viewPlanFits} tells apart. */
export type ViewJsonType = "object" | "array" | "string" | "primitive";

/** The JSON type of a parsed value, as the union rule needs it. */
function jsonType(value: unknown): ViewJsonType {
  if (Array.isArray(value)) return "array";
  if (value !== null && typeof value === "object") return "object";
  if (typeof value === "string") return "string";
  return "primitive";
}

/**
 * Whether a plan node other than a union can take a value of this JSON type: how a union picks its option, here and
 * in the generated projector, which resolves unions when it is written.
 */
export function viewPlanFits(plan: ViewPlan, type: ViewJsonType): boolean {
  switch (plan.kind) {
    case "object":
      return type === "object";
    case "array":
    case "tuple":
      return type === "array";
    case "string":
      return type === "string";
    case "value":
      return type === "string" || type === "primitive";
    case "any":
      return true;
    case "media":
      return plan.form === "block" ? type === "object" : type === "string";
    case "union":
      return false;
  }
}

/**
 * The node a value is projected with: the node itself, or for a union the first option, in order and through
 * nested unions, that can take a value of this JSON type (`undefined` when none can). Searched without recursion
 * and each node once, since the plan of a recursive schema may be cyclic.
 */
function resolve(plan: ViewPlan, type: ViewJsonType): ViewPlan | undefined {
  if (plan.kind !== "union") return viewPlanFits(plan, type) ? plan : undefined;
  // The usual union (`string | null`, an object or a string) has no union among its options: no search is needed.
  let nested = false;
  for (const option of plan.options) {
    if (option.kind === "union") nested = true;
    else if (!nested && viewPlanFits(option, type)) return option;
  }
  if (!nested) return undefined;
  const seen = new Set<ViewPlan>();
  const pending: ViewPlan[] = [plan];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.kind !== "union") {
      if (viewPlanFits(node, type)) return node;
      continue;
    }
    // Reversed, so the stack hands out the options in their order.
    for (let i = node.options.length - 1; i >= 0; i--) pending.push(node.options[i] as ViewPlan);
  }
  return undefined;
}

/**
 * Projects validated `data` into its model-facing view.
 *
 * - `object`: only own keys listed in `properties`, in plan order; any other key (even from an open schema) is
 *   never copied. Private fields are simply absent from the plan.
 * - `array`: the first `take` items; the rest is reported as an `items` omission with the count left out.
 * - `tuple`: positional; items past the tuple use `rest`, or are reported as an `items` omission.
 * - `string`: cleaned text; longer than `max` code points becomes a marked excerpt (`excerpt` omission), whole lines
 *   from its head and tail with a marked gap (`lines`: a `lines` omission, see {@link stringLines}), or is left out
 *   (`omitted` omission), never cut silently.
 * - `value`: numbers, booleans, null and cleaned strings (bounded by `max` or `maxStringChars`); an object or array
 *   the plan knows nothing about is left out and reported as `omitted`.
 * - `union`: the first option whose kind fits the value's JSON type.
 * - `any` (a schema that constrains nothing): the value whole, its strings and keys cleaned and bounded like a
 *   `value` node's strings.
 * - `media`: an MCP image or audio block, or a base64 string, described in the view (`{ type, mimeType, bytes }`)
 *   and listed in `media` for the outcome's parts, never placed as text (see `project-media.ts`); an object of
 *   another shape under a `block` node is projected with its `otherwise` plan.
 * A value left out of an array is dropped from it, and its original index is in the omission's path.
 */
export function project(data: unknown, plan: ViewPlan, options: ProjectOptions = {}): Projection<unknown> {
  const sink: ViewSink = {
    omissions: [],
    media: [],
    maxStringChars: options.maxStringChars ?? DEFAULT_MAX_STRING_CHARS,
  };
  // The stack pops in document order, so omissions are already listed top to bottom.
  return projectionOf(projectInto(sink, data, plan, "", undefined).view, sink);
}

/** A projection of `view`: whether nothing was left out, the omissions and any lifted media `sink` gathered. */
export function projectionOf<V>(view: unknown, sink: ViewSink): Projection<V> {
  const projection: Projection<unknown> = { view, complete: sink.omissions.length === 0, omissions: sink.omissions };
  if (sink.media.length > 0) projection.media = sink.media;
  return projection as Projection<V>;
}

/** Where a projection gathers what it left out and the media it lifted, and its bound for strings. */
export interface ViewSink {
  readonly omissions: Omission[];
  readonly media: LiftedMedia[];
  /** Character bound for strings under a `value` or `any` node without their own `max`. */
  readonly maxStringChars: number;
}

/**
 * Whether the string the last {@link projectString} returned is known to hold no unit that JSON or the model
 * content's markup escapes (see `lastCleanPlain`): what a projector pricing it reads instead of searching it again.
 */
let shownPlain = false;

/** See {@link shownPlain}. */
export function lastShownPlain(): boolean {
  return shownPlain;
}

/**
 * A string under a bound of `max` code points, as the view shows it: cleaned and whole, or shortened by `overflow`
 * (a marked excerpt, whole lines with a marked gap, or left out: `undefined`), each shortening reported in
 * `omissions` at the string's path (`base` and `segment`, written out only then).
 */
export function projectString(
  omissions: Omission[],
  text: string,
  max: number,
  overflow: StringOverflow,
  base: string,
  segment: string | number | undefined,
): string | undefined {
  // No more UTF-16 units than the bound, so no more code points either, cleaned or not: whole, as `boundText` would
  // find, without the bounded form it makes for each string (most strings of a small result are such).
  if (text.length <= max) {
    const cleaned = cleanText(text);
    shownPlain = lastCleanPlain();
    return cleaned;
  }
  const bounded = boundText(text, max);
  // Whole or an excerpt of what the one pass read (the mark that ends an excerpt is plain), or neither.
  shownPlain = lastCleanPlain();
  // Nothing left out means whole, except under a negative bound, where even an empty string is an excerpt.
  if (bounded.leftOut === 0 && max >= 0) return bounded.text;
  if (overflow === "lines" && max >= 0) {
    // Shown as whole lines with a marked gap, unless the bound cannot hold even the markers.
    const shown = stringLines(text, max);
    shownPlain = false;
    if (shown !== undefined) {
      const path = pathAt(base, segment);
      for (const omission of shown.omissions) omissions.push({ path, ...omission });
      return shown.text;
    }
  }
  if (overflow !== "omit") {
    omissions.push({ path: pathAt(base, segment), kind: "excerpt", count: bounded.leftOut });
    return bounded.text;
  }
  // Left out whole: the count is the string's length in code points.
  omissions.push({ path: pathAt(base, segment), kind: "omitted", count: bounded.leftOut + Math.max(0, max - 1) });
  return undefined;
}

/**
 * Projects `value` (at `base` and `segment`) by `plan` into a holder: `{ view }` when something is shown, `{}` when
 * the value is left out. Omissions and media go to `sink` in document order, after whatever it holds already, so a
 * projection can hand any part of a value to this walk and still list everything top to bottom.
 */
export function projectInto(
  sink: ViewSink,
  value: unknown,
  plan: ViewPlan,
  base: string,
  segment: string | number | undefined,
): { view?: unknown } {
  const { omissions, media, maxStringChars } = sink;
  const root: Record<string, unknown> = {};
  const stack: Frame[] = [{ value, plan, base, segment, into: root, key: "view" }];

  const putString = (frame: Frame, text: string, max: number, overflow: StringOverflow): void => {
    const shown = projectString(omissions, text, max, overflow, frame.base, frame.segment);
    if (shown !== undefined) place(frame.into, frame.key, shown);
  };

  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { value } = frame;
    const type = jsonType(value);
    // A plan node that does not fit the value (validated data and a generated plan should never disagree) falls
    // back to the `value` rule, which never passes structure it knows nothing about.
    const node: ViewPlan = resolve(frame.plan, type) ?? { kind: "value" };

    switch (node.kind) {
      case "value": {
        if (type === "string") putString(frame, value as string, node.max ?? maxStringChars, "excerpt");
        else if (type === "primitive") place(frame.into, frame.key, value);
        else omissions.push({ path: pathOf(frame), kind: "omitted", count: 1 });
        break;
      }
      case "string":
        putString(frame, value as string, node.max, node.overflow);
        break;
      case "any":
        if (type === "string") putString(frame, value as string, node.max ?? maxStringChars, "excerpt");
        else if (type === "primitive") place(frame.into, frame.key, value);
        else pushAny(stack, omissions, frame, value as object, node, node.max ?? maxStringChars);
        break;
      case "media": {
        const lifted = liftMedia(value, node);
        if (lifted === undefined && node.form === "block" && node.otherwise !== undefined) {
          stack.push({ ...frame, plan: node.otherwise });
        } else if (lifted === undefined || lifted === "malformed") {
          omissions.push({ path: pathOf(frame), kind: "omitted", count: 1 });
        } else {
          place(frame.into, frame.key, lifted.description);
          if (lifted.part !== undefined) media.push({ path: pathOf(frame), part: lifted.part });
          else omissions.push({ path: pathOf(frame), kind: "omitted", count: 1 });
        }
        break;
      }
      case "object": {
        const source = value as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        place(frame.into, frame.key, out);
        const { keys, plans } = propertyList(node.properties);
        const base = pathOf(frame);
        // Pushed in reverse so the stack pops them in plan order, which keeps the view's key order stable.
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as string;
          if (!Object.hasOwn(source, key)) continue;
          stack.push({ value: source[key], plan: plans[i] as ViewPlan, base, segment: key, into: out, key });
        }
        break;
      }
      case "array":
      case "tuple": {
        const source = value as unknown[];
        const out: unknown[] = [];
        place(frame.into, frame.key, out);
        let shown = source.length;
        if (node.kind === "array" && node.take !== undefined) shown = Math.min(shown, Math.max(0, node.take));
        if (node.kind === "tuple" && node.rest === undefined) shown = Math.min(shown, node.items.length);
        const base = pathOf(frame);
        // An item is appended to its array, so its key is never read.
        for (let i = shown - 1; i >= 0; i--) {
          const itemPlan = node.kind === "array" ? node.items : (node.items[i] ?? node.rest ?? { kind: "value" });
          stack.push({ value: source[i], plan: itemPlan, base, segment: i, into: out, key: "" });
        }
        if (shown < source.length) omissions.push({ path: base, kind: "items", count: source.length - shown });
        break;
      }
    }
  }
  return root;
}

/**
 * An object or array under an `any` node: placed empty, its members pushed to be projected with the same node. Keys
 * are cleaned and bounded like strings, since they are the tool's text too; a key that cleans to one already placed
 * is left out (the first in document order stays).
 */
function pushAny(
  stack: Frame[],
  omissions: Omission[],
  frame: Frame,
  value: object,
  node: Extract<ViewPlan, { kind: "any" }>,
  max: number,
): void {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    place(frame.into, frame.key, out);
    const shown = node.take === undefined ? value.length : Math.min(value.length, Math.max(0, node.take));
    const base = pathOf(frame);
    for (let i = shown - 1; i >= 0; i--) {
      stack.push({ value: value[i], plan: node, base, segment: i, into: out, key: "" });
    }
    if (shown < value.length) omissions.push({ path: base, kind: "items", count: value.length - shown });
    return;
  }
  const out: Record<string, unknown> = {};
  place(frame.into, frame.key, out);
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  const shown = new Set<string>();
  const children: Frame[] = [];
  const base = pathOf(frame);
  for (const key of keys) {
    const cleaned = boundText(key, max).text;
    if (shown.has(cleaned)) continue;
    shown.add(cleaned);
    children.push({
      value: source[key],
      plan: node,
      base,
      segment: key,
      into: out,
      key: cleaned,
    });
  }
  // Pushed in reverse so the stack pops them in the value's own key order.
  for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Frame);
}

/** A string shown as whole lines: the text the view holds, and what it left out (without the path). */
export interface StringLines {
  text: string;
  omissions: Array<Omit<Omission, "path">>;
}

/**
 * A string longer than `max` code points as whole lines from its head and tail with one marked gap
 * (`lineExcerpt`, on the cleaned text): the kept lines are lines of the string exactly, and the gap's marker names
 * the lines left out. `max` bounds what the shown text costs in the model content, in bytes (UTF-8, inside the
 * view's JSON string, escapes and `\n` included): every character costs at least one byte there, so the shown text
 * is within `max` code points too, the bound the plan promises. When even the first line alone is over the bound it
 * is cut at a code point and marked (an `excerpt` omission of its left-out code points beside the `lines` one).
 * `undefined` when the bound cannot hold the markers themselves (under about 60 bytes).
 */
export function stringLines(text: string, max: number): StringLines | undefined {
  const cleaned = cleanText(text);
  const excerpt = lineExcerpt(cleaned, max);
  if (viewCost(excerpt.text) > max) return undefined;
  const omissions: StringLines["omissions"] = [];
  if (excerpt.cutFirstLine !== undefined && excerpt.cutFirstLine > 0) {
    omissions.push({ kind: "excerpt", count: excerpt.cutFirstLine });
  }
  const { gap } = excerpt;
  if (gap !== undefined) omissions.push({ kind: "lines", count: gap.to - gap.from + 1, from: gap.from, to: gap.to });
  return { text: excerpt.text, omissions };
}
