/**
 * `@toolgate/runtime/formats`: the format checks generated validators call where a contract asserts `format`. An
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
 * is needed and none changes a verdict. `test/generator/validator/runtime-helpers.test.ts` holds every check equal to the
 * installed ajv-formats, so an upgrade that changes one fails there.
 *
 * The checks live in `formats/`, one file per family (dates, URIs, URLs, patterns); this file is the table. The
 * build bundles this entry into one module (`npm run build:entries`): each module a cold start loads costs it.
 */

/**
 * @license ajv-formats is MIT licensed: Copyright (c) 2020 Evgeny Poberezkin. Permission is hereby granted, free of charge,
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

import {
  compareDate,
  compareDateTime,
  compareIsoDateTime,
  compareIsoTime,
  compareTime,
  date,
  getDateTime,
  getTime,
} from "./formats/dates.js";
import { regex } from "./formats/regexp.js";
import { uri, uriReference } from "./formats/uri.js";
import { url } from "./formats/url.js";

export { isRegExpSource } from "./formats/regexp.js";
export { URI, URI_REFERENCE, URI_WITHOUT_IP_LITERAL } from "./formats/uri.js";

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
