/**
 * The tokenizer's count, found faster where text is ASCII.
 *
 * `gpt-tokenizer` cuts text into chunks with its pattern and looks each chunk up (or merges it); the pattern, full
 * of Unicode property classes, is most of the cost: about 350 ns a chunk, three times what the same pattern costs
 * written with ASCII classes. This count cuts the same chunks and sums the same per-chunk counts, so it returns
 * exactly what the tokenizer's `isWithinTokenLimit` returns, by three rules:
 *
 * 1. **ASCII stretches.** Text is cut at sure chunk boundaries (after an ASCII letter before an ASCII character that
 *    is no letter and no apostrophe, or after an ASCII digit before a non-digit: see `measure.ts`), which no chunk
 *    crosses whatever surrounds them. A stretch between two of them that holds only ASCII is cut by the pattern
 *    written with ASCII classes: on ASCII text each Unicode class is exactly its ASCII part (`\p{L}` is `[A-Za-z]`,
 *    `\p{N}` is `[0-9]`, `\s` the six ASCII spaces, the other letter classes and `\p{M}` empty), so the chunks are
 *    the same. Other stretches are cut by the tokenizer's own pattern, from a boundary, as it would cut them.
 * 2. **Chunk counts.** A chunk's tokens are the tokenizer's count of the chunk alone, kept per chunk text: the same
 *    as inside the text, because the pattern cuts the chunk alone into itself (checked once per chunk text; a chunk
 *    that would be cut otherwise sends its text to the tokenizer whole).
 * 3. **Stopping.** The count stops once it passes the limit, as the tokenizer's does.
 *
 * A property test holds it equal to the tokenizer's own count on texts of every kind of character.
 */

/** The tokenizers this count knows the patterns of: the ones a contract can name (`measure.ts`). */
type TokenizerName = "o200k_base" | "cl100k_base";

/** A count up to a limit: the count when within it, `false` when over (`measure.ts`'s `TokenLimitCheck`). */
type TokenLimitCheck = (text: string, limit: number) => number | false;

/** The six ASCII whitespace characters: what `\s` is on ASCII text. */
const SPACE = "\\t\\n\\v\\f\\r ";
/** ASCII that is no letter, no digit, `\r` or `\n`: `[^\r\n\p{L}\p{N}]` on ASCII text. */
const NOT_WORD_OR_BREAK = "\\x00-\\x09\\x0b\\x0c\\x0e-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f";
/** ASCII that is no space, letter or digit: `[^\s\p{L}\p{N}]` on ASCII text. */
const SYMBOL = "\\x00-\\x08\\x0e-\\x1f\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f";
/** The contraction suffixes both patterns know, in either case. */
const CONTRACTION = "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])";

/**
 * Each tokenizer's pattern with ASCII classes in place of Unicode ones (`gpt-tokenizer`'s `O200K_TOKEN_SPLIT_REGEX`
 * and `CL100K_TOKEN_SPLIT_REGEX`, alternative by alternative), for ASCII text only. Sticky: a chunk is read where the
 * last one ended.
 */
const ASCII_PATTERNS: Readonly<Record<TokenizerName, string>> = {
  o200k_base: [
    `[${NOT_WORD_OR_BREAK}]?[A-Z]*[a-z]+(?:${CONTRACTION})?`,
    `[${NOT_WORD_OR_BREAK}]?[A-Z]+[a-z]*(?:${CONTRACTION})?`,
    "[0-9]{1,3}",
    ` ?[${SYMBOL}]+[\\r\\n/]*`,
    `[${SPACE}]*[\\r\\n]+`,
    `[${SPACE}]+(?![^${SPACE}])`,
    `[${SPACE}]+`,
  ].join("|"),
  cl100k_base: [
    CONTRACTION,
    `[${NOT_WORD_OR_BREAK}]?[A-Za-z]+`,
    "[0-9]{1,3}",
    ` ?[${SYMBOL}]+[\\r\\n]*`,
    `[${SPACE}]+$`,
    `[${SPACE}]*[\\r\\n]`,
    `[${SPACE}]+(?![^${SPACE}])`,
    `[${SPACE}]`,
  ].join("|"),
};

/** A code unit past ASCII. */
const NOT_ASCII = /[\u0080-\uffff]/g;

/** Chunk texts counted at most: past it the table starts again (a text's chunks repeat; most are short words). */
const KEPT_CHUNKS = 65_536;

/** What the count needs of a tokenizer. */
export interface ChunkTokenizer {
  name: TokenizerName;
  /** The tokenizer's own limited count (`isWithinTokenLimit`): what this one equals, and its way for the rest. */
  countWithin: TokenLimitCheck;
  /** The tokenizer's count of a whole text (`countTokens`). */
  countAll: (text: string) => number;
  /** The tokenizer's pattern (`*_TOKEN_SPLIT_REGEX`); copied, never used as is. */
  split: RegExp;
}

/** Whether an ASCII code unit is a letter (1), a digit (2), an apostrophe (3) or else (0). */
function asciiClass(unit: number): number {
  if ((unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a)) return 1;
  if (unit >= 0x30 && unit <= 0x39) return 2;
  return unit === 0x27 ? 3 : 0;
}

/** Whether `at` is a sure chunk boundary of any text that holds these two ASCII code units around it. */
function sureBoundary(before: number, after: number): boolean {
  if (before >= 0x80 || after >= 0x80) return false;
  const was = asciiClass(before);
  const is = asciiClass(after);
  return (was === 1 && is !== 1 && is !== 3) || (was === 2 && is !== 2);
}

/**
 * A limited count equal to the tokenizer's `isWithinTokenLimit` (see the module comment): the count when within
 * `limit`, else `false`.
 */
export function chunkCounter(tokenizer: ChunkTokenizer): TokenLimitCheck {
  const ascii = new RegExp(ASCII_PATTERNS[tokenizer.name], "y");
  const whole = new RegExp(tokenizer.split.source, `${tokenizer.split.flags.replace(/[gy]/g, "")}y`);
  const alone = new RegExp(tokenizer.split.source, `${tokenizer.split.flags.replace(/[gy]/g, "")}y`);
  const kept = new Map<string, number>();
  /** A chunk's tokens, or -1 when the pattern would cut the chunk alone otherwise (then rule 2 does not hold). */
  const tokensOf = (chunk: string): number => {
    let tokens = kept.get(chunk);
    if (tokens === undefined) {
      alone.lastIndex = 0;
      tokens = alone.exec(chunk)?.[0].length === chunk.length ? tokenizer.countAll(chunk) : -1;
      if (kept.size >= KEPT_CHUNKS) kept.clear();
      kept.set(chunk, tokens);
    }
    return tokens;
  };
  /** Counts the chunks `pattern` cuts from `from` to `to` into `count.tokens`; false when a chunk broke rule 2. */
  const countChunks = (pattern: RegExp, text: string, from: number, to: number, count: { tokens: number }) => {
    for (let at = from; at < to; ) {
      // `test` moves a sticky pattern past its match without building the match: only the chunk's end is needed.
      pattern.lastIndex = at;
      const end = pattern.test(text) ? pattern.lastIndex : at + 1;
      const tokens = tokensOf(text.slice(at, end));
      if (tokens < 0) return false;
      count.tokens += tokens;
      at = end;
    }
    return true;
  };
  return (text, limit) => {
    const count = { tokens: 0 };
    const length = text.length;
    for (let at = 0; at < length; ) {
      NOT_ASCII.lastIndex = at;
      const past = NOT_ASCII.exec(text)?.index ?? length;
      // The ASCII stretch: up to the last sure boundary before the first code unit past ASCII, or the text's end.
      let end = past;
      if (past < length) {
        while (end > at && !sureBoundary(text.charCodeAt(end - 1), text.charCodeAt(end))) end--;
      }
      if (end > at) {
        const stretch = text.slice(at, end);
        if (!countChunks(ascii, stretch, 0, stretch.length, count)) return tokenizer.countWithin(text, limit);
        if (count.tokens > limit) return false;
        at = end;
        continue;
      }
      // The other stretch: from here to the first sure boundary after that code unit, by the tokenizer's pattern.
      let stop = past + 1;
      while (stop < length && !sureBoundary(text.charCodeAt(stop - 1), text.charCodeAt(stop))) stop++;
      if (!countChunks(whole, text, at, stop, count)) return tokenizer.countWithin(text, limit);
      if (count.tokens > limit) return false;
      at = stop;
    }
    return count.tokens;
  };
}
