/**
 * Benchmark 4, token budget: measuring a 1 MB text against a 1,000-token budget should cost about what counting
 * 1,000 tokens costs, not what counting 1 MB costs. Three contenders, interleaved: the runtime's `measureText` on
 * the 1 MB text, the same on a text of just under 1,000 tokens, and counting every token of the 1 MB text.
 *
 * Then hostile text (issue 12): one run of CJK or of one letter is one tokenizer chunk, which the tokenizer merges in
 * time quadratic in its length. Each is measured against the same budget interleaved with ordinary prose of the same
 * size, at 1 MB (decided by the length rule: more than 1,000 × 128 code units) and at 100 KB (under it, so the chunk
 * scan runs); the target is "within 2× of the prose". At 100 KB, CJK sentences (short chunks, each merged exactly)
 * are reported beside them: what the tokenizer itself costs per CJK token. Every call of these starts with an empty
 * merge cache, as a new payload would.
 */

import { measureText } from "@toolgate/runtime";
import { clearMergeCache, countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { issuesPayload } from "./lib/payloads.js";
import { interleave, perCall, perCallAsync, ratio } from "./lib/stats.js";

const BUDGET = { unit: "tokens", max: 1000, tokenizer: "o200k_base" };

const PROSE_WORDS = (
  "the committee reviewed a report on water quality and found that most of the samples taken along river were " +
  "within limits set by regional authority although several sites near old mill showed higher levels of nitrate " +
  "which residents had noticed for years so engineers proposed new monitoring schedule budget for next season"
).split(" ");

/**
 * Ordinary English prose of `bytes` UTF-8 bytes: sentences of seeded words with capitals, commas and paragraphs.
 * @param {number} bytes
 */
function prose(bytes) {
  let state = 12345;
  const next = (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const sentences = [];
  let length = 0;
  while (length < bytes) {
    const words = Array.from({ length: 6 + next(14) }, () => PROSE_WORDS[next(PROSE_WORDS.length)]);
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    if (words.length > 10) words[4] += ",";
    const sentence = `${words.join(" ")}.${next(6) === 0 ? "\n\n" : " "}`;
    sentences.push(sentence);
    length += sentence.length;
  }
  return sentences.join("").slice(0, bytes);
}

/**
 * One run of `bytes` UTF-8 bytes that the tokenizer reads as one chunk: CJK ideographs (3 bytes each, cycling
 * through 20,000 so no merge cache helps), or one letter repeated.
 * @param {"cjk" | "letter"} kind
 * @param {number} bytes
 */
function hostileRun(kind, bytes) {
  if (kind === "letter") return "a".repeat(bytes);
  let text = "";
  for (let i = 0; i < Math.floor(bytes / 3); i++) text += String.fromCharCode(0x4e00 + ((i * 7919) % 20_000));
  return text;
}

/**
 * CJK sentences of 8 to 40 ideographs, each ended by a full-width comma or stop, of `bytes` UTF-8 bytes.
 * @param {number} bytes
 */
function cjkSentences(bytes) {
  let text = "";
  for (let i = 0; text.length * 3 < bytes; i++) {
    text += String.fromCharCode(0x4e00 + ((i * 7919) % 20_000));
    if (i % 31 === 7 + (i % 3) * 11) text += i % 2 === 0 ? "，" : "。";
  }
  return text;
}

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
  const hostile = {};
  for (const [size, bytes] of [
    ["1 MB", 1024 * 1024],
    ["100 KB", 100 * 1024],
  ]) {
    const texts = { prose: prose(bytes), cjk: hostileRun("cjk", bytes), letter: hostileRun("letter", bytes) };
    // Under the length rule's reach, CJK cut by punctuation into short chunks, each merged exactly: what the
    // tokenizer itself costs per CJK token, reported beside the runs.
    if (size === "100 KB") texts.cjkSentences = cjkSentences(bytes);
    for (const text of Object.values(texts)) {
      if ((await measureText(text, BUDGET)).within) throw new Error("a hostile benchmark text is within the budget");
    }
    const contenders = {};
    // Each measurement as of a new payload: the tokenizer's merge cache would otherwise hold the chunks of the last
    // call on the same text (the runtime loads this same tokenizer module, so this clears its cache).
    for (const [name, text] of Object.entries(texts)) {
      contenders[name] = await perCallAsync(() => {
        clearMergeCache();
        return measureText(text, BUDGET);
      });
    }
    // The 1 MB texts are decided in well under a microsecond: more rounds, so the ratio's median is not noise.
    const hostileTiming = await interleave(contenders, rounds * 3);
    hostile[size] = {
      chars: Object.fromEntries(Object.entries(texts).map(([name, text]) => [name, text.length])),
      timing: hostileTiming,
      ratios: Object.fromEntries(
        Object.keys(texts)
          .filter((name) => name !== "prose")
          .map((name) => [name, ratio(hostileTiming[name], hostileTiming.prose)]),
      ),
    };
  }
  return {
    hostile,
    largeChars: large.length,
    largeTokens: wholeTokens,
    budgetText: { chars: small.length, tokens: within.value },
    timing,
    ratioToBudget: ratio(timing.measureLarge, timing.measureBudget),
    ratioToWhole: ratio(timing.measureLarge, timing.countWhole),
  };
}
