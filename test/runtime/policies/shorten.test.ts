/**
 * Policy `shorten`: over budget, the model reads the most of the view that fits, cut by its structure (arrays to
 * their first items, long strings to whole lines from head and tail), each cut named with its count, and a spill
 * handle when the call has a store. Beside each case, the control: a result within budget reaches the model whole.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  defineTool,
  MemorySpillStore,
  measureText,
  type Omission,
  type Outcome,
  project,
  type Success,
  type ToolSpec,
  toModelContent,
  type ViewPlan,
} from "../../../runtime/index.js";
import { cutView, largestPart, viewTree } from "../../../runtime/policies/shorten-view.js";
import { markupSafeJson } from "../../../runtime/stages/model-content.js";
import { utf8Length } from "../../../runtime/text/hygiene.js";
import { compile, goodRecord, recordTool, STRUCTURED_RESULT, textTool } from "../fixture.js";

interface Hit {
  title: string;
  url: string;
  score: number;
  snippet: string;
}
interface SearchResult {
  query: string;
  total: number;
  hits: Hit[];
  body?: string;
}

const searchSchema = {
  type: "object",
  properties: {
    query: { type: "string" },
    total: { type: "integer" },
    hits: {
      type: "array",
      items: {
        type: "object",
        properties: {
          title: { type: "string" },
          url: { type: "string" },
          score: { type: "number" },
          snippet: { type: "string" },
        },
        required: ["title", "url", "score", "snippet"],
      },
    },
    body: { type: "string" },
  },
  required: ["query", "total", "hits"],
} as const;

const searchPlan: ViewPlan = {
  kind: "object",
  properties: {
    query: { kind: "string", max: 200, overflow: "excerpt" },
    total: { kind: "value" },
    hits: {
      kind: "array",
      items: {
        kind: "object",
        properties: {
          title: { kind: "string", max: 200, overflow: "excerpt" },
          url: { kind: "string", max: 500, overflow: "excerpt" },
          score: { kind: "value" },
          snippet: { kind: "string", max: 400, overflow: "excerpt" },
        },
      },
    },
    body: { kind: "string", max: 1_000_000, overflow: "lines" },
  },
};

const validateSearch = compile<SearchResult>(searchSchema);
const TOKENS = { unit: "tokens" as const, max: 1000, tokenizer: "o200k_base" as const };

/** A structured search tool under `shorten`, the default end of a chain. */
function searchSpec(overrides: Partial<ToolSpec<SearchResult, unknown>> = {}): ToolSpec<SearchResult, unknown> {
  const plan = overrides.view?.plan ?? searchPlan;
  return {
    name: "search",
    contract: { version: "1", sha256: "e".repeat(64), file: "schemas/search.tool.json" },
    validateResult: validateSearch,
    view: { plan, maxStringChars: 2000 },
    buildView: (data) => project(data, plan, { maxStringChars: 2000 }),
    limits: { maxBytes: 8 * 1024 * 1024, maxDepth: 8 },
    context: TOKENS,
    oversize: ["shorten"],
    recallLimit: 1,
    summaryMax: 200,
    spillPreview: 3,
    retry: {},
    fields: [],
    exposeToolError: false,
    result: STRUCTURED_RESULT,
    mcp: {},
    ...overrides,
  };
}

/** `count` search hits, each about 300 bytes of JSON, with a seeded score. */
function hits(count: number): Hit[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `Result ${i + 1}: configuring the gateway for region ${i % 7}`,
    url: `https://docs.example.com/guide/${i + 1}`,
    score: Math.round((1 - i / (count + 1)) * 1000) / 1000,
    snippet: `The gateway reads its settings at start-up; section ${i + 1} explains how the timeout, the retry count and the region interact when a node is replaced.`,
  }));
}

/** A result as an MCP `CallToolResult` with structured content. */
function mcp(value: unknown) {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/** The success, or a test failure naming the code. */
function success<V>(outcome: Outcome<SearchResult, V>): Success<SearchResult, V> {
  if (!outcome.ok) throw new Error(`expected a success, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome;
}

async function tokensOf(text: string): Promise<number> {
  return (await measureText(text, { ...TOKENS, max: 10_000_000 })).value;
}

/** `count` numbered log lines of varied width. */
function logLines(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `2026-12-01T10:${String(i % 60).padStart(2, "0")}:00Z INFO worker-${i % 9} handled request ${i + 1}${" ok".repeat(i % 5)}`,
  );
}

describe("shorten, JSON results", () => {
  it("keeps the top hits whole and in order, names how many were left out, and is the most that fits", async () => {
    const all = hits(40);
    const tool = defineTool(searchSpec());
    const outcome = success(await tool.admit(mcp({ query: "gateway timeout", total: 40, hits: all })));
    const view = outcome.view as SearchResult;
    expect(outcome.complete).toBe(false);
    expect(outcome.policy).toBe("shorten");
    expect(view.query).toBe("gateway timeout");
    expect(view.total).toBe(40);
    const kept = view.hits.length;
    expect(kept).toBeGreaterThanOrEqual(8);
    expect(view.hits).toEqual(all.slice(0, kept));
    expect(outcome.omissions).toEqual([{ path: "/hits", kind: "items", count: 40 - kept }]);
    const content = toModelContent(outcome);
    expect(content).toContain(`<omitted>[{"path":"/hits","kind":"items","count":${40 - kept}}]</omitted>`);
    expect(await tokensOf(content)).toBeLessThanOrEqual(TOKENS.max);
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(TOKENS.max);
    // The most that fits: one more hit would be over the budget.
    const more = { ...outcome, view: { ...view, hits: all.slice(0, kept + 1) } };
    more.omissions = [{ path: "/hits", kind: "items", count: 39 - kept }];
    expect(await tokensOf(toModelContent(more))).toBeGreaterThan(TOKENS.max);
    // The caller keeps every hit and every score.
    expect(outcome.data.hits.map((h) => h.score)).toEqual(all.map((h) => h.score));
  });

  it("control: a result within budget reaches the model whole, under the same chain", async () => {
    const all = hits(3);
    const outcome = success(await defineTool(searchSpec()).admit(mcp({ query: "q", total: 3, hits: all })));
    expect(outcome.complete).toBe(true);
    expect(outcome.policy).toBeUndefined();
    expect(outcome.view).toEqual({ query: "q", total: 3, hits: all });
    expect(outcome.omissions).toEqual([]);
  });

  it("raises the plan's own count when the contract's take already cut the array", async () => {
    const plan = structuredClone(searchPlan) as Extract<ViewPlan, { kind: "object" }>;
    (plan.properties.hits as Extract<ViewPlan, { kind: "array" }>).take = 30;
    const all = hits(100);
    const spec = searchSpec({ view: { plan, maxStringChars: 2000 } });
    const outcome = success(await defineTool(spec).admit(mcp({ query: "q", total: 100, hits: all })));
    const view = outcome.view as SearchResult;
    expect(view.hits).toEqual(all.slice(0, view.hits.length));
    expect(outcome.omissions).toEqual([{ path: "/hits", kind: "items", count: 100 - view.hits.length }]);
  });

  it("shortens a JSON text result the same way, keeps the plan's private fields out and the cursor in", async () => {
    const items = Array.from({ length: 40 }, (_, id) => ({ id, label: `item ${id} ${"x".repeat(60)}` }));
    const raw = JSON.stringify(goodRecord({ items, internalNotes: "PRIVATE-NOTE", nextCursor: "c-2" }));
    const tool = recordTool({ oversize: ["shorten"], context: { unit: "bytes", max: 500 } });
    const outcome = await tool.admit(raw);
    if (!outcome.ok) throw new Error(outcome.error.code);
    const view = outcome.view as { items: unknown[] };
    expect(outcome.policy).toBe("shorten");
    expect(view.items.length).toBeGreaterThan(0);
    // The plan shows 5 items (its take); shorten cuts further, and the one omission counts both cuts.
    expect(view.items.length).toBeLessThan(5);
    expect(view.items).toEqual(items.slice(0, view.items.length));
    expect(outcome.omissions).toEqual([{ path: "/items", kind: "items", count: 40 - view.items.length }]);
    expect(outcome.continuation).toBe("c-2");
    const content = toModelContent(outcome);
    expect(content).not.toContain("PRIVATE-NOTE");
    expect(content).toContain("<continuation>");
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(500);
    // Control: the same tool and chain with 2 items reads whole.
    const small = await tool.admit(JSON.stringify(goodRecord({ items: items.slice(0, 2) })));
    expect(small).toMatchObject({ ok: true, complete: true, view: { items: items.slice(0, 2) } });
  });

  it("cuts a long string to whole lines from its head and tail, re-cut from the tool's text", async () => {
    const lines = logLines(3000);
    const value = { query: "logs", total: 0, hits: [], body: lines.join("\n") };
    const outcome = success(await defineTool(searchSpec()).admit(mcp(value)));
    const body = (outcome.view as SearchResult).body as string;
    const shown = body.split("\n");
    const gapAt = shown.findIndex((line) => line.startsWith("[… "));
    expect(gapAt).toBeGreaterThan(0);
    const head = shown.slice(0, gapAt);
    const tail = shown.slice(gapAt + 1);
    expect(head).toEqual(lines.slice(0, head.length));
    expect(tail).toEqual(lines.slice(lines.length - tail.length));
    const left = lines.length - head.length - tail.length;
    expect(outcome.omissions).toEqual([
      { path: "/body", kind: "lines", count: left, from: head.length + 1, to: lines.length - tail.length },
    ]);
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(TOKENS.max);
  });

  it("spills the whole value when the call has a store, and the handle fits in the budget", async () => {
    const store = new MemorySpillStore();
    const all = hits(200);
    const tool = defineTool(searchSpec());
    const outcome = success(
      await tool.admit(mcp({ query: "q", total: 200, hits: all }), { spillStore: store, readTool: "read_tool_result" }),
    );
    expect(outcome.policy).toBe("shorten");
    expect(outcome.spill?.handle).toMatch(/^spill_[0-9a-f]{32}$/);
    const content = toModelContent(outcome);
    expect(content).toContain(`<spilled handle="${outcome.spill?.handle}"`);
    expect(await tokensOf(content)).toBeLessThanOrEqual(TOKENS.max);
    const view = outcome.view as SearchResult;
    expect(view.hits.length).toBeGreaterThan(0);
    expect(view.hits).toEqual(all.slice(0, view.hits.length));
    expect(await store.get(outcome.spill?.handle as string)).toEqual({ query: "q", total: 200, hits: all });
  });

  it("fails oversize only when not even the skeleton fits, and says why shorten passed", async () => {
    const spec = searchSpec({ context: { unit: "bytes", max: 60 } });
    const outcome = await defineTool(spec).admit(mcp({ query: "q", total: 40, hits: hits(40) }));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("oversize");
    expect(outcome.diagnostics.detail).toMatchObject({ shorten: "skeleton_over_budget" });
  });

  it("shows the first item with its own parts cut when even one item is over the budget", async () => {
    const huge = { ...hits(1)[0], snippet: logLines(400).join("\n") } as Hit;
    const plan = structuredClone(searchPlan) as Extract<ViewPlan, { kind: "object" }>;
    const items = (plan.properties.hits as Extract<ViewPlan, { kind: "array" }>).items as Extract<
      ViewPlan,
      { kind: "object" }
    >;
    items.properties.snippet = { kind: "string", max: 100_000, overflow: "lines" };
    const spec = searchSpec({ view: { plan, maxStringChars: 2000 }, context: { unit: "bytes", max: 1500 } });
    const outcome = success(await defineTool(spec).admit(mcp({ query: "q", total: 2, hits: [huge, huge] })));
    const view = outcome.view as SearchResult;
    expect(view.hits).toHaveLength(1);
    expect(view.hits[0]?.title).toBe(huge.title);
    expect(outcome.omissions).toContainEqual({ path: "/hits", kind: "items", count: 1 });
    expect(outcome.omissions.some((o) => o.path === "/hits/0/snippet" && o.kind === "lines")).toBe(true);
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(1500);
  });
});

describe("shorten, text results", () => {
  it("is the whole-line excerpt, with a spill handle when the call has a store", async () => {
    const text = logLines(2000).join("\n");
    const store = new MemorySpillStore();
    const tool = textTool({ oversize: ["shorten"], context: { unit: "bytes", max: 2000 } });
    const outcome = await tool.admit(text, { spillStore: store });
    if (!outcome.ok) throw new Error(outcome.error.code);
    expect(outcome.policy).toBe("shorten");
    expect(outcome.complete).toBe(false);
    expect(outcome.spill).toBeDefined();
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(2000);
    expect(outcome.view.text.split("\n")[0]).toBe(text.split("\n")[0]);
    const control = await tool.admit("line1\nline2", { spillStore: store });
    expect(control).toMatchObject({ ok: true, complete: true, view: { text: "line1\nline2" } });
  });
});

/** Tokens of the data the model reads: the view's JSON, less the markers a cut string holds. */
async function dataShare(outcome: Success<unknown, unknown>): Promise<number> {
  const view = markupSafeJson(outcome.view).replace(/\[… \d+ lines? left out: lines \d+–\d+ of \d+ …\]/g, "");
  return (await tokensOf(view)) / (await tokensOf(toModelContent(outcome)));
}

describe("shorten is efficient", () => {
  it("spends at least half of the model content's tokens on data", async () => {
    const shapes: SearchResult[] = [
      { query: "q", total: 40, hits: hits(40) },
      { query: "q", total: 2000, hits: hits(2000) },
      { query: "logs", total: 0, hits: [], body: logLines(5000).join("\n") },
      { query: "both", total: 300, hits: hits(300), body: logLines(3000).join("\n") },
    ];
    for (const max of [300, 1000, 4000]) {
      for (const value of shapes) {
        const spec = searchSpec({ context: { ...TOKENS, max } });
        const outcome = success(await defineTool(spec).admit(mcp(value)));
        expect(await dataShare(outcome as Success<unknown, unknown>)).toBeGreaterThanOrEqual(0.5);
      }
    }
  });

  it("keeps at least 0.8× the whole lines head+tail truncation keeps at the same token cost", async () => {
    const lines = logLines(5000);
    const text = lines.join("\n");
    for (const max of [500, 2000, 8000]) {
      const spec = searchSpec({ context: { ...TOKENS, max } });
      const outcome = success(await defineTool(spec).admit(mcp({ query: "", total: 0, hits: [], body: text })));
      const body = (outcome.view as SearchResult).body as string;
      const kept = body.split("\n").filter((line) => !line.startsWith("[… ")).length;
      const cost = await tokensOf(toModelContent(outcome));
      expect(await truncatedLines(lines, cost)).toBeLessThanOrEqual(kept / 0.8);
    }
  });
});

describe("shorten is efficient on a text result", () => {
  it("keeps at least 0.8× the whole lines head+tail truncation keeps at the same token cost", async () => {
    const lines = logLines(5000);
    for (const max of [500, 2000, 8000]) {
      const tool = textTool({ oversize: ["shorten"], context: { ...TOKENS, max } });
      const outcome = await tool.admit(lines.join("\n"));
      if (!outcome.ok) throw new Error(outcome.error.code);
      const kept = outcome.view.text.split("\n").filter((line) => !line.startsWith("[… ")).length;
      const cost = await tokensOf(toModelContent(outcome));
      expect(cost).toBeLessThanOrEqual(max);
      expect(await truncatedLines(lines, cost)).toBeLessThanOrEqual(kept / 0.8);
    }
  });
});

/**
 * Whole lines that plain head+tail truncation keeps at `tokens`: the text's first and last characters, half the
 * tokens each, cut wherever the count falls; a line counts when it reaches the reader whole.
 */
async function truncatedLines(lines: string[], tokens: number): Promise<number> {
  const text = lines.join("\n");
  // Characters per token of this text, from a count of its first 20,000 characters.
  const sample = text.slice(0, 20_000);
  const chars = Math.floor((tokens / 2) * (sample.length / (await tokensOf(sample))));
  const head = text.slice(0, chars).split("\n");
  const tail = text.slice(text.length - chars).split("\n");
  // The last line of the head and the first of the tail are cut unless the cut fell on a line break.
  return head.length - 1 + (tail.length - 1);
}

/** Whether the omissions of an outcome say exactly what its array lost. */
function itemsLeftOut(omissions: readonly Omission[], path: string): number {
  return omissions.filter((o) => o.path === path && o.kind === "items").reduce((sum, o) => sum + o.count, 0);
}

describe("shorten, properties", () => {
  const hitArb = fc.record({
    title: fc.string({ maxLength: 60 }),
    url: fc.webUrl(),
    score: fc.double({ min: 0, max: 1, noNaN: true }),
    snippet: fc.string({ maxLength: 300 }),
  });

  it("fits the budget, keeps whole items in order, and counts what it cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hitArb, { maxLength: 120 }),
        fc.integer({ min: 200, max: 3000 }),
        fc.constantFrom("bytes" as const, "tokens" as const),
        async (all, max, unit) => {
          const context =
            unit === "bytes" ? { unit, max } : { unit, max: Math.ceil(max / 4), tokenizer: "o200k_base" as const };
          const spec = searchSpec({ context });
          const value = { query: "q", total: all.length, hits: all };
          const whole = project(value, searchPlan).view as SearchResult;
          const outcome = await defineTool(spec).admit(mcp(value));
          if (!outcome.ok) {
            // Refused only when not even one hit's skeleton fits.
            expect(outcome.error.code).toBe("oversize");
            expect(outcome.diagnostics.detail?.shorten).toBe("skeleton_over_budget");
            return;
          }
          expect(outcome.contextUsed.value).toBeLessThanOrEqual(context.max);
          expect((await measureText(toModelContent(outcome), context)).within).toBe(true);
          const view = outcome.view as SearchResult;
          expect(outcome.complete).toBe(view.hits.length === all.length && outcome.omissions.length === 0);
          expect(outcome.complete).toBe(outcome.omissions.length === 0);
          if (outcome.complete) {
            expect(view).toEqual(whole);
            return;
          }
          expect(outcome.policy).toBe("shorten");
          expect(view.hits.length + itemsLeftOut(outcome.omissions, "/hits")).toBe(all.length);
          // Every kept hit but a first one cut to fit is whole and in order.
          const cutFirst = outcome.omissions.some((o) => o.path.startsWith("/hits/0/"));
          view.hits.forEach((hit, i) => {
            if (!(i === 0 && cutFirst)) expect(hit).toEqual(whole.hits[i]);
          });
        },
      ),
      { numRuns: 60, seed: 26 },
    );
  });

  it("cuts a long string to whole lines of it, head and tail, and counts the lines left out", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ maxLength: 120 }).map((line) => line.replace(/[\r\n]/g, " ")),
          {
            minLength: 1,
            maxLength: 400,
          },
        ),
        fc.integer({ min: 300, max: 4000 }),
        async (lines, max) => {
          const text = lines.join("\n");
          const spec = searchSpec({ context: { unit: "bytes", max } });
          const outcome = await defineTool(spec).admit(mcp({ query: "", total: 0, hits: [], body: text }));
          if (!outcome.ok) {
            expect(outcome.diagnostics.detail?.shorten, outcome.error.code).toBe("skeleton_over_budget");
            return;
          }
          expect(outcome.contextUsed.value).toBeLessThanOrEqual(max);
          const gap = outcome.omissions.find((o) => o.path === "/body" && o.kind === "lines");
          const cutLine = outcome.omissions.find((o) => o.path === "/body" && o.kind === "excerpt");
          if (gap === undefined || cutLine !== undefined) return;
          const whole = ((project({ body: text }, searchPlan).view as SearchResult).body as string).split("\n");
          const shown = ((outcome.view as SearchResult).body as string).split("\n");
          const head = shown.slice(0, (gap.from as number) - 1);
          const tail = shown.slice(head.length + 1);
          expect(head).toEqual(whole.slice(0, head.length));
          expect(tail).toEqual(whole.slice(whole.length - tail.length));
          expect(head.length + gap.count + tail.length).toBe(whole.length);
        },
      ),
      { numRuns: 60, seed: 26 },
    );
  });

  it("knows what a cut view costs without writing it: the search's byte figure is the rendered one", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 2000 }), (value, level) => {
        const tree = viewTree(value, value);
        const cut = cutView(tree, level);
        expect(cut.bytes).toBe(utf8Length(markupSafeJson(cut.view)));
        // A cut never costs more than the whole: a short string is never replaced by longer markers.
        expect(cut.bytes).toBeLessThanOrEqual(tree.cost);
        // Past the largest part nothing is cut.
        if (level >= largestPart(tree)) expect(cut.view).toEqual(value);
      }),
      { numRuns: 300, seed: 26 },
    );
  });

  it("over nested arrays, every array shown keeps its count: items shown and items left out add up", async () => {
    const filePlan: ViewPlan = {
      kind: "object",
      properties: { name: { kind: "string", max: 200, overflow: "excerpt" }, size: { kind: "value" } },
    };
    const treePlan: ViewPlan = {
      kind: "object",
      properties: {
        dirs: {
          kind: "array",
          items: {
            kind: "object",
            properties: {
              name: { kind: "string", max: 200, overflow: "excerpt" },
              files: { kind: "array", items: filePlan },
            },
          },
        },
      },
    };
    const fileArb = fc.record({ name: fc.string({ maxLength: 40 }), size: fc.nat() });
    const dirArb = fc.record({ name: fc.string({ maxLength: 20 }), files: fc.array(fileArb, { maxLength: 60 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(dirArb, { maxLength: 30 }), fc.integer({ min: 120, max: 3000 }), async (dirs, max) => {
        const tree = { dirs };
        const spec = {
          ...searchSpec({ context: { unit: "bytes", max } }),
          validateResult: compile<unknown>({ type: "object" }),
          view: { plan: treePlan, maxStringChars: 2000 },
          buildView: (data: unknown) => project(data, treePlan),
        } as unknown as ToolSpec<SearchResult, unknown>;
        const outcome = await defineTool(spec).admit(mcp(tree));
        if (!outcome.ok) {
          expect(outcome.diagnostics.detail?.shorten, outcome.error.code).toBe("skeleton_over_budget");
          return;
        }
        expect(outcome.contextUsed.value).toBeLessThanOrEqual(max);
        const view = outcome.view as { dirs: Array<{ name: string; files: unknown[] }> };
        expect(view.dirs.length + itemsLeftOut(outcome.omissions, "/dirs")).toBe(dirs.length);
        view.dirs.forEach((dir, d) => {
          const files = dirs[d]?.files ?? [];
          expect(dir.files.length + itemsLeftOut(outcome.omissions, `/dirs/${d}/files`)).toBe(files.length);
          // Files shown are the directory's first files, whole and in order.
          for (const [f, file] of dir.files.entries()) expect(file).toEqual(files[f]);
        });
        // No omission names a part of the view that is not shown.
        for (const omission of outcome.omissions) {
          const index = /^\/dirs\/(\d+)/.exec(omission.path)?.[1];
          if (index !== undefined) expect(Number(index)).toBeLessThan(view.dirs.length);
        }
      }),
      { numRuns: 80, seed: 26 },
    );
  });
});
