/**
 * A string field under overflow `lines` (a file's contents, a log) reaches the model as whole lines. Invariants, for
 * any string and any bound:
 * - a string within `max` code points is shown whole, with no omission;
 * - otherwise the shown text costs at most `max` bytes as the model content writes it, and so holds at most `max`
 *   code points: the plan's bound holds in both units;
 * - it is a prefix of the cleaned string's lines, one marker line naming exactly the lines left out, and a suffix
 *   of its lines, each kept line a whole line of the string; the `lines` omission names the same lines;
 * - only when not even the first line fits is that line cut, and an `excerpt` omission says how much of it is left;
 * - a bound too small for the markers gives the code-point excerpt instead, never more than the bound.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Omission, ViewPlan } from "../../../runtime/contract/types.js";
import { gapMarker, viewCost } from "../../../runtime/stages/line-excerpt.js";
import { project, stringLines } from "../../../runtime/stages/project.js";
import { cleanText, codePointLength } from "../../../runtime/text/hygiene.js";

function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const line = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("<b>&amp;</b>", '"quoted" \\ back', "\u2028", "tab\there", "東京 🧪", "", "zero\u200bwidth", "cr\r"),
);
const text = fc.array(line, { maxLength: 300 }).map((lines) => lines.join("\n"));

/** The plan of a file read's result: `{ content: string }`, its string shown as lines. */
function contentPlan(max: number): ViewPlan {
  return { kind: "object", properties: { content: { kind: "string", max, overflow: "lines" } } };
}

/** Checks one projected string against the invariants; returns its `lines` omission, if any. */
function checkLines(original: string, shown: string, omissions: Omission[], max: number): Omission | undefined {
  const cleaned = cleanText(original);
  if (codePointLength(cleaned) <= max) {
    expect(shown).toBe(cleaned);
    expect(omissions).toEqual([]);
    return undefined;
  }
  expect(omissions.length).toBeGreaterThan(0);
  expect(codePointLength(shown)).toBeLessThanOrEqual(max);
  const gapOmission = omissions.find((o) => o.kind === "lines");
  const cut = omissions.find((o) => o.kind === "excerpt");
  if (gapOmission === undefined && cut === undefined) throw new Error("neither lines nor an excerpt were reported");
  if (omissions.some((o) => o.kind === "excerpt") && !shown.includes("[…the line goes on for")) {
    // The bound could not hold the markers: the code-point excerpt, marked at its end.
    expect(omissions).toEqual([{ path: "/content", kind: "excerpt", count: expect.any(Number) }]);
    expect(shown.endsWith("…") || (max === 0 && shown === "")).toBe(true);
    expect(cleaned.startsWith(shown.slice(0, -1))).toBe(true);
    return undefined;
  }
  expect(viewCost(shown)).toBeLessThanOrEqual(max);
  const all = linesOf(cleaned);
  const kept = shown.split("\n");
  if (cut !== undefined) {
    // Only the first line, cut at a code point and marked, then the marker of every other line.
    const start = (kept[0] as string).replace(/ \[…the line goes on for \d+ more characters\]$/, "");
    expect(all[0]?.startsWith(start)).toBe(true);
    expect(codePointLength(all[0] as string) - codePointLength(start)).toBe(cut.count);
    if (all.length > 1) expect(gapOmission).toMatchObject({ from: 2, to: all.length, count: all.length - 1 });
    else expect(gapOmission).toBeUndefined();
    return gapOmission;
  }
  const { from, to, count } = gapOmission as Required<Omission>;
  expect(count).toBe(to - from + 1);
  expect(from).toBeGreaterThanOrEqual(1);
  expect(to).toBeLessThanOrEqual(all.length);
  // Head: a prefix of the string's lines; then the marker naming exactly the gap; then a suffix of its lines.
  expect(kept.slice(0, from - 1)).toEqual(all.slice(0, from - 1));
  expect(kept[from - 1]).toBe(gapMarker({ from, to }, all.length));
  expect(kept.slice(from)).toEqual(all.slice(to));
  expect(kept.length).toBe(all.length - count + 1);
  return gapOmission;
}

describe("overflow lines", () => {
  it("keeps whole lines of the string within the bound, with the gap exact, for any string and bound", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 4096 }), (t, max) => {
        const out = project({ content: t }, contentPlan(max));
        const shown = (out.view as { content: string }).content;
        checkLines(t, shown, out.omissions, max);
        expect(out.complete).toBe(out.omissions.length === 0);
      }),
      { numRuns: 400 },
    );
  });

  it("shows a long log as its first and last lines, the omission naming the lines between", () => {
    const log = Array.from({ length: 500 }, (_, i) => `${String(i + 1).padStart(3, "0")} request served`).join("\n");
    const out = project({ content: log }, contentPlan(600));
    const shown = (out.view as { content: string }).content;
    checkLines(log, shown, out.omissions, 600);
    const [, from, to] = /lines (\d+)–(\d+) of 500/.exec(shown)?.map(Number) ?? [];
    expect(out.omissions).toEqual([{ path: "/content", kind: "lines", count: (to ?? 0) - (from ?? 0) + 1, from, to }]);
    expect(shown.startsWith("001 request served\n002 request served\n")).toBe(true);
    expect(shown.endsWith("499 request served\n500 request served")).toBe(true);
    expect(shown).toMatch(/\[… \d+ lines left out: lines \d+–\d+ of 500 …\]/);
    // The same string under the default `excerpt` is cut mid-line.
    const excerpt = project(
      { content: log },
      { kind: "object", properties: { content: { kind: "string", max: 600, overflow: "excerpt" } } },
    );
    expect(excerpt.omissions).toEqual([{ path: "/content", kind: "excerpt", count: codePointLength(log) - 599 }]);
  });

  it("cuts a first line that is alone over the bound, and says how much of it is left out", () => {
    const long = `${"x".repeat(5000)}\n${"y".repeat(5000)}`;
    const out = project({ content: long }, contentPlan(300));
    const shown = (out.view as { content: string }).content;
    expect(shown).toMatch(
      /^x+ \[…the line goes on for \d+ more characters\]\n\[… 1 line left out: lines 2–2 of 2 …\]$/,
    );
    const leftOut = Number(/goes on for (\d+)/.exec(shown)?.[1]);
    expect(out.omissions).toEqual([
      { path: "/content", kind: "excerpt", count: leftOut },
      { path: "/content", kind: "lines", count: 1, from: 2, to: 2 },
    ]);
    expect(shown.indexOf(" [")).toBe(5000 - leftOut);
    expect(viewCost(shown)).toBeLessThanOrEqual(300);
  });

  it("falls back to the marked excerpt when the bound cannot hold the markers", () => {
    const out = project({ content: "alpha\nbeta\ngamma\ndelta" }, contentPlan(8));
    expect(out.view).toEqual({ content: "alpha\nb…" });
    expect(out.omissions).toEqual([{ path: "/content", kind: "excerpt", count: 15 }]);
    expect(stringLines("alpha\nbeta\ngamma\ndelta", 8)).toBeUndefined();
  });

  it("counts the bound as the model reads it: escaped markup costs its escapes", () => {
    const html = Array.from({ length: 200 }, (_, i) => `<li>item ${i}</li>`).join("\n");
    const out = project({ content: html }, contentPlan(500));
    const shown = (out.view as { content: string }).content;
    // Each `<` and `>` is written as \u003c / \u003e: six bytes each, so fewer lines fit than code points would say.
    expect(viewCost(shown)).toBeLessThanOrEqual(500);
    expect(codePointLength(shown)).toBeLessThan(500 - 100);
    checkLines(html, shown, out.omissions, 500);
  });

  it("leaves a string within its bound whole, and cleans it", () => {
    const out = project({ content: "one\u200b\ntwo\n" }, contentPlan(100));
    expect(out).toEqual({ view: { content: "one\ntwo\n" }, complete: true, omissions: [] });
  });
});
