/**
 * Text hygiene for everything the model reads: strips characters that are invisible or that steer rendering, and
 * bounds text by code points so a surrogate pair is never split. Also the UTF-8 facts the gate needs on every
 * payload (length, well-formedness, strict decoding), natively where the host offers it.
 *
 * `data` keeps the tool's value exactly as received; only the view and messages meant for the model are cleaned.
 */
import { hostBuiltin } from "../record/provenance.js";

/** The part of `node:buffer` the gate uses: native UTF-8 length and validation (simdutf in Node). */
interface NodeBuffers {
  Buffer: { byteLength(text: string, encoding: "utf8"): number };
  isUtf8?: (bytes: Uint8Array) => boolean;
}

const nodeBuffers = hostBuiltin<NodeBuffers>("node:buffer");

/** UTF-8 length of a string, counted in JavaScript (lone surrogates count as the 3 bytes of U+FFFD). */
export function utf8LengthCounted(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * UTF-8 length of a string without encoding it (lone surrogates count as the 3 bytes of U+FFFD, as an encoder
 * writes them): natively where the host has `node:buffer`, else counted.
 */
export function utf8Length(text: string): number {
  return nodeBuffers === undefined ? utf8LengthCounted(text) : nodeBuffers.Buffer.byteLength(text, "utf8");
}

/** In `u` mode a surrogate range only matches surrogates that are not part of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Whether a string is well-formed UTF-16 (no lone surrogate), so that it has a UTF-8 encoding. Uses the native
 * `String.prototype.isWellFormed` (ES2024) where it exists: it answers at once for strings V8 stores one byte per
 * character and scans the others several times faster than a regular expression.
 */
export function isWellFormedText(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof native === "function" ? native.call(text) : !LONE_SURROGATE.test(text);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Decodes strict UTF-8 (`undefined` for invalid bytes), keeping a leading byte order mark so the parser can refuse
 * it by name. Where the host has `node:buffer`'s `isUtf8` (a SIMD validator), the bytes are validated with it and
 * decoded by the replacing decoder, which has nothing left to replace and takes Node's fast path; the fatal decoder
 * is about twice as slow on large payloads.
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  const isUtf8 = nodeBuffers?.isUtf8;
  try {
    if (isUtf8 === undefined) return strictUtf8.decode(bytes);
    return isUtf8(bytes) ? lenientUtf8.decode(bytes) : undefined;
  } catch {
    // The fatal decoder throws on invalid bytes; either decoder throws past the engine's longest string.
    return undefined;
  }
}

/**
 * Characters removed from model-facing text, by Unicode property rather than by a list, so that every character of
 * a kind goes (and new ones the host's Unicode data adds go too):
 * - C0 and C1 controls (`\p{Cc}`) except `\n` and `\t`: they can hide text in terminals and logs;
 * - format characters (`\p{Cf}`): bidi controls, zero-width characters, the soft hyphen, interlinear annotation,
 *   the Arabic and Kaithi prepended number marks, Egyptian, shorthand and musical format controls, tags;
 * - default-ignorable code points (`\p{Default_Ignorable_Code_Point}`), which renderers draw as nothing: variation
 *   selectors (also Mongolian and supplementary ones, long runs of which smuggle invisible data), blank fillers,
 *   the grapheme joiner, and the reserved code points Unicode keeps ignorable (U+2065, U+FFF0–FFF8, all of
 *   U+E0000–E0FFF);
 * - noncharacters (`\p{Noncharacter_Code_Point}`: U+FDD0–FDEF and the last two of every plane);
 * - unassigned code points in the format-control blocks (Egyptian U+13430–1345F, shorthand U+1BCA0–1BCAF), where
 *   the next version of Unicode adds its new format characters;
 * - lone surrogates, which JSON escapes (`"\ud800"`) can produce and which no encoder can render.
 * Kept for emoji, so they keep their meaning: one U+FE0E/U+FE0F right after an emoji (or keycap base), and U+200D
 * (zero-width joiner) between two emoji.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point of this pattern.
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\p{Cf}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]|(?=[\u{13430}-\u{1345F}\u{1BCA0}-\u{1BCAF}])\p{Cn}|[\uD800-\uDFFF]/gu;

/**
 * Which code points {@link INVISIBLE} matches, worked out from the expression in pages of 1,024 code points
 * (code point >> 10), each the first time a text holds a character of it. So the scan's question costs a table
 * lookup and is exactly the expression's answer, and a text touches only the pages of its scripts (one takes a
 * fraction of a millisecond). For the BMP, one byte per code unit: 0 while its page is unknown, 1 visible, 2 one to
 * remove (a lone surrogate is judged by the scan itself, and its byte stays 0).
 */
const bmp = new Uint8Array(0x10000);
/** Astral pages: `undefined` until worked out, `null` for a page with none (most), else one flag per code point. */
const astral: Array<Uint8Array | null | undefined> = [];

/** Made at first use: a UTF-16 decoder costs a quarter of a millisecond to set up, and most texts need no page. */
let utf16: TextDecoder | undefined;

/** The code points of one page that {@link INVISIBLE} matches, as offsets into the page. */
function matchesInPage(index: number): number[] {
  const first = index << 10;
  // The page as UTF-16 units, written straight into an array: a string per code point costs as much as the search.
  const units = new Uint16Array(first < 0x10000 ? 1024 : 2048);
  for (let offset = 0; offset < 1024; offset++) {
    const point = first + offset;
    if (point < 0x10000) {
      // Surrogate code points are no characters; the scan judges them as UTF-16 units.
      units[offset] = point >= 0xd800 && point <= 0xdfff ? 0x20 : point;
    } else {
      units[2 * offset] = 0xd800 + ((point - 0x10000) >> 10);
      units[2 * offset + 1] = 0xdc00 + ((point - 0x10000) & 0x3ff);
    }
  }
  const offsets: number[] = [];
  utf16 ??= new TextDecoder("utf-16le", { ignoreBOM: true });
  const page = utf16.decode(units);
  for (const match of page.matchAll(INVISIBLE)) offsets.push((match[0].codePointAt(0) as number) - first);
  return offsets;
}

/** Whether a BMP code unit that is not a surrogate is one {@link INVISIBLE} matches. */
export function isInvisibleUnit(unit: number): boolean {
  const known = bmp[unit];
  if (known !== 0) return known === 2;
  const first = unit & ~1023;
  bmp.fill(1, first, first + 1024);
  for (const offset of matchesInPage(unit >> 10)) bmp[first + offset] = 2;
  return bmp[unit] === 2;
}

/** Whether an astral code point is one {@link INVISIBLE} matches. */
export function isInvisibleAstral(point: number): boolean {
  const index = point >> 10;
  let page = astral[index];
  if (page === undefined) {
    const offsets = matchesInPage(index);
    page = offsets.length === 0 ? null : new Uint8Array(1024);
    for (const offset of offsets) (page as Uint8Array)[offset] = 1;
    astral[index] = page;
  }
  return page !== null && page[point & 1023] === 1;
}

/** Where {@link scanText} found that an excerpt of the requested length ends (a UTF-16 index). */
let scannedCut = 0;
/**
 * Whether the text {@link scanText} last read holds only plain units (see {@link ordinary}) and whole surrogate
 * pairs: none that cleaning removes, JSON escapes or the markup escapes. What {@link lastCleanPlain} answers.
 */
let scannedPlain = false;

/**
 * Whether the string the last {@link cleanText} or {@link boundText} returned is known to hold no unit that JSON or
 * the model content's markup escapes: then it costs its UTF-8 length and its quotes, and no search for such units is
 * needed. True only when the one pass that found nothing to remove found none of them either; false says only that
 * it is not known.
 */
export function lastCleanPlain(): boolean {
  return scannedPlain;
}

/**
 * Code units that cleaning never removes and that are never half of a pair, as inclusive ranges: printable ASCII,
 * tab and line feed, and whole blocks of letters in which Unicode has no format or ignorable character and no
 * unassigned code point (Latin-1 past the soft hyphen, Latin Extended-A and -B, IPA, Cyrillic, the dashes, quotes
 * and bullets of General Punctuation, Dingbats, Hiragana, Katakana, CJK Unified Ideographs, Hangul syllables). Text
 * in these scripts is read in runs, the accented letters of Latin text among them. A test holds every unit here
 * visible by {@link INVISIBLE} under the host's own Unicode data.
 */
export const ORDINARY_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0a],
  [0x20, 0x7e],
  [0xa0, 0xac],
  [0xae, 0x2af],
  [0x400, 0x4ff],
  [0x2010, 0x2027],
  [0x2700, 0x27bf],
  [0x3041, 0x3096],
  [0x30a1, 0x30fa],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7a3],
];

/**
 * The ordinary units that a string of the model's content cannot hold as they are: tab and line feed, the quote and
 * the backslash (JSON escapes them), and `&`, `<` and `>` (the content's markup escapes them). Cleaning keeps them;
 * the price of a string that holds one is counted unit by unit.
 */
const ESCAPED_ORDINARY = [0x09, 0x0a, 0x22, 0x26, 0x3c, 0x3e, 0x5c];

/**
 * One byte per BMP code unit: {@link PLAIN} for the units of {@link ORDINARY_RANGES} but those of
 * {@link ESCAPED_ORDINARY}, which are {@link ESCAPED_UNIT}; 0 for the rest.
 */
const ordinary = new Uint8Array(0x10000);
const PLAIN = 1;
const ESCAPED_UNIT = 2;
for (const [first, last] of ORDINARY_RANGES) ordinary.fill(PLAIN, first, last + 1);
for (const unit of ESCAPED_ORDINARY) ordinary[unit] = ESCAPED_UNIT;

/**
 * A run of plain ordinary units (those {@link ordinary} marks {@link PLAIN}): matched from a given index, the engine's
 * compiled loop skips it several times faster than a loop over code units.
 */
const ORDINARY_RUN = new RegExp(`[${plainRanges().join("")}]+`, "y");

/** {@link ORDINARY_RANGES} without the units of {@link ESCAPED_ORDINARY}, as ranges of a character class. */
function plainRanges(): string[] {
  const ranges: string[] = [];
  for (let unit = 0; unit < 0x10000; unit++) {
    if (ordinary[unit] !== PLAIN) continue;
    const first = unit;
    while (unit + 1 < 0x10000 && ordinary[unit + 1] === PLAIN) unit++;
    ranges.push(first === unit ? `\\u${hex4(first)}` : `\\u${hex4(first)}-\\u${hex4(unit)}`);
  }
  return ranges;
}
/** Ordinary units in a row after which a scan skips the rest of their run with {@link ORDINARY_RUN}. */
const RUN_BEFORE_SKIP = 8;

function hex4(unit: number): string {
  return unit.toString(16).padStart(4, "0");
}

/**
 * Where the run of ordinary units ({@link ORDINARY_RUN}) starting at `at` ends; the unit at `at` is one. Callers ask
 * once their own loop has met {@link RUN_BEFORE_SKIP} ordinary units in a row: for short runs (a word between two
 * emoji) their loop is cheaper than a call of the expression.
 */
function ordinaryRunEnd(text: string, at: number): number {
  ORDINARY_RUN.lastIndex = at;
  ORDINARY_RUN.test(text);
  return ORDINARY_RUN.lastIndex;
}

/**
 * One pass over `text` for the two questions every string in a view raises: does it hold a character
 * {@link INVISIBLE} matches (then −1), and if not, how many code points it has, with the UTF-16 index after the
 * first `keep` of them left in {@link scannedCut}. A loop over code units with the page table is several times
 * faster than the Unicode-mode expression, and answering both in one pass reads each string once.
 */
function scanText(text: string, keep: number): number {
  const length = text.length;
  let count = 0;
  let run = 0;
  let plain = true;
  scannedCut = 0;
  scannedPlain = false;
  for (let i = 0; i < length; i++) {
    if (count === keep) scannedCut = i;
    count++;
    const unit = text.charCodeAt(i);
    const kind = ordinary[unit];
    if (kind === PLAIN) {
      if (++run === RUN_BEFORE_SKIP) {
        // The rest of a plain run: one code point per unit, so the count and the cut are arithmetic.
        run = 0;
        const end = ordinaryRunEnd(text, i);
        const more = end - i - 1;
        if (keep >= count && keep < count + more) scannedCut = i + 1 + keep - count;
        count += more;
        i = end - 1;
      }
      continue;
    }
    run = 0;
    if (kind === ESCAPED_UNIT) {
      plain = false;
      continue;
    }
    // C0 controls except tab and line feed, and DEL.
    if (unit <= 0x7f) return -1;
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = unit <= 0xdbff && i + 1 < length ? text.charCodeAt(i + 1) : 0;
      // A lone surrogate.
      if (next < 0xdc00 || next > 0xdfff) return -1;
      if (isInvisibleAstral(((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000)) return -1;
      i++;
    } else if (isInvisibleUnit(unit)) {
      return -1;
    } else {
      // Kept, but not known plain: the markup's lookalikes and the line separators are escaped.
      plain = false;
    }
  }
  scannedPlain = plain;
  return count;
}

/** Whether `text` holds any character {@link INVISIBLE} matches. */
export function hasInvisible(text: string): boolean {
  return scanText(text, -1) < 0;
}

/** An emoji, or what may sit between an emoji and a joiner (variation selector 16, skin tones), at the end. */
const EMOJI_BEFORE_JOINER = /(?:\p{Extended_Pictographic}|\u{FE0F}|[\u{1F3FB}-\u{1F3FF}])$/u;
const EMOJI_AFTER_JOINER = /^\p{Extended_Pictographic}/u;
/** A character that takes an emoji or text presentation selector (emoji, and the keycap bases 0-9 # *). */
const SELECTOR_BASE = /\p{Emoji}$/u;

/**
 * Removes control and invisible characters from text meant for the model (see {@link INVISIBLE}), keeping what
 * emoji need. Linear in the length of the text. Returns the same string when nothing had to go.
 */
export function cleanText(text: string): string {
  if (!hasInvisible(text)) return text;
  scannedPlain = false;
  // Rebuild left to right, so a joiner or selector is judged against what has already been kept (and the raw text
  // after it). Pieces go into an array and only the last two UTF-16 units kept are tracked: slicing a growing
  // concatenated string would flatten it every time, and a payload full of joiners would take quadratic time.
  const pieces: string[] = [];
  let tail = "";
  let from = 0;
  const keep = (piece: string): void => {
    if (piece === "") return;
    pieces.push(piece);
    tail = piece.length >= 2 ? piece.slice(-2) : (tail + piece).slice(-2);
  };
  // The same judgement as the scan's, code unit by code unit: a loop with the page table is several times faster
  // than running the property expression over text that has something to remove.
  const length = text.length;
  let run = 0;
  for (let at = 0; at < length; at++) {
    const unit = text.charCodeAt(at);
    let width = 1;
    let invisible: boolean;
    const kind = ordinary[unit];
    if (kind !== 0) {
      invisible = false;
      if (kind !== PLAIN) run = 0;
      else if (++run === RUN_BEFORE_SKIP) {
        run = 0;
        at = ordinaryRunEnd(text, at) - 1;
      }
    } else {
      run = 0;
      // C0 controls except tab and line feed, and DEL.
      if (unit <= 0x7f) invisible = true;
      else if (unit >= 0xd800 && unit <= 0xdfff) {
        const next = unit <= 0xdbff && at + 1 < length ? text.charCodeAt(at + 1) : 0;
        if (next >= 0xdc00 && next <= 0xdfff) {
          width = 2;
          invisible = isInvisibleAstral(((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000);
        } else invisible = true;
      } else invisible = isInvisibleUnit(unit);
    }
    if (!invisible) {
      at += width - 1;
      continue;
    }
    keep(text.slice(from, at));
    from = at + width;
    if (unit === 0x200d) {
      if (EMOJI_BEFORE_JOINER.test(tail) && EMOJI_AFTER_JOINER.test(text.slice(from, from + 2))) keep("\u200D");
    } else if ((unit === 0xfe0f || unit === 0xfe0e) && SELECTOR_BASE.test(tail)) {
      keep(text[at] as string);
    }
    at = from - 1;
  }
  keep(text.slice(from));
  return pieces.join("");
}

/** Number of Unicode code points in `text` (what the view's character bounds count, and `maxLength` too). */
export { codePointLength } from "../validators.js";

/** The first `max` code points of `text` (never half a surrogate pair). */
export function leadingCodePoints(text: string, max: number): string {
  let count = 0;
  let i = 0;
  while (i < text.length && count < max) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length;
    const next = pair ? text.charCodeAt(i + 1) : 0;
    i += pair && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
    count++;
  }
  return text.slice(0, i);
}

/** The marker that ends an excerpt, so a shortened string never passes for the whole value. */
export const EXCERPT_MARK = "…";

/** A string brought within a character bound: whole, or a marked excerpt with the number of characters left out. */
export interface BoundedText {
  text: string;
  /** Code points of the cleaned text that the excerpt left out; 0 when the text is whole. */
  leftOut: number;
}

/**
 * Cleans `text` and, if still longer than `max` code points, cuts it to `max - 1` code points plus
 * {@link EXCERPT_MARK}. Used for view excerpts and for tool error messages. Text with nothing to clean (the usual
 * case) is read once: the same pass that finds nothing to remove counts the code points and finds the cut.
 */
export function boundText(text: string, max: number): BoundedText {
  if (text.length > max) {
    const length = scanText(text, max - 1);
    if (length >= 0) return excerptOf(text, length, scannedCut, max);
  }
  return boundCleanText(cleanText(text), max);
}

/** {@link boundText} for text already cleaned. */
export function boundCleanText(cleaned: string, max: number): BoundedText {
  // A text of at most `max` UTF-16 units cannot have more code points than that.
  if (cleaned.length <= max) return { text: cleaned, leftOut: 0 };
  let length = 0;
  let cut = 0;
  for (let i = 0; i < cleaned.length; i++) {
    if (length === max - 1) cut = i;
    length++;
    // A high surrogate followed by a low one is a single code point.
    if ((cleaned.charCodeAt(i) & 0xfc00) === 0xd800 && (cleaned.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return excerptOf(cleaned, length, cut, max);
}

/** The bounded form of a cleaned text of `length` code points whose first `max - 1` end at UTF-16 index `cut`. */
function excerptOf(cleaned: string, length: number, cut: number, max: number): BoundedText {
  if (length <= max) return { text: cleaned, leftOut: 0 };
  if (max <= 0) return { text: "", leftOut: length };
  return { text: cleaned.slice(0, cut) + EXCERPT_MARK, leftOut: length - (max - 1) };
}
