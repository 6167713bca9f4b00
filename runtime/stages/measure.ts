/**
 * Measures rendered model content against the context budget, in the contract's unit.
 *
 * Tokens are counted with `gpt-tokenizer` (a maintained pure-JS port of OpenAI's BPE tokenizers), loaded with a
 * dynamic import the first time a contract counts tokens, so importing `@toolgate/runtime` stays cheap.
 * Counting stops at the budget: an over-budget view is reported as "more than the budget", not counted in full.
 *
 * The tokenizer cuts text into chunks with a regular expression (words, numbers, runs of punctuation or of
 * whitespace) and runs byte-pair merging on each chunk. Its early exit happens only between chunks, and merging one
 * chunk costs the square of its length: a single run of 32,000 CJK characters, or 196 KB of one letter, is one chunk
 * and blocked the process for seconds. So the measure bounds the work per chunk, in two rules:
 *
 * 1. **Length.** No token of `o200k_base` or `cl100k_base` covers more than {@link MAX_TOKEN_UNITS} UTF-16 code
 *    units (the longest is 128 spaces), so a text longer than `limit × 128` code units holds more than `limit`
 *    tokens: it is over without counting. This is exact, not an estimate.
 * 2. **Long chunks.** A chunk of more than {@link LONG_CHUNK_UNITS} code units is not merged: it counts as its UTF-8
 *    length, one token per byte. Byte-pair merging starts from one token per byte and only ever joins tokens, so
 *    this is never fewer than the tokenizer's count: the measure may over-count such a run (about 3× for CJK and
 *    Thai, 8× for one repeated lower-case letter), never under-count it. Splitting the run into pieces and counting
 *    each would be cheaper on the budget but is not safe: merges across a cut can leave more tokens than the pieces
 *    hold.
 *
 * Every other chunk is counted exactly, by the tokenizer itself, over spans cut only between its own chunks, so a
 * text without such runs (prose, JSON, code, CJK with punctuation) counts exactly what `gpt-tokenizer` counts.
 * Spans are cut at positions that are chunk boundaries whatever surrounds them (an ASCII letter before an ASCII
 * non-letter, ...); where those are far apart (CJK, Thai, long runs), the tokenizer's own pattern finds the chunks,
 * and before each one a bounded look ahead refuses a run of one kind of character so long that one of its chunks is
 * over the budget by rule 2 (the pattern cuts such a run into at most four chunks), so no run is read further than
 * the budget needs. The work is linear in the part of the text counted, which stops once the count passes the
 * limit, and never more than `limit × 128` code units. Special-token text such as `<|endoftext|>` is counted as
 * plain text.
 */

import type { ContextBudget, Outcome, Success } from "../contract/types.js";
import { utf8Length } from "../text/hygiene.js";
import { chunkCounter } from "./chunk-count.js";
import { modelContentBytes, type TextTally } from "./content-size.js";
import { modelContentPieces, toModelContent } from "./model-content.js";

/** The tokenizers a contract can name. */
export type TokenizerName = NonNullable<ContextBudget["tokenizer"]>;

/** The tokenizer used when a contract counts tokens without naming one. */
export const DEFAULT_TOKENIZER: TokenizerName = "o200k_base";

/** Counts tokens up to a limit: the count when within it, `false` when over. */
export type TokenLimitCheck = (text: string, limit: number) => number | false;

/**
 * The most UTF-16 code units one token of `o200k_base` or `cl100k_base` covers (both: a token of 128 spaces).
 * Checked against both vocabularies by `test/hardening/tokens.test.ts`.
 */
export const MAX_TOKEN_UNITS = 128;

/** Chunks longer than this, in UTF-16 code units, count as their UTF-8 length instead of being merged. */
export const LONG_CHUNK_UNITS = 256;

/** The most code units a span of chunks found by the pattern holds before plain spans are tried again. */
const SCAN_UNITS = 4096;

/** The longest span handed to the tokenizer unread, in code units. */
const PLAIN_SPAN_UNITS = 65_536;

/**
 * Classes of characters whose every maximal run the tokenizer's pattern cuts into at most four chunks, per
 * tokenizer: whitespace (the newlines a punctuation chunk before it takes, then up to its last newline, the spaces
 * after, and one space that joins the next word), runs of punctuation and symbols (o200k_base: without marks, which
 * it reads as letters), and letters as the pattern groups them (o200k_base: a run of upper-case-like letters or of
 * lower-case-like letters, marks and CJK in both; cl100k_base: letters). Checked by `test/hardening/tokens.test.ts`.
 * Sticky, and used only on slices of bounded length.
 */
export const CHUNK_RUNS: Readonly<Record<TokenizerName, readonly RegExp[]>> = {
  // Made when a tokenizer is first loaded, not with the runtime: compiling these property classes took about
  // 1.3 ms of every import, and a process whose views all fit their budget never counts a token.
  get o200k_base(): readonly RegExp[] {
    o200kRuns ??= [
      /\s*/uy,
      /[^\s\p{L}\p{N}\p{M}]*/uy,
      /[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*/uy,
      /[\p{Ll}\p{Lm}\p{Lo}\p{M}]*/uy,
    ];
    return o200kRuns;
  },
  get cl100k_base(): readonly RegExp[] {
    cl100kRuns ??= [/\s*/uy, /[^\s\p{L}\p{N}]*/uy, /\p{L}*/uy];
    return cl100kRuns;
  },
};

let o200kRuns: readonly RegExp[] | undefined;
let cl100kRuns: readonly RegExp[] | undefined;

/** A measured count: the tokens, and whether every chunk was merged (false when a long chunk counted its bytes). */
export interface TokenCount {
  tokens: number;
  exact: boolean;
}

/** Counts tokens up to a limit with bounded work per chunk; `false` when over the limit. */
export type BoundedTokenCheck = (text: string, limit: number) => TokenCount | false;

/** What the bounded count needs of a tokenizer: its own limited count, and the pattern it splits text with. */
export interface TokenizerParts {
  /** The tokenizer's count of `text` when within `limit`, else `false` (gpt-tokenizer's `isWithinTokenLimit`). */
  countWithin: TokenLimitCheck;
  /** The tokenizer's chunk pattern (gpt-tokenizer's `*_TOKEN_SPLIT_REGEX`); copied, never used as is. */
  split: RegExp;
  /** The tokenizer's {@link CHUNK_RUNS}. */
  runs: readonly RegExp[];
}

/** Options of {@link boundedTokenCount}, for tests: they change how the text is read, never the count. */
export interface BoundedCountOptions {
  /** Whether spans with no room for a long chunk go to the tokenizer without the chunk scan (default true). */
  plainSpans?: boolean;
  /** The most code units read per span, in place of the defaults (small ones put many cuts in a text). */
  spanUnits?: number;
}

/**
 * Counts `text` up to `limit` by the two rules of this module: over at once when longer than `limit × 128` code
 * units; else chunk by chunk, exactly for chunks of at most {@link LONG_CHUNK_UNITS} code units and by UTF-8 length
 * for longer ones. Short chunks are handed to the tokenizer in spans of whole chunks, so its own count decides them.
 * The result is never below the tokenizer's count, and equals it when `exact` is true.
 */
export function boundedTokenCount(
  parts: TokenizerParts,
  text: string,
  limit: number,
  options: BoundedCountOptions = {},
): TokenCount | false {
  if (text.length > limit * MAX_TOKEN_UNITS) return false;
  // A sticky copy, so the scan's lastIndex is never shared with the tokenizer or with another measurement.
  const split = new RegExp(parts.split.source, `${parts.split.flags.replace(/[gy]/g, "")}y`);
  const plainSpans = options.plainSpans ?? true;
  const scanUnits = options.spanUnits ?? SCAN_UNITS;
  let tokens = 0;
  let exact = true;
  /** Start of the span of short chunks not yet counted; always a chunk boundary of the whole text. */
  let pending = 0;
  /** Where reading resumes; always a chunk boundary of the whole text. */
  let at = 0;
  /** Counts the pending span up to `end`; false once over the limit. */
  const flush = (end: number): boolean => {
    if (end > pending) {
      const counted = parts.countWithin(text.slice(pending, end), limit - tokens);
      if (counted === false) return false;
      tokens += counted;
    }
    pending = end;
    return true;
  };
  while (at < text.length) {
    if (plainSpans) {
      // Long enough that the tokenizer is called a few times per measurement, short enough that the look for
      // boundaries stays near where counting stops (ordinary text holds 3 to 5 code units per token).
      const span = options.spanUnits ?? Math.max(SCAN_UNITS, Math.min(PLAIN_SPAN_UNITS, (limit - tokens) * 6));
      const end = plainSpanEnd(text, at, span);
      if (end > at) {
        if (!flush(end)) return false;
        at = end;
        continue;
      }
    }
    // Chunk by chunk with the tokenizer's own pattern, on the whole text (a chunk can depend on what follows it).
    const stop = Math.min(text.length, at + scanUnits);
    while (at < stop) {
      if (runPastBudget(parts.runs, text, at, limit - tokens)) return false;
      split.lastIndex = at;
      const chunk = split.exec(text)?.[0] ?? text.slice(at, at + 1); // every character starts a chunk
      if (chunk.length > LONG_CHUNK_UNITS) {
        if (!flush(at)) return false;
        tokens += utf8Length(chunk);
        exact = false;
        if (tokens > limit) return false;
        pending = at + chunk.length;
      }
      at += chunk.length;
    }
    if (!flush(at)) return false;
  }
  return { tokens, exact };
}

/**
 * Whether a run of one of `runs`' classes starting at `at` (a chunk boundary) or just after it is so long that one
 * of its chunks is longer than both {@link LONG_CHUNK_UNITS} and `remaining` code units: that chunk counts at least
 * one token per code unit, so the text is over. The pattern cuts such a run into at most three chunks, four when
 * the chunk before it takes its first newlines (` ?[^\s\p{L}\p{N}]+[\r\n]*`). Reads at most `4 × (that length + 2)`
 * code units, which bounds what the pattern reads next too.
 */
function runPastBudget(runs: readonly RegExp[], text: string, at: number, remaining: number): boolean {
  const longest = Math.max(LONG_CHUNK_UNITS, remaining);
  const reach = 4 * (longest + 2);
  if (text.length - at < reach) return false;
  const ahead = text.slice(at, at + reach);
  for (const run of runs) {
    for (const offset of [0, 1]) {
      run.lastIndex = offset;
      const length = run.exec(ahead)?.[0].length ?? 0;
      // The run may go on past `reach`: its part here already makes a chunk of more than `longest`.
      if (length >= reach - 1) return true;
    }
  }
  return false;
}

/** Letter and digit classes of ASCII code units, for {@link plainSpanEnd}: 1 letter, 2 digit, 3 apostrophe. */
const ASCII_CLASS = new Uint8Array(128);
for (let unit = 0; unit < 128; unit++) {
  const char = String.fromCharCode(unit);
  ASCII_CLASS[unit] = /[A-Za-z]/.test(char) ? 1 : /[0-9]/.test(char) ? 2 : char === "'" ? 3 : 0;
}

/**
 * The end of the longest span from `from` (a chunk boundary), at most `size` code units, that ends on a chunk
 * boundary and has no room for a long chunk: sure boundaries at most {@link LONG_CHUNK_UNITS} apart all through it;
 * `from` itself when there is none.
 *
 * A sure boundary is one of both tokenizers' patterns whatever the rest of the text holds: after an ASCII letter and
 * before an ASCII character that is no letter and no apostrophe (a letter chunk ends at its last letter, or at a
 * contraction suffix, which starts with the apostrophe; no chunk takes a letter as its optional first character), or
 * after an ASCII digit and before an ASCII non-digit (digits are only ever a chunk of their own).
 */
function plainSpanEnd(text: string, from: number, size: number): number {
  const end = Math.min(text.length, from + size);
  let last = from;
  let before = text.charCodeAt(from);
  for (let at = from + 1; at < end; at++) {
    if (at - last > LONG_CHUNK_UNITS) return last;
    const after = text.charCodeAt(at);
    if (after < 0x80 && before < 0x80) {
      const was = ASCII_CLASS[before];
      const is = ASCII_CLASS[after];
      if ((was === 1 && is !== 1 && is !== 3) || (was === 2 && is !== 2)) last = at;
    }
    before = after;
  }
  // The end of the text is a boundary too.
  return end === text.length && end - last <= LONG_CHUNK_UNITS ? end : last;
}

const loading = new Map<TokenizerName, Promise<BoundedTokenCheck>>();

/**
 * The tokenizer a contract counts with could not be loaded: `gpt-tokenizer`, an optional peer of the runtime, is not
 * installed where the adapters run (or not in a version the runtime can load) (`toolgate generate` warns about it at build time). The gate ends such a call as
 * `transport_error` with `detail.reason = "tokenizer_unavailable"`, never as an unexplained throw.
 */
export class TokenizerUnavailableError extends Error {
  override readonly name = "TokenizerUnavailableError";

  constructor(readonly tokenizer: TokenizerName) {
    super(
      `The contract counts tokens with ${tokenizer}, and gpt-tokenizer could not be loaded: npm install gpt-tokenizer`,
    );
  }
}

/** The errors the loader made, known by identity: telling them apart never asks a thrown value anything. */
const madeUnavailable = new WeakSet<object>();

/**
 * Whether `error` is a {@link TokenizerUnavailableError} the loader threw. Asked of whatever reached the outermost
 * net, which may be a revoked proxy or one whose traps throw: a `WeakSet` lookup runs none of them, `instanceof` would.
 */
export function isTokenizerUnavailable(error: unknown): boolean {
  return typeof error === "object" && error !== null && madeUnavailable.has(error);
}

/**
 * Loads a tokenizer once per process, as a bounded count (the module comment gives its rules). Special-token text
 * such as `<|endoftext|>` in tool output is counted as plain text (`disallowedSpecial: new Set()`): the tokenizer
 * must never throw on untrusted text.
 */
function loadBoundedTokenizer(name: TokenizerName): Promise<BoundedTokenCheck> {
  let pending = loading.get(name);
  if (pending === undefined) {
    const module =
      name === "cl100k_base"
        ? import("gpt-tokenizer/encoding/cl100k_base")
        : import("gpt-tokenizer/encoding/o200k_base");
    const loaded = Promise.all([module, import("gpt-tokenizer/encodingParams/constants")]).catch(() => {
      const error = new TokenizerUnavailableError(name);
      madeUnavailable.add(error);
      throw error;
    });
    pending = loaded.then(([encoding, constants]) => {
      const options = { disallowedSpecial: new Set<string>() };
      const split = name === "cl100k_base" ? constants.CL100K_TOKEN_SPLIT_REGEX : constants.O200K_TOKEN_SPLIT_REGEX;
      // The tokenizer's own count, found faster where the text is ASCII (`chunk-count.ts`).
      const countWithin = chunkCounter({
        name,
        countWithin: (text, limit) => encoding.isWithinTokenLimit(text, limit, options),
        countAll: (text) => encoding.countTokens(text, options),
        split,
      });
      const parts: TokenizerParts = { countWithin, split, runs: CHUNK_RUNS[name] };
      return (text: string, limit: number) => boundedTokenCount(parts, text, limit);
    });
    // A failed load must not poison later calls (the package may be installed meanwhile in a long-lived process).
    pending.catch(() => loading.delete(name));
    loading.set(name, pending);
  }
  return pending;
}

/**
 * Loads a tokenizer once per process and returns its bounded count: the count when within the limit (never below
 * the tokenizer's own, equal to it unless the text has a chunk of more than {@link LONG_CHUNK_UNITS} code units),
 * `false` when over. Work is linear in the text counted, whatever the text.
 */
export function loadTokenizer(name: TokenizerName = DEFAULT_TOKENIZER): Promise<TokenLimitCheck> {
  return loadBoundedTokenizer(name).then((count) => (text: string, limit: number) => {
    const counted = count(text, limit);
    return counted === false ? false : counted.tokens;
  });
}

/**
 * A size in the budget's unit. `exact` is false when counting stopped past the limit (the value is then a floor,
 * `limit + 1`), when a long chunk counted its UTF-8 length, or when no tokenizer ran (`bound`) (the value is then
 * above the tokenizer's count).
 */
export interface Measured {
  unit: "bytes" | "tokens";
  value: number;
  exact: boolean;
  within: boolean;
  /**
   * `"bytes"` when a token budget was decided without the tokenizer: the text's UTF-8 length was within the limit,
   * and a token is at least one byte, so `value` is that length, a bound on the count.
   */
  bound?: "bytes";
}

/**
 * Measures `text` in the budget's unit, counting no further than `limit` (default: the budget's `max`) needs.
 * Bytes are UTF-8 bytes (cheap, so always exact). Tokens are counted chunk by chunk with the bounds of this module
 * and the count stops once it passes `limit`, so a 1 MB view against an 800-token budget costs about 800 tokens of
 * work, whatever the text holds.
 */
export async function measureText(text: string, budget: ContextBudget, limit = budget.max): Promise<Measured> {
  // Bytes are counted only for a byte budget: on a large text the count costs more than the tokens up to the limit.
  if (budget.unit === "bytes") {
    const bytes = utf8Length(text);
    return { unit: "bytes", value: bytes, exact: true, within: bytes <= limit };
  }
  const count = await loadBoundedTokenizer(budget.tokenizer ?? DEFAULT_TOKENIZER);
  const counted = count(text, limit);
  if (counted === false) return { unit: "tokens", value: limit + 1, exact: false, within: false };
  return { unit: "tokens", value: counted.tokens, exact: counted.exact, within: true };
}

/**
 * Whether `text` is within `limit`, measured no further than the verdict needs. The same verdict as
 * {@link measureText}, but a token budget is decided without the tokenizer whenever the text's UTF-8 length is within
 * the limit: every token of a byte-pair tokenizer covers at least one byte, so the count is at most that length
 * (the bounded count too: a long chunk counts one token per byte). The value is then that length and `bound` says
 * so. Only a text longer than the limit in bytes loads and runs the tokenizer, so a process whose results all fit
 * never imports it.
 */
export function measureVerdict(text: string, budget: ContextBudget, limit = budget.max): Promise<Measured> {
  const verdict = verdictNow([text], budget, limit);
  return verdict instanceof Promise ? verdict : Promise.resolve(verdict);
}

/**
 * {@link measureVerdict}'s verdict on the concatenation of `pieces`, without a promise whenever no tokenizer has to
 * run: a byte budget, or a token budget the text's UTF-8 length is within. The gate's measure stage takes it so, and
 * a small result waits for nothing. The UTF-8 length is counted piece by piece, which is the whole text's when no
 * surrogate pair straddles two pieces ({@link modelContentPieces} keeps to that): the pieces are not made into one
 * string unless the tokenizer has to read it.
 */
function verdictNow(pieces: readonly string[], budget: ContextBudget, limit: number): Measured | Promise<Measured> {
  if (budget.unit === "bytes") {
    const bytes = utf8LengthOf(pieces);
    return { unit: "bytes", value: bytes, exact: true, within: bytes <= limit };
  }
  let units = 0;
  for (let i = 0; i < pieces.length; i++) units += (pieces[i] as string).length;
  // UTF-8 takes at least one byte per UTF-16 code unit: a longer text is past the bound without being read.
  if (units <= limit) {
    const bytes = utf8LengthOf(pieces);
    if (bytes <= limit) return { unit: "tokens", value: bytes, exact: false, within: true, bound: "bytes" };
  }
  return measureText(pieces.length === 1 ? (pieces[0] as string) : pieces.join(""), budget, limit);
}

/** The UTF-8 length of the concatenation of `pieces`, no surrogate pair straddling two of them. */
function utf8LengthOf(pieces: readonly string[]): number {
  let bytes = 0;
  for (let i = 0; i < pieces.length; i++) bytes += utf8Length(pieces[i] as string);
  return bytes;
}

/**
 * Stage `measure`: an outcome measured on exactly what the model reads of it (`toModelContent`), so the budget
 * holds for what enters the context, delimiter and escapes included. Decided by {@link measureVerdict}: a rendered
 * view whose UTF-8 length is within a token budget is not tokenized.
 */
export function measureModelContent<T, V>(outcome: Outcome<T, V>, budget: ContextBudget): Promise<Measured> {
  const verdict = verdictNow(modelContentPieces(outcome as Outcome<unknown, unknown>), budget, budget.max);
  return verdict instanceof Promise ? verdict : Promise.resolve(verdict);
}

/** Views measured whole by the stage that built them, with the budget they were measured against. */
const measuredViews = new WeakMap<object, { budget: ContextBudget; measured: Measured }>();

/**
 * Notes that `view` was measured whole against `budget` (the text view measures a whole text's view to decide it),
 * so the measure stage takes that measure instead of rendering and measuring the same view again. The view must
 * not change before the measure stage reads it; the note is read once.
 */
export function noteMeasuredView<T, V>(view: Success<T, V>, budget: ContextBudget, measured: Measured): void {
  if (measured.within) measuredViews.set(view, { budget, measured });
}

/**
 * Stage `measure` on the view the view stage made: the note {@link noteMeasuredView} left for it, else
 * {@link measureModelContent}'s verdict, returned as it is (no promise) when no tokenizer had to run. The content's
 * length is counted without writing the view's JSON (`content-size.ts`, with the strings the projector counted as it
 * placed them, `tally`); only a view the count gives up on, or one a tokenizer must read, is written here.
 */
export function measureView<T, V>(
  view: Success<T, V>,
  budget: ContextBudget,
  tally?: TextTally,
): Measured | Promise<Measured> {
  const noted = measuredViews.get(view);
  if (noted !== undefined) {
    measuredViews.delete(view);
    if (noted.budget === budget) return noted.measured;
  }
  const success = view as Success<unknown, unknown>;
  const bytes = modelContentBytes(success, tally);
  if (bytes < 0) return verdictNow(modelContentPieces(success), budget, budget.max);
  if (budget.unit === "bytes") return { unit: "bytes", value: bytes, exact: true, within: bytes <= budget.max };
  // A token is at least a byte: within the budget in bytes is within it in tokens (see `measureVerdict`).
  if (bytes <= budget.max) return { unit: "tokens", value: bytes, exact: false, within: true, bound: "bytes" };
  return measureText(toModelContent(success), budget, budget.max);
}

/**
 * The `contextUsed` of a view within budget: the measured value, and `exact: false` when that value is a bound on
 * the tokens rather than their count (no tokenizer ran, or a long chunk counted its bytes).
 */
export function contextUsedOf(measured: Measured, budget: ContextBudget): Success<unknown, unknown>["contextUsed"] {
  const used: Success<unknown, unknown>["contextUsed"] = {
    unit: budget.unit,
    value: measured.value,
    budget: budget.max,
  };
  if (measured.unit === "tokens" && !measured.exact) used.exact = false;
  return used;
}
