/**
 * Reading strings by UTF-16 code unit, shared by the checks that scan a string once.
 */

/**
 * The code unit at `at`, or -1 past the end. Past the end `charCodeAt` gives NaN, and V8 then drops the optimized
 * code of the loop at the end of every pattern, so the next one starts slow again.
 */
export function unitAt(str: string, at: number): number {
  return at < str.length ? str.charCodeAt(at) : -1;
}

/** Whether a code unit is an ASCII digit. */
export function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** The value of a hexadecimal digit, or -1 for any other code unit and for the end (see `unitAt`). */
export function hexValue(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
