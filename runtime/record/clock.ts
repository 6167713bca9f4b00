/**
 * The time an admit received its payload, as provenance and events carry it: `Date.prototype.toISOString`'s text.
 *
 * `new Date().toISOString()` costs a few microseconds in V8 (the date is broken into fields in the runtime on every
 * call), which is a measurable share of admitting a small result. The text of one second does not change for the
 * thousand milliseconds in it, so the part up to the seconds is written once per second and only the milliseconds
 * are appended per call: the same text `toISOString` writes, for every time it writes with a four-digit year.
 */

/** The second {@link secondText} was written for, in milliseconds since the epoch (a multiple of 1000). */
let second = Number.NaN;
/** `toISOString`'s text of {@link second} up to and including the `.` before the milliseconds. */
let secondText = "";

/** The last millisecond `toISOString` writes with a four-digit year: 9999-12-31T23:59:59.999Z. */
const LAST_FOUR_DIGIT_YEAR = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()` for a millisecond count `Date.now()` gives: the text of its second is kept until the
 * next second comes. A time that is not a whole millisecond from 1970 to 9999 (never the clock's) is written by
 * `toISOString` itself.
 */
export function isoTimestamp(ms: number = Date.now()): string {
  if (!(Number.isInteger(ms) && ms >= 0 && ms <= LAST_FOUR_DIGIT_YEAR)) return new Date(ms).toISOString();
  const millis = ms % 1000;
  const at = ms - millis;
  if (at !== second) {
    second = at;
    secondText = new Date(at).toISOString().slice(0, -4);
  }
  return `${secondText}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}
