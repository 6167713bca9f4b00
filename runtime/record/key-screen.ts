/**
 * A screen the helper thread runs over a JSON payload while it hashes it: whether any string value under one of a
 * few object keys could read like instructions. It answers for a field rule that flags such text
 * (`x-toolgate.fields`, `onInstruction: "flag"`), whose check the gate would otherwise make after validating, on the
 * caller's thread, over every string at the rule's path (each issue's title, say).
 *
 * The thread has the payload's text, not its value, so it reads the text: every place `"key"` is written as a key
 * (its opening quote not escaped, then `:`), and the string that follows it. In a payload with no `\u` anywhere, a
 * key whose characters need no escape (no `"`, `\`, `/` or control character) can only be written as it is, so the
 * strings it finds include every string value of that key, at any depth: those at the rule's path, and others. It
 * reads each with the instruction check's own tables (the class of every UTF-16 unit and the trigger words'
 * automaton), as `triggerFree` in `stages/fields.ts` does. Its answer is one word: every such string is free of
 * trigger words ({@link SCREEN_FREE}), or it cannot say ({@link SCREEN_UNSURE}: a string that may hold one, or that
 * it does not decide alone, such as one with an escape, a unit the gate has not classed yet, or more than
 * `maxUnits` units). The gate takes only the first answer, and only for a value parsed from exactly this text: then
 * no string at the rule's path reads like instructions, and the walk is spared. Otherwise the gate walks as before.
 */

/** What the thread needs to screen a payload, told to it once (the id names it in each job). */
export interface KeyScreen {
  /** Names the screen in a job's header: at least 1 (0 is a job with no screen). */
  readonly id: number;
  /** The keys whose string values are read: each the last step of a flag rule's path. */
  readonly keys: readonly string[];
  /**
   * The instruction check's class of every UTF-16 unit, in shared memory where there is some: the gate classes a
   * unit the first time it meets one, and the thread reads the classes as they are (a unit not classed yet, it
   * does not decide).
   */
  readonly classes: Uint8Array;
  /** The trigger words' automaton: `steps[state × classCount + class]`, or `stop` for a step that reads a word. */
  readonly steps: Uint8Array;
  readonly classCount: number;
  /** The class of a character that is neither a letter nor a space. */
  readonly otherClass: number;
  /** The step that completes a trigger word. */
  readonly stop: number;
  /** The class of a unit folding drops (a combining mark): read past. */
  readonly dropped: number;
  /** The longest string, in UTF-16 units, the automaton decides alone. */
  readonly maxUnits: number;
  /** The astral code points the check reads as others (`[first, last]` ranges); any other, the thread does not decide. */
  readonly astral: ReadonlyArray<readonly [number, number]>;
}

/** A job's screen word: every string under the keys is free of trigger words. */
export const SCREEN_FREE = 1;
/** A job's screen word: the thread cannot say so. */
export const SCREEN_UNSURE = 2;

/**
 * The thread's side, as source: `screenOf(told)` makes a screen of what the gate told it, and
 * `screenFree(bytes, screen)` reads a payload's UTF-8 bytes (exactly its length). Reached from the hash thread's
 * code (`hash-thread.ts`), which runs it before the hash, so that the answer is there when the gate checks fields.
 */
export const KEY_SCREEN_SOURCE = `
function screenOf(told) {
  return { ...told, needles: told.keys.map((key) => Buffer.from(JSON.stringify(key))) };
}
function blank(byte) {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
function inertAstral(point, astral) {
  for (const [first, last] of astral) if (point >= first && point <= last) return true;
  return false;
}
// Past the closing quote of the string whose text begins at from, when the automaton reads no trigger word in it;
// -1 when it may, or when the string holds what this reading does not decide alone.
function freeString(bytes, from, s) {
  const { classes, steps, classCount, otherClass, stop, dropped, maxUnits } = s;
  const length = bytes.length;
  let state = 0;
  let units = 0;
  let i = from;
  while (i < length) {
    const lead = bytes[i];
    let unit;
    let size;
    if (lead < 0x80) {
      if (lead === 0x22) return i + 1;
      if (lead === 0x5c || lead < 0x20) return -1;
      unit = lead;
      size = 1;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      const second = bytes[i + 1];
      if ((second & 0xc0) !== 0x80) return -1;
      unit = ((lead & 0x1f) << 6) | (second & 0x3f);
      size = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      const second = bytes[i + 1];
      const third = bytes[i + 2];
      if ((second & 0xc0) !== 0x80 || (third & 0xc0) !== 0x80) return -1;
      unit = ((lead & 0x0f) << 12) | ((second & 0x3f) << 6) | (third & 0x3f);
      if (unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff)) return -1;
      size = 3;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      const second = bytes[i + 1];
      const third = bytes[i + 2];
      const fourth = bytes[i + 3];
      if ((second & 0xc0) !== 0x80 || (third & 0xc0) !== 0x80 || (fourth & 0xc0) !== 0x80) return -1;
      const point = ((lead & 0x07) << 18) | ((second & 0x3f) << 12) | ((third & 0x3f) << 6) | (fourth & 0x3f);
      if (!inertAstral(point, s.astral)) return -1;
      units += 2;
      if (units > maxUnits) return -1;
      state = steps[state * classCount + otherClass];
      if (state === stop) return -1;
      i += 4;
      continue;
    } else return -1;
    units++;
    if (units > maxUnits) return -1;
    const at = classes[unit];
    if (at !== dropped) {
      if (at >= classCount) return -1;
      state = steps[state * classCount + at];
      if (state === stop) return -1;
    }
    i += size;
  }
  return -1;
}
// Whether every string written after one of the screen's keys is free of trigger words.
function screenFree(bytes, s) {
  const length = bytes.length;
  for (const needle of s.needles) {
    let at = bytes.indexOf(needle, 0);
    while (at >= 0) {
      let next = at + 1;
      let escapes = 0;
      while (escapes < at && bytes[at - 1 - escapes] === 0x5c) escapes++;
      if ((escapes & 1) === 0) {
        let i = at + needle.length;
        while (i < length && blank(bytes[i])) i++;
        if (i < length && bytes[i] === 0x3a) {
          i++;
          while (i < length && blank(bytes[i])) i++;
          if (i < length && bytes[i] === 0x22) {
            const end = freeString(bytes, i + 1, s);
            if (end < 0) return false;
            next = end;
          }
        }
      }
      at = bytes.indexOf(needle, next);
    }
  }
  return true;
}
`;
