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
 *    the same. For `o200k_base` that pattern is read by a scanner written out alternative by alternative
 *    ({@link o200kAsciiChunkEnd}), which a property test holds to the pattern's own chunks. Other stretches are cut
 *    by the tokenizer's own pattern, from a boundary, as it would cut them.
 * 2. **Chunk counts.** A chunk's tokens are the tokenizer's count of the chunk alone, kept per chunk text and looked
 *    up by its span of the text, without taking it out ({@link ChunkTable}): the same as inside the text, because
 *    the pattern cuts the chunk alone into itself (checked once per chunk text; a chunk that would be cut otherwise
 *    sends its text to the tokenizer whole).
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
 * last one ended. `o200k_base`'s is what {@link o200kAsciiChunkEnd} reads in its place, and what a test holds it to.
 */
export const ASCII_PATTERNS: Readonly<Record<TokenizerName, string>> = {
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
/** The table's most slots: twice the chunks it keeps, so a lookup mostly finds its slot at once. */
const TABLE_SLOTS = 2 * KEPT_CHUNKS;
/** The table's first slots: it doubles as it fills, so a process that counts a little holds a little. */
const FIRST_SLOTS = 4096;
/** What {@link ChunkTable.lookup} answers for a span it does not keep. */
const NOT_KEPT = -2;

/** The FNV-1a hash of the code units `from` to `to` of `text`. */
function spanHash(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * Chunk texts and their tokens, looked up by a span of a longer text: hashed and compared unit by unit in place, so
 * a chunk already counted costs no string of its own (taking each chunk out and looking it up in a `Map` was half
 * of a count). Open addressing with linear probing, at most half full: it doubles up to {@link TABLE_SLOTS} and is
 * emptied when it holds {@link KEPT_CHUNKS} chunks.
 */
export class ChunkTable {
  private keys: Array<string | undefined> = new Array(FIRST_SLOTS).fill(undefined);
  private hashes = new Int32Array(FIRST_SLOTS);
  private counts = new Int32Array(FIRST_SLOTS);
  private size = 0;

  /** The chunks kept, and the slots they are kept in: for tests. */
  get shape(): { chunks: number; slots: number } {
    return { chunks: this.size, slots: this.keys.length };
  }

  /** The tokens kept for the span `from`–`to` of `text` (`-1`: cut otherwise alone), or {@link NOT_KEPT}. */
  lookup(text: string, from: number, to: number): number {
    const hash = spanHash(text, from, to);
    const length = to - from;
    const mask = this.keys.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const key = this.keys[slot];
      if (key === undefined) return NOT_KEPT;
      if (this.hashes[slot] === hash && key.length === length && sameUnits(key, text, from)) {
        return this.counts[slot] as number;
      }
    }
  }

  /** Keeps `tokens` for `chunk`, which the table does not hold yet. */
  keep(chunk: string, tokens: number): void {
    if (this.size >= KEPT_CHUNKS) {
      this.keys.fill(undefined);
      this.size = 0;
    } else if (2 * (this.size + 1) > this.keys.length) this.grow();
    this.place(chunk, spanHash(chunk, 0, chunk.length), tokens);
    this.size++;
  }

  private place(chunk: string, hash: number, tokens: number): void {
    const mask = this.keys.length - 1;
    let slot = hash & mask;
    while (this.keys[slot] !== undefined) slot = (slot + 1) & mask;
    this.keys[slot] = chunk;
    this.hashes[slot] = hash;
    this.counts[slot] = tokens;
  }

  /** Twice the slots, every chunk placed again. */
  private grow(): void {
    const { keys, hashes, counts } = this;
    const slots = Math.min(2 * keys.length, TABLE_SLOTS);
    this.keys = new Array(slots).fill(undefined);
    this.hashes = new Int32Array(slots);
    this.counts = new Int32Array(slots);
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot];
      if (key !== undefined) this.place(key, hashes[slot] as number, counts[slot] as number);
    }
  }
}

/** Whether `key` is the span of `text` that starts at `from` and is as long as `key`. */
function sameUnits(key: string, text: string, from: number): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) !== text.charCodeAt(from + i)) return false;
  return true;
}

/** Kinds of ASCII code units for {@link o200kAsciiChunkEnd}. */
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** `\r` and `\n`: whitespace, and no prefix of a word. */
const BREAK = 4;
/** The other whitespace (`\t`, `\v`, `\f`, space): a word's prefix. */
const BLANK = 5;
/** Anything else: a symbol, and a word's prefix. */
const SYMBOL_KIND = 6;
const ASCII_KINDS = Uint8Array.from({ length: 0x80 }, (_, unit) => {
  if (unit >= 0x41 && unit <= 0x5a) return UPPER;
  if (unit >= 0x61 && unit <= 0x7a) return LOWER;
  if (unit >= 0x30 && unit <= 0x39) return DIGIT;
  if (unit === 0x0a || unit === 0x0d) return BREAK;
  if (unit === 0x09 || unit === 0x0b || unit === 0x0c || unit === 0x20) return BLANK;
  return SYMBOL_KIND;
});

/** Where a contraction (`'s`, `'LL`, …: {@link CONTRACTION}) that starts at `at` ends, before `to`; else `at`. */
function contractionEnd(text: string, at: number, to: number): number {
  if (at + 1 >= to || text.charCodeAt(at) !== 0x27) return at;
  const first = text.charCodeAt(at + 1) | 0x20;
  if (first === 0x73 || first === 0x64 || first === 0x6d || first === 0x74) return at + 2;
  if (at + 2 >= to) return at;
  const second = text.charCodeAt(at + 2) | 0x20;
  if ((first === 0x6c && second === 0x6c) || ((first === 0x76 || first === 0x72) && second === 0x65)) return at + 3;
  return at;
}

/**
 * Where the chunk that starts at `at` ends, as `o200k_base`'s pattern with ASCII classes ({@link ASCII_PATTERNS})
 * cuts the ASCII text `at`–`to` (its end is the input's end), alternative by alternative, in the pattern's order:
 * a word with an optional prefix (upper case then lower case, or upper case alone), then one to three digits, then
 * symbols with an optional space before and line breaks or slashes after, then whitespace: up to its last line
 * break, or all but its last unit before a non-space, or all of it.
 */
export function o200kAsciiChunkEnd(text: string, at: number, to: number): number {
  const kind = ASCII_KINDS[text.charCodeAt(at)] as number;
  // A word: a prefix (anything but a letter, a digit or a line break) is taken when a letter follows it.
  let word = at;
  if (kind === BLANK || kind === SYMBOL_KIND) {
    if (at + 1 < to && (ASCII_KINDS[text.charCodeAt(at + 1)] as number) <= LOWER) word = at + 1;
  }
  const wordKind = ASCII_KINDS[text.charCodeAt(word)] as number;
  if (word < to && wordKind <= LOWER) {
    let end = word;
    while (end < to && ASCII_KINDS[text.charCodeAt(end)] === UPPER) end++;
    // Upper case then lower case; else the upper case alone (the run ends before no lower case letter).
    while (end < to && ASCII_KINDS[text.charCodeAt(end)] === LOWER) end++;
    return contractionEnd(text, end, to);
  }
  if (kind === DIGIT) {
    let end = at + 1;
    while (end < to && end < at + 3 && ASCII_KINDS[text.charCodeAt(end)] === DIGIT) end++;
    return end;
  }
  // Symbols, after one optional space, then line breaks and slashes.
  let symbols = at;
  if (text.charCodeAt(at) === 0x20 && at + 1 < to && ASCII_KINDS[text.charCodeAt(at + 1)] === SYMBOL_KIND) {
    symbols = at + 1;
  }
  if (ASCII_KINDS[text.charCodeAt(symbols)] === SYMBOL_KIND) {
    let end = symbols + 1;
    while (end < to && ASCII_KINDS[text.charCodeAt(end)] === SYMBOL_KIND) end++;
    while (end < to && (ASCII_KINDS[text.charCodeAt(end)] === BREAK || text.charCodeAt(end) === 0x2f)) end++;
    return end;
  }
  // Whitespace: through its last line break; else all but its last unit when a non-space follows; else all of it.
  let end = at + 1;
  let lastBreak = kind === BREAK ? at : -1;
  while (end < to) {
    const next = ASCII_KINDS[text.charCodeAt(end)] as number;
    if (next === BREAK) lastBreak = end;
    else if (next !== BLANK) break;
    end++;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (end < to && end - 1 > at) return end - 1;
  return end;
}

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
  // `o200k_base`'s ASCII stretches are cut by its scanner; the expression is made for the other tokenizer only.
  const ascii = tokenizer.name === "o200k_base" ? undefined : new RegExp(ASCII_PATTERNS[tokenizer.name], "y");
  const whole = new RegExp(tokenizer.split.source, `${tokenizer.split.flags.replace(/[gy]/g, "")}y`);
  const alone = new RegExp(tokenizer.split.source, `${tokenizer.split.flags.replace(/[gy]/g, "")}y`);
  const kept = new ChunkTable();
  /** The tokens of the chunk `from`–`to` of `text`, or -1 when the pattern would cut it alone otherwise. */
  const tokensAt = (text: string, from: number, to: number): number => {
    let tokens = kept.lookup(text, from, to);
    if (tokens === NOT_KEPT) {
      const chunk = text.slice(from, to);
      alone.lastIndex = 0;
      tokens = alone.exec(chunk)?.[0].length === chunk.length ? tokenizer.countAll(chunk) : -1;
      kept.keep(chunk, tokens);
    }
    return tokens;
  };
  /** Counts the chunks `pattern` cuts from `from` to `to` into `count.tokens`; false when a chunk broke rule 2. */
  const countChunks = (pattern: RegExp, text: string, from: number, to: number, count: { tokens: number }) => {
    for (let at = from; at < to; ) {
      // `test` moves a sticky pattern past its match without building the match: only the chunk's end is needed.
      pattern.lastIndex = at;
      const end = pattern.test(text) ? pattern.lastIndex : at + 1;
      const tokens = tokensAt(text, at, end);
      if (tokens < 0) return false;
      count.tokens += tokens;
      at = end;
    }
    return true;
  };
  /** {@link countChunks} over an ASCII stretch `from`–`to` of `text`, whose end is the pattern's input's end. */
  const countStretch = (text: string, from: number, to: number, count: { tokens: number }) => {
    if (ascii !== undefined) {
      const stretch = text.slice(from, to);
      return countChunks(ascii, stretch, 0, stretch.length, count);
    }
    for (let at = from; at < to; ) {
      const end = o200kAsciiChunkEnd(text, at, to);
      const tokens = tokensAt(text, at, end);
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
        if (!countStretch(text, at, end, count)) return tokenizer.countWithin(text, limit);
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
