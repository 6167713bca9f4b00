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

describe("the turn's window", () => {
  const big = () =>
    JSON.stringify(goodRecord({ items: Array.from({ length: 40 }, (_, id) => ({ id, label: "x".repeat(30) })) }));

  it("after each admit says how full the window is, what each tool took, and when to compact", async () => {
    const states: Array<ReturnType<Turn["window"]>> = [];
    const turn = new Turn({
      window: { unit: "bytes", max: 4000, reserved: 500 },
      onWindow: (state) => states.push(state),
    });
    const lookup = defineTool(recordSpec());
    const search = defineTool({ ...recordSpec(), name: "search_records" });
    const first = await lookup.admit(JSON.stringify(goodRecord()), { turn });
    expect(states).toHaveLength(1);
    const one = states[0];
    const used = first.ok ? first.contextUsed.value : 0;
    expect(one).toMatchObject({ unit: "bytes", max: 4000, used: 500 + used, compact: false, free: 0 });
    expect(one?.byTool).toEqual([{ tool: "get_record", used, calls: 1, unread: 0 }]);

    // Results pile up until the window passes 70%: compaction should run, down to 40%.
    for (let call = 0; call < 5; call++) await search.admit(big(), { turn });
    const state = turn.window();
    expect(state?.used).toBeGreaterThanOrEqual(0.7 * 4000);
    expect(state?.compact).toBe(true);
    expect(state?.free).toBe(Math.ceil((state?.used ?? 0) - 0.4 * 4000));
    expect(state?.byTool[0]).toMatchObject({ tool: "search_records", calls: 5, unread: 5 });
    expect(state?.byTool[1]?.tool).toBe("get_record");
    // Compacting is possible yet: no stop signal until the turn has dropped or summarized.
    expect(state?.stop).toBeUndefined();
  });

  it("a turn that compacted and is still past the threshold says to stop with a partial answer", async () => {
    const turn = new Turn({ window: { unit: "bytes", max: 2000, compactAt: 0.5, aimAt: 0.2 } });
    const search = defineTool({ ...recordSpec(), name: "search_records" });
    for (let call = 0; call < 3; call++) await search.admit(big(), { turn, correlationId: `s-${call}` });
    const before = turn.window();
    expect(before?.compact).toBe(true);
    turn.compacted({ how: "dropped", freed: 200 });
    const after = turn.window();
    expect(after?.used).toBe((before?.used ?? 0) - 200);
    expect(after?.compact).toBe(true);
    expect(after?.stop?.reason).toBe("cannot_progress");
    expect(after?.stop?.unread).toHaveLength(3);
    expect(after?.stop?.answer).toContain("search_records (s-0): shown in part");

    // Freeing enough ends the signal.
    turn.compacted({ how: "summarized", freed: 10_000 });
    expect(turn.window()).toMatchObject({ used: 0, compact: false, free: 0 });
    expect(turn.window()?.stop).toBeUndefined();
  });

  it("an oversize failure the gate already dropped counts as having dropped", async () => {
    const turn = new Turn({ window: { unit: "tokens", max: 100 } });
    const tight = defineTool({ ...recordSpec(), context: { unit: "bytes", max: 300 }, oversize: ["drop"] });
    const outcome = await tight.admit(big(), { turn });
    expect(outcome.ok || outcome.error.code).toBe("oversize");
    const lookup = defineTool(recordSpec());
    await lookup.admit(big(), { turn });
    const state = turn.window();
    expect(state?.estimated).toBe(true);
    expect(state?.compact).toBe(true);
    expect(state?.stop?.answer).toContain("get_record: failed (oversize)");
  });

  it("has no window unless given one, and refuses a window of no size", () => {
    expect(new Turn().window()).toBeUndefined();
    expect(() => new Turn({ window: { unit: "tokens", max: 0 } })).toThrow(/window.max/);
  });
});
