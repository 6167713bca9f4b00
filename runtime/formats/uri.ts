/**
 * The `uri` and `uri-reference` checks: ajv-formats' patterns, decided in one pass over the string.
 *
 * Carried over from ajv-formats 3.0.1 (MIT licensed, Copyright (c) 2020 Evgeny Poberezkin; the notice is in
 * `../formats.ts`, the entry that ships these checks).
 */

import { hexValue, isDigit, unitAt } from "./code-units.js";

/** ajv-formats' `uri` pattern as it stands; the check is {@link uri}. */
export const URI =
  /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;

/**
 * URI without its IP-literal host alternative (`\[…\]`, IPv6 and IPvFuture): nowhere else does URI admit "[", so
 * for a string without one the two decide alike. The `uri` check no longer runs it (it runs no pattern at all on a
 * string without "[", see {@link uriCheck}); it stays as the statement of that fact, which
 * `test/generator/validator/runtime-helpers.test.ts` derives from the upstream pattern.
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
export const uri = uriCheck(URI, false, true);
/** ajv-formats' `uri-reference`. */
export const uriReference = uriCheck(URI_REFERENCE, true, false);
