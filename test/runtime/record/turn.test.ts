/**
 * A Turn's record after a mix of complete, partial, failed and absent calls.
 */
import { describe, expect, it } from "vitest";
import { defineTool, describeUnread, Turn, toModelContent, transportFailure } from "../../../runtime/index.js";
import { goodRecord, recordSpec } from "../fixture.js";

describe("Turn", () => {
  it("records each tool's contribution, the reasons, and the context used", async () => {
    const lookup = defineTool(recordSpec());
    const search = defineTool({ ...recordSpec(), name: "search_records" });
    const history = defineTool({ ...recordSpec(), name: "get_history" });
    const turn = new Turn({ id: "turn-test" });
    turn.expect("get_history", "h-1");

    const complete = await lookup.admit(JSON.stringify(goodRecord()), { turn, correlationId: "c-1" });
    const items = Array.from({ length: 9 }, (_, id) => ({ id }));
    const partial = await search.admit(JSON.stringify(goodRecord({ items, nextCursor: "page-2" })), {
      turn,
      correlationId: "c-2",
    });
    const failed = await lookup.admit(transportFailure("timeout"), { turn, correlationId: "c-3" });
    const invalid = await search.admit('{"recordId":1}', { turn, correlationId: "c-4" });
    expect([complete.ok, partial.ok, failed.ok, invalid.ok]).toEqual([true, true, false, false]);
    if (!complete.ok || !partial.ok) return;

    const report = turn.report();
    expect(report.turnId).toBe("turn-test");
    expect(report.complete).toBe(false);
    expect(report.contributions.map((entry) => [entry.tool, entry.correlationId, entry.status, entry.reason])).toEqual([
      ["get_history", "h-1", "absent", "no_result"],
      ["get_record", "c-1", "complete", undefined],
      ["search_records", "c-2", "partial", "view_cut"],
      ["get_record", "c-3", "failed", "timeout"],
      ["search_records", "c-4", "failed", "schema_mismatch"],
    ]);
    const [, , cut, timedOut, mismatched] = report.contributions;
    expect(cut?.omissions).toEqual([{ path: "/items", kind: "items", count: 4 }]);
    expect(cut?.continuation).toBe("page-2");
    expect(timedOut?.retryable).toBe(true);
    expect(mismatched?.retryable).toBe(false);
    expect(report.unread.map((entry) => entry.status)).toEqual(["absent", "partial", "failed", "failed"]);
    // Results count what they render to; a failure counts its short note, which the model reads too.
    const noteBytes = (outcome: typeof failed) => new TextEncoder().encode(toModelContent(outcome)).byteLength;
    expect(timedOut?.contextUsed).toEqual({ unit: "bytes", value: noteBytes(failed) });
    expect(report.contextUsed).toEqual({
      bytes: complete.contextUsed.value + partial.contextUsed.value + noteBytes(failed) + noteBytes(invalid),
      tokens: 0,
    });
    expect(describeUnread(report)).toBe(
      [
        "get_history (h-1): no result arrived",
        "search_records (c-2): shown in part (4 items at /items left out)",
        "get_record (c-3): failed (timeout, a retry may help)",
        "search_records (c-4): failed (schema_mismatch)",
      ].join("\n"),
    );

    // The expected call arrives: it replaces its absent entry.
    await history.admit(JSON.stringify(goodRecord()), { turn, correlationId: "h-1" });
    const later = turn.report();
    expect(later.contributions[0]).toMatchObject({ tool: "get_history", status: "complete" });
    expect(later.contributions).toHaveLength(5);
  });

  it("a turn of complete results is complete", async () => {
    const turn = new Turn();
    await defineTool(recordSpec()).admit(JSON.stringify(goodRecord()), { turn });
    expect(turn.report()).toMatchObject({ complete: true, unread: [] });
  });

  it("reports when the results are over the turn's own budget", async () => {
    const tool = defineTool(recordSpec());
    const roomy = new Turn({ budget: { bytes: 10_000 } });
    await tool.admit(JSON.stringify(goodRecord()), { turn: roomy });
    expect(roomy.report().budget).toEqual({ bytes: 10_000, over: false });
    const tight = new Turn({ budget: { bytes: 50 } });
    await tool.admit(JSON.stringify(goodRecord()), { turn: tight });
    expect(tight.report().budget).toEqual({ bytes: 50, over: true });
    expect(describeUnread(tight.report())).toBe("");
  });

  it("caps re-calls per tool below the contract's limit", () => {
    expect(new Turn({ recallLimit: 0 }).recallLimitFor("get_record", 2)).toBe(0);
    expect(new Turn({ recallLimit: { get_record: 1 } }).recallLimitFor("get_record", 3)).toBe(1);
    expect(new Turn({ recallLimit: { other: 1 } }).recallLimitFor("get_record", 3)).toBe(3);
    expect(new Turn({ recallLimit: 5 }).recallLimitFor("get_record", 2)).toBe(2);
  });
});
