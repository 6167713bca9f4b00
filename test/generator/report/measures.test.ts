/**
 * Every measure of `toolgate report` on hand-made traces whose answers are worked out by hand: rates per tool and
 * code, the policy mix, nearest-rank latency percentiles and cache hits, re-calls per turn, partial and failed turns,
 * the Wilson interval against published values, recovered rates and the decision rule's sentences.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../../generator/report/build.js";
import { rateOf } from "../../../generator/report/interval.js";
import { event, labels, scratch, turns, writeLines } from "./trace.js";

describe("the Wilson score interval", () => {
  it("matches published 95% values, stays within [0, 1], and has no rate at n = 0", () => {
    const half = rateOf(5, 10);
    expect(half.rate).toBe(0.5);
    expect(half.low).toBeCloseTo(0.2366, 4);
    expect(half.high).toBeCloseTo(0.7634, 4);
    const none = rateOf(0, 10);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 4);
    const all = rateOf(1, 1);
    expect(all.low).toBeCloseTo(0.2065, 4);
    expect(all.high).toBe(1);
    expect(rateOf(0, 0)).toEqual({ hits: 0, n: 0, rate: null, low: null, high: null });
  });
});

describe("measures per tool", () => {
  let report: Awaited<ReturnType<typeof buildReport>>;
  beforeAll(async () => {
    const folder = await scratch("measures");
    const lines = [
      // read_file: 4 direct, 2 dropped, 2 spilled, then a schema mismatch and invalid JSON in one turn.
      ...turns(4, "r", () => ({ tool: "read_file" })),
      event({ tool: "read_file", turn: "r5", code: "oversize" }),
      event({ tool: "read_file", turn: "r6", code: "oversize" }),
      event({ tool: "read_file", turn: "r7", policy: "spill" }),
      event({ tool: "read_file", turn: "r8", policy: "spill" }),
      event({ tool: "read_file", turn: "r9", code: "schema_mismatch", stage: "validate", policy: undefined }),
      event({ tool: "read_file", turn: "r9", code: "invalid_json", stage: "parse", policy: undefined }),
      // query_database: 20 summaries of 1.0 … 20.0 ms, two per turn, the first five from the cache.
      ...Array.from({ length: 20 }, (_, i) =>
        event({
          tool: "query_database",
          turn: `q${Math.floor(i / 2) + 1}`,
          policy: "summarize",
          summarize: { ms: i + 1, cached: i < 5 },
        }),
      ),
      // search_docs: re-calls, counted (2) or only flagged (1 each), in turns s1, s1, s2; a direct admit in s3.
      event({ tool: "search_docs", turn: "s1", policy: "recall", recall: true }),
      event({ tool: "search_docs", turn: "s1", policy: "recall", recall: true, recalls: 2 }),
      event({ tool: "search_docs", turn: "s2", policy: "recall", recall: true, recalls: 1 }),
      event({ tool: "search_docs", turn: "s3" }),
      // get_record: calls without a turn are each their own turn.
      event({ tool: "get_record", turn: undefined }),
      event({ tool: "get_record", turn: undefined, code: "tool_error", stage: "transport", policy: undefined }),
    ];
    report = await buildReport([await writeLines(path.join(folder, "events.jsonl"), lines)]);
  });
  const tool = (name: string) => {
    const found = report.tools.find((t) => t.tool === name);
    if (found === undefined) throw new Error(`no ${name} in the report`);
    return found;
  };

  it("counts admits, rejects per code, the reject rate and the oversize rate", () => {
    expect(report.events).toBe(36);
    expect(report.tools.map((t) => t.tool)).toEqual(["get_record", "query_database", "read_file", "search_docs"]);
    const read = tool("read_file");
    expect(read.admits).toBe(10);
    expect(read.rejects).toEqual({ invalid_json: 1, oversize: 2, schema_mismatch: 1 });
    expect(read.rejectRate).toBe(0.4);
    expect(read.oversize).toBe(4);
    expect(read.oversizeRate).toBe(0.4);
    expect(report.all.admits).toBe(36);
    expect(report.all.rejects).toEqual({ invalid_json: 1, oversize: 2, schema_mismatch: 1, tool_error: 1 });
    expect(report.all.rejectRate).toBeCloseTo(5 / 36, 12);
  });

  it("gives the policy mix of oversize admits per tool and for all tools", () => {
    expect(tool("read_file").mix).toEqual({
      drop: { count: 2, share: 0.5 },
      summarize: { count: 0, share: 0 },
      spill: { count: 2, share: 0.5 },
      recall: { count: 0, share: 0 },
      shorten: { count: 0, share: 0 },
    });
    expect(tool("get_record").mix.drop).toEqual({ count: 0, share: null });
    expect(report.all.oversize).toBe(4 + 20 + 3);
    expect(report.all.mix.summarize).toEqual({ count: 20, share: 20 / 27 });
  });

  it("gives nearest-rank summarize latency percentiles, the maximum and the cache hit rate", () => {
    expect(tool("query_database").summarize).toEqual({
      n: 20,
      p50: 10,
      p95: 19,
      max: 20,
      cached: 5,
      cacheHitRate: 0.25,
    });
    expect(tool("read_file").summarize).toEqual({
      n: 0,
      p50: null,
      p95: null,
      max: null,
      cached: 0,
      cacheHitRate: null,
    });
  });

  it("counts re-calls per turn, and the turns where a tool's result was partial or failed", () => {
    const search = tool("search_docs");
    expect([search.recalls, search.turns, search.recallsPerTurn]).toEqual([4, 3, 4 / 3]);
    const read = tool("read_file");
    // r1…r9; spilled in r7 and r8; failed in r5, r6 and r9 (two failures, one turn).
    expect([read.turns, read.partialTurns, read.failedTurns]).toEqual([9, 2, 3]);
    expect([tool("query_database").turns, tool("query_database").partialTurns]).toEqual([10, 10]);
    expect([tool("get_record").turns, tool("get_record").failedTurns]).toEqual([2, 1]);
    // All tools: 9 + 10 + 3 named turns and 2 calls without one.
    expect(report.all.turns).toBe(24);
    expect(report.all.failedTurns).toBe(4);
  });

  it("keeps each of a dozen tools' turns apart, past the nine kept packed per turn", async () => {
    const folder = await scratch("many-tools");
    const lines = [1, 2].flatMap((round) =>
      Array.from({ length: 12 }, (_, i) =>
        event({
          tool: `tool_${String(i).padStart(2, "0")}`,
          turn: `t${round}`,
          ...(i % 2 === 1 ? { code: "tool_error", policy: undefined } : {}),
        }),
      ),
    );
    const many = await buildReport([await writeLines(path.join(folder, "events.jsonl"), lines)]);
    expect(many.tools.map((t) => [t.turns, t.failedTurns])).toEqual(
      Array.from({ length: 12 }, (_, i) => [2, i % 2 === 1 ? 2 : 0]),
    );
    expect([many.all.turns, many.all.failedTurns]).toEqual([2, 2]);
  });

  it("has no recovered rates without labels", () => {
    expect(report.recovered).toBeUndefined();
    expect(report.decisions).toEqual([]);
  });
});

describe("recovered rates and the decision rule", () => {
  let report: Awaited<ReturnType<typeof buildReport>>;
  beforeAll(async () => {
    const folder = await scratch("recovered");
    const events = [
      ...turns(42, "d", () => ({ tool: "read_file", code: "oversize" })),
      ...turns(40, "m", () => ({ tool: "read_file", policy: "summarize", summarize: { ms: 3, cached: false } })),
      ...turns(10, "q", () => ({ tool: "query_database", policy: "summarize", summarize: { ms: 3, cached: false } })),
      ...turns(10, "p", () => ({ tool: "read_graph", policy: "spill" })),
      // Clean turns: every admit direct, two calls in each.
      ...turns(10, "c", () => ({ tool: "get_record" })),
      ...turns(10, "c", () => ({ tool: "search_docs" })),
      event({ tool: "search_docs", correlationId: "call-1", code: "oversize" }),
    ];
    const labelled = [
      ...labels(42, "d", 13),
      ...labels(40, "m", 35),
      ...labels(10, "q", 8),
      ...labels(10, "p", 10),
      ...labels(10, "c", 9),
      JSON.stringify({ correlationId: "call-1", correct: true }),
      JSON.stringify({ turn: "never-seen", correct: false }),
    ];
    report = await buildReport(
      [await writeLines(path.join(folder, "events.jsonl"), events)],
      await writeLines(path.join(folder, "labels.jsonl"), labelled),
    );
  });

  it("counts each labelled turn once per tool and policy, with its interval, against clean turns", () => {
    const recovered = report.recovered;
    expect(recovered?.labels).toBe(114);
    expect(recovered?.matched).toBe(113);
    expect(recovered?.clean).toMatchObject({ hits: 9, n: 10, rate: 0.9 });
    const cells = recovered?.byTool.map((c) => [c.tool, c.policy, c.hits, c.n]);
    expect(cells).toEqual([
      ["query_database", "summarize", 8, 10],
      ["read_file", "drop", 13, 42],
      ["read_file", "summarize", 35, 40],
      ["read_graph", "spill", 10, 10],
      ["search_docs", "drop", 1, 1],
    ]);
    expect(recovered?.byPolicy.drop).toMatchObject({ hits: 14, n: 43 });
    expect(recovered?.byPolicy.summarize).toMatchObject({ hits: 43, n: 50 });
    const dropped = recovered?.byTool.find((c) => c.tool === "read_file" && c.policy === "drop");
    expect(dropped?.low).toBeCloseTo(0.1907, 3);
    expect(dropped?.high).toBeCloseTo(0.4603, 3);
  });

  it("says in words where the cap or the policy is wrong, where it is unclear, and where it is fine", () => {
    expect(report.decisions.map((d) => d.text)).toEqual([
      "query_database: summarized turns recover 80% (n=10) against 90% for clean turns (n=10): lower, but the intervals overlap; label more turns before changing the cap or the policy",
      "read_file: dropped turns recover 31% (n=42) against 88% for summarized (n=40): the cap or the policy is wrong",
      "read_file: summarized turns recover 88% (n=40) against 90% for clean turns (n=10): lower, but the intervals overlap; label more turns before changing the cap or the policy",
      "read_graph: spilled turns recover 100% (n=10) against 90% for clean turns (n=10): no sign the cap or the policy is wrong",
      "search_docs: dropped turns recover 100% (n=1) against 90% for clean turns (n=10): no sign the cap or the policy is wrong",
    ]);
    expect(report.decisions.map((d) => d.verdict)).toEqual(["unclear", "wrong", "unclear", "fine", "fine"]);
  });
});
