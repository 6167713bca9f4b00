/**
 * The `regex` format: whether a string is a pattern `new RegExp` accepts (no flags), read once and without a tree.
 */

import { hexValue, isDigit, unitAt } from "./code-units.js";

const Z_ANCHOR = /[^\\]\\Z/;

// The `regex` check. ajv-formats asks `new RegExp(str)` (no flags) whether `str` is a pattern, and V8 builds a node
// per atom while it parses: a megabyte of `.a` cost its parser 100–150 ms, `(?=a)` repeated 66 ms. The check below
// decides the same question by reading the pattern once, with no tree, no recursion (a pattern may nest a megabyte
// deep), a counter for open groups and a stack of open lookbehinds only. It follows the grammar `new RegExp` reads
// without flags, ECMA-262's Annex B.1.2 (the web-compatible patterns), as V8 11.3 (Node 20) implements it: no
// duplicate group names, no `(?i:…)` modifiers, at most 32,767 capturing groups, `{n,m}` numbers kept at 2^31 - 1
// once larger. Where V8 departs from the specification it follows V8, since the question is what `new RegExp` says.
// `test/hardening/regex-format.test.ts` holds it equal to `new RegExp` on named cases and on random near-patterns.

/** The most capturing groups V8 accepts in one pattern: the next one is "Too many captures". */
const MAX_CAPTURES = 32_767;
/** V8 reads a `{n,m}` number up to this value and keeps this value for any larger one. */
const QUANTIFIER_INFINITY = 2 ** 31 - 1;

// What stands just before a quantifier.
/** The start of an alternative, an assertion or a quantifier: a quantifier there is "Nothing to repeat". */
const NOTHING = 0;
/** An atom, which a quantifier may follow (in Annex B, a lookahead is one). */
const ATOM = 1;
/** A lookbehind, which no quantifier may follow ("Invalid quantifier"). */
const LOOKBEHIND = 2;

/** `readClassAtom`'s value for a class escape (`\d \D \s \S \w \W`): `x-\d` is then three atoms, not a range. */
const CLASS_ESCAPE = 0x10000;
/** `readClassAtom` returns `length * ATOM_LENGTH + value` (at most 0x10000), read back by `>>> 17` and `& 0x1ffff`. */
const ATOM_LENGTH = 0x20000;
/** `readNameEscape` returns `end * ESCAPE_END + code point`: a code point is below 0x110000 < 2^21. */
const ESCAPE_END = 0x200000;

// A group name is a RegExpIdentifierName, read by code point even without the `u` flag. V8 asks ICU for ID_Start
// and ID_Continue, as `\p{…}` does: the two agreed on every code point (the test compares them on random ones).
const ID_START_AT = /[\p{ID_Start}$_]/uy;
const ID_CONTINUE_RUN = /[\p{ID_Continue}$\u200c\u200d]*/uy;
const ID_START_ONLY = /^[\p{ID_Start}$_]$/u;
const ID_CONTINUE_ONLY = /^[\p{ID_Continue}$\u200c\u200d]$/u;

// What each ASCII character is outside a class: a literal atom (most of any long pattern, so one lookup decides
// it) or one of these, which a switch over small numbers takes in one jump.
const LITERAL = 0;
const ESCAPE = 1;
const ASSERTION = 2; // ^ $
const OPEN = 3;
const CLOSE = 4;
const BAR = 5;
const REPEAT = 6; // * + ?
const BRACE = 7;
const CLASS = 8;
const ROLE = new Uint8Array(0x80);
for (const [characters, role] of [
  ["\\", ESCAPE],
  ["^$", ASSERTION],
  ["(", OPEN],
  [")", CLOSE],
  ["|", BAR],
  ["*+?", REPEAT],
  ["{", BRACE],
  ["[", CLASS],
] as const) {
  for (const character of characters) ROLE[character.charCodeAt(0)] = role;
}

/** Whether a code unit is an ASCII letter, digit, `$` or `_`: the ASCII part of ID_Continue with `$`. */
function isAsciiNamePart(unit: number): boolean {
  const lower = unit | 0x20;
  return (lower >= 0x61 && lower <= 0x7a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x24 || unit === 0x5f;
}

/** The value of `count` hexadecimal digits at `at`, or -1 when they are not all there. */
function hexDigits(str: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = hexValue(unitAt(str, i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * A `\u` escape in a group name (at the backslash), read as with the `u` flag: `\u{…}` up to U+10FFFF, or four
 * digits, joined with a second `\uXXXX` when they make a surrogate pair. Returns `end * ESCAPE_END + code point`,
 * or -1 when it is no such escape (V8: "Invalid Unicode escape"; any other backslash is an invalid name).
 */
function readNameEscape(str: string, at: number): number {
  if (unitAt(str, at + 1) !== 0x75) return -1;
  if (unitAt(str, at + 2) === 0x7b) {
    let i = at + 3;
    let value = 0;
    if (hexValue(unitAt(str, i)) < 0) return -1;
    for (let digit = hexValue(unitAt(str, i)); digit >= 0; digit = hexValue(unitAt(str, ++i))) {
      value = value * 16 + digit;
      if (value > 0x10ffff) return -1;
    }
    return unitAt(str, i) === 0x7d ? (i + 1) * ESCAPE_END + value : -1;
  }
  const lead = hexDigits(str, at + 2, 4);
  if (lead < 0) return -1;
  if (lead >= 0xd800 && lead <= 0xdbff && unitAt(str, at + 6) === 0x5c && unitAt(str, at + 7) === 0x75) {
    const trail = hexDigits(str, at + 8, 4);
    if (trail >= 0xdc00 && trail <= 0xdfff) {
      return (at + 12) * ESCAPE_END + ((lead - 0xd800) << 10) + (trail - 0xdc00) + 0x10000;
    }
  }
  return (at + 6) * ESCAPE_END + lead;
}

/**
 * The group name at `from` (just after `<`) up to its `>`, decoded, and where it ends; `undefined` when it is not
 * a RegExpIdentifierName closed by `>`. Letters and digits are read in a loop, other code points by one sticky
 * pattern per run, so a long name costs one pass.
 */
function readGroupName(str: string, from: number): { name: string; end: number } | undefined {
  let i = from;
  let name = "";
  let copied = from; // text before this index is in `name`
  const first = unitAt(str, i);
  if (first === 0x5c) {
    const read = readNameEscape(str, i);
    if (read < 0) return undefined;
    const codePoint = read % ESCAPE_END;
    if (!ID_START_ONLY.test(String.fromCodePoint(codePoint))) return undefined;
    name = String.fromCodePoint(codePoint);
    i = (read - codePoint) / ESCAPE_END;
    copied = i;
  } else if (isAsciiNamePart(first) && !isDigit(first)) {
    i++;
  } else {
    ID_START_AT.lastIndex = i;
    if (first < 0x80 || !ID_START_AT.test(str)) return undefined;
    i = ID_START_AT.lastIndex;
  }
  for (;;) {
    let unit = unitAt(str, i);
    while (isAsciiNamePart(unit)) unit = unitAt(str, ++i);
    if (unit === 0x3e) return { name: name + str.slice(copied, i), end: i + 1 };
    if (unit === 0x5c) {
      const read = readNameEscape(str, i);
      if (read < 0) return undefined;
      const codePoint = read % ESCAPE_END;
      // V8 ends a name at an escaped `>` as at a written one: `(?<a\u{3e}>)` is the group `a` matching `>`.
      if (codePoint === 0x3e) return { name: name + str.slice(copied, i), end: (read - codePoint) / ESCAPE_END };
      if (!ID_CONTINUE_ONLY.test(String.fromCodePoint(codePoint))) return undefined;
      name += str.slice(copied, i) + String.fromCodePoint(codePoint);
      i = (read - codePoint) / ESCAPE_END;
      copied = i;
    } else if (unit >= 0x80) {
      ID_CONTINUE_RUN.lastIndex = i;
      ID_CONTINUE_RUN.test(str);
      if (ID_CONTINUE_RUN.lastIndex === i) return undefined;
      i = ID_CONTINUE_RUN.lastIndex;
    } else {
      return undefined; // another ASCII character, or the end
    }
  }
}

/**
 * A braced quantifier at `at` (the `{`): the index after its `}`, -1 when the text there is not one (then `{` is a
 * literal), or -2 when its numbers are out of order. Numbers past 2^31 - 1 count as 2^31 - 1, as in V8, so
 * `{2147483648,2147483647}` is in order.
 */
function readBraces(str: string, at: number): number {
  let i = at + 1;
  let unit = unitAt(str, i);
  if (!isDigit(unit)) return -1;
  let min = 0;
  for (; isDigit(unit); unit = unitAt(str, ++i)) {
    min = min * 10 + unit - 0x30;
    if (min > QUANTIFIER_INFINITY) min = QUANTIFIER_INFINITY;
  }
  if (unit === 0x7d) return i + 1;
  if (unit !== 0x2c) return -1;
  unit = unitAt(str, ++i);
  if (unit === 0x7d) return i + 1;
  let max = 0;
  for (; isDigit(unit); unit = unitAt(str, ++i)) {
    max = max * 10 + unit - 0x30;
    if (max > QUANTIFIER_INFINITY) max = QUANTIFIER_INFINITY;
  }
  if (unit !== 0x7d) return -1;
  return max < min ? -2 : i + 1;
}

/**
 * One class atom at `at`: `length * ATOM_LENGTH + value`, where the value is its code unit or CLASS_ESCAPE, or -1
 * for a `\` at the end or a `\k` where named groups exist. Without flags every other escape is something: `\c`
 * takes a letter, digit or `_` (otherwise the atom is the backslash alone and `c` follows), `\x` and `\u` without
 * their digits are `x` and `u`, `\1`–`\7` are octal, and any other character stands for itself.
 */
function readClassAtom(str: string, at: number, named: boolean): number {
  const unit = unitAt(str, at);
  if (unit !== 0x5c) return ATOM_LENGTH + unit;
  if (at + 1 >= str.length) return -1;
  const next = unitAt(str, at + 1);
  switch (next) {
    case 0x62: // \b, the backspace
      return 2 * ATOM_LENGTH + 0x08;
    case 0x64: // \d \D \s \S \w \W
    case 0x44:
    case 0x73:
    case 0x53:
    case 0x77:
    case 0x57:
      return 2 * ATOM_LENGTH + CLASS_ESCAPE;
    case 0x63: {
      const control = unitAt(str, at + 2);
      const lower = control | 0x20;
      if ((lower >= 0x61 && lower <= 0x7a) || isDigit(control) || control === 0x5f) {
        return 3 * ATOM_LENGTH + (control & 0x1f);
      }
      return ATOM_LENGTH + 0x5c;
    }
    case 0x30:
    case 0x31:
    case 0x32:
    case 0x33:
    case 0x34:
    case 0x35:
    case 0x36:
    case 0x37: {
      // Up to three octal digits while the value stays below 256.
      let value = next - 0x30;
      let length = 2;
      const second = unitAt(str, at + 2);
      if (second >= 0x30 && second <= 0x37) {
        value = value * 8 + second - 0x30;
        length = 3;
        const third = unitAt(str, at + 3);
        if (value < 32 && third >= 0x30 && third <= 0x37) {
          value = value * 8 + third - 0x30;
          length = 4;
        }
      }
      return length * ATOM_LENGTH + value;
    }
    case 0x78: {
      const value = hexDigits(str, at + 2, 2);
      return value < 0 ? 2 * ATOM_LENGTH + 0x78 : 4 * ATOM_LENGTH + value;
    }
    case 0x75: {
      const value = hexDigits(str, at + 2, 4);
      return value < 0 ? 2 * ATOM_LENGTH + 0x75 : 6 * ATOM_LENGTH + value;
    }
    case 0x66:
      return 2 * ATOM_LENGTH + 0x0c;
    case 0x6e:
      return 2 * ATOM_LENGTH + 0x0a;
    case 0x72:
      return 2 * ATOM_LENGTH + 0x0d;
    case 0x74:
      return 2 * ATOM_LENGTH + 0x09;
    case 0x76:
      return 2 * ATOM_LENGTH + 0x0b;
    case 0x6b:
      return named ? -1 : 2 * ATOM_LENGTH + 0x6b;
    default:
      return 2 * ATOM_LENGTH + next;
  }
}

/**
 * The character class whose contents start at `from` (after `[`): the index after its `]`, or -1. Without flags a
 * range with a class escape at either end is the escape, `-` and the other atom; any other range must be in order
 * by code unit (a surrogate pair is two).
 */
function readClass(str: string, from: number, named: boolean): number {
  let i = unitAt(str, from) === 0x5e ? from + 1 : from;
  while (i < str.length) {
    if (unitAt(str, i) === 0x5d) return i + 1;
    const first = readClassAtom(str, i, named);
    if (first < 0) return -1;
    i += first >>> 17;
    if (unitAt(str, i) !== 0x2d) continue;
    i++;
    if (i >= str.length) return -1;
    if (unitAt(str, i) === 0x5d) return i + 1;
    const second = readClassAtom(str, i, named);
    if (second < 0) return -1;
    i += second >>> 17;
    const low = first & 0x1ffff;
    const high = second & 0x1ffff;
    if (low !== CLASS_ESCAPE && high !== CLASS_ESCAPE && low > high) return -1;
  }
  return -1;
}

/**
 * Whether the pattern has a named group, found as V8 finds it: any `(?<` not followed by `=` or `!`, outside
 * classes and escapes. Then `\k` must start a reference to a group name (Annex B's [+N] switch); without one it
 * is the letter k.
 */
function hasNamedGroup(str: string): boolean {
  for (let i = 0; i < str.length; i++) {
    const unit = unitAt(str, i);
    if (unit === 0x5c) {
      i++;
    } else if (unit === 0x5b) {
      for (i++; i < str.length; i++) {
        const inner = unitAt(str, i);
        if (inner === 0x5c) i++;
        else if (inner === 0x5d) break;
      }
    } else if (unit === 0x28 && unitAt(str, i + 1) === 0x3f && unitAt(str, i + 2) === 0x3c) {
      const after = unitAt(str, i + 3);
      if (after !== 0x3d && after !== 0x21) return true;
    }
  }
  return false;
}

/**
 * Whether `new RegExp(source)` (no flags) accepts `source`, decided in one pass over it (see above). Exported for
 * the tests that hold it equal to `new RegExp`.
 */
export function isRegExpSource(source: string): boolean {
  const named = source.includes("\\k") && hasNamedGroup(source);
  // How many groups are open, and the depth at which each open lookbehind started (innermost last): only a
  // lookbehind changes what may follow its `)`, so an ordinary group costs a counter, however deep the nesting.
  let depth = 0;
  const lookbehinds: number[] = [];
  const names = new Set<string>();
  const references: string[] = []; // checked at the end, when every group name is known
  let captures = 0;
  let before = NOTHING;
  let i = 0;
  const length = source.length;
  while (i < length) {
    const unit = source.charCodeAt(i);
    const role = unit < 0x80 ? (ROLE[unit] as number) : LITERAL;
    if (role === LITERAL) {
      // `.`, `]`, `}` and every other character
      before = ATOM;
      i++;
      continue;
    }
    switch (role) {
      case ESCAPE: {
        // An escape. Outside a class `\b` and `\B` are assertions, `\k` starts a reference where named groups
        // exist, and a `\` at the end is an error; every other escape is an atom that cannot fail, so its first
        // two code units are skipped and the rest is read as it stands, to the same verdict: `\c` without a letter
        // is a backslash and `c`, `\x` and `\u` without their digits are `x` and `u`, `\8` is `8`, `\1` a
        // reference or octal (and `\u{2,1}` is `u` with braces out of order).
        if (i + 1 >= source.length) return false;
        const next = unitAt(source, i + 1);
        if (next === 0x62 || next === 0x42) {
          before = NOTHING;
          i += 2;
        } else if (next === 0x6b && named) {
          if (unitAt(source, i + 2) !== 0x3c) return false;
          const reference = readGroupName(source, i + 3);
          if (reference === undefined) return false;
          references.push(reference.name);
          before = ATOM;
          i = reference.end;
        } else {
          before = ATOM;
          i += 2;
        }
        break;
      }
      case ASSERTION:
        before = NOTHING;
        i++;
        break;
      case OPEN: {
        if (unitAt(source, i + 1) !== 0x3f) {
          if (++captures > MAX_CAPTURES) return false;
          i++;
        } else {
          const form = unitAt(source, i + 2);
          const after = unitAt(source, i + 3);
          if (form === 0x3a || form === 0x3d || form === 0x21) {
            i += 3; // (?: (?= (?!
          } else if (form === 0x3c && (after === 0x3d || after === 0x21)) {
            lookbehinds.push(depth);
            i += 4;
          } else if (form === 0x3c) {
            if (++captures > MAX_CAPTURES) return false;
            const group = readGroupName(source, i + 3);
            if (group === undefined || names.has(group.name)) return false;
            names.add(group.name);
            i = group.end;
          } else {
            return false; // "Invalid group": modifiers such as (?i:…) are not in this V8
          }
        }
        depth++;
        before = NOTHING;
        break;
      }
      case CLOSE:
        if (depth === 0) return false;
        depth--;
        if (lookbehinds.length > 0 && lookbehinds[lookbehinds.length - 1] === depth) {
          lookbehinds.pop();
          before = LOOKBEHIND;
        } else {
          before = ATOM;
        }
        i++;
        break;
      case BAR:
        before = NOTHING;
        i++;
        break;
      case REPEAT:
        if (before !== ATOM) return false;
        i += unitAt(source, i + 1) === 0x3f ? 2 : 1;
        before = NOTHING;
        break;
      case BRACE: {
        // A `{` that does not start a braced quantifier is a literal; one that does needs an atom before it.
        const end = readBraces(source, i);
        if (end === -1) {
          before = ATOM;
          i++;
          break;
        }
        if (end === -2 || before !== ATOM) return false;
        i = unitAt(source, end) === 0x3f ? end + 1 : end;
        before = NOTHING;
        break;
      }
      default: {
        // CLASS: its own reader, which gives the index after its `]`
        const end = readClass(source, i + 1, named);
        if (end < 0) return false;
        before = ATOM;
        i = end;
      }
    }
  }
  if (depth > 0) return false;
  for (const name of references) if (!names.has(name)) return false;
  return true;
}

export function regex(str: string): boolean {
  return !Z_ANCHOR.test(str) && isRegExpSource(str);
}
