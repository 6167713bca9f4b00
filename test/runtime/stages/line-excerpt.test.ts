/**
 * The view of a text result keeps whole lines. Invariants, for any text and any bound of at least 256 bytes:
 * - the excerpt costs at most the bound, counted as the model content holds it (`viewCost`);
 * - a text that fits comes back unchanged, with no gap;
 * - otherwise it is a prefix of the text's lines, one marker line naming exactly the lines left out, and a suffix
 *   of its lines; only when not even the first line fits is that line cut, and then it says how much is left out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gapMarker, lineExcerpt, viewCost } from "../../../runtime/stages/line-excerpt.js";
import { markupSafeJson } from "../../../runtime/stages/model-content.js";

function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const line = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("<b>&amp;</b>", '"quoted" \\ back', "\u2028", "tab\there", "東京 🧪", ""),
);
const text = fc.array(line, { maxLength: 300 }).map((lines) => lines.join("\n"));

describe("lineExcerpt", () => {
  it("keeps whole lines within the bound, with one marked gap", () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 256, max: 4096 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (t, max, share) => {
          const out = lineExcerpt(t, max, { headShare: share });
          const lines = linesOf(t);
          expect(out.lines).toBe(lines.length);
          expect(viewCost(out.text)).toBeLessThanOrEqual(max);
          if (out.gap === undefined && out.cutFirstLine === undefined) {
            expect(out.text).toBe(t);
            return;
          }
          if (out.cutFirstLine !== undefined) {
            expect(out.cutFirstLine).toBeGreaterThan(0);
            expect(out.text).toContain(`goes on for ${out.cutFirstLine} more characters`);
            return;
          }
          const gap = out.gap as { from: number; to: number };
          const kept = out.text.split("\n");
          const head = gap.from - 1;
          const tail = lines.length - gap.to;
          expect(kept).toEqual([
            ...lines.slice(0, head),
            gapMarker(gap, lines.length),
            ...lines.slice(lines.length - tail),
          ]);
          expect(gap.from).toBeLessThanOrEqual(gap.to);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("shows a 900 KB file as its first and last whole lines, naming the lines between", () => {
    const lines = Array.from({ length: 12_000 }, (_, i) => `${String(i + 1).padStart(5, "0")} ${"x".repeat(70)}`);
    const file = `${lines.join("\n")}\n`;
    expect(file.length).toBeGreaterThan(900_000);
    const out = lineExcerpt(file, 16_384);
    expect(viewCost(out.text)).toBeLessThanOrEqual(16_384);
    expect(out.lines).toBe(12_000);
    const gap = out.gap as { from: number; to: number };
    expect(gap.from).toBeGreaterThan(100);
    expect(gap.to).toBeLessThan(12_000);
    const kept = out.text.split("\n");
    expect(kept[0]).toBe(lines[0]);
    expect(kept.at(-1)).toBe(lines.at(-1));
    expect(kept).toContain(`[… ${gap.to - gap.from + 1} lines left out: lines ${gap.from}–${gap.to} of 12000 …]`);
    // Two thirds of the room go to the head by default.
    expect(gap.from - 1).toBeGreaterThan(1.8 * (12_000 - gap.to));
  });

  it("cuts a single line that alone is over the bound at a code point, and says so", () => {
    const out = lineExcerpt("🧪".repeat(10_000), 1_000);
    expect(out.cutFirstLine).toBeGreaterThan(9_000);
    expect(out.text).toMatch(/^(🧪)+ \[…the line goes on for \d+ more characters\]$/u);
    expect(viewCost(out.text)).toBeLessThanOrEqual(1_000);
    expect(out.gap).toBeUndefined();
  });

  it("counts exactly the UTF-8 bytes of the text as the model content writes it", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.string({ unit: "grapheme" }),
          // Every character the count treats apart: escapes, markup and its lookalikes, separators, surrogates.
          fc.string({
            unit: fc.constantFrom(
              ...'a"\\\b\t\n\f\r\u0000\u001f\u007f&<>é\u07ff\u0800東\u2028\u2029\ufe60\ufe64\ufe65\uff06\uff1c\uff1e\ud800\udc00\uffff🧪',
            ),
          }),
        ),
        (t) => {
          expect(viewCost(t)).toBe(Buffer.byteLength(markupSafeJson(t)) - 2);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("counts escapes as the model content writes them", () => {
    expect(viewCost("a")).toBe(1);
    expect(viewCost("<")).toBe(6);
    expect(viewCost('"')).toBe(2);
    expect(viewCost("\n")).toBe(2);
    expect(viewCost("é")).toBe(2);
    expect(viewCost("東")).toBe(3);
    expect(viewCost("🧪")).toBe(4);
    // Markup-heavy text is cut sooner than its raw length suggests.
    const markup = Array.from({ length: 100 }, () => "<<<<<<<<<<").join("\n");
    const out = lineExcerpt(markup, 1_000);
    expect(viewCost(out.text)).toBeLessThanOrEqual(1_000);
    expect(out.gap).toBeDefined();
  });
});
