/**
 * The text view fits a text to a token budget by counting the content it renders, and hands the measure stage the
 * count of the excerpt it keeps instead of having it counted again. Property: for any text and token budget, the
 * `contextUsed` of the outcome is exactly what the measure stage makes of that outcome's content (`measureVerdict`
 * on `toModelContent`), count or bound alike, and the content is within the budget.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toModelContent } from "../../../runtime/index.js";
import { contextUsedOf, measureVerdict } from "../../../runtime/stages/measure.js";
import { textTool } from "../fixture.js";

const word = fc.constantFrom(
  "request",
  "served",
  "in",
  "ms",
  "café",
  "東京",
  "🚀",
  "status",
  "ok",
  "0x1f",
  "--",
  "über",
);
const line = fc.array(word, { minLength: 0, maxLength: 12 }).map((words) => words.join(" "));
// Mostly texts longer than the budget, so the view is an excerpt the text view counted; some that fit whole.
const text = fc.array(line, { minLength: 20, maxLength: 800 }).map((lines) => lines.join("\n"));

describe("the text view's count under a token budget", () => {
  it("is the measure stage's own, whether the view was counted there or by the text view", async () => {
    let excerpts = 0;
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 150, max: 3000 }), async (body, max) => {
        const budget = { unit: "tokens" as const, max, tokenizer: "o200k_base" as const };
        const tool = textTool({ context: budget, limits: { maxBytes: 4 * 1024 * 1024, maxDepth: 1 } });
        const outcome = await tool.admit(body);
        if (!outcome.ok) return;
        if (!outcome.complete) excerpts++;
        const measured = await measureVerdict(toModelContent(outcome), budget);
        expect(measured.within).toBe(true);
        expect(outcome.contextUsed).toEqual(contextUsedOf(measured, budget));
      }),
      { numRuns: 150 },
    );
    // The property is about excerpts above all: a run that made none has not tested it. About one run in three
    // makes one, so 150 runs make about 50.
    expect(excerpts).toBeGreaterThan(20);
  });
});
