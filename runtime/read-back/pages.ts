/**
 * One page of a spilled value, fitted to the budget: as many of the asked-for items (or lines) as fit with the
 * delimiter, where the page is and the next page's arguments, found by halving. An item or line larger than a page
 * on its own is shown in part (a line, a string: its first characters) or by its parts (an object or array: the
 * pointers to read instead), and the page says so.
 *
 * A spill holds only what the view shows, cleaned (see `policies/spill.ts`), and a page is cleaned once more all the
 * same (an entry written by an older version, or by hand to a shared store): the page's structured body (`items`,
 * `matches`, `lines`, `parts`) is parsed from the very cleaned JSON text the model reads, so the two never differ.
 */

import type { ContextBudget } from "../contract/types.js";
import { measureText } from "../stages/measure.js";
import { markupSafeText } from "../stages/model-content.js";
import { cleanText } from "../text/hygiene.js";
import type { ReadBackArgs } from "./arguments.js";
import { renderPage } from "./render.js";
import { itemsOf, type Loaded, lineOf, partsOf, select } from "./select.js";
import type { PageBody, ReadBackErrorCode } from "./types.js";

/** What a page is built with. */
export interface PageSettings {
  name: string;
  budget: ContextBudget;
  defaultItems: number;
  defaultLines: number;
  /** The last content measured within budget and its size, so the page that ends up shown is not measured twice. */
  last?: { content: string; value: number } | undefined;
}

/** A page, or why there is none. */
export type Built = { body: PageBody; content: string } | { code: ReadBackErrorCode; problem: string };

const number = (n: number) => n.toLocaleString("en-US");

/** The run of positions a page covers: forward from `offset`, or back from the end. */
function window(total: number, args: ReadBackArgs, limit: number): { start: number; end: number } {
  const offset = args.offset ?? 0;
  if (args.fromEnd) return { start: Math.max(0, total - offset - limit), end: Math.max(0, total - offset) };
  return { start: Math.min(offset, total), end: Math.min(total, offset + limit) };
}

/** The next page's arguments after showing `shown` items of an asked-for `limit`, or none past the end. */
function nextArgs(
  args: ReadBackArgs,
  start: number,
  shown: number,
  total: number,
  asked: number,
): ReadBackArgs | undefined {
  const next: ReadBackArgs = { handle: args.handle };
  if (args.pointer !== undefined) next.pointer = args.pointer;
  if (args.pattern !== undefined) next.pattern = args.pattern;
  if (args.fromEnd) {
    if (start <= 0) return undefined;
    next.fromEnd = true;
    next.offset = total - start;
  } else {
    if (start + shown >= total) return undefined;
    next.offset = start + shown;
  }
  // A page that had to hold fewer than asked hands on the count that fitted, so the next page fits at once.
  if (args.limit !== undefined || shown < asked) next.limit = Math.max(1, Math.min(asked, shown));
  return next;
}

/** A line of a text as a page shows it, in its content and its structured body alike: cleaned. */
function shownLine(loaded: Loaded, line: number): string {
  return cleanText(lineOf(loaded, line));
}

async function measured(settings: PageSettings, content: string): Promise<boolean> {
  const size = await measureText(content, settings.budget);
  if (size.within) settings.last = { content, value: size.value };
  return size.within;
}

/** The largest `n` ≤ `want` for which `make(n)` fits, by halving; 0 when not even one does. */
async function largestFitting(want: number, make: (n: number) => string, settings: PageSettings): Promise<number> {
  if (want === 0 || (await measured(settings, make(want)))) return want;
  let fits = 0;
  let over = want;
  while (over - fits > 1) {
    const middle = (fits + over) >> 1;
    if (await measured(settings, make(middle))) fits = middle;
    else over = middle;
  }
  return fits;
}

/** The longest prefix of `text` (whole code points) for which `make(prefix)` fits. */
async function fittingPrefix(text: string, make: (prefix: string) => string, settings: PageSettings): Promise<string> {
  let fits = 0;
  let over = text.length;
  while (over - fits > 1) {
    const middle = (fits + over) >> 1;
    if (await measured(settings, make(cut(text, middle)))) fits = middle;
    else over = middle;
  }
  return cut(text, fits);
}

/** `text` cut to at most `units` code units, never inside a surrogate pair. */
function cut(text: string, units: number): string {
  const code = text.charCodeAt(units - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? units - 1 : units);
}

/** A page of a structured value. */
export async function jsonPage(loaded: Loaded, args: ReadBackArgs, settings: PageSettings): Promise<Built> {
  if (args.pattern !== undefined) {
    return { code: "invalid_arguments", problem: "pattern applies to text results; use a pointer with *" };
  }
  const pointer = args.pointer ?? "";
  const selection = select(loaded, pointer);
  if ("problem" in selection) return { code: "invalid_arguments", problem: selection.problem };
  const { total } = selection;
  const asked = args.limit ?? settings.defaultItems;
  const { start, end } = window(total, args, asked);
  const items = itemsOf(loaded, selection, start, end - start);
  const where = pointer === "" ? "/" : pointer;
  const plain = selection.kind === "array";
  const sha256 = loaded.record.meta.sha256;
  const what = plain ? "items" : "matches";
  /** Where a page of `n` items from `from` (of those fetched) is, and what comes next. */
  const frame = (from: number, n: number): PageBody => {
    const range = { from: start + from + 1, to: start + from + n, total };
    const note =
      total === 0
        ? `no items at ${where}`
        : n === 0
          ? `no ${what} past ${number(total)} at ${where}`
          : `${what} ${number(range.from)}–${number(range.to)} of ${number(total)} at ${where}`;
    const next = nextArgs(args, start + from, n, total, asked);
    return { handle: args.handle, kind: "json", pointer: where, range, note, next, complete: next === undefined };
  };
  /** The page's items as cleaned JSON text: what the content shows (markup escaped) and the body holds (parsed). */
  const cleanedItems = (from: number, n: number): string => {
    const slice = items.slice(from, from + n);
    const json = plain
      ? `{"items":[${slice.map((item) => item.text).join(",")}]}`
      : `{"matches":[${slice.map((item) => `{"at":${JSON.stringify(item.at)},"value":${item.text}}`).join(",")}]}`;
    return loaded.record.meta.invisible !== false ? cleanText(json) : json;
  };
  const shownItems = (from: number, n: number): string => markupSafeText(cleanedItems(from, n));
  const rendered = new Map<number, string>();
  // Going back from the end keeps the items nearest the end; going forward, the first ones.
  const from = (n: number) => (args.fromEnd ? items.length - n : 0);
  const content = (n: number): string => {
    let text = rendered.get(n);
    if (text === undefined) {
      text = renderPage(settings.name, sha256, frame(from(n), n), shownItems(from(n), n));
      rendered.set(n, text);
    }
    return text;
  };
  const n = await largestFitting(items.length, content, settings);
  if (n > 0 || items.length === 0) {
    const page = frame(from(n), n);
    const shown = JSON.parse(cleanedItems(from(n), n)) as Pick<PageBody, "items" | "matches">;
    if (plain) page.items = shown.items;
    else page.matches = shown.matches;
    return { body: page, content: content(n) };
  }
  // Not even one item fits: show it by its parts.
  const one = from(1);
  const item = items[one] as (typeof items)[number];
  const value = item.value?.value ?? JSON.parse(item.text);
  const allParts = partsOf(loaded, item.at, value);
  for (const keep of [allParts.length, 5, 0]) {
    const page = frame(one, 1);
    page.cut = true;
    page.complete = false;
    const cleaned = cleanText(JSON.stringify({ cut: true, parts: allParts.slice(0, keep) }));
    page.parts = (JSON.parse(cleaned) as Pick<PageBody, "parts">).parts;
    page.note = `${plain ? "item" : "match"} ${number(page.range.from)} of ${number(total)} at ${where} (${cleanText(item.at)}) is larger than a page: read its parts`;
    const text = renderPage(settings.name, sha256, page, markupSafeText(cleaned));
    if (await measured(settings, text)) return { body: page, content: text };
  }
  return { code: "page_over_budget", problem: "not even one item fits the page budget" };
}

/** The line numbers of a text's lines holding `pattern`, kept per pattern (a few at a time). */
function matchingLines(loaded: Loaded, pattern: string): number[] {
  loaded.patterns ??= new Map();
  let found = loaded.patterns.get(pattern);
  if (found === undefined) {
    found = [];
    const total = loaded.text?.lines.length ?? 0;
    // Matched on the lines as a page shows them, so a pattern finds nothing a page would not show.
    for (let line = 0; line < total; line++) if (shownLine(loaded, line).includes(pattern)) found.push(line);
    if (loaded.patterns.size >= 8) loaded.patterns.delete(loaded.patterns.keys().next().value as string);
    loaded.patterns.set(pattern, found);
  }
  return found;
}

/** A page of a text. */
export async function textPage(loaded: Loaded, args: ReadBackArgs, settings: PageSettings): Promise<Built> {
  if (args.pointer !== undefined) {
    return {
      code: "invalid_arguments",
      problem: "pointer applies to structured results; use offset and limit in lines",
    };
  }
  const lineCount = loaded.text?.lines.length ?? 0;
  const matched = args.pattern === undefined ? undefined : matchingLines(loaded, args.pattern);
  const total = matched?.length ?? lineCount;
  const asked = args.limit ?? settings.defaultLines;
  const { start, end } = window(total, args, asked);
  const numbers = Array.from({ length: end - start }, (_, i) => matched?.[start + i] ?? start + i);
  const lines = numbers.map((line) => shownLine(loaded, line));
  const shownLines = lines.map((line) => markupSafeText(JSON.stringify(line)));
  const sha256 = loaded.record.meta.sha256;
  const what = matched === undefined ? "lines" : "matches";
  const ofWhat =
    matched === undefined
      ? `of ${number(total)}`
      : `of ${number(total)} for ${JSON.stringify(args.pattern)} in ${number(lineCount)} lines`;
  const body = (from: number, n: number): PageBody => {
    const range = { from: start + from + 1, to: start + from + n, total };
    const note =
      n === 0 ? `no ${what} past ${number(total)}` : `${what} ${number(range.from)}–${number(range.to)} ${ofWhat}`;
    const page: PageBody = { handle: args.handle, kind: "text", range, note, complete: false };
    if (matched === undefined) page.lines = lines.slice(from, from + n);
    else
      page.matches = numbers
        .slice(from, from + n)
        .map((line, i) => ({ line: line + 1, text: lines[from + i] as string }));
    page.next = nextArgs(args, start + from, n, total, asked);
    page.complete = page.next === undefined;
    return page;
  };
  const content = (from: number, n: number, page = body(from, n)): string => {
    const shown =
      matched === undefined
        ? `{"lines":[${shownLines.slice(from, from + n).join(",")}]}`
        : `{"matches":[${shownLines
            .slice(from, from + n)
            .map((text, i) => `{"line":${(numbers[from + i] as number) + 1},"text":${text}}`)
            .join(",")}]}`;
    return renderPage(settings.name, sha256, page, shown);
  };
  const from = (n: number) => (args.fromEnd ? lines.length - n : 0);
  const n = await largestFitting(lines.length, (k) => content(from(k), k), settings);
  if (n > 0 || lines.length === 0) return { body: body(from(n), n), content: content(from(n), n) };
  // One line longer than a page: its first characters.
  const one = from(1);
  const line = lines[one] as string;
  const page = body(one, 1);
  page.cut = true;
  page.complete = false;
  const described = (shown: number) =>
    `line ${number((numbers[one] as number) + 1)} of ${number(lineCount)} is longer than a page: its first ${number(shown)} of ${number(line.length)} characters`;
  // Fitted with the longest count the note can give, so the note the page ends with is never longer.
  page.note = described(line.length);
  const make = (prefix: string) => {
    const text = markupSafeText(JSON.stringify(prefix));
    const shown =
      matched === undefined
        ? `{"lines":[${text}],"cut":true}`
        : `{"matches":[{"line":${(numbers[one] as number) + 1},"text":${text}}],"cut":true}`;
    return renderPage(settings.name, sha256, page, shown);
  };
  const prefix = await fittingPrefix(line, make, settings);
  if (prefix.length === 0)
    return { code: "page_over_budget", problem: "not even part of one line fits the page budget" };
  if (matched === undefined) page.lines = [prefix];
  else page.matches = [{ line: (numbers[one] as number) + 1, text: prefix }];
  page.note = described(prefix.length);
  return { body: page, content: make(prefix) };
}
