/**
 * The `url` check: ajv-formats' pattern backtracks quadratically, so its verdicts come from a linear reading.
 *
 * Carried over from ajv-formats 3.0.1 (MIT licensed, Copyright (c) 2020 Evgeny Poberezkin; the notice is in
 * `../formats.ts`, the entry that ships these checks).
 */

// With the pattern's flags: under `iu`, "ſ" matches "s".
const URL_SCHEME = /^(?:https?|ftp):\/\//iu;
/** The pattern's IP-address host alternative, alone: it spans at most 15 characters. */
const URL_IP_HOST =
  /^(?!(?:10|127)(?:\.\d{1,3}){3})(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))$/iu;

/** Whether a UTF-16 code unit is white space as `\s` reads it (ECMA-262 WhiteSpace and LineTerminator). */
function isWhiteSpace(unit: number): boolean {
  if (unit <= 0x20) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  if (unit < 0xa0) return false;
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/**
 * How many code units of `str` at `i` make one character of the pattern's host classes (`[a-z0-9\u{00a1}-\u{ffff}]`,
 * or without digits for a top-level domain, both under `iu`), or 0 when the character there is not one. Case
 * folding adds only A–Z below U+00A1; a surrogate pair is one code point past U+FFFF, so it is none, while a lone
 * surrogate is a code point of the range.
 */
function hostCharAt(str: string, i: number, digits: boolean): 0 | 1 {
  const unit = str.charCodeAt(i);
  if (unit >= 0xa1) {
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = str.charCodeAt(i + 1);
      return next >= 0xdc00 && next <= 0xdfff ? 0 : 1;
    }
    return 1;
  }
  const lower = unit | 0x20;
  if (lower >= 0x61 && lower <= 0x7a) return 1;
  return digits && unit >= 0x30 && unit <= 0x39 ? 1 : 0;
}

/**
 * Whether `str` from `from` to `to` is the pattern's domain: labels `c+(-c+)*` joined by dots, then a dot and a
 * top-level domain of two or more letters. One pass; no label needs a second look.
 */
function isUrlDomain(str: string, from: number, to: number): boolean {
  let dot = -1;
  for (let i = to - 1; i >= from && dot < 0; i--) if (str.charCodeAt(i) === 0x2e) dot = i;
  if (dot <= from || to - dot - 1 < 2) return false;
  for (let i = dot + 1; i < to; i++) if (hostCharAt(str, i, false) === 0) return false;
  // Labels: a "-" or "." must sit between two label characters.
  let afterChar = false;
  for (let i = from; i < dot; i++) {
    const unit = str.charCodeAt(i);
    if (unit === 0x2d || unit === 0x2e) {
      if (!afterChar) return false;
      afterChar = false;
    } else if (hostCharAt(str, i, true) === 1) {
      afterChar = true;
    } else {
      return false;
    }
  }
  return afterChar;
}

/** Whether `str` from `from` to `to` (no `/`, no `@`) is a host and optional port the pattern accepts. */
function isUrlHostPort(str: string, from: number, to: number): boolean {
  // No host character is ":", so the first one starts the port: `:` and 2 to 5 digits.
  let end = to;
  for (let i = from; i < to; i++) {
    if (str.charCodeAt(i) === 0x3a) {
      end = i;
      break;
    }
  }
  if (end < to) {
    if (to - end - 1 < 2 || to - end - 1 > 5) return false;
    for (let i = end + 1; i < to; i++) {
      const unit = str.charCodeAt(i);
      if (unit < 0x30 || unit > 0x39) return false;
    }
  }
  // An IP host is 7 to 15 characters and starts with a digit from 1 to 9.
  const first = str.charCodeAt(from);
  if (end - from >= 7 && end - from <= 15 && first >= 0x31 && first <= 0x39 && URL_IP_HOST.test(str.slice(from, end))) {
    return true;
  }
  return isUrlDomain(str, from, end);
}

/**
 * ajv-formats' `url` pattern (dperini's, https://gist.github.com/dperini/729294), with the same verdicts in time
 * linear in the string.
 *
 * The pattern reads `scheme://` `[userinfo@]` `host` `[:port]` `[/path]`, where the userinfo is any non-empty run
 * without white space (so it may hold `@` and `/`), the host and port hold neither `@` nor `/`, and the path is `/`
 * and any run without white space. A backtracking engine tries every `@` as the end of the userinfo and rescans the
 * rest each time: quadratic, a 128 KB value took 12.7 s. Here the only splits that can work are found directly: a
 * host and port end at the first `/` after them (or the end) and hold no `@`, so a host starts at the beginning or
 * just after the last `@` before some `/`. Those segments do not overlap, and the userinfo and path conditions (no
 * white space before, none after) are read from the first and last white space: two passes over the string.
 */
export function url(str: string): boolean {
  const scheme = URL_SCHEME.exec(str);
  if (scheme === null) return false;
  const start = scheme[0].length;
  let firstSpace = str.length;
  let lastSpace = -1;
  for (let i = start; i < str.length; i++) {
    if (isWhiteSpace(str.charCodeAt(i))) {
      if (firstSpace === str.length) firstSpace = i;
      lastSpace = i;
    }
  }
  let segmentStart = start;
  let lastAt = -1;
  for (let i = start; i <= str.length; i++) {
    const unit = i < str.length ? str.charCodeAt(i) : 0x2f;
    if (unit === 0x40) lastAt = i;
    if (unit !== 0x2f) continue;
    // The segment [segmentStart, i) ends at a "/" (or the end): a host and port may sit after its last "@", with
    // the userinfo before that "@"; or, in the first segment only, at its start with no userinfo.
    const hostStart = lastAt >= segmentStart ? lastAt + 1 : segmentStart === start ? start : -1;
    const userinfoFits = hostStart === start || (lastAt > start && firstSpace >= lastAt);
    if (hostStart >= 0 && userinfoFits && lastSpace < i && isUrlHostPort(str, hostStart, i)) return true;
    segmentStart = i + 1;
  }
  return false;
}
