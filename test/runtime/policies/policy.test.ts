/**
 * Over-budget results under each policy of the chain: drop, summarize, spill, recall; and the token budget.
 */

import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  FileSpillStore,
  type GateEvent,
  MemorySpillStore,
  project,
  type ToolSpec,
  Turn,
  toModelContent,
  type ViewPlan,
} from "../../../runtime/index.js";
import { SUMMARY_CACHE_SIZE } from "../../../runtime/policies/summarize.js";
import {
  admitCollecting,
  expectNoLeak,
  goodRecord,
  type RecordInput,
  type RecordResult,
  recordTool,
} from "../fixture.js";

/** A record whose view (5 items of long labels) is far over a 300-byte budget. */
function bigRecord(marker = "label", items = 40): string {
  return JSON.stringify(
    goodRecord({ items: Array.from({ length: items }, (_, id) => ({ id, label: `${marker} ${"x".repeat(80)}` })) }),
  );
}

const tight: Partial<ToolSpec<RecordResult, unknown, RecordInput>> = { context: { unit: "bytes", max: 300 } };

describe("drop", () => {
  it("is an oversize failure that says what would narrow the call, with no payload in it", async () => {
    const marker = `MARK${randomUUID().replaceAll("-", "")}`;
    const { outcome, events } = await admitCollecting(recordTool({ ...tight, oversize: ["drop"] }), bigRecord(marker));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("oversize");
    expect(outcome.error.retryable).toBe(false);
    expect(outcome.diagnostics.stage).toBe("policy");
    expect(outcome.diagnostics.sizes).toMatchObject({ budget: 300, unit: "bytes" });
    expect(outcome.diagnostics.sizes?.viewSize).toBeGreaterThan(300);
    expect(outcome.diagnostics.detail).toMatchObject({ narrowPath: "/items", narrowItems: 5 });
    expect(outcome.error.message).toContain("/items");
    expect(events[0]).toMatchObject({ code: "oversize", policy: "drop", stage: "policy" });
    expectNoLeak(outcome, events, marker);
  });

  it("tells the model which array to narrow and, when the input has one, the argument that pages it", async () => {
    const plain = await recordTool({ ...tight, oversize: ["drop"] }).admit(bigRecord());
    expect(toModelContent(plain)).toMatch(
      /error="oversize" retryable="false">\n<narrow>\{"path":"\/items","items":5\}<\/narrow>\n<\/tool_result>$/,
    );
    const paged = await recordTool({ ...tight, oversize: ["drop"], pageArgument: "limit" }).admit(bigRecord());
    expect(paged.ok || paged.diagnostics.detail).toMatchObject({ narrowArgument: "limit" });
    expect(paged.ok || paged.error.message).toContain("argument limit");
    expect(toModelContent(paged)).toContain('<narrow>{"path":"/items","items":5,"argument":"limit"}</narrow>');
    // A failure that is not oversize keeps its one line.
    const other = await recordTool().admit("{");
    expect(toModelContent(other)).toMatch(/error="invalid_json" retryable="false"\/>$/);
  });

  it("is what happens when no policy in the chain can apply", async () => {
    const outcome = await recordTool({ ...tight, oversize: ["summarize", "recall"] }).admit(bigRecord());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("oversize");
    expect(outcome.diagnostics.detail).toMatchObject({ summarize: "no_hook", recall: "no_hook" });
  });
});

describe("summarize", () => {
  it("puts the hook's cleaned summary in front of the model, keeps data whole, and caches by raw hash", async () => {
    let calls = 0;
    const tool = recordTool({ ...tight, oversize: ["summarize", "drop"] });
    const hooks = {
      summarize: (data: RecordResult) => {
        calls++;
        return `Record ${data.recordId} has ${data.items?.length} items.\u200B`;
      },
    };
    const raw = bigRecord();
    const first = await tool.admit(raw, { hooks });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.policy).toBe("summarize");
    expect(first.summary).toBe("Record r-1 has 40 items.");
    expect(first.complete).toBe(false);
    expect(first.data.items).toHaveLength(40);
    expect(first.contextUsed.value).toBeLessThanOrEqual(300);
    const content = toModelContent(first);
    expect(content).toContain('<summary>"Record r-1 has 40 items."</summary>');
    expect(content).toContain('policy="summarize"');
    expect(content).not.toContain("xxxx");

    const second = await tool.admit(raw, { hooks });
    expect(calls).toBe(1);
    expect(second.ok && second.flags).toContain("summary_cached");
    // Another hook writes its own summary: the cache is per hook.
    const other = await tool.admit(raw, { hooks: { summarize: () => "Forty items." } });
    expect(other.ok && other.summary).toBe("Forty items.");
  });

  it("the admit's event records how long the summary took and whether the cache had it, numbers only", async () => {
    const tool = recordTool({ ...tight, oversize: ["summarize", "drop"] });
    const hooks = {
      summarize: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return "A summary.";
      },
    };
    const raw = bigRecord();
    const first = await admitCollecting(tool, raw, { hooks });
    expect(first.events).toHaveLength(1);
    const facts = first.events[0]?.summarize;
    expect(facts?.cached).toBe(false);
    expect(facts?.ms).toBeGreaterThanOrEqual(25);
    expect(Object.keys(facts ?? {}).sort()).toEqual(["cached", "ms"]);
    const second = await admitCollecting(tool, raw, { hooks });
    expect(second.events[0]?.summarize?.cached).toBe(true);
    expect(second.events[0]?.summarize?.ms).toBeLessThan(25);
    // No hook, no summarize facts: the policy did not run.
    const none = await admitCollecting(tool, raw);
    expect(none.events[0]?.summarize).toBeUndefined();
    // A declined summary still reports its latency, and the event of the drop that followed carries it.
    const declined = await admitCollecting(tool, raw, { hooks: { summarize: () => undefined } });
    expect(declined.events[0]).toMatchObject({ code: "oversize", summarize: { cached: false } });
  });

  it("the summary cache keeps at most SUMMARY_CACHE_SIZE results per hook, oldest out first", async () => {
    const tool = recordTool({ ...tight, oversize: ["summarize", "drop"] });
    let calls = 0;
    const hooks = { summarize: () => `Summary ${++calls}.` };
    const raws = Array.from({ length: SUMMARY_CACHE_SIZE + 1 }, (_, i) => bigRecord(`item-${i}`));
    for (const raw of raws) await tool.admit(raw, { hooks });
    expect(calls).toBe(SUMMARY_CACHE_SIZE + 1);
    // The newest is still cached; the oldest was let go, so it is summarized again.
    await tool.admit(raws[SUMMARY_CACHE_SIZE] as string, { hooks });
    expect(calls).toBe(SUMMARY_CACHE_SIZE + 1);
    await tool.admit(raws[0] as string, { hooks });
    expect(calls).toBe(SUMMARY_CACHE_SIZE + 2);
  });

  it("a summary over its own budget passes to the next policy", async () => {
    const outcome = await recordTool({ ...tight, oversize: ["summarize", "drop"], summaryMax: 10 }).admit(bigRecord(), {
      hooks: { summarize: () => "This summary is longer than ten bytes." },
    });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("oversize");
    expect(outcome.ok || outcome.diagnostics.detail?.summarize).toBe("summary_over_budget");
  });
});

describe("spill", () => {
  const directories: string[] = [];
  afterAll(async () => {
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  it("stores the validated result and shows a handle with a bounded preview", async () => {
    const store = new MemorySpillStore();
    const tool = recordTool({ context: { unit: "bytes", max: 700 }, oversize: ["spill", "drop"], spillPreview: 2 });
    const { outcome, events } = await admitCollecting(tool, bigRecord(), { spillStore: store });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.policy).toBe("spill");
    expect(outcome.complete).toBe(false);
    expect(outcome.spill?.handle).toMatch(/^spill_[0-9a-f]{32}$/);
    expect((outcome.view as { items: unknown[] }).items).toHaveLength(2);
    expect(outcome.omissions).toContainEqual({ path: "/items", kind: "items", count: 38 });
    expect(await store.get(outcome.spill?.handle as string)).toEqual(outcome.data);
    expect(toModelContent(outcome)).toContain(`<spilled handle="${outcome.spill?.handle}"/>`);
    expect(events[0]).toMatchObject({ code: "ok", policy: "spill" });
  });

  it("the file-system store writes one owner-only file per value and refuses handles that are not its own", async () => {
    const directory = await mkdtemp(join(tmpdir(), "toolgate-spill-test-"));
    directories.push(directory);
    const store = new FileSpillStore({ directory });
    const tool = recordTool({ context: { unit: "bytes", max: 700 }, oversize: ["spill"], spillPreview: 1 });
    const outcome = await tool.admit(bigRecord(), { spillStore: store });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok || outcome.spill === undefined) return;
    expect(await readdir(directory)).toEqual([`${outcome.spill.handle}.json`]);
    expect(await store.get(outcome.spill.handle)).toEqual(outcome.data);
    expect(await store.get("../../etc/passwd")).toBeUndefined();
    expect(await store.get("spill_0000")).toBeUndefined();
  });

  it("a long text is cut to a shorter marked excerpt in the preview until it fits", async () => {
    const plan: ViewPlan = {
      kind: "object",
      properties: { recordId: { kind: "value" }, title: { kind: "string", max: 5000, overflow: "excerpt" } },
    };
    const store = new MemorySpillStore();
    const tool = recordTool({
      view: { plan, maxStringChars: 2000 },
      buildView: (data) => project(data, plan),
      context: { unit: "bytes", max: 600 },
      oversize: ["spill"],
    });
    const title = "word ".repeat(380);
    const outcome = await tool.admit(JSON.stringify(goodRecord({ title })), { spillStore: store });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.policy).toBe("spill");
    const shown = (outcome.view as { title: string }).title;
    expect(shown.endsWith("…")).toBe(true);
    expect(shown.length).toBe(250);
    expect(outcome.omissions).toEqual([{ path: "/title", kind: "excerpt", count: 1900 - 249 }]);
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(600);
    expect(((await store.get(outcome.spill?.handle as string)) as RecordResult).title).toBe(title);
  });

  it("the file-system store prunes what was spilled before a given time, and nothing else", async () => {
    const directory = await mkdtemp(join(tmpdir(), "toolgate-spill-test-"));
    directories.push(directory);
    const store = new FileSpillStore({ directory });
    const old = await store.put({ tool: "t", json: '{"a":1}', sha256: "a".repeat(64) });
    const recent = await store.put({ tool: "t", json: '{"a":2}', sha256: "b".repeat(64) });
    await writeFile(join(directory, "notes.txt"), "not a spill");
    const longAgo = new Date("2020-01-01T00:00:00Z");
    await utimes(join(directory, `${old.handle}.json`), longAgo, longAgo);
    expect(await store.prune(new Date("2024-01-01T00:00:00Z"))).toBe(1);
    expect((await readdir(directory)).sort()).toEqual(["notes.txt", `${recent.handle}.json`]);
    expect(await store.get(old.handle)).toBeUndefined();
    expect(await store.get(recent.handle)).toEqual({ a: 2 });
  });

  it("a preview still over budget passes to the next policy", async () => {
    const outcome = await recordTool({ context: { unit: "bytes", max: 50 }, oversize: ["spill", "drop"] }).admit(
      bigRecord(),
      {
        spillStore: new MemorySpillStore(),
      },
    );
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("oversize");
    expect(outcome.ok || outcome.diagnostics.detail?.spill).toBe("preview_over_budget");
  });
});

describe("recall", () => {
  const tool = recordTool({ ...tight, oversize: ["recall", "drop"], recallLimit: 1 });
  /** A fake tool: returns as many items as `limit` asks for. */
  const call = (args: RecordInput) => bigRecord("item", args.limit ?? 40);
  /** Narrows to one item. */
  const narrow = (args: RecordInput | undefined) => ({ recordId: args?.recordId ?? "r-1", limit: 1 });

  it("narrows the arguments, re-calls through the caller, and admits the new result", async () => {
    const turn = new Turn();
    const seen: unknown[] = [];
    const events: GateEvent[] = [];
    const outcome = await tool.admit(bigRecord(), {
      args: { recordId: "r-1", limit: 40 },
      turn,
      sink: (event) => events.push(event),
      call: (args) => {
        seen.push(args);
        return call(args);
      },
      hooks: { recall: narrow },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(seen).toEqual([{ recordId: "r-1", limit: 1 }]);
    expect(outcome.policy).toBe("recall");
    expect(outcome.flags).toContain("recalled");
    expect(outcome.data.items).toHaveLength(1);
    expect(turn.recallsOf("get_record")).toBe(1);
    // One admit, one event: the final outcome, marked as coming from a re-call.
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ code: "ok", policy: "recall", recall: true, recalls: 1 });
    expect(turn.report().contributions).toHaveLength(1);
  });

  it("the recall hook learns the budget and the largest array", async () => {
    let told: unknown;
    await tool.admit(bigRecord(), {
      args: { recordId: "r-1", limit: 40 },
      call,
      hooks: {
        recall: (args, info) => {
          told = { attempt: info.attempt, budget: info.budget, largest: info.largest };
          return narrow(args);
        },
      },
    });
    expect(told).toEqual({ attempt: 0, budget: { unit: "bytes", max: 300 }, largest: { path: "/items", items: 5 } });
  });

  it("at most recallLimit re-calls per tool per turn; past it the chain moves on", async () => {
    const turn = new Turn();
    const ctx = { turn, call, hooks: { recall: narrow } };
    const first = await tool.admit(bigRecord(), { ...ctx, args: { recordId: "r-1", limit: 40 } });
    expect(first.ok).toBe(true);
    const marker = `MARK${randomUUID().replaceAll("-", "")}`;
    const { outcome: second, events } = await admitCollecting(tool, bigRecord(marker), {
      ...ctx,
      args: { recordId: "r-2", limit: 40 },
    });
    expect(second.ok ? "ok" : second.error.code).toBe("oversize");
    expect(second.ok || second.diagnostics.detail?.recall).toBe("limit_reached");
    expectNoLeak(second, events, marker);
  });

  it("the same arguments twice is an error", async () => {
    const marker = `MARK${randomUUID().replaceAll("-", "")}`;
    const { outcome, events } = await admitCollecting(
      recordTool({ ...tight, oversize: ["recall", "drop"], recallLimit: 3 }),
      bigRecord(marker),
      {
        args: { recordId: "r-1", limit: 40 },
        call,
        hooks: { recall: (args) => ({ limit: args?.limit ?? 0, recordId: args?.recordId ?? "" }) },
      },
    );
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("oversize");
    expect(outcome.ok || outcome.diagnostics.detail?.recall).toBe("repeated_arguments");
    expectNoLeak(outcome, events, marker);
    // Refused before any re-call was made: the event says it was no re-call.
    expect(events).toHaveLength(1);
    expect(events[0]?.recall).toBeUndefined();
    expect(events[0]?.recalls).toBeUndefined();
  });

  it("arguments already used earlier in the turn are refused too", async () => {
    const turn = new Turn();
    const used = { recordId: "r-1", limit: 1 };
    await tool.admit(bigRecord("item", 1), { turn, args: used });
    const outcome = await recordTool({ ...tight, oversize: ["recall", "drop"], recallLimit: 3 }).admit(bigRecord(), {
      turn,
      args: { recordId: "r-1", limit: 40 },
      call,
      hooks: { recall: () => used },
    });
    expect(outcome.ok || outcome.diagnostics.detail?.recall).toBe("repeated_arguments");
  });

  it("a re-call that fails ends in that failure", async () => {
    const outcome = await tool.admit(bigRecord(), {
      args: { recordId: "r-1", limit: 40 },
      call: () => {
        throw new Error("connection refused");
      },
      hooks: { recall: narrow },
    });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("transport_error");
  });
});

describe("token budgets", () => {
  it("measures the rendered view in o200k_base tokens, and special-token text in a payload does not throw", async () => {
    const tool = recordTool({ context: { unit: "tokens", max: 100, tokenizer: "o200k_base" } });
    const fits = await tool.admit(JSON.stringify(goodRecord({ title: "hello <|endoftext|> world" })));
    expect(fits.ok).toBe(true);
    if (!fits.ok) return;
    expect(fits.contextUsed.unit).toBe("tokens");
    expect(fits.contextUsed.value).toBeGreaterThan(10);
    expect(fits.contextUsed.value).toBeLessThanOrEqual(100);
    // Fewer tokens than bytes: it really counted tokens.
    expect(fits.contextUsed.value).toBeLessThan(new TextEncoder().encode(toModelContent(fits)).byteLength);

    const over = await tool.admit(bigRecord());
    expect(over.ok ? "ok" : over.error.code).toBe("oversize");
    // Counting stopped at the budget: the reported size is a floor, not a full count.
    expect(over.ok || over.diagnostics.sizes?.viewSize).toBe(101);
    expect(over.ok || over.diagnostics.detail?.viewSizeIsFloor).toBe(true);
  });

  it("cl100k_base counts differently from o200k_base on the same view", async () => {
    const payload = JSON.stringify(goodRecord({ title: "Überprüfung der Quartalsberichte für das Geschäftsjahr" }));
    // A budget below the view's bytes (about 220) and above its tokens: only a count can admit it, so both count.
    const o200k = await recordTool({ context: { unit: "tokens", max: 150, tokenizer: "o200k_base" } }).admit(payload);
    const cl100k = await recordTool({ context: { unit: "tokens", max: 150, tokenizer: "cl100k_base" } }).admit(payload);
    expect(o200k.ok && cl100k.ok).toBe(true);
    if (!o200k.ok || !cl100k.ok) return;
    expect(new TextEncoder().encode(toModelContent(o200k)).byteLength).toBeGreaterThan(150);
    expect(o200k.contextUsed.exact).toBeUndefined();
    expect(cl100k.contextUsed.exact).toBeUndefined();
    expect(o200k.contextUsed.value).not.toBe(cl100k.contextUsed.value);
  });
});

describe("recall under a turn's cap", () => {
  it("a turn that allows no re-calls moves the chain on even when the contract allows one", async () => {
    const outcome = await recordTool({ ...tight, oversize: ["recall", "drop"], recallLimit: 1 }).admit(bigRecord(), {
      turn: new Turn({ recallLimit: 0 }),
      args: { recordId: "r-1", limit: 40 },
      call: () => bigRecord("item", 1),
      hooks: { recall: () => ({ recordId: "r-1", limit: 1 }) },
    });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("oversize");
    expect(outcome.ok || outcome.diagnostics.detail?.recall).toBe("limit_reached");
  });
});
