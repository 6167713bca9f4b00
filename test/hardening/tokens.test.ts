/**
 * Issue 12, class 4: token measuring is linear in the text. One long run of letters or CJK is one tokenizer chunk,
 * and byte-pair merging one chunk costs the square of its length, so the measure bounds the work per chunk (see
 * runtime/stages/measure.ts): a text longer than `limit × 128` code units is over without counting, and a chunk of more
 * than 256 code units counts as its UTF-8 length. What a user relies on: the verdict is never "within" when the
 * tokenizer's exact count is over, text without such runs is counted exactly, and no text blocks the process.
 */

// The generated adapters run the built runtime: the turn they record in is of that copy.
import { Turn } from "@toolgate/runtime";
import fc from "fast-check";
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { beforeAll, describe, expect, it } from "vitest";
import type { ContextBudget } from "../../runtime/contract/types.js";
import {
  boundedTokenCount,
  CHUNK_RUNS,
  LONG_CHUNK_UNITS,
  loadTokenizer,
  MAX_TOKEN_UNITS,
  measureText,
  type TokenizerParts,
} from "../../runtime/stages/measure.js";
import { toModelContent } from "../../runtime/stages/model-content.js";
import { type AnyAdapter, adaptersOf, generateInto, writeContracts } from "./scratch.js";

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const TOKENIZERS = {
  o200k_base: { encoding: o200k, split: O200K_TOKEN_SPLIT_REGEX },
  cl100k_base: { encoding: cl100k, split: CL100K_TOKEN_SPLIT_REGEX },
} as const;
type Name = keyof typeof TOKENIZERS;

/** The tokenizer's own count, special-token text as plain text, as the gate counts it. */
const exactCount = (name: Name, text: string) => TOKENIZERS[name].encoding.countTokens(text, NO_SPECIAL);

/** The parts `boundedTokenCount` needs, optionally recording every span handed to the tokenizer. */
function parts(name: Name, spans?: string[]): TokenizerParts {
  const { encoding, split } = TOKENIZERS[name];
  return {
    countWithin: (text, limit) => {
      spans?.push(text);
      return encoding.isWithinTokenLimit(text, limit, NO_SPECIAL);
    },
    split,
    runs: CHUNK_RUNS[name],
  };
}

const budget = (max: number, tokenizer: Name = "o200k_base"): ContextBudget => ({ unit: "tokens", max, tokenizer });

/** Milliseconds `run` takes (a liveness bound only: speed itself is in bench/token-budget.js). */
async function elapsed<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

/** `length` code points cycling through `from..from+span`, so a run is one script but not one repeated letter. */
function run(from: number, span: number, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += String.fromCodePoint(from + ((i * 7919) % span));
  return text;
}

const CJK = (length: number) => run(0x4e00, 20_000, length);
const HANGUL = (length: number) => run(0xac00, 11_172, length);
const THAI = (length: number) => run(0x0e01, 0x2e, length); // consonants, vowels and marks, no spaces
const EMOJI = (length: number) => run(0x1f600, 0x50, length); // one chunk of symbols (\p{So}), two units each

describe("the longest token bounds the length rule", () => {
  it("no token of o200k_base or cl100k_base covers more than MAX_TOKEN_UNITS code units", async () => {
    for (const name of Object.keys(TOKENIZERS) as Name[]) {
      const ranks: ReadonlyArray<string | readonly number[]> = (await import(`gpt-tokenizer/bpeRanks/${name}`)).default;
      let longest = 0;
      for (const token of ranks) {
        if (token === undefined) continue;
        // A token of raw bytes (part of a character) covers at most one code unit per lead byte, two for a 4-byte one.
        const units =
          typeof token === "string"
            ? token.length
            : token.reduce((sum, byte) => sum + (byte >= 0xf0 ? 2 : byte < 0x80 || byte >= 0xc0 ? 1 : 0), 0);
        longest = Math.max(longest, units);
      }
      expect(longest, name).toBe(MAX_TOKEN_UNITS);
    }
  });
});

describe("the issue's examples", () => {
  it("32,000 CJK characters in one run against a small budget: over, at once", async () => {
    const text = CJK(32_000);
    const { ms, value } = await elapsed(() => measureText(text, budget(1_000)));
    expect(value).toEqual({ unit: "tokens", value: 1_001, exact: false, within: false });
    expect(ms).toBeLessThan(2_000);
    // The same under a budget the length rule does not decide (32,000 ≤ 20,000 × 128): the run is one long chunk.
    const wide = await elapsed(() => measureText(text, budget(20_000)));
    expect(wide.value.within).toBe(false);
    expect(wide.ms).toBeLessThan(2_000);
  });

  it("a 196 KB payload of one letter run, under a plausible budget: over, well within 2 s", async () => {
    const payload = JSON.stringify({ note: "a".repeat(196 * 1024) });
    for (const max of [1_000, 4_000, 8_000]) {
      const { ms, value } = await elapsed(() => measureText(payload, budget(max)));
      expect(value.within, `budget ${max}`).toBe(false);
      expect(ms, `budget ${max}`).toBeLessThan(2_000);
    }
    // Under a budget larger than its bytes the run counts as its bytes: within, marked as not the exact count.
    const large = await elapsed(() => measureText(payload, budget(250_000)));
    const run = 196 * 1024;
    const around = exactCount("o200k_base", '{"note":"') + exactCount("o200k_base", '"}');
    expect(large.value).toEqual({ unit: "tokens", value: around + run, exact: false, within: true });
    expect(large.ms).toBeLessThan(2_000);
  });
});

describe("neighbours: every kind of long chunk is bounded", () => {
  // Each is one chunk of the tokenizer's pattern (or, for digits, many short ones), hundreds of KB long.
  const cases: Array<[string, string]> = [
    ["Hangul", HANGUL(150_000)],
    ["Thai without spaces", THAI(150_000)],
    ["emoji", EMOJI(100_000)],
    ["one repeated capital letter", "Q".repeat(400_000)],
    ["mixed scripts (Latin, Cyrillic, Greek)", "aбγ".repeat(130_000)],
    ["combining marks", `e${"\u0301".repeat(300_000)}`],
    ["spaces", `x${" ".repeat(500_000)}y`],
    ["punctuation", "-=".repeat(250_000)],
    ["digits", "7".repeat(500_000)],
  ];
  for (const tokenizer of Object.keys(TOKENIZERS) as Name[]) {
    it(`${tokenizer}: over a 4,000-token budget, each well within 2 s`, async () => {
      for (const [what, text] of cases) {
        const { ms, value } = await elapsed(() => measureText(text, budget(4_000, tokenizer)));
        expect(value.within, what).toBe(false);
        expect(ms, what).toBeLessThan(2_000);
      }
    });
  }

  it("a budget the length rule does not decide still costs work bounded by the budget, not by the run", () => {
    // 100,000 units against 1,000 tokens: under 1,000 × 128, so the length rule leaves it to the look ahead, which
    // reads 4 × 1,002 code units of the run and finds a chunk of more than 1,000 in it.
    for (const text of [CJK(100_000), "a".repeat(100_000), EMOJI(50_000)]) {
      const spans: string[] = [];
      expect(boundedTokenCount(parts("o200k_base", spans), text, 1_000)).toBe(false);
      expect(spans.join("")).toBe(""); // the tokenizer never merged any of it
    }
  });

  it("a long run after ordinary text: the text before it is counted exactly, the run by its bytes", () => {
    const prose = "The committee met on Tuesday; the minutes follow. ";
    const text = `${prose}${"x".repeat(LONG_CHUNK_UNITS + 50)} ${prose}`;
    const counted = boundedTokenCount(parts("o200k_base"), text, 10_000);
    const chunk = ` ${"x".repeat(LONG_CHUNK_UNITS + 50)}`; // the space before a word belongs to its chunk
    const expected =
      exactCount("o200k_base", prose.slice(0, -1)) + chunk.length + exactCount("o200k_base", ` ${prose}`);
    expect(counted).toEqual({ tokens: expected, exact: false });
  });

  it("special-token text is counted as plain text, inside or beside a long run", async () => {
    expect(await measureText("<|endoftext|>", budget(100))).toEqual({
      unit: "tokens",
      value: exactCount("o200k_base", "<|endoftext|>"),
      exact: true,
      within: true,
    });
    const text = `<|endoftext|>${"z".repeat(5_000)}<|endoftext|>`;
    const measured = await measureText(text, budget(100_000));
    expect(measured.within).toBe(true);
    expect(measured.value).toBeGreaterThanOrEqual(exactCount("o200k_base", text));
    expect((await loadTokenizer())("<|im_start|>", 100)).toBe(exactCount("o200k_base", "<|im_start|>"));
  });
});

describe("the count against the tokenizer's own", () => {
  // Runs of one kind of character each, some longer than LONG_CHUNK_UNITS, so texts cross long chunks, contraction
  // suffixes, case changes, newline runs and whitespace runs whose chunks depend on what follows them.
  const kinds = [
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789",
    "     \n\n\t",
    "'sreSvlldmt",
    '.,;:!?-=/\\(){}[]"',
    CJK(60),
    HANGUL(40),
    THAI(46),
    EMOJI(20),
    "\u0301\u0308\u0327",
    "абвгдеЖЗИЙ",
    "AAA中AAAAA",
  ].map((alphabet) => Array.from(alphabet));
  const piece = fc
    .record({ kind: fc.nat(kinds.length - 1), length: fc.integer({ min: 1, max: 320 }), seed: fc.nat() })
    .map(({ kind, length, seed }) => {
      const alphabet = kinds[kind] as string[];
      let text = "";
      for (let i = 0; i < length; i++) text += alphabet[(seed + i * 31 + ((i * i) % 7)) % alphabet.length];
      return text;
    });
  const texts = fc.array(piece, { minLength: 1, maxLength: 12 }).map((pieces) => pieces.join(""));

  for (const tokenizer of Object.keys(TOKENIZERS) as Name[]) {
    it(`${tokenizer}: never below the exact count, equal to it when exact, and the same verdict at any limit`, () => {
      // Invariants, for any text and limit: (1) counted without a limit, the measure is at least the tokenizer's
      // count, and equal to it when it says `exact`; (2) "within" at a limit only when the exact count is within it;
      // (3) the early exit agrees with the full measure: within at a limit exactly when the full measure is ≤ it.
      // Small spans put many cuts inside runs and chunks; the chunk scan runs alone, or beside the plain spans.
      const how = fc.record({ plainSpans: fc.boolean(), spanUnits: fc.constantFrom(undefined, 1, 7, 50, 300) });
      fc.assert(
        fc.property(texts, fc.nat(3_000), how, (text, limit, options) => {
          const exact = exactCount(tokenizer, text);
          const full = boundedTokenCount(parts(tokenizer), text, Number.MAX_SAFE_INTEGER, options);
          expect(full).not.toBe(false);
          if (full === false) return;
          expect(full.tokens).toBeGreaterThanOrEqual(exact);
          if (full.exact) expect(full.tokens).toBe(exact);
          const limited = boundedTokenCount(parts(tokenizer), text, limit, options);
          if (limited !== false) {
            expect(exact).toBeLessThanOrEqual(limit);
            expect(limited).toEqual(full);
          } else expect(full.tokens).toBeGreaterThan(limit);
        }),
        { numRuns: tokenizer === "o200k_base" ? 300 : 150 },
      );
    });

    it(`${tokenizer}: a run of one class of CHUNK_RUNS is at most four chunks, whatever surrounds it`, () => {
      // The look ahead rests on this: a run that long holds a chunk of at least a quarter of its length.
      const classes: Record<Name, string[]> = {
        o200k_base: [" \t\n\r\u00a0\u3000", ".,!?-=/\\()—🙂😀", "ABCÀ中日クʰ\u0301", "abcà中ʰ\u0301ß"],
        cl100k_base: [" \t\n\r\u00a0\u3000", ".,!?-=/\\()—🙂\u0301", "abcABCà中дʰ"],
      };
      const split = new RegExp(TOKENIZERS[tokenizer].split.source, "gu");
      const runs = fc.record({
        kind: fc.nat(classes[tokenizer].length - 1),
        picks: fc.array(fc.nat(99), { minLength: 1, maxLength: 400 }),
      });
      fc.assert(
        fc.property(piece, runs, piece, (before, { kind, picks }, after) => {
          const alphabet = Array.from(classes[tokenizer][kind] as string);
          const run = picks.map((pick) => alphabet[pick % alphabet.length]).join("");
          const text = `${before}${run}${after}`;
          const [start, end] = [before.length, before.length + run.length];
          let chunks = 0;
          for (const match of text.matchAll(split)) {
            if (match.index < end && match.index + match[0].length > start) chunks++;
          }
          expect(chunks).toBeLessThanOrEqual(4);
        }),
        { numRuns: 400 },
      );
    });
  }

  it("cuts only between chunks, at every span size: every suffix and lookahead across a cut", () => {
    // Endings whose chunk depends on what follows: contraction suffixes ('re, 'll, 've), whitespace before a word,
    // newline runs, digit groups, case changes, combining marks, a long whitespace run with newlines in it.
    const endings = [
      "they're here",
      "we'll go",
      "I've seen",
      "it's",
      "a  \n\n  b",
      "word   next",
      "12345678",
      "ABCdef",
      "cafe\u0301s cre\u0300me",
      "abc123def",
      "x\u00e9\u00e8y",
      `${"   \t\n\t  \n".repeat(30)}.]](=-`,
      `AAA中${"A".repeat(300)}ab`,
    ];
    for (const tokenizer of Object.keys(TOKENIZERS) as Name[]) {
      for (const ending of endings) {
        const text = `ab cd ${ending} tail`;
        const exact = exactCount(tokenizer, text);
        for (let spanUnits = 1; spanUnits <= 40; spanUnits++) {
          for (const plainSpans of [false, true]) {
            const counted = boundedTokenCount(parts(tokenizer), text, Number.MAX_SAFE_INTEGER, {
              spanUnits,
              plainSpans,
            });
            expect(counted, `${tokenizer} ${JSON.stringify(ending)}`).not.toBe(false);
            if (counted === false) continue;
            if (counted.exact) expect(counted.tokens, `${tokenizer} ${JSON.stringify(ending)}`).toBe(exact);
            else expect(counted.tokens).toBeGreaterThan(exact);
          }
        }
      }
    }
  });

  it("text without long chunks counts exactly: prose, JSON, CJK with punctuation", async () => {
    const samples = [
      "The quick brown fox jumps over the lazy dog. It's what they'd've done, isn't it?\n\n  Indented.\r\n",
      JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: `r-${i}`, n: i * 1.5, tag: "ok" })) }),
      `${CJK(200)}，${CJK(120)}。${HANGUL(90)} ${THAI(150)} ${EMOJI(40)}`.repeat(20),
      "x = [1, 2, 3]\n    return f'{x!r}'\n".repeat(300),
    ];
    for (const text of samples) {
      for (const tokenizer of Object.keys(TOKENIZERS) as Name[]) {
        const exact = exactCount(tokenizer, text);
        expect(await measureText(text, budget(exact, tokenizer))).toEqual({
          unit: "tokens",
          value: exact,
          exact: true,
          within: true,
        });
        expect((await measureText(text, budget(exact - 1, tokenizer))).within).toBe(false);
      }
    }
  });
});

describe("through the gate: admit of a hostile payload under a plausible contract", () => {
  // A contract whose view may hold a long page of text, as a reader of documents would declare it.
  const contract = {
    name: "read_page",
    inputSchema: { type: "object", properties: { page: { type: "integer", minimum: 1, maximum: 1000 } } },
    outputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { text: { type: "string", maxLength: 400_000 } },
      required: ["text"],
      additionalProperties: false,
    },
    "x-toolgate": {
      receive: { maxDepth: 2 },
      context: { unit: "tokens", max: 8_000, tokenizer: "o200k_base" },
      view: { strings: { "/text": { max: 400_000, overflow: "excerpt" } } },
      oversize: ["drop"],
    },
  };
  let adapter: AnyAdapter;

  beforeAll(async () => {
    const folder = await generateInto(await writeContracts("tokens", { "read_page.tool.json": contract }));
    adapter = (await adaptersOf(folder)).get("read_page") as AnyAdapter;
  });

  it("the issue's 196 KB letter run and its neighbours end as oversize, each well within 2 s", async () => {
    const payloads: Array<[string, string]> = [
      ["196 KB of one letter", "a".repeat(196 * 1024)],
      ["32,000 CJK characters", CJK(32_000)],
      ["Thai without spaces", THAI(60_000)],
      ["Hangul", HANGUL(40_000)],
    ];
    for (const [what, text] of payloads) {
      const { ms, value: outcome } = await elapsed(() => adapter.admit(JSON.stringify({ text })));
      expect(outcome.ok ? "ok" : outcome.error.code, what).toBe("oversize");
      expect(ms, what).toBeLessThan(2_000);
    }
  });

  it("ordinary text within the budget is admitted, its context used the tokenizer's own count", async () => {
    // About 15 KB: more bytes than the budget has tokens, so only a count can say it fits.
    const text = "The committee reviewed the report and found most samples within limits. ".repeat(200);
    const outcome = await adapter.admit(JSON.stringify({ text }));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.complete).toBe(true);
    expect(outcome.contextUsed).toEqual({
      unit: "tokens",
      value: exactCount("o200k_base", toModelContent(outcome)),
      budget: 8_000,
    });
  });

  it("text within the budget by its bytes is admitted uncounted, its context used the byte bound", async () => {
    const text = "The committee reviewed the report and found most samples within limits. ".repeat(40);
    const outcome = await adapter.admit(JSON.stringify({ text }));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.complete).toBe(true);
    expect((outcome.view as { text: string }).text).toBe(text);
    const content = toModelContent(outcome);
    const bytes = new TextEncoder().encode(content).byteLength;
    expect(outcome.contextUsed).toEqual({ unit: "tokens", value: bytes, budget: 8_000, exact: false });
    expect(exactCount("o200k_base", content)).toBeLessThan(bytes);
    // A turn that sums tokens gets the count, so its sums are counts too.
    const turn = new Turn({ budget: { tokens: 100_000 } });
    // The adapter's type names the source's Turn; the object is the built runtime's, which the adapter runs.
    const ctx = { turn } as unknown as Parameters<AnyAdapter["admit"]>[1];
    const counted = await adapter.admit(JSON.stringify({ text }), ctx);
    expect(counted.ok && counted.contextUsed).toEqual({
      unit: "tokens",
      value: exactCount("o200k_base", content),
      budget: 8_000,
    });
    expect(turn.report().contextUsed.tokens).toBe(exactCount("o200k_base", content));
  });
});
