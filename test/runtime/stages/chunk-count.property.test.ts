/**
 * The faster count (`runtime/stages/chunk-count.ts`) returns exactly what the tokenizer's own `isWithinTokenLimit`
 * returns, for both tokenizers, on every text and every limit: the count within the limit, `false` past it.
 *
 * Texts are drawn where the two ways of cutting chunks could part: ASCII beside letters, digits, marks, spaces and
 * symbols past ASCII (a letter run that goes on past ASCII, a space run that does, a digit run of Arabic-Indic
 * digits), contractions in either case, apostrophes without one, runs of punctuation before line breaks and
 * slashes, CRLF, text that ends in spaces, and astral characters. A chunk the pattern would cut otherwise when alone
 * must send the text to the tokenizer, which the last test forces.
 */
import fc from "fast-check";
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { describe, expect, it } from "vitest";
import { ASCII_PATTERNS, ChunkTable, chunkCounter, o200kAsciiChunkEnd } from "../../../runtime/stages/chunk-count.js";

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const TOKENIZERS = {
  o200k_base: { encoding: o200k, split: O200K_TOKEN_SPLIT_REGEX },
  cl100k_base: { encoding: cl100k, split: CL100K_TOKEN_SPLIT_REGEX },
} as const;
type Name = keyof typeof TOKENIZERS;

function counterOf(name: Name) {
  const { encoding, split } = TOKENIZERS[name];
  let fellBack = 0;
  const count = chunkCounter({
    name,
    countWithin: (text, limit) => {
      fellBack++;
      return encoding.isWithinTokenLimit(text, limit, NO_SPECIAL);
    },
    countAll: (text) => encoding.countTokens(text, NO_SPECIAL),
    split,
  });
  return { count, fellBack: () => fellBack };
}

const piece = fc.oneof(
  fc.constantFrom(
    "word",
    "Word",
    "WORD",
    "wORD",
    "x",
    "a1",
    "42",
    "1234567",
    "3.14",
    "don't",
    "I'LL",
    "it's",
    "'",
    "''",
  ),
  fc.constantFrom(" ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\u000b", "\f", "\u00a0", "\u3000", "\u2028", " \n"),
  fc.constantFrom(".", "...", "/", "//", "./\n/", "-", "—", "…", "→", ":", "<|endoftext|>", "\\n", '"', "#!", "$"),
  fc.constantFrom("é", "café", "naïve", "Ünïcödé", "ǅ", "ʰ", "東京", "데이터", "e\u0301", "\u0301", "٣٤", "①", "½"),
  fc.constantFrom("😀", "🚀", "𝒳", "👨‍👩‍👧", "\ud83d", "\ude00"),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: "grapheme", maxLength: 5 }),
  fc.string({ unit: "binary", maxLength: 5 }),
);
const text = fc.array(piece, { maxLength: 60 }).map((parts) => parts.join(""));

describe("the faster token count", () => {
  for (const name of ["o200k_base", "cl100k_base"] as const) {
    it(`equals ${name}'s isWithinTokenLimit on every text and limit`, () => {
      const { count } = counterOf(name);
      const { encoding } = TOKENIZERS[name];
      fc.assert(
        fc.property(text, fc.nat({ max: 120 }), (sample, limit) => {
          expect(count(sample, limit)).toBe(encoding.isWithinTokenLimit(sample, limit, NO_SPECIAL));
          expect(count(sample, 100_000)).toBe(encoding.countTokens(sample, NO_SPECIAL));
        }),
        { numRuns: 3000 },
      );
    });
  }

  it("counts an ASCII log without the tokenizer's own pass, and a text past ASCII as exactly", () => {
    const log = Array.from({ length: 200 }, (_, i) => `2026-03-01T12:00:${i % 60}Z INFO served /items/${i} in ${i}ms`);
    for (const name of ["o200k_base", "cl100k_base"] as const) {
      const { count, fellBack } = counterOf(name);
      const ascii = log.join("\n");
      expect(count(ascii, 1_000_000)).toBe(TOKENIZERS[name].encoding.countTokens(ascii, NO_SPECIAL));
      const mixed = log.map((line, i) => (i % 3 === 0 ? `${line} café 東京 🚀` : line)).join("\n");
      expect(count(mixed, 1_000_000)).toBe(TOKENIZERS[name].encoding.countTokens(mixed, NO_SPECIAL));
      expect(fellBack()).toBe(0);
    }
  });

  it("cuts ASCII text into o200k_base's chunks, as its pattern with ASCII classes does", () => {
    // The pattern with ASCII classes `chunk-count.ts` writes from o200k_base's own alternatives: what the scanner
    // reads in its place.
    const ascii = new RegExp(ASCII_PATTERNS.o200k_base, "y");
    const chunksByPattern = (text: string) => {
      const ends: number[] = [];
      for (let at = 0; at < text.length; ) {
        ascii.lastIndex = at;
        at = ascii.test(text) ? ascii.lastIndex : at + 1;
        ends.push(at);
      }
      return ends;
    };
    const chunksByScanner = (text: string, from: number) => {
      const ends: number[] = [];
      for (let at = from; at < text.length; ) {
        at = o200kAsciiChunkEnd(text, at, text.length);
        ends.push(at - from);
      }
      return ends;
    };
    // Every ASCII unit, weighted toward what the alternatives turn on: letters by case, digits, apostrophes and
    // contraction letters, spaces, breaks, slashes and other symbols.
    const unit = fc.oneof(
      fc.constantFrom(..."aZsSdDmMtTlLvVeErR'0123456789 \t\n\r\v\f/-.:_\u0000\u007f"),
      fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
    );
    const asciiText = fc.array(unit, { maxLength: 40 }).map((units) => units.join(""));
    fc.assert(
      fc.property(asciiText, fc.string({ unit: "grapheme-ascii", maxLength: 3 }), (text, before) => {
        // Read from inside a longer text: the span's end is the input's end, what comes before it does not count.
        expect(chunksByScanner(before + text, before.length)).toEqual(chunksByPattern(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("keeps chunk counts in a table that grows as it fills, finds each by its span, and starts again when full", () => {
    const table = new ChunkTable();
    expect(table.shape).toEqual({ chunks: 0, slots: 4096 });
    // Chunks read from inside a longer text, as the count finds them; some share their hash's low bits.
    const text = Array.from({ length: 65_536 }, (_, i) => `<${i.toString(36)}>`).join("");
    const spans: Array<[number, number]> = [];
    for (let at = 0; at < text.length; at = text.indexOf(">", at) + 1) spans.push([at, text.indexOf(">", at) + 1]);
    for (const [i, [from, to]] of spans.entries()) {
      expect(table.lookup(text, from, to)).toBe(-2);
      table.keep(text.slice(from, to), i % 7);
    }
    expect(table.shape).toEqual({ chunks: 65_536, slots: 131_072 });
    for (const [i, [from, to]] of spans.entries()) expect(table.lookup(text, from, to)).toBe(i % 7);
    // A span of the same length with other units is not a chunk the table holds.
    expect(table.lookup("<zzzzz>", 0, 7)).toBe(-2);
    // Full, it starts again: the next chunk is the only one held.
    table.keep("next", 3);
    expect(table.shape).toEqual({ chunks: 1, slots: 131_072 });
    expect(table.lookup("a next b", 2, 6)).toBe(3);
    expect(table.lookup(text, 0, 3)).toBe(-2);
  });

  it("hands a text to the tokenizer whole when a chunk alone would be cut otherwise", () => {
    // No chunk of either pattern is cut otherwise when alone (the property above would have found one); a pattern
    // whose chunk `éé` needs the `x` after it shows the way out: the tokenizer's own count of the whole text.
    const { encoding } = TOKENIZERS.o200k_base;
    let fellBack = 0;
    const count = chunkCounter({
      name: "o200k_base",
      countWithin: (sample, limit) => {
        fellBack++;
        return encoding.isWithinTokenLimit(sample, limit, NO_SPECIAL);
      },
      countAll: (sample) => encoding.countTokens(sample, NO_SPECIAL),
      split: /é+(?=x)|[\s\S]/gu,
    });
    expect(count("ééx", 100)).toBe(encoding.isWithinTokenLimit("ééx", 100, NO_SPECIAL));
    expect(fellBack).toBe(1);
  });
});
