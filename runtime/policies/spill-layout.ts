/**
 * How a spilled value is laid out so that a reader can page through it without reading it whole: the value's JSON
 * text as it was given, and an index that makes every item of every array addressable by its JSON pointer (or,
 * for a text value, every line by its number). A page of items is then a few slices of the text, each parsed on
 * its own: a single huge line is never the unit of paging, and the pages of an array concatenate to the array.
 *
 * The index is computed once, when the value is spilled, by one pass over the JSON text (strings are skipped with
 * `indexOf`, so the pass costs about what reading the text costs), and stored with the value; its own sha256 is
 * stored beside it so that a reader can tell an edited index from the one written.
 */
import { pointerSegment } from "../stages/project.js";

/** What a spilled value is: structured JSON, or a text (a JSON string, which is stored and paged as lines). */
export type SpillKind = "json" | "text";

/**
 * The index of a spilled value.
 *
 * - `arrays` (JSON values): one row per array, in document order: `[pointer, start, end, ...itemStarts]`, offsets
 *   in UTF-16 code units of the value's JSON text; the array's text is `[start, end)`, item `i` starts at
 *   `itemStarts[i]` and ends at the last comma before the next item (or at the array's closing bracket).
 * - `lines` (text values): the offset of each line's start in the text (lines end at `\n`, which no line holds).
 */
export interface SpillIndex {
  arrays?: Array<[string, ...number[]]>;
  lines?: number[];
}

/** The kind of a value by its JSON text: a JSON string is a text. */
export function spillKindOf(json: string): SpillKind {
  return json.charCodeAt(firstNonSpace(json, 0)) === 0x22 ? "text" : "json";
}

function firstNonSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Where the string that opens at `at` (a quote) closes: the index of its closing quote. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new SyntaxError("unterminated string in spilled JSON");
    let slashes = 0;
    for (let back = quote - 1; text.charCodeAt(back) === 0x5c; back--) slashes++;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

interface Frame {
  array: boolean;
  pointer: string;
  /** The row of an array (filled as its items are met). */
  row?: [string, ...number[]];
  /** Items of an array met so far; the pending key of an object. */
  count: number;
  key: string | undefined;
  expectKey: boolean;
}

/**
 * The index of a JSON text's arrays, in one iterative pass (any nesting). The text must be valid JSON (the spill
 * policy writes it with `JSON.stringify`); whitespace between tokens is allowed.
 */
export function indexJsonText(text: string): SpillIndex {
  const arrays: Array<[string, ...number[]]> = [];
  const stack: Frame[] = [];
  /** The pointer of a value that begins now, and (in an array) the item's start recorded. */
  const begin = (at: number): string => {
    const top = stack[stack.length - 1];
    if (top === undefined) return "";
    if (top.array) {
      (top.row as number[]).push(at);
      return `${top.pointer}/${top.count++}`;
    }
    return `${top.pointer}/${pointerSegment(top.key as string)}`;
  };
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (isSpace(code) || code === 0x3a /* : */) continue;
    const top = stack[stack.length - 1];
    if (code === 0x2c /* , */) {
      if (top !== undefined && !top.array) top.expectKey = true;
      continue;
    }
    if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      const frame = stack.pop() as Frame;
      if (frame.row !== undefined) frame.row[2] = at + 1;
      continue;
    }
    if (code === 0x22 /* " */) {
      const end = stringEnd(text, at);
      if (top !== undefined && !top.array && top.expectKey) {
        top.key = JSON.parse(text.slice(at, end + 1)) as string;
        top.expectKey = false;
      } else begin(at);
      at = end;
      continue;
    }
    if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      const pointer = begin(at);
      const array = code === 0x5b;
      const frame: Frame = { array, pointer, count: 0, key: undefined, expectKey: !array };
      if (array) {
        frame.row = [pointer, at, at];
        arrays.push(frame.row);
      }
      stack.push(frame);
      continue;
    }
    // A number, true, false or null: to the next structural character.
    begin(at);
    while (at + 1 < text.length && !isDelimiter(text.charCodeAt(at + 1))) at++;
  }
  return { arrays };
}

function isDelimiter(code: number): boolean {
  return code === 0x2c || code === 0x5d || code === 0x7d || isSpace(code);
}

/** The index of a text's lines: where each starts. */
export function indexLines(text: string): SpillIndex {
  const lines = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines.push(at + 1);
  return { lines };
}

/** The index of a value by its JSON text: its arrays, or for a text its lines. */
export function indexSpill(json: string): SpillIndex {
  return spillKindOf(json) === "text" ? indexLines(JSON.parse(json) as string) : indexJsonText(json);
}

/** The text of item `item` of the array whose index row is `row`. */
export function itemText(json: string, row: readonly number[], item: number): string {
  const start = row[3 + item] as number;
  const next = row[4 + item];
  const end = next === undefined ? (row[2] as number) - 1 : json.lastIndexOf(",", next - 1);
  return json.slice(start, end);
}

/** How many items the array of `row` has. */
export function itemCount(row: readonly number[]): number {
  return row.length - 3;
}

/** Line `line` (0-based) of a text indexed by `lines`. */
export function lineText(text: string, lines: readonly number[], line: number): string {
  const start = lines[line] as number;
  const next = lines[line + 1];
  return text.slice(start, next === undefined ? text.length : next - 1);
}
