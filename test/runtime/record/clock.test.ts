/**
 * The time an admit received its payload is `toISOString`'s text, written once per second and completed with the
 * milliseconds: the same text for every millisecond, across second, day and year boundaries, and for the times
 * `toISOString` writes otherwise (before 1970, past 9999, not a whole millisecond), which it writes itself.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { isoTimestamp } from "../../../runtime/record/clock.js";
import { goodRecord, recordTool } from "../fixture.js";

const LAST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

afterEach(() => {
  vi.useRealTimers();
});

describe("isoTimestamp", () => {
  it("writes toISOString's text for any millisecond from 1970 to 9999, in any order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: LAST }), { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ["the epoch", 0],
    ["the last millisecond of a second", Date.UTC(2026, 0, 2, 3, 4, 5, 999)],
    ["the first millisecond of the next", Date.UTC(2026, 0, 2, 3, 4, 6, 0)],
    ["a single-digit millisecond", Date.UTC(2026, 0, 2, 3, 4, 6, 7)],
    ["a two-digit millisecond", Date.UTC(2026, 0, 2, 3, 4, 6, 42)],
    ["a leap day", Date.UTC(2028, 1, 29, 12, 0, 0, 500)],
    ["the end of a year", Date.UTC(2026, 11, 31, 23, 59, 59, 999)],
    ["the last four-digit year", LAST],
  ])("%s", (_name, ms) => {
    // Twice: once writing the second's text, once reusing it.
    expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it.each([
    ["before 1970", -1],
    ["past 9999", LAST + 1],
    ["a fraction of a millisecond", Date.UTC(2026, 0, 2) + 0.5],
  ])("%s is written by toISOString itself", (_name, ms) => {
    expect(isoTimestamp(Math.floor(ms / 1000) * 1000)).toBe(new Date(Math.floor(ms / 1000) * 1000).toISOString());
    expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it("an admit without a clock of its own records the time it received the payload", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 4, 6, 7, 8, 9, 10) });
    const outcome = await recordTool().admit(JSON.stringify(goodRecord()));
    expect(outcome.ok).toBe(true);
    expect(outcome.provenance.receivedAt).toBe("2026-05-06T07:08:09.010Z");
    vi.setSystemTime(Date.UTC(2026, 4, 6, 7, 8, 10, 0));
    expect((await recordTool().admit(JSON.stringify(goodRecord()))).provenance.receivedAt).toBe(
      "2026-05-06T07:08:10.000Z",
    );
  });

  it("an admit with the caller's clock records the caller's time", async () => {
    const now = () => new Date("2001-02-03T04:05:06.789Z");
    const outcome = await recordTool().admit(JSON.stringify(goodRecord()), { now });
    expect(outcome.provenance.receivedAt).toBe("2001-02-03T04:05:06.789Z");
  });
});
