/**
 * A text view cleans only the lines its excerpt reaches (`cleanedLines`). Against the path it replaces (clean the
 * whole text, then excerpt it), for any text of hostile and ordinary lines, any bound and any head share:
 * - the lines, read one by one, joined, are `cleanText` of the whole text;
 * - the line count is `countLines` of the cleaned text;
 * - the excerpt is the same: the same lines shown, the same gap, the same cut of the first line;
 * - each line's cost is its `viewCost`, counted natively for a line the cleaning pass found plain.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanedLines, countLines, lineExcerpt, viewCost, withCosts } from "../../../runtime/stages/line-excerpt.js";
import { cleanText } from "../../../runtime/text/hygiene.js";

/** Characters cleaning removes, or keeps only beside an emoji: the ones whose neighbours matter. */
const hostile = fc.constantFrom(
  "\u200B",
  "\u200D",
  "\uFE0F",
  "\uFE0E",
  "\u202E",
  "\u0000",
  "\u001B[31m",
  "\r",
  "\uD800",
  "\uDC00",
  "\u{E0041}",
  "\u{1F9D1}",
  "\u{1F3FD}",
  "\u2764",
  "1",
  "#",
  "\u00AD",
  "\uFEFF",
  "\u2028",
  "a",
  " ",
  "東",
);
const line = fc.oneof(
  fc.array(hostile, { maxLength: 12 }).map((parts) => parts.join("")),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constant(""),
);
const text = fc
  .tuple(fc.array(line, { maxLength: 120 }), fc.boolean())
  .map(([lines, finalBreak]) => lines.join("\n") + (finalBreak ? "\n" : ""));

describe("cleanedLines", () => {
  it("costs each line what viewCost counts, whether or not its cleaning found it plain", () => {
    let plain = 0;
    fc.assert(
      fc.property(text, (source) => {
        const lines = withCosts(cleanedLines(source));
        for (let index = lines.total - 1; index >= 0; index--) {
          const cost = lines.costAt(index);
          if (lines.plainAt?.(index) === true) plain++;
          expect(cost).toBe(viewCost(lines.at(index)));
        }
      }),
      { numRuns: 2000 },
    );
    // Not a path that never runs: ordinary lines are found plain.
    expect(plain).toBeGreaterThan(1000);
  });

  it("is the cleaned text, line by line, with its line count", () => {
    fc.assert(
      fc.property(text, (source) => {
        const cleaned = cleanText(source);
        const lines = cleanedLines(source);
        expect(lines.count).toBe(countLines(cleaned));
        expect(lines.whole()).toBe(cleaned);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the excerpt of the text cleaned whole", () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 0, max: 4096 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (source, max, share) => {
          const window = { headShare: share };
          expect(lineExcerpt(cleanedLines(source), max, window)).toEqual(lineExcerpt(cleanText(source), max, window));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("shows, of a large text whose middle lines need cleaning, what cleaning it whole shows", () => {
    // A megabyte of lines, the middle ones full of characters to remove: the excerpt of a few kilobytes never reads
    // them, and what it shows is what cleaning the whole text shows.
    const middle = Array.from({ length: 20_000 }, (_, i) => `line ${i}\u200B\u202E hidden`);
    const source = ["first line", ...middle, "last line"].join("\n");
    const cleaned = cleanedLines(source);
    const excerpt = lineExcerpt(cleaned, 2_000);
    expect(excerpt).toEqual(lineExcerpt(cleanText(source), 2_000));
    expect(excerpt.text).toContain("first line");
    expect(excerpt.text).toContain("last line");
    expect(excerpt.text).not.toMatch(/[\u200B\u202E]/u);
  });
});
