/**
 * Text hygiene for everything the model reads: strips characters that are invisible or that steer rendering, and
 * bounds text by code points so a surrogate pair is never split.
 *
 * `data` keeps the tool's value exactly as received; only the view and messages meant for the model are cleaned.
 */

/**
 * Characters removed from model-facing text:
 * - C0 and C1 controls except `\n` and `\t` (they can hide text in terminals and logs);
 * - bidi controls U+202A–202E, U+2066–2069, U+200E, U+200F, U+061C (they reorder what a reader sees);
 * - zero-width and invisible formatting U+200B–200D, U+2060–2064, U+206A–206F, U+FEFF, U+00AD, U+180E, U+FFF9–FFFB,
 *   U+034F, and the blank fillers U+115F, U+1160, U+17B4, U+17B5, U+3164, U+FFA0;
 * - tag characters U+E0000–E007F and variation selectors U+FE00–FE0F, U+E0100–E01EF (long runs of them smuggle
 *   invisible data);
 * - lone surrogates, which JSON escapes (`"\ud800"`) can produce and which no encoder can render.
 * Kept for emoji, so they keep their meaning: one U+FE0E/U+FE0F right after an emoji (or keycap base), and U+200D
 * (zero-width joiner) between two emoji.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point of this pattern.
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]|\u034F|[\uFE00-\uFE0F]|[\u{E0000}-\u{E007F}]|[\u{E0100}-\u{E01EF}]|[\uD800-\uDFFF]/gu;

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
  INVISIBLE.lastIndex = 0;
  if (!INVISIBLE.test(text)) return text;
  INVISIBLE.lastIndex = 0;
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
  for (const match of text.matchAll(INVISIBLE)) {
    const at = match.index;
    keep(text.slice(from, at));
    from = at + match[0].length;
    const char = match[0];
    if (char === "\u200D") {
      if (EMOJI_BEFORE_JOINER.test(tail) && EMOJI_AFTER_JOINER.test(text.slice(from, from + 2))) keep(char);
    } else if ((char === "\uFE0F" || char === "\uFE0E") && SELECTOR_BASE.test(tail)) {
      keep(char);
    }
  }
  keep(text.slice(from));
  return pieces.join("");
}

/** Number of Unicode code points in `text` (what the view's character bounds count). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

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
 * {@link EXCERPT_MARK}. Used for view excerpts and for tool error messages.
 */
export function boundText(text: string, max: number): BoundedText {
  const cleaned = cleanText(text);
  const length = codePointLength(cleaned);
  if (length <= max) return { text: cleaned, leftOut: 0 };
  if (max <= 0) return { text: "", leftOut: length };
  const kept = leadingCodePoints(cleaned, max - 1);
  return { text: kept + EXCERPT_MARK, leftOut: length - (max - 1) };
}
