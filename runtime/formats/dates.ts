/**
 * The `date`, `time`, `date-time`, `iso-time` and `iso-date-time` checks and their orderings (RFC 3339).
 *
 * Carried over from ajv-formats 3.0.1 (MIT licensed, Copyright (c) 2020 Evgeny Poberezkin; the notice is in
 * `../formats.ts`, the entry that ships these checks).
 */

function isLeapYear(year: number): boolean {
  // https://tools.ietf.org/html/rfc3339#appendix-C
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function date(str: string): boolean {
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

export function compareDate(d1: string | undefined, d2: string | undefined): number | undefined {
  if (!(d1 && d2)) return undefined;
  if (d1 > d2) return 1;
  if (d1 < d2) return -1;
  return 0;
}

const TIME = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?$/i;

export function getTime(strictTimeZone?: boolean): (str: string) => boolean {
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
    return timeHolds(hr, min, sec, tz !== undefined && tz !== "", tzSign, tzH, tzM, strictTimeZone);
  };
}

/** Whether a time's parts make a time: what `time` decides once its pattern matched, shared with the usual shape's check. */
function timeHolds(
  hr: number,
  min: number,
  sec: number,
  tz: boolean,
  tzSign: number,
  tzH: number,
  tzM: number,
  strictTimeZone: boolean | undefined,
): boolean {
  if (tzH > 23 || tzM > 59 || (strictTimeZone && !tz)) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  // leap second
  const utcMin = min - tzM * tzSign;
  const utcHr = hr - tzH * tzSign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

export function compareTime(s1: string | undefined, s2: string | undefined): number | undefined {
  if (!(s1 && s2)) return undefined;
  const t1 = new Date(`2020-01-01T${s1}`).valueOf();
  const t2 = new Date(`2020-01-01T${s2}`).valueOf();
  if (!(t1 && t2)) return undefined;
  return t1 - t2;
}

export function compareIsoTime(t1: string, t2: string): number | undefined {
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

export function getDateTime(strictTimeZone?: boolean): (str: string) => boolean {
  const time = getTime(strictTimeZone);
  return function date_time(str: string): boolean {
    // http://tools.ietf.org/html/rfc3339#section-5.6
    // ajv-formats splits on every separator and wants two parts: exactly one separator. Splitting a megabyte of
    // spaces made a million strings (0.2 s); finding the first separator and asking for no second decides alike.
    const usual = usualDateTime(str, strictTimeZone);
    if (usual !== undefined) return usual;
    const at = str.search(DATE_TIME_SEPARATOR);
    if (at < 0) return false;
    const rest = str.slice(at + 1);
    return !DATE_TIME_SEPARATOR.test(rest) && date(str.slice(0, at)) && time(rest);
  };
}

/** The two decimal digits at `at` as a number, or -1 when either is not an ASCII digit (or is past the end). */
function twoDigits(str: string, at: number): number {
  const high = str.charCodeAt(at) - 48;
  const low = str.charCodeAt(at + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : -1;
}

/**
 * The verdict on a date-time of the shape nearly every one has (`2026-03-04T05:06:07Z`, with or without a fraction
 * of a second, a `z`, an offset with or without its colon, or no zone), read character by character; `undefined` for
 * any other shape, which the regular expressions then decide. Such a string has its one separator at index 10 and
 * none after it, its date matches `DATE` and its time `TIME` with the same groups, so the parts decide as `date` and
 * `time` do; the regular expressions' way costs four searches and as many new strings and match arrays per value.
 */
function usualDateTime(str: string, strictTimeZone: boolean | undefined): boolean | undefined {
  const length = str.length;
  if (length < 19) return undefined;
  const century = twoDigits(str, 0);
  const yearOfCentury = twoDigits(str, 2);
  const month = twoDigits(str, 5);
  const day = twoDigits(str, 8);
  const separator = str.charCodeAt(10);
  if (century < 0 || yearOfCentury < 0 || month < 0 || day < 0) return undefined;
  if (str.charCodeAt(4) !== 45 || str.charCodeAt(7) !== 45 || (separator !== 84 && separator !== 116)) return undefined;
  const hr = twoDigits(str, 11);
  const min = twoDigits(str, 14);
  let sec = twoDigits(str, 17);
  if (hr < 0 || min < 0 || sec < 0 || str.charCodeAt(13) !== 58 || str.charCodeAt(16) !== 58) return undefined;
  let at = 19;
  if (str.charCodeAt(at) === 46) {
    const first = ++at;
    for (let code = str.charCodeAt(at); code >= 48 && code <= 57; code = str.charCodeAt(++at));
    if (at === first) return undefined;
    sec = +str.slice(17, at);
  }
  let tz = false;
  let tzSign = 1;
  let tzH = 0;
  let tzM = 0;
  if (at < length) {
    const code = str.charCodeAt(at);
    if (code === 90 || code === 122) {
      if (at + 1 !== length) return undefined;
    } else if (code === 43 || code === 45) {
      tzSign = code === 45 ? -1 : 1;
      tzH = twoDigits(str, at + 1);
      if (tzH < 0) return undefined;
      at += 3;
      if (at < length) {
        if (str.charCodeAt(at) === 58) at++;
        tzM = twoDigits(str, at);
        if (tzM < 0 || at + 2 !== length) return undefined;
      }
    } else return undefined;
    tz = true;
  }
  const year = century * 100 + yearOfCentury;
  const dateHolds =
    month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS[month] as number));
  return dateHolds && timeHolds(hr, min, sec, tz, tzSign, tzH, tzM, strictTimeZone);
}

export function compareDateTime(dt1: string, dt2: string): number | undefined {
  if (!(dt1 && dt2)) return undefined;
  const d1 = new Date(dt1).valueOf();
  const d2 = new Date(dt2).valueOf();
  if (!(d1 && d2)) return undefined;
  return d1 - d2;
}

export function compareIsoDateTime(dt1: string, dt2: string): number | undefined {
  if (!(dt1 && dt2)) return undefined;
  const [d1, t1] = dt1.split(DATE_TIME_SEPARATOR);
  const [d2, t2] = dt2.split(DATE_TIME_SEPARATOR);
  const res = compareDate(d1, d2);
  if (res === undefined) return undefined;
  return res || compareTime(t1, t2);
}
