/**
 * The token floor the text view trusts to skip the whole view (`runtime/stages/token-floor.ts`): the characters of
 * a text's cleaned lines that follow whitespace written as it is never outnumber the tokens of the whole view the
 * model would read, counted by either tokenizer itself. If they did, a text that fits its budget could be cut.
 *
 * Texts are drawn to stress the argument: every kind of whitespace (the ones the view escapes, the ones it writes
 * as they are, the ones cleaning drops), runs of punctuation before line breaks and slashes (the one chunk that
 * reaches across whitespace), contractions, CJK, astral characters and markup. And beside it, the positive control:
 * a text over its budget by the floor still reaches the model as the excerpt it got before, and one under it whole.
 */
import fc from "fast-check";
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { type ContextBudget, toModelContent } from "../../../runtime/index.js";
import { cleanedLines } from "../../../runtime/stages/line-excerpt.js";
import { spacedStarts } from "../../../runtime/stages/token-floor.js";
import { textTool } from "../fixture.js";

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const ENCODINGS = { o200k_base: o200k, cl100k_base: cl100k } as const;

/** Every `\s` character, the zero-width ones beside them, and what sits next to whitespace in chunks. */
const piece = fc.oneof(
  fc.constantFrom(" ", "  ", "\t", "\u00a0", "\u1680", "\u2002", "\u200a", "\u202f", "\u205f", "\u3000", "\ufeff"),
  fc.constantFrom("\u000b", "\f", "\r", "\u2028", "\u2029", "\u200b", "\u200d", "\u180e"),
  fc.constantFrom(".", "...", "/", "//", "./", "-", "'s", "'LL", "don't", ":", "&", "<", ">", "＜", '"', "\\"),
  fc.constantFrom("word", "Word", "WORD", "x", "日本語", "中文", "😀", "𝒳", "é", "ñ", "123", "4567", "a1b2"),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
);
const line = fc.array(piece, { maxLength: 24 }).map((parts) => parts.join(""));
const text = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 12 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
  .map(([lines, newline, final]) => lines.join(newline) + (final ? newline : ""));

/** The floor the text view computes: space-separated starts over the text's cleaned lines. */
function floorOf(source: string): number {
  const lines = cleanedLines(source);
  let starts = 0;
  for (let i = 0; i < lines.total; i++) starts += spacedStarts(lines.at(i));
  return starts;
}

/** A budget no generated view reaches. */
const UNBOUNDED: ContextBudget = { unit: "tokens", max: 10_000_000, tokenizer: "o200k_base" };

describe("the token floor of a text view", () => {
  for (const name of ["o200k_base", "cl100k_base"] as const) {
    it(`never exceeds the whole view's tokens by ${name}`, async () => {
      await fc.assert(
        fc.asyncProperty(text, async (source) => {
          const whole = await textTool({ context: { ...UNBOUNDED, tokenizer: name } }).admit(source);
          expect(whole.ok && whole.complete).toBe(true);
          if (!whole.ok) return;
          const tokens = ENCODINGS[name].countTokens(toModelContent(whole), NO_SPECIAL);
          expect(floorOf(source)).toBeLessThanOrEqual(tokens);
        }),
        { numRuns: 400 },
      );
    });
  }

  it("counts starts after whitespace written as it is, and none after what the view escapes", () => {
    expect(spacedStarts("a b  c")).toBe(2);
    expect(spacedStarts(" lead and trail ")).toBe(3);
    expect(spacedStarts("a\u3000b\u00a0c\ufeffd")).toBe(3);
    // Tab, the line breaks and the separators are escapes in the view's JSON: not whitespace to the tokenizer.
    expect(spacedStarts("a\tb\u000bc\fd\re\u2028f\u2029g")).toBe(0);
    expect(spacedStarts("")).toBe(0);
  });

  it("a log over its budget by the floor is shown as an excerpt near the budget, and a short one whole", async () => {
    const log = Array.from(
      { length: 400 },
      (_, i) => `2026-03-01T12:00:${i % 60} INFO request ${i} served in ${i % 97} ms`,
    );
    const source = log.join("\n");
    const budget: ContextBudget = { unit: "tokens", max: 300, tokenizer: "o200k_base" };
    expect(floorOf(source)).toBeGreaterThan(budget.max);
    const outcome = await textTool({ context: budget }).admit(source);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    // An excerpt: the head and the tail lines, whole, with the gap marked, within the budget and near it.
    expect(outcome.complete).toBe(false);
    const shown = (outcome.view as { text: string }).text;
    expect(shown.startsWith(`${log[0]}\n`)).toBe(true);
    expect(shown.endsWith(log[log.length - 1] as string)).toBe(true);
    expect(shown).toMatch(/\[… \d+ lines left out: lines \d+–\d+ of 400 …\]/);
    const used = o200k.countTokens(toModelContent(outcome), NO_SPECIAL);
    expect(used).toBeLessThanOrEqual(budget.max);
    expect(used).toBeGreaterThan(budget.max * 0.8);

    // The positive control: the first eight lines fit 300 tokens and reach the model whole.
    const short = log.slice(0, 8).join("\n");
    const whole = await textTool({ context: budget }).admit(short);
    expect(whole.ok && whole.complete).toBe(true);
    if (whole.ok) expect((whole.view as { text: string }).text).toBe(short);
  });
});
