/**
 * The structure `shorten` cuts: a view (what the plan's projection showed) read once into a tree that knows what
 * each part costs in the model content, and the view cut to one level.
 *
 * A level `L` (bytes of model content) is a water line over the view's parts: every array and every string is a
 * part, and a part that costs more than `L` is cut to `L`. An array keeps its first items whole while they fit in
 * `L` (in the order the plan shows them, so a contract's `take` order holds), a string keeps whole lines from its
 * head and tail (`lineExcerpt`, re-cut from the tool's own string, not from the plan's excerpt of it). Parts that
 * cost less than the level stay whole, so a small array beside a large one is never cut, and every item an array
 * keeps is whole, but the first item of an array whose first item alone costs more than `L`: that item is shown
 * with its own parts cut to `L`, so a large result never reads as nothing. The cost of the cut view grows with the
 * level, which is what lets the policy search for the largest level that fits.
 *
 * The walk recurses along the view, whose depth the parse stage bounded (`limits.maxDepth`, at most 64).
 */

import type { Omission } from "../contract/types.js";
import { type LineExcerpt, lineExcerpt, viewCost } from "../stages/line-excerpt.js";
import { pointerSegment } from "../stages/project.js";
import { cleanText } from "../text/hygiene.js";

/**
 * One part of a view, with what it costs in the model content's JSON (bytes, UTF-8, markup escapes included) and the
 * view's own value for it, shown as it is when the part is kept whole (views are plain data, never changed).
 */
export type ViewNode =
  | { kind: "leaf"; value: unknown; path: string; cost: number }
  | { kind: "string"; value: string; source: unknown; path: string; cost: number; cleaned?: string }
  | {
      kind: "object";
      value: unknown;
      entries: Array<[key: string, keyCost: number, node: ViewNode]>;
      path: string;
      cost: number;
    }
  | { kind: "array"; value: unknown; items: ViewNode[]; path: string; cost: number };

/** A view cut to one level: the view the model reads, what it costs, and what the cut left out, by path. */
export interface CutView {
  view: unknown;
  /** What the cut view costs in the model content's JSON, as {@link ViewNode} counts it. */
  bytes: number;
  /** Arrays cut, by path: how many more items the cut left out. */
  items: Map<string, number>;
  /** Strings re-cut, by path: their omissions (lines and a cut first line), which replace the plan's. */
  strings: Map<string, Omission[]>;
  /** Paths of array items left out whole: the plan's omissions under them no longer describe the view. */
  dropped: string[];
}

/** Printable ASCII that JSON and the markup escapes leave as it is: one byte a character. */
const PLAIN = /^[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]*$/;

/** What a string costs inside its JSON quotes: its length when plain, else as the view writes it. */
function textCost(text: string): number {
  return PLAIN.test(text) ? text.length : viewCost(text);
}

/**
 * Reads a view into its tree. `data` is the validated value the view was projected from: a string's own text is
 * taken from it when the paths agree, so a string the plan showed as an excerpt is re-cut from the whole. `skipped`
 * holds the paths of array items the plan left out (an object under a `value` node), which shift the view's indices.
 */
export function viewTree(view: unknown, data: unknown, path = "", skipped: ReadonlySet<string> = new Set()): ViewNode {
  if (typeof view === "string") {
    const source = typeof data === "string" ? data : view;
    return { kind: "string", value: view, source, path, cost: textCost(view) + 2 };
  }
  if (Array.isArray(view)) {
    const items: ViewNode[] = [];
    const source = Array.isArray(data) ? data : [];
    let cost = 2 + Math.max(0, view.length - 1);
    let index = 0;
    for (const item of view) {
      while (skipped.has(`${path}/${index}`)) index++;
      const node = viewTree(item, source[index], `${path}/${index}`, skipped);
      cost += node.cost;
      items.push(node);
      index++;
    }
    return { kind: "array", value: view, items, path, cost };
  }
  if (view !== null && typeof view === "object") {
    const entries: Array<[string, number, ViewNode]> = [];
    const source = data !== null && typeof data === "object" ? (data as Record<string, unknown>) : {};
    const keys = Object.keys(view);
    let cost = 2 + Math.max(0, keys.length - 1);
    for (const key of keys) {
      const own = Object.hasOwn(source, key) ? source[key] : undefined;
      const node = viewTree((view as Record<string, unknown>)[key], own, `${path}/${pointerSegment(key)}`, skipped);
      // The key as written, its quotes and the colon.
      const keyCost = textCost(key) + 3;
      cost += keyCost + node.cost;
      entries.push([key, keyCost, node]);
    }
    return { kind: "object", value: view, entries, path, cost };
  }
  // Numbers, booleans and null: their JSON is plain ASCII.
  return { kind: "leaf", value: view, path, cost: (JSON.stringify(view) ?? "null").length };
}

/** The largest part of a tree, by cost: past that level nothing is cut. */
export function largestPart(node: ViewNode): number {
  switch (node.kind) {
    case "leaf":
      return 0;
    case "string":
      return node.cost;
    case "array":
      return node.items.reduce((most, item) => Math.max(most, largestPart(item)), node.cost);
    case "object":
      return node.entries.reduce((most, [, , child]) => Math.max(most, largestPart(child)), 0);
  }
}

/** A part of the cut view and what it costs. */
interface Piece {
  value: unknown;
  cost: number;
}

/** A string cut to `level` bytes as whole lines of its own cleaned text, and what the cut left out. */
function cutString(node: Extract<ViewNode, { kind: "string" }>, level: number, into: CutView): Piece {
  if (node.cleaned === undefined) node.cleaned = typeof node.source === "string" ? cleanText(node.source) : node.value;
  // The quotes are part of the string's cost; the excerpt's bound is what it holds between them.
  const excerpt: LineExcerpt = lineExcerpt(node.cleaned, Math.max(0, level - 2));
  const cost = viewCost(excerpt.text) + 2;
  // A string shorter than the markers that would replace it is shown whole: a cut never costs more than the part.
  if (cost >= node.cost) return node;
  const omissions: Omission[] = [];
  if (excerpt.cutFirstLine !== undefined && excerpt.cutFirstLine > 0) {
    omissions.push({ path: node.path, kind: "excerpt", count: excerpt.cutFirstLine });
  }
  const { gap } = excerpt;
  if (gap !== undefined) {
    omissions.push({ path: node.path, kind: "lines", count: gap.to - gap.from + 1, from: gap.from, to: gap.to });
  }
  into.strings.set(node.path, omissions);
  return { value: excerpt.text, cost };
}

/** An array cut to `level`: its first items whole while they fit, or its first item cut when none does. */
function cutArray(node: Extract<ViewNode, { kind: "array" }>, level: number, into: CutView): Piece {
  const kept: unknown[] = [];
  let cost = 2;
  for (const item of node.items) {
    const more = item.cost + (kept.length > 0 ? 1 : 0);
    if (cost + more > level) break;
    cost += more;
    kept.push(item.value);
  }
  const first = node.items[0];
  if (kept.length === 0 && first !== undefined) {
    const piece = cut(first, level - 2, into);
    kept.push(piece.value);
    cost += piece.cost;
  }
  if (kept.length < node.items.length) {
    into.items.set(node.path, node.items.length - kept.length);
    for (let i = kept.length; i < node.items.length; i++) into.dropped.push((node.items[i] as ViewNode).path);
  }
  return { value: kept, cost };
}

/** A part cut to `level` (see the module comment). */
function cut(node: ViewNode, level: number, into: CutView): Piece {
  if (node.cost <= level || node.kind === "leaf") return node;
  if (node.kind === "string") return cutString(node, level, into);
  if (node.kind === "array") return cutArray(node, level, into);
  const out: Record<string, unknown> = {};
  let cost = node.cost;
  for (const [key, , child] of node.entries) {
    const piece = cut(child, level, into);
    cost += piece.cost - child.cost;
    // Defined, not assigned: a `__proto__` key stays a key.
    Object.defineProperty(out, key, { value: piece.value, enumerable: true, writable: true, configurable: true });
  }
  return { value: out, cost };
}

/** The view cut to `level` bytes per part. */
export function cutView(tree: ViewNode, level: number): CutView {
  const into: CutView = { view: undefined, bytes: 0, items: new Map(), strings: new Map(), dropped: [] };
  const piece = cut(tree, level, into);
  into.view = piece.value;
  into.bytes = piece.cost;
  return into;
}

/** Whether `path` is `prefix` or lies below it. */
function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The omissions of a cut view: the plan's, less those under items left out and of strings re-cut, each array's
 * count raised by what the cut left out of it, and the re-cut strings' own.
 */
export function cutOmissions(planned: readonly Omission[], cut: CutView): Omission[] {
  const out: Omission[] = [];
  const raised = new Set<string>();
  for (const omission of planned) {
    if (cut.dropped.some((path) => under(omission.path, path))) continue;
    if (cut.strings.has(omission.path) && omission.kind !== "items") continue;
    const more = omission.kind === "items" ? cut.items.get(omission.path) : undefined;
    if (more === undefined) {
      out.push(omission);
    } else {
      out.push({ ...omission, count: omission.count + more });
      raised.add(omission.path);
    }
  }
  for (const [path, count] of cut.items) if (!raised.has(path)) out.push({ path, kind: "items", count });
  for (const omissions of cut.strings.values()) out.push(...omissions);
  return out;
}
