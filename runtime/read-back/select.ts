/**
 * What a read-back call selects in a spilled value: a JSON pointer, `*` standing for every item of an array, resolved
 * over the spill's index (`policies/spill-layout.ts`), so that a page of an array's items parses those items and
 * nothing else. A value that is not an array item is parsed from the nearest array item that holds it (the whole
 * value only when no array holds it).
 */
import { indexLines, itemCount, itemText, lineText } from "../policies/spill-layout.js";
import type { SpillRecord } from "../policies/spill-store.js";
import { pointerSegment } from "../stages/project.js";

/** A spilled value loaded for reading: verified once, with what reading it has computed so far. */
export interface Loaded {
  record: SpillRecord;
  /** Each array's index row by its pointer (JSON values): `[pointer, start, end, ...itemStarts]`. */
  arrays: Map<string, Row>;
  /** The text and its line starts (text values). */
  text?: { text: string; lines: readonly number[] } | undefined;
  /** The whole value parsed, when something needed it. */
  root?: { value: unknown } | undefined;
  /** Selections made so far, by pointer. */
  selections: Map<string, Selection>;
  /** Line numbers holding each pattern asked for so far (a few). */
  patterns?: Map<string, number[]> | undefined;
}

/** An index row as the layout's helpers read it (its first slot, the pointer, is never read as a number). */
type Row = readonly number[];

/** A selection: one array's items, or the values a pattern with `*` matched. */
export type Selection =
  | { kind: "array"; pointer: string; row: Row; total: number }
  | { kind: "values"; pointer: string; paths: string[]; total: number };

/** The most values a pattern may match. */
export const MAX_MATCHES = 1_000_000;

/**
 * The most segments a pointer may have: the gate admits no value nested deeper than 64 levels (the ceiling of
 * `receive.maxDepth`), so a longer pointer names nothing.
 */
export const MAX_POINTER_SEGMENTS = 64;

/**
 * The most segment steps one selection may take: every match costs a step per segment of its path, to build it
 * and to look it up. This bounds the work a pointer asks for, not only what it returns: `/entries/*` followed by
 * hundreds of `/0` once cost matches × segments² and held the event loop for seconds.
 */
export const MAX_SELECT_STEPS = 4_000_000;

/** Loads a record for reading: its arrays by pointer, or its text's lines. */
export function load(record: SpillRecord): Loaded {
  const loaded: Loaded = { record, arrays: new Map(), selections: new Map() };
  if (record.meta.kind === "text") {
    const text = JSON.parse(record.json) as string;
    loaded.text = { text, lines: record.index.lines ?? (indexLines(text).lines as number[]) };
  } else {
    for (const row of record.index.arrays ?? []) loaded.arrays.set(row[0], row as unknown as Row);
  }
  return loaded;
}

/** A text value's line `line` (0-based). */
export function lineOf(loaded: Loaded, line: number): string {
  const text = loaded.text as NonNullable<Loaded["text"]>;
  return lineText(text.text, text.lines, line);
}

/** The segments of a JSON pointer, unescaped. */
function segmentsOf(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function pointerOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${pointerSegment(segment)}`).join("");
}

const INDEX = /^(0|[1-9][0-9]*)$/;

/** The pointers of each leading part of `segments`: entry `k` is the pointer of the first `k` segments. */
function prefixPointers(segments: readonly string[]): string[] {
  const prefixes = [""];
  for (const segment of segments) prefixes.push(`${prefixes[prefixes.length - 1]}/${pointerSegment(segment)}`);
  return prefixes;
}

/**
 * The value at a concrete pointer, parsed from the smallest indexed part that holds it; `undefined` when absent.
 * Linear in the pointer's length: each leading part's pointer is built once.
 */
export function valueAt(loaded: Loaded, segments: readonly string[]): { value: unknown } | undefined {
  const { json } = loaded.record;
  const prefixes = prefixPointers(segments);
  const own = loaded.arrays.get(prefixes[segments.length] as string);
  if (own !== undefined) return { value: JSON.parse(json.slice(own[1], own[2])) };
  for (let k = segments.length; k >= 1; k--) {
    const row = loaded.arrays.get(prefixes[k - 1] as string);
    const index = segments[k - 1] as string;
    if (row === undefined || !INDEX.test(index)) continue;
    const item = Number(index);
    if (item >= itemCount(row)) return undefined;
    return descend(JSON.parse(itemText(json, row, item)), segments.slice(k));
  }
  loaded.root ??= { value: JSON.parse(json) };
  return descend(loaded.root.value, segments);
}

function descend(start: unknown, segments: readonly string[]): { value: unknown } | undefined {
  let value = start;
  for (const segment of segments) {
    if (Array.isArray(value)) {
      if (!INDEX.test(segment) || Number(segment) >= value.length) return undefined;
      value = value[Number(segment)];
    } else if (value !== null && typeof value === "object" && Object.hasOwn(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else return undefined;
  }
  return { value };
}

/** What `pointer` selects, or why it selects nothing. */
export function select(loaded: Loaded, pointer: string): Selection | { problem: string } {
  const kept = loaded.selections.get(pointer);
  if (kept !== undefined) return kept;
  const segments = segmentsOf(pointer);
  if (segments.length > MAX_POINTER_SEGMENTS) {
    return { problem: `the pointer has more than ${MAX_POINTER_SEGMENTS} segments: no value is nested that deep` };
  }
  let selection: Selection | { problem: string };
  if (!segments.includes("*")) {
    const row = loaded.arrays.get(pointerOf(segments));
    if (row !== undefined) selection = { kind: "array", pointer, row, total: itemCount(row) };
    else if (valueAt(loaded, segments) === undefined) selection = { problem: "nothing is at that pointer" };
    else selection = { kind: "values", pointer, paths: [pointerOf(segments)], total: 1 };
  } else {
    selection = expand(loaded, pointer, segments);
  }
  if ("kind" in selection) loaded.selections.set(pointer, selection);
  return selection;
}

/** Every concrete pointer a pattern with `*` matches, in document order. */
function expand(loaded: Loaded, pointer: string, segments: readonly string[]): Selection | { problem: string } {
  const tooMuch = {
    problem: `the pattern asks for more than ${MAX_SELECT_STEPS} steps (matches times segments): name fewer items or a shorter path`,
  };
  let steps = 0;
  let paths: string[][] = [[]];
  for (const segment of segments) {
    const next: string[][] = [];
    for (const path of paths) {
      // Each path built costs its length in steps (the copy), counted before it is made.
      steps += path.length + 1;
      if (steps > MAX_SELECT_STEPS) return tooMuch;
      if (segment !== "*") {
        next.push([...path, segment]);
        continue;
      }
      const row = loaded.arrays.get(pointerOf(path));
      if (row === undefined) continue;
      const count = itemCount(row);
      if (next.length + count > MAX_MATCHES) return { problem: `the pattern matches more than ${MAX_MATCHES} values` };
      steps += count * (path.length + 1);
      if (steps > MAX_SELECT_STEPS) return tooMuch;
      for (let item = 0; item < count; item++) next.push([...path, String(item)]);
    }
    paths = next;
  }
  // Past the last `*`, a segment may name nothing in some items: those are not matches. Looking each up costs its
  // length again.
  const last = segments.lastIndexOf("*");
  if (last !== segments.length - 1 && steps + paths.length * segments.length > MAX_SELECT_STEPS) return tooMuch;
  const found = last === segments.length - 1 ? paths : paths.filter((path) => valueAt(loaded, path) !== undefined);
  if (found.length === 0) return { problem: "nothing matches that pointer" };
  return { kind: "values", pointer, paths: found.map(pointerOf), total: found.length };
}

/**
 * Items `from` to `from + count − 1` of a selection: their pointers and JSON texts (and, for matches, their values,
 * which finding them parsed). An array's items are not parsed here: a page parses the ones it shows, at once.
 */
export function itemsOf(
  loaded: Loaded,
  selection: Selection,
  from: number,
  count: number,
): Array<{ at: string; text: string; value?: { value: unknown } }> {
  const out: Array<{ at: string; text: string; value?: { value: unknown } }> = [];
  const { json } = loaded.record;
  for (let item = from; item < from + count; item++) {
    if (selection.kind === "array") {
      out.push({ at: `${selection.pointer}/${item}`, text: itemText(json, selection.row, item) });
    } else {
      const at = selection.paths[item] as string;
      const found = valueAt(loaded, segmentsOf(at)) as { value: unknown };
      out.push({ at, text: JSON.stringify(found.value), value: found });
    }
  }
  return out;
}

/** For a value larger than a page: the pointers of its parts, with their item counts where they are arrays. */
export function partsOf(
  loaded: Loaded,
  at: string,
  value: unknown,
  max = 20,
): Array<{ pointer: string; items?: number }> {
  const parts: Array<{ pointer: string; items?: number }> = [];
  const keys = Array.isArray(value) ? [] : value !== null && typeof value === "object" ? Object.keys(value) : [];
  if (Array.isArray(value)) parts.push({ pointer: `${at}/*`, items: value.length });
  for (const key of keys.slice(0, max)) {
    const pointer = `${at}/${pointerSegment(key)}`;
    const row = loaded.arrays.get(pointer);
    parts.push(row === undefined ? { pointer } : { pointer, items: itemCount(row) });
  }
  return parts;
}
