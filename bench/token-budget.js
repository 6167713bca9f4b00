/**
 * Benchmark 4, token budget: measuring a 1 MB text against a 1,000-token budget should cost about what counting
 * 1,000 tokens costs, not what counting 1 MB costs. Three contenders, interleaved: the runtime's `measureText` on
 * the 1 MB text, the same on a text of just under 1,000 tokens, and counting every token of the 1 MB text.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { measureText } from "toolgate/runtime";
import { issuesPayload } from "./lib/payloads.js";
import { interleave, perCall, perCallAsync, ratio } from "./lib/stats.js";

const BUDGET = { unit: "tokens", max: 1000, tokenizer: "o200k_base" };

/**
 * @param {{ rounds: number }} options
 */
export async function runTokenBudget({ rounds }) {
  // Rendered model content is JSON text: the 1 MB list_issues result is a fair stand-in for a 1 MB view.
  const large = issuesPayload(1024 * 1024).text;
  // The longest prefix of it that still counts 1,000 tokens or fewer, found by bisection.
  let low = 0;
  let high = 20_000;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countTokens(large.slice(0, mid)) <= BUDGET.max) low = mid;
    else high = mid - 1;
  }
  const small = large.slice(0, low);
  const over = await measureText(large, BUDGET);
  const within = await measureText(small, BUDGET);
  if (over.within || !within.within)
    throw new Error("the token budget benchmark's texts are on the wrong side of the budget");
  const wholeTokens = countTokens(large);

  const timing = await interleave(
    {
      measureLarge: await perCallAsync(() => measureText(large, BUDGET)),
      measureBudget: await perCallAsync(() => measureText(small, BUDGET)),
      countWhole: perCall(() => countTokens(large), 200),
    },
    rounds,
  );
  return {
    largeChars: large.length,
    largeTokens: wholeTokens,
    budgetText: { chars: small.length, tokens: within.value },
    timing,
    ratioToBudget: ratio(timing.measureLarge, timing.measureBudget),
    ratioToWhole: ratio(timing.measureLarge, timing.countWhole),
  };
}
