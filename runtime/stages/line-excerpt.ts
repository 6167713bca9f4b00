/**
 * The view of a text result: whole lines from the head and the tail of the text, with one marked gap where lines
 * were left out, within a byte bound measured on what the model reads.
 *
 * A text is never cut mid-line or mid-character without a marker: lines are kept whole, and only when not even the
 * first line fits is that line cut, at a code point, and marked with how much of it is left out. The gap names the
 * lines it leaves out (1-based, inclusive) and how many lines the text has, so the model can ask for them.
 *
 * Sizes count what the model content holds: each line as it is written inside the view's JSON string (quotes,
 * backslashes and controls escaped, and `<`, `>`, `&` and their lookalikes as `\u00XX`, see `markupSafeJson`), and
 * each line break as the two characters `\n`. So a view of `maxBytes` costs at most `maxBytes` in the rendered body.
 */
import { cleanText, lastCleanPlain, utf8Length } from "../text/hygiene.js";
import { markupSafeJson } from "./model-content.js";

/** Where a text view left lines out. Line numbers are 1-based and inclusive. */
export interface LineGap {
  from: number;
  to: number;
}

/** A text brought within a byte bound by whole lines. */
export interface LineExcerpt {
  /** What the model reads: the kept lines, and the gap's marker line between head and tail. */
  text: string;
  /** Lines in the whole text (a final line break does not start another line). */
  lines: number;
  /** The lines left out, when any were. */
  gap?: LineGap | undefined;
  /** Code points left out of the first line, when even that line alone was over the bound. */
  cutFirstLine?: number | undefined;
}

/** How the bound is shared between the head and the tail; what one side does not use goes to the other. */
export interface LineWindow {
  /** The share of the bound for the first lines, 0 to 1 (default 2/3: a text's start usually says what it is). */
  headShare?: number;
}

/**
 * What each ASCII code unit costs inside the view's JSON string: 1, 2 for `"`, `\\` and the controls JSON writes
 * as a letter escape (`\\b`, `\\t`, `\\n`, `\\f`, `\\r`), 6 for the other controls and for `&`, `<`, `>` (`\\u00XX`).
 */
const ASCII_COST = new Uint8Array(128);
for (let unit = 0; unit < 128; unit++) {
  const char = String.fromCharCode(unit);
  ASCII_COST[unit] = markupSafeJson(char).length - 2;
}

/**
 * The bytes a piece of text costs inside the view's JSON string (its escapes, without the quotes): exactly the
 * UTF-8 length of `markupSafeJson(text)` less its quotes, counted code unit by code unit without writing it (the
 * text view sums it over every line of a text that may be megabytes long).
 */
export function viewCost(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += ASCII_COST[unit] as number;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4; // a pair: 2 units, 4 bytes
        i++;
      } else bytes += 6; // a lone surrogate, which JSON.stringify writes as \uDXXX
    } else if (
      unit === 0x2028 ||
      unit === 0x2029 ||
      unit === 0xfe60 ||
      unit === 0xfe64 ||
      unit === 0xfe65 ||
      unit === 0xff06 ||
      unit === 0xff1c ||
      unit === 0xff1e
    ) {
      bytes += 6; // the markup lookalikes and the two separators, escaped by markupSafeJson
    } else bytes += 3;
  }
  return bytes;
}

/** The cost of a line break between two kept lines, written as `\n`. */
const BREAK_COST = 2;

/** The marker of a gap, as the model reads it. */
export function gapMarker(gap: LineGap, lines: number): string {
  const count = gap.to - gap.from + 1;
  return `[… ${count} ${count === 1 ? "line" : "lines"} left out: lines ${gap.from}–${gap.to} of ${lines} …]`;
}

/** The marker that ends a first line cut because it alone is over the bound. */
function cutMarker(leftOut: number): string {
  return ` […the line goes on for ${leftOut} more characters]`;
}

/**
 * Lines in `text` by the rule of {@link lineExcerpt} (a final line break ends the last line), but none in the empty
 * text; counting stops past `max`.
 */
export function countLines(text: string, max = Number.POSITIVE_INFINITY): number {
  if (text === "") return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at >= 0 && lines <= max; at = text.indexOf("\n", at + 1)) {
    if (at < text.length - 1) lines++;
  }
  return lines;
}

/** The lines of a text, read one at a time: as they are, or cleaned when first read ({@link cleanedLines}). */
export interface TextLines {
  /** Lines in the text; a final line break ends the last line rather than starting an empty one. */
  readonly total: number;
  /** Line `index` (0-based), without its line break. */
  at(index: number): string;
  /** The whole text: every line, with its line breaks. */
  whole(): string;
  /** Whether {@link whole} ends with a line break after the last line (which costs its `\n` like any other). */
  readonly finalBreak: boolean;
  /**
   * Line `index`'s {@link viewCost}, kept once measured, when the lines are measured more than once (the text
   * view's rounds): every {@link lineExcerpt} over them then measures each line once in all.
   */
  costAt?: ((index: number) => number) | undefined;
  /**
   * Whether line `index`, once read, is known to hold nothing JSON or the markup escapes (the pass that cleaned it
   * found none): it then costs its UTF-8 length, which is counted natively instead of unit by unit.
   */
  plainAt?: ((index: number) => boolean) | undefined;
}

/** `lines` with each line's {@link viewCost} kept once measured ({@link TextLines.costAt}). */
export function withCosts<L extends TextLines>(lines: L): L & { costAt(index: number): number } {
  const costs: number[] = [];
  const costAt = (index: number): number => {
    let cost = costs[index];
    if (cost === undefined) {
      const line = lines.at(index);
      cost = lines.plainAt?.(index) === true ? utf8Length(line) : viewCost(line);
      costs[index] = cost;
    }
    return cost;
  };
  return { ...lines, costAt };
}

/** The lines of `text` as they are. */
function plainLines(text: string): TextLines {
  const lines = text.split("\n");
  const finalBreak = lines.length > 1 && lines[lines.length - 1] === "";
  if (finalBreak) lines.pop();
  return { total: lines.length, at: (index) => lines[index] as string, whole: () => text, finalBreak };
}

/**
 * The lines of `cleanText(source)`, each found and cleaned only when first read, from whichever end of the text is
 * nearer, so a large text is split and cleaned only as far as an excerpt reaches from either end. Cleaning never
 * removes a line break and judges a joiner or a selector only by its neighbours on the same line, so the cleaned
 * text's lines are the source's lines cleaned one by one; the last one is read at once, since a last line that
 * cleans to nothing becomes the final line break. `counted` is `countLines(source)` when already known.
 */
export function cleanedLines(source: string, counted = countLines(source)): TextLines & { count: number } {
  const finalBreak = source.endsWith("\n");
  const raw = Math.max(1, counted);
  // Line `i` is `source.slice(begin[i], end[i])`, known for lines `0 … ahead - 1` and `behind … raw - 1`.
  const begin: number[] = new Array(raw);
  const end: number[] = new Array(raw);
  const cleaned: Array<string | undefined> = new Array(raw);
  // 1 for a line its cleaning found plain: a byte a line, where the other lists take a pointer.
  const plain = new Uint8Array(raw);
  begin[0] = 0;
  end[0] = lineEnd(source, 0);
  let ahead = 1;
  end[raw - 1] = finalBreak ? source.length - 1 : source.length;
  begin[raw - 1] = lineStart(source, end[raw - 1] as number);
  let behind = raw - 1;
  const at = (index: number): string => {
    let line = cleaned[index];
    if (line !== undefined) return line;
    if (index >= ahead && index < behind) {
      if (index - ahead < behind - index) {
        for (; ahead <= index; ahead++) {
          begin[ahead] = (end[ahead - 1] as number) + 1;
          end[ahead] = lineEnd(source, begin[ahead] as number);
        }
      } else {
        for (; behind > index; behind--) {
          end[behind - 1] = (begin[behind] as number) - 1;
          begin[behind - 1] = lineStart(source, end[behind - 1] as number);
        }
      }
    }
    line = cleanText(source.slice(begin[index], end[index]));
    cleaned[index] = line;
    plain[index] = lastCleanPlain() ? 1 : 0;
    return line;
  };
  const plainAt = (index: number): boolean => plain[index] === 1;
  // Without a final line break, a last line that cleans to nothing is one: the cleaned text has a line less.
  const popped = finalBreak || (raw > 1 && at(raw - 1) === "");
  const total = finalBreak ? raw : popped ? raw - 1 : raw;
  const whole = (): string => {
    const lines: string[] = new Array(total);
    for (let i = 0; i < total; i++) lines[i] = at(i);
    return lines.join("\n") + (popped ? "\n" : "");
  };
  // As `countLines` counts the cleaned text: none when it is empty.
  const count = total === 1 && !popped && at(0) === "" ? 0 : total;
  return { total, at, whole, count, finalBreak: popped, plainAt };
}

/** Where the line starting at `from` ends: its line break, or the end of the text. */
function lineEnd(text: string, from: number): number {
  const at = text.indexOf("\n", from);
  return at < 0 ? text.length : at;
}

/** Where the line ending at `to` (its line break, or the end of the text) starts. */
function lineStart(text: string, to: number): number {
  return to === 0 ? 0 : text.lastIndexOf("\n", to - 1) + 1;
}

/**
 * Whole lines of `text` within `maxBytes` (see the module comment for what a byte costs): the text itself when it
 * fits, else as many first lines as fit in the head's share, as many last lines as fit in the rest, and the gap's
 * marker between them. Linear in the length of the text. `text` is a string, or its lines ({@link cleanedLines}).
 */
export function lineExcerpt(text: string | TextLines, maxBytes: number, window: LineWindow = {}): LineExcerpt {
  const lines = typeof text === "string" ? plainLines(text) : text;
  const total = lines.total;
  // Each line's cost is measured when a step first asks for it: a large text is measured only as far as the bound
  // reaches from either end, not whole.
  const costOf = lines.costAt ?? withCosts(lines).costAt;
  // Every break the whole text holds: between its lines, and after the last one when the text ends with one.
  let whole = (total - 1 + (lines.finalBreak ? 1 : 0)) * BREAK_COST;
  for (let i = 0; i < total && whole <= maxBytes; i++) whole += costOf(i);
  if (whole <= maxBytes) return { text: lines.whole(), lines: total };

  // The marker's cost with the widest numbers it can hold (a count as wide as the total, and "lines" in the plural,
  // one more than the gap of one line measured here), and the two breaks around it.
  const marker = viewCost(gapMarker({ from: total, to: total }, total)) + String(total).length + 2 * BREAK_COST;
  const available = Math.max(0, maxBytes - marker);
  const share = Math.min(1, Math.max(0, window.headShare ?? 2 / 3));
  let headBudget = Math.floor(available * share);

  let head = 0;
  let used = 0;
  while (head < total) {
    const cost = costOf(head) + (head > 0 ? BREAK_COST : 0);
    if (used + cost > headBudget) break;
    used += cost;
    head++;
  }
  headBudget = used;
  let tail = 0;
  used = 0;
  const tailBudget = available - headBudget;
  while (head + tail < total) {
    const cost = costOf(total - 1 - tail) + (tail > 0 ? BREAK_COST : 0);
    if (used + cost > tailBudget) break;
    used += cost;
    tail++;
  }
  if (head === 0 && tail === 0) return cutFirst(lines, available);
  // The head may take what the tail left, one whole line at a time.
  let spare = tailBudget - used;
  while (head + tail < total) {
    const cost = costOf(head) + BREAK_COST;
    if (cost > spare) break;
    spare -= cost;
    head++;
  }
  if (head + tail === total) return { text: lines.whole(), lines: total };
  const gap = { from: head + 1, to: total - tail };
  const kept: string[] = [];
  for (let i = 0; i < head; i++) kept.push(lines.at(i));
  kept.push(gapMarker(gap, total));
  for (let i = total - tail; i < total; i++) kept.push(lines.at(i));
  return { text: kept.join("\n"), lines: total, gap };
}

/** The first line alone is over the bound: its leading code points that fit, and a marker saying how many are left. */
function cutFirst(lines: TextLines, available: number): LineExcerpt {
  const first = lines.at(0);
  const total = lines.total;
  const firstLength = [...first].length;
  const gap = total > 1 ? { from: 2, to: total } : undefined;
  const after = gap === undefined ? 0 : viewCost(gapMarker(gap, total)) + BREAK_COST;
  // The room for the line's start: what the bound leaves after the markers (the cut marker with the widest count).
  const room = Math.max(0, available - after - viewCost(cutMarker(firstLength)));
  // JSON escapes do not depend on their neighbours, so the prefix's cost is the sum of its characters' costs.
  let end = 0;
  let used = 0;
  for (const char of first) {
    const cost = viewCost(char);
    if (used + cost > room) break;
    used += cost;
    end += char.length;
  }
  const keep = first.slice(0, end);
  const leftOut = firstLength - [...keep].length;
  const text = `${keep}${cutMarker(leftOut)}${gap === undefined ? "" : `\n${gapMarker(gap, total)}`}`;
  return { text, lines: total, gap, cutFirstLine: leftOut };
}
