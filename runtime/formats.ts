/**
 * `toolgate/runtime/formats`: the format checks generated validators call where a contract asserts `format`. An
 * entry of its own, so validators that only annotate formats (the 2020-12 default) never load it.
 *
 * The checks are ajv-formats' full set (version 3.0.1, `dist/formats.js`), carried over as an ES module: ajv-formats
 * ships CommonJS only, and loading it pulls Node's CommonJS loader into an ESM start, which cost a cold start of 45
 * asserted corpus schemas about a third of its time. Five differ in form, none in verdict: `uri` and
 * `uri-reference` read the string in one pass and hand only an IP-literal host to parts of their patterns (a failing
 * megabyte cost the patterns 50–65 ms, see {@link uriCheck}); `url`, whose pattern backtracks quadratically (a 128 KB
 * value took 12.7 s), is a linear check with the pattern's verdicts; `date-time` and `iso-date-time` find their one separator
 * instead of splitting on every one; `regex` reads the pattern with a syntax check of its own instead of compiling
 * it (V8's parser took 100–150 ms per MB, see {@link isRegExpSource}). Every other check is linear in the string as
 * ajv-formats writes it (each was timed on hostile 1 MB strings, `test/hardening/formats.test.ts`), so no length cap
 * is needed and none changes a verdict. `test/validator/runtime-helpers.test.ts` holds every check equal to the
 * installed ajv-formats, so an upgrade that changes one fails there.
 *
 * ajv-formats is MIT licensed: Copyright (c) 2020 Evgeny Poberezkin. Permission is hereby granted, free of charge,
 * to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in
 * the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions: The above copyright notice and this permission notice
 * shall be included in all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT
 * WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
 * FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
 * CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
 * CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 */

/** A check on strings, with the ordering the `formatMinimum`/`formatMaximum` keywords use. */
export interface ComparableFormat {
  validate: (value: string) => boolean;
  compare: (left: string, right: string) => number | undefined;
}

/** A check on numbers (the OpenAPI formats `int32`, `int64`, `float`, `double`). */
export interface NumberFormat {
  type: "number";
  validate: (value: number) => boolean;
}

/** One format check as Ajv's generated code reads it; `true` accepts every value. */
export type FormatCheck = RegExp | ((value: string) => boolean) | ComparableFormat | NumberFormat | true;

function isLeapYear(year: number): boolean {
  // https://tools.ietf.org/html/rfc3339#appendix-C
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function date(str: string): boolean {
  // full-date from http://tools.ietf.org/html/rfc3339#section-5.6
  const matches = DATE.exec(str);
  if (!matches) return false;
  const year = +(matches[1] as string);
  const month = +(matches[2] as string);
  const day = +(matches[3] as string);
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS[month] as number))
  );
}

function compareDate(d1: string | undefined, d2: string | undefined): number | undefined {
  if (!(d1 && d2)) return undefined;
  if (d1 > d2) return 1;
  if (d1 < d2) return -1;
  return 0;
}

const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;

function getTime(strictTimeZone?: boolean): (str: string) => boolean {
  return function time(str: string): boolean {
    const matches = TIME.exec(str);
    if (!matches) return false;
    const hr = +(matches[1] as string);
    const min = +(matches[2] as string);
    const sec = +(matches[3] as string);
    const tz = matches[4];
    const tzSign = matches[5] === "-" ? -1 : 1;
    const tzH = +(matches[6] || 0);
    const tzM = +(matches[7] || 0);
    if (tzH > 23 || tzM > 59 || (strictTimeZone && !tz)) return false;
    if (hr <= 23 && min <= 59 && sec < 60) return true;
    // leap second
    const utcMin = min - tzM * tzSign;
    const utcHr = hr - tzH * tzSign - (utcMin < 0 ? 1 : 0);
    return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
  };
}

function compareTime(s1: string | undefined, s2: string | undefined): number | undefined {
  if (!(s1 && s2)) return undefined;
  const t1 = new Date(`2020-01-01T${s1}`).valueOf();
  const t2 = new Date(`2020-01-01T${s2}`).valueOf();
  if (!(t1 && t2)) return undefined;
  return t1 - t2;
}

function compareIsoTime(t1: string, t2: string): number | undefined {
  if (!(t1 && t2)) return undefined;
  const a1 = TIME.exec(t1);
  const a2 = TIME.exec(t2);
  if (!(a1 && a2)) return undefined;
  const left = (a1[1] as string) + a1[2] + a1[3];
  const right = (a2[1] as string) + a2[2] + a2[3];
  if (left > right) return 1;
  if (left < right) return -1;
  return 0;
}

const DATE_TIME_SEPARATOR = /t|\s/i;

function getDateTime(strictTimeZone?: boolean): (str: string) => boolean {
  const time = getTime(strictTimeZone);
  return function date_time(str: string): boolean {
    // http://tools.ietf.org/html/rfc3339#section-5.6
    // ajv-formats splits on every separator and wants two parts: exactly one separator. Splitting a megabyte of
    // spaces made a million strings (0.2 s); finding the first separator and asking for no second decides alike.
    const at = str.search(DATE_TIME_SEPARATOR);
    if (at < 0) return false;
    const rest = str.slice(at + 1);
    return !DATE_TIME_SEPARATOR.test(rest) && date(str.slice(0, at)) && time(rest);
  };
}

function compareDateTime(dt1: string, dt2: string): number | undefined {
  if (!(dt1 && dt2)) return undefined;
  const d1 = new Date(dt1).valueOf();
  const d2 = new Date(dt2).valueOf();
  if (!(d1 && d2)) return undefined;
  return d1 - d2;
}

function compareIsoDateTime(dt1: string, dt2: string): number | undefined {
  if (!(dt1 && dt2)) return undefined;
  const [d1, t1] = dt1.split(DATE_TIME_SEPARATOR);
  const [d2, t2] = dt2.split(DATE_TIME_SEPARATOR);
  const res = compareDate(d1, d2);
  if (res === undefined) return undefined;
  return res || compareTime(t1, t2);
}

/** ajv-formats' `uri` pattern as it stands; the check is {@link uri}. */
export const URI =
  /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;

/**
 * URI without its IP-literal host alternative (`\[…\]`, IPv6 and IPvFuture): nowhere else does URI admit "[", so
 * for a string without one the two decide alike. The `uri` check no longer runs it (it runs no pattern at all on a
 * string without "[", see {@link uriCheck}); it stays as the statement of that fact, which
 * `test/validator/runtime-helpers.test.ts` derives from the upstream pattern.
 */
export const URI_WITHOUT_IP_LITERAL =
  /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;

/** ajv-formats' `uri-reference` pattern as it stands; the check is {@link uriReference}. */
export const URI_REFERENCE =
  /^(?:[a-z][a-z0-9+\-.]*:)?(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'"()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?(?:\?(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;

// The URI checks read a string in one pass instead of running the patterns. A backtracking engine tries each of the
// patterns' alternatives in turn and rescans the string for each: linear, but a failing megabyte cost 50–65 ms
// (`"a:/" + "~".repeat(…) + "%"`). The patterns' shape makes one pass enough:
// - each part admits only its own ASCII characters (the `i` flag without `u` folds ASCII letters only), a `%` only
//   as `%` and two hex digits, and "[" and "]" only in an IP-literal host, which comes before any "?" or "#";
// - the query starts at the first "?" and the fragment at the first "#" (no part before them admits either, and
//   the fragment admits no second "#");
// - without "[" and "]", every string of those characters matches the hierarchical part: a path alternative takes
//   it whatever it holds (`//a:b` is an empty host and the path `/a:b`), so the verdict is the scan's;
// - with them, the IP literal's "]" is the only "]": the pattern matches exactly when the text before its "[" is a
//   scheme, slashes and userinfo (read by a scan, {@link isIpLiteralPrefix}), the literal is one, and the rest is a
//   port, path, query and fragment. Two patterns cut from the pattern itself decide the last two, each a bounded
//   retreat at most.
// `test/hardening/formats.test.ts` holds both checks equal to the patterns on many thousands of URI-like strings.

/** What the scan does with each ASCII code unit; 0 (not admitted) for the rest and for every other code unit. */
const URI_NONE = 0;
const URI_PLAIN = 1;
const URI_QUOTE = 2;
const URI_PERCENT = 3;
const URI_QUERY = 4;
const URI_HASH = 5;
const URI_OPEN = 6;
const URI_CLOSE = 7;
const URI_ROLE = new Uint8Array(0x80);
for (const character of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/") {
  URI_ROLE[character.charCodeAt(0)] = URI_PLAIN;
}
for (const [character, role] of [
  ['"', URI_QUOTE],
  ["%", URI_PERCENT],
  ["?", URI_QUERY],
  ["#", URI_HASH],
  ["[", URI_OPEN],
  ["]", URI_CLOSE],
] as const) {
  URI_ROLE[character.charCodeAt(0)] = role;
}

/** The two patterns a URI pattern's IP-literal host and what follows it are decided by. */
interface IpLiteralSplit {
  /** The IP literal alone, with its "[" and "]". */
  literal: RegExp;
  /** Port, path, query and fragment after it. */
  tail: RegExp;
}

/**
 * Cuts two patterns from a URI pattern of ajv-formats: its IP-literal alternative `\[…\]`, and after it the port
 * and path of the authority alternative, then the query and fragment. Built on the first string with a "[", so a
 * cold start never compiles them.
 */
function splitAtIpLiteral(pattern: RegExp): IpLiteralSplit {
  const source = pattern.source;
  const literal = `^${source.slice(source.indexOf("(?:\\[") + 3, source.indexOf("\\]|") + 2)}$`;
  const port = source.indexOf("(?::\\d*)?");
  const tail = `^${source.slice(port, source.indexOf("|\\/(?:(?:", port))}${source.slice(source.lastIndexOf("(?:\\?"))}`;
  return { literal: new RegExp(literal, pattern.flags), tail: new RegExp(tail, pattern.flags) };
}

/** Whether a code unit is an ASCII letter, either case (the patterns' `[a-z]` under `i`). */
function isAsciiLetter(unit: number): boolean {
  const lower = unit | 0x20;
  return lower >= 0x61 && lower <= 0x7a;
}

/**
 * Whether `str` before `open` (an IP literal's "[") is what the patterns admit there: a scheme
 * (`[a-z][a-z0-9+\-.]*:`, required when `scheme` is, and otherwise present exactly when the text does not start
 * with "/"), one or two slashes, and an optional userinfo ended by "@". The scan has already refused every
 * character no part admits and every bad `%`, so the userinfo only has to hold no `"`, "/" or "@". One pass, where
 * the pattern retreated over a long scheme or userinfo once per alternative.
 */
function isIpLiteralPrefix(str: string, open: number, scheme: boolean): boolean {
  let i = 0;
  if (scheme || str.charCodeAt(0) !== 0x2f) {
    if (!isAsciiLetter(str.charCodeAt(0))) return false;
    for (i = 1; i < open; i++) {
      const unit = str.charCodeAt(i);
      if (unit === 0x3a) break;
      if (!(isAsciiLetter(unit) || isDigit(unit) || unit === 0x2b || unit === 0x2d || unit === 0x2e)) return false;
    }
    i++; // the ":"
  }
  // "/" or "//": no userinfo character is "/", so a second one belongs to the slashes.
  if (i >= open || str.charCodeAt(i) !== 0x2f) return false;
  i += str.charCodeAt(i + 1) === 0x2f ? 2 : 1;
  if (i === open) return true;
  if (str.charCodeAt(open - 1) !== 0x40) return false;
  for (; i < open - 1; i++) {
    const unit = str.charCodeAt(i);
    if (unit === 0x22 || unit === 0x2f || unit === 0x40) return false;
  }
  return true;
}

/**
 * A check with the verdicts of `pattern` (ajv-formats' `uri` or `uri-reference`) that reads the string once; see
 * above. `quotes`: whether the pattern admits `"` (only `uri-reference` does, outside userinfo and IP literals).
 * `scheme`: whether the pattern requires a scheme and a non-empty hierarchical part (`uri`).
 */
function uriCheck(pattern: RegExp, quotes: boolean, scheme: boolean): (str: string) => boolean {
  let split: IpLiteralSplit | undefined;
  return function uriLike(str: string): boolean {
    const length = str.length;
    let hierEnd = length; // the first "?" or "#"
    let hash = -1;
    let open = -1;
    let close = -1;
    for (let i = 0; i < length; i++) {
      const unit = str.charCodeAt(i);
      const role = unit < 0x80 ? (URI_ROLE[unit] as number) : URI_NONE;
      if (role === URI_PLAIN) continue;
      switch (role) {
        case URI_QUOTE:
          if (!quotes) return false;
          break;
        case URI_PERCENT:
          if (hexValue(unitAt(str, i + 1)) < 0 || hexValue(unitAt(str, i + 2)) < 0) return false;
          i += 2;
          break;
        case URI_QUERY:
          if (hierEnd === length) hierEnd = i;
          break;
        case URI_HASH:
          if (hash >= 0) return false;
          hash = i;
          if (hierEnd === length) hierEnd = i;
          break;
        case URI_OPEN:
          if (open >= 0 || hierEnd < length) return false;
          open = i;
          break;
        case URI_CLOSE:
          if (close >= 0 || open < 0 || hierEnd < length) return false;
          close = i;
          break;
        default:
          return false;
      }
    }
    if (open >= 0) {
      if (close < 0 || !isIpLiteralPrefix(str, open, scheme)) return false;
      split ??= splitAtIpLiteral(pattern);
      return split.literal.test(str.slice(open, close + 1)) && split.tail.test(str.slice(close + 1));
    }
    return !scheme || hasSchemeAndPart(str, hierEnd);
  };
}

/**
 * Whether `str` starts with a scheme (`[a-z][a-z0-9+\-.]*:`, ending at the first ":", which no scheme character
 * is) and its hierarchical part, up to `hierEnd`, is not empty: every other alternative of `uri` needs a character.
 */
function hasSchemeAndPart(str: string, hierEnd: number): boolean {
  const first = str.charCodeAt(0) | 0x20;
  if (!(first >= 0x61 && first <= 0x7a)) return false;
  for (let i = 1; i < hierEnd; i++) {
    const unit = str.charCodeAt(i);
    if (unit === 0x3a) return i + 1 < hierEnd;
    const lower = unit | 0x20;
    const schemeChar =
      (lower >= 0x61 && lower <= 0x7a) || isDigit(unit) || unit === 0x2b || unit === 0x2d || unit === 0x2e;
    if (!schemeChar) return false;
  }
  return false;
}

/** ajv-formats' `uri` (http://jmrware.com/articles/2009/uri_regexp/URI_regex.html + optional protocol + required "."). */
const uri = uriCheck(URI, false, true);
/** ajv-formats' `uri-reference`. */
const uriReference = uriCheck(URI_REFERENCE, true, false);

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
function url(str: string): boolean {
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

const BYTE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/gm;

function byte(str: string): boolean {
  BYTE.lastIndex = 0;
  return BYTE.test(str);
}

const MIN_INT32 = -(2 ** 31);
const MAX_INT32 = 2 ** 31 - 1;

function validateInt32(value: number): boolean {
  return Number.isInteger(value) && value <= MAX_INT32 && value >= MIN_INT32;
}

function validateInt64(value: number): boolean {
  // JSON and javascript max Int is 2**53, so any int that passes isInteger is valid for Int64
  return Number.isInteger(value);
}

function validateNumber(): boolean {
  return true;
}

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

/**
 * The code unit at `at`, or -1 past the end. Past the end `charCodeAt` gives NaN, and V8 then drops the optimized
 * code of the loop at the end of every pattern, so the next one starts slow again.
 */
function unitAt(str: string, at: number): number {
  return at < str.length ? str.charCodeAt(at) : -1;
}

/** Whether a code unit is an ASCII letter, digit, `$` or `_`: the ASCII part of ID_Continue with `$`. */
function isAsciiNamePart(unit: number): boolean {
  const lower = unit | 0x20;
  return (lower >= 0x61 && lower <= 0x7a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x24 || unit === 0x5f;
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** The value of a hexadecimal digit, or -1 for any other code unit and for the end (see `unitAt`). */
function hexValue(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
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

function regex(str: string): boolean {
  return !Z_ANCHOR.test(str) && isRegExpSource(str);
}

function fmtDef(
  validate: (value: string) => boolean,
  compare: (left: string, right: string) => number | undefined,
): ComparableFormat {
  return { validate, compare };
}

/** The format checks (ajv-formats' full set), keyed by format name. */
export const formatValidators: Readonly<Record<string, FormatCheck>> = {
  // date: http://tools.ietf.org/html/rfc3339#section-5.6
  date: fmtDef(date, compareDate),
  // date-time: http://tools.ietf.org/html/rfc3339#section-5.6
  time: fmtDef(getTime(true), compareTime),
  "date-time": fmtDef(getDateTime(true), compareDateTime),
  "iso-time": fmtDef(getTime(), compareIsoTime),
  "iso-date-time": fmtDef(getDateTime(), compareIsoDateTime),
  // duration: https://tools.ietf.org/html/rfc3339#appendix-A
  duration: /^P(?!$)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)$/,
  uri,
  "uri-reference": uriReference,
  // uri-template: https://tools.ietf.org/html/rfc6570
  "uri-template":
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the template excludes control characters, as RFC 6570 asks
    /^(?:(?:[^\x00-\x20"'<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?)*\})*$/i,
  // ajv-formats' pattern decided as a linear check (see `url`)
  url,
  email:
    /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i,
  hostname: /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i,
  // optimized https://www.safaribooksonline.com/library/view/regular-expressions-cookbook/9780596802837/ch07s16.html
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  ipv6: /^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$/i,
  regex,
  // uuid: http://tools.ietf.org/html/rfc4122
  uuid: /^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i,
  // JSON-pointer: https://tools.ietf.org/html/rfc6901
  // uri fragment: https://tools.ietf.org/html/rfc3986#appendix-A
  "json-pointer": /^(?:\/(?:[^~/]|~0|~1)*)*$/,
  "json-pointer-uri-fragment": /^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$/i,
  // relative JSON-pointer: http://tools.ietf.org/html/draft-luff-relative-json-pointer-00
  "relative-json-pointer": /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/,
  // the following formats are used by the openapi specification: https://spec.openapis.org/oas/v3.0.0#data-types
  // byte: https://github.com/miguelmota/is-base64
  byte,
  // signed 32 bit integer
  int32: { type: "number", validate: validateInt32 },
  // signed 64 bit integer
  int64: { type: "number", validate: validateInt64 },
  // C-type float
  float: { type: "number", validate: validateNumber },
  // C-type double
  double: { type: "number", validate: validateNumber },
  // hint to the UI to hide input strings
  password: true,
  // unchecked string payload
  binary: true,
};
