/**
 * A text result the model can read in full: when its text view leaves lines out and the contract's chain holds
 * `spill`, the whole text is spilled (as lines), the excerpt is shown beside the handle and the read-back tool, and
 * the model pages the rest back. Without `spill` in the chain, or without a store of the call's own, the excerpt is
 * the answer, as before. `summarize` and `recall` run on such a view as on any oversize result.
 */
import { describe, expect, it } from "vitest";
import {
  type ContentPart,
  defineTool,
  type GateEvent,
  MemorySpillStore,
  measureText,
  type Outcome,
  type ReadBackArgs,
  type ResultSpec,
  readBack,
  type SpillEntry,
  type SpillStore,
  type TextView,
  type ToolSpec,
  Turn,
  toModelContent,
} from "../../../runtime/index.js";
import { textSpec, textTool } from "../fixture.js";

/** `count` numbered lines of about `width` characters. */
function numberedLines(count: number, width = 40): string {
  return Array.from({ length: count }, (_, index) => `line ${index + 1} `.padEnd(width, ".")).join("\n");
}

const TEXT = numberedLines(2000);
const budget = { unit: "bytes" as const, max: 2000 };

/** Admits with a collecting sink. */
async function admit<T, V>(
  tool: { admit: (raw: unknown, ctx?: object) => Promise<Outcome<T, V>> },
  raw: unknown,
  ctx: object = {},
): Promise<{ outcome: Outcome<T, V>; events: GateEvent[] }> {
  const events: GateEvent[] = [];
  const outcome = await tool.admit(raw, { ...ctx, sink: (event: GateEvent) => events.push(event) });
  return { outcome, events };
}

/** Every line of a spilled text, read page by page with the arguments each page hands on. */
async function readAll(store: SpillStore, first: ReadBackArgs, ctx = {}): Promise<string[]> {
  const reader = readBack(store, { budget: { unit: "bytes", max: 1500 } });
  const lines: string[] = [];
  let args: ReadBackArgs | undefined = first;
  for (let pages = 0; args !== undefined; pages++) {
    const page = await reader.handle(args, ctx);
    if (!page.ok) throw new Error(`${page.error.code}: ${page.error.message}`);
    expect(page.contextUsed.value).toBeLessThanOrEqual(1500);
    lines.push(...(page.page.lines ?? []));
    args = page.page.next;
    expect(pages).toBeLessThan(500);
  }
  return lines;
}

describe("an incomplete text view under a chain with spill", () => {
  it("spills the whole text, shows the excerpt beside the handle, and reads back to exactly the text", async () => {
    const store = new MemorySpillStore();
    const reader = readBack(store);
    const tool = textTool({ context: budget, oversize: ["spill", "drop"] });
    const { outcome, events } = await admit(tool, TEXT, { ...reader.context, tenant: "acme" });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.policy).toBe("spill");
    expect(outcome.complete).toBe(false);
    expect(outcome.data).toBe(TEXT);
    const view = outcome.view as TextView;
    expect(view.lines).toBe(2000);
    expect(view.gap).toBeDefined();
    const { from, to } = view.gap as { from: number; to: number };
    expect(outcome.omissions).toEqual([{ path: "", kind: "lines", count: to - from + 1 }]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ policy: "spill", stage: "policy", code: "ok" });

    const content = toModelContent(outcome);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(2000);
    expect(outcome.contextUsed).toEqual({ unit: "bytes", value: Buffer.byteLength(content), budget: 2000 });
    expect(content).toMatch(
      /^<tool_result tool="read_text" source="sha256:[0-9a-f]{16}" complete="false" policy="spill">/,
    );
    const handle = outcome.spill?.handle as string;
    expect(content).toContain(
      `<spilled handle="${handle}" bytes="${Buffer.byteLength(JSON.stringify(TEXT))}" read_with="read_tool_result"/>`,
    );
    // The excerpt is whole lines of the text, fitted with the spilled line: the gap's lines are what to read back.
    const shown = view.text.split("\n").filter((line) => !line.startsWith("[…"));
    expect(shown).toEqual([...TEXT.split("\n").slice(0, from - 1), ...TEXT.split("\n").slice(to)]);

    // Read back from the gap's first line on, the pages hold exactly the lines from there.
    const rest = await readAll(store, { handle, offset: from - 1 }, { tenant: "acme" });
    expect(rest).toEqual(TEXT.split("\n").slice(from - 1));
    expect((await readAll(store, { handle }, { tenant: "acme" })).join("\n")).toBe(TEXT);
  });

  it("fits a token budget with the spilled line", async () => {
    const store = new MemorySpillStore();
    const context = { unit: "tokens" as const, max: 400 };
    const tool = textTool({ context, oversize: ["spill"] });
    const outcome = await tool.admit(numberedLines(3000, 60), { ...readBack(store).context });
    expect(outcome.ok && outcome.policy).toBe("spill");
    if (!outcome.ok) return;
    const measured = await measureText(toModelContent(outcome), context);
    expect(measured.within).toBe(true);
    expect(outcome.contextUsed).toEqual({ unit: "tokens", value: measured.value, budget: 400 });
    // The excerpt still uses the budget: the spilled line did not empty it.
    expect(measured.value).toBeGreaterThan(200);
    expect((outcome.view as TextView).gap).toBeDefined();
  });

  it("stores only the text of a content result: its media stay parts, described in the view", async () => {
    const rules: ResultSpec = {
      kind: "content",
      content: {
        maxBlocks: 4,
        text: { maxCount: 2 },
        image: { mimeTypes: ["image/png"], maxBytes: 1024, maxCount: 1 },
      },
    };
    const tool = defineTool<ContentPart[], TextView, unknown>({
      ...(textSpec() as unknown as ToolSpec<ContentPart[], TextView>),
      name: "screenshot",
      result: rules,
      context: budget,
      oversize: ["spill"],
    });
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const first = numberedLines(600);
    const second = numberedLines(400);
    const store = new MemorySpillStore();
    const outcome = await tool.admit(
      {
        content: [
          { type: "text", text: first },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "text", text: second },
        ],
      },
      { spillStore: store },
    );
    expect(outcome.ok && outcome.policy).toBe("spill");
    if (!outcome.ok) return;
    expect((outcome.view as TextView).media).toEqual([{ type: "image", mimeType: "image/png", bytes: 70 }]);
    const content = toModelContent(outcome);
    expect(content).toContain('<media type="image/png" bytes="70"/>');
    expect(content).toMatch(/^<spilled handle="spill_[0-9a-f]{32}"\/>$/m);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(2000);
    const lines = await readAll(store, { handle: outcome.spill?.handle as string });
    expect(lines.join("\n")).toBe(`${first}\n${second}`);
  });
});

describe("an incomplete text view, nothing to spill it with", () => {
  it("without spill in the chain, or without a store of the call's own, ends direct with the excerpt", async () => {
    const store = new MemorySpillStore();
    const cases = [
      { oversize: ["drop"] as ToolSpec<string, TextView>["oversize"], ctx: { spillStore: store } },
      { oversize: ["summarize", "recall"] as ToolSpec<string, TextView>["oversize"], ctx: { spillStore: store } },
      { oversize: ["spill"] as ToolSpec<string, TextView>["oversize"], ctx: {} },
      // `drop` ends a chain: a view that fits is not refused there, and spill after it is never reached.
      { oversize: ["drop", "spill"] as ToolSpec<string, TextView>["oversize"], ctx: { spillStore: store } },
    ];
    const plain = await textTool({ context: budget }).admit(TEXT);
    for (const { oversize, ctx } of cases) {
      const { outcome, events } = await admit(textTool({ context: budget, oversize }), TEXT, ctx);
      expect(outcome.ok, oversize.join()).toBe(true);
      if (!outcome.ok) continue;
      expect(outcome.policy).toBeUndefined();
      expect(outcome.spill).toBeUndefined();
      expect(outcome.complete).toBe(false);
      expect(outcome.view).toEqual(plain.ok && plain.view);
      expect(toModelContent(outcome)).not.toContain("<spilled");
      expect(events[0]).toMatchObject({ policy: "direct", stage: "done" });
    }
    expect(await store.read(`spill_${"0".repeat(32)}`)).toBeUndefined();
  });

  it("a store that fails leaves the excerpt as the answer, not an oversize failure", async () => {
    const failing: SpillStore = {
      put: async (_entry: SpillEntry) => {
        throw new Error("disk full");
      },
      get: async () => undefined,
    };
    const { outcome, events } = await admit(textTool({ context: budget, oversize: ["spill"] }), TEXT, {
      spillStore: failing,
    });
    expect(outcome.ok && outcome.complete).toBe(false);
    expect(outcome.ok && outcome.policy).toBeUndefined();
    expect(events[0]).toMatchObject({ code: "ok", policy: "direct" });
  });

  it("a budget too small for even the excerpt with its spilled line fails oversize, and stores nothing", async () => {
    const writes: SpillEntry[] = [];
    const counting: SpillStore = {
      put: async (entry: SpillEntry) => {
        writes.push(entry);
        return { handle: `spill_${"1".repeat(32)}`, bytes: entry.json.length };
      },
      get: async () => undefined,
    };
    const tool = textTool({ context: { unit: "bytes", max: 300 }, oversize: ["spill", "drop"] });
    const outcome = await tool.admit(TEXT, { spillStore: counting, readTool: "read_tool_result" });
    expect(outcome.ok || outcome.error.code).toBe("oversize");
    expect(outcome.ok || outcome.diagnostics.detail).toMatchObject({ spill: "preview_over_budget" });
    expect(writes).toHaveLength(0);
  });

  it("a complete text view is never spilled", async () => {
    const store = new MemorySpillStore();
    const outcome = await textTool({ context: budget, oversize: ["spill"] }).admit(numberedLines(10), {
      spillStore: store,
    });
    expect(outcome.ok && outcome.complete).toBe(true);
    expect(outcome.ok && outcome.spill).toBeUndefined();
  });
});

describe("summarize and recall on an incomplete text view", () => {
  it("summarize runs before spill as on any oversize result, with the excerpt as the preview", async () => {
    const store = new MemorySpillStore();
    const tool = textTool({ context: budget, oversize: ["summarize", "spill"] });
    const summarized = await tool.admit(TEXT, {
      spillStore: store,
      hooks: { summarize: (data: string) => `${data.split("\n").length} numbered lines.` },
    });
    expect(summarized.ok && summarized.policy).toBe("summarize");
    if (!summarized.ok) return;
    expect(summarized.summary).toBe("2000 numbered lines.");
    expect((summarized.view as TextView).gap).toBeDefined();
    expect(toModelContent(summarized)).toContain('<summary>"2000 numbered lines."</summary>');
    // A hook that declines passes to spill.
    const spilled = await tool.admit(TEXT, { spillStore: store, hooks: { summarize: () => undefined } });
    expect(spilled.ok && spilled.policy).toBe("spill");
  });

  it("recall re-calls with narrowed arguments, and its result is admitted again", async () => {
    const store = new MemorySpillStore();
    const tool = textTool({ context: budget, oversize: ["recall", "spill"] });
    const turn = new Turn();
    const outcome = await tool.admit(TEXT, {
      spillStore: store,
      turn,
      args: { lines: 2000 },
      hooks: { recall: () => ({ lines: 20 }) },
      call: async () => numberedLines(20),
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.flags).toContain("recalled");
    expect(outcome.complete).toBe(true);
    expect(outcome.data).toBe(numberedLines(20));
    expect(outcome.spill).toBeUndefined();
    // The limit reached, the chain goes on to spill.
    const second = await tool.admit(TEXT, {
      spillStore: store,
      turn,
      args: { lines: 1999 },
      hooks: { recall: () => ({ lines: 10 }) },
      call: async () => numberedLines(10),
    });
    expect(second.ok && second.policy).toBe("spill");
  });
});
