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
 * - zero-width and invisible formatting U+200B–200D, U+2060–2064, U+206A–206F, U+FEFF, U+00AD, U+180E, U+FFF9–FFFB;
 * - tag characters U+E0000–E007F (they smuggle invisible ASCII);
 * - lone surrogates, which JSON escapes (`"\ud800"`) can produce and which no encoder can render.
 * U+200D (zero-width joiner) is kept when it joins two emoji, so emoji sequences keep their meaning.
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point of this pattern.
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB]|[\u{E0000}-\u{E007F}]|[\uD800-\uDFFF]/gu;

/** An emoji, or the modifiers that may sit between an emoji and a joiner (variation selector 16, skin tones). */
const EMOJI_BEFORE_JOINER = /(?:\p{Extended_Pictographic}|\u{FE0F}|[\u{1F3FB}-\u{1F3FF}])$/u;
const EMOJI_AFTER_JOINER = /^\p{Extended_Pictographic}/u;

/**
 * Removes control and invisible characters from text meant for the model (see {@link INVISIBLE}); a zero-width
 * joiner survives only between two emoji. Returns the same string when nothing had to go.
 */
export function cleanText(text: string): string {
  INVISIBLE.lastIndex = 0;
  if (!INVISIBLE.test(text)) return text;
  INVISIBLE.lastIndex = 0;
  // Rebuild left to right so a joiner is judged against what has already been kept (an emoji before it) and the
  // raw text after it; a stripped character between emoji and joiner must not make the joiner look orphaned.
  let kept = "";
  let from = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    const at = match.index;
    kept += text.slice(from, at);
    from = at + match[0].length;
    if (
      match[0] === "\u200D" &&
      EMOJI_BEFORE_JOINER.test(kept) &&
      EMOJI_AFTER_JOINER.test(text.slice(from, from + 2))
    ) {
      kept += "\u200D";
    }
  }
  return kept + text.slice(from);
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
