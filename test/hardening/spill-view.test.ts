/**
 * What a spill holds and what a read-back page shows: the view, whole and cleaned, never the validated value. A
 * field the view omits, a property the schema does not declare and an invisible character (a bidi override, a
 * zero-width space, a tag character) reach neither a page's content nor its structured body, whichever policy
 * spilled (`spill`, `shorten`), whichever way it is read (an array's items, a pattern with `*`, a text's lines or
 * its matches), and even from an entry written raw to a shared store. Beside each, the positive control: what the
 * view declares reads back whole, past the preview's cuts.
 */
import { describe, expect, it } from "vitest";
import type { ViewPlan } from "../../runtime/contract/types.js";
import {
  defineTool,
  MemorySpillStore,
  type ReadBackArgs,
  type ReadBackOutcome,
  readBack,
  toModelContent,
} from "../../runtime/index.js";
import { wholePlan } from "../../runtime/policies/spill.js";
import { project } from "../../runtime/stages/project.js";
import { hasInvisible } from "../../runtime/text/hygiene.js";
import { compile, recordSpec, textTool } from "../runtime/fixture.js";

const OMITTED = "OMITTED-5d1f0a";
const UNDECLARED = "UNDECLARED-a93e27";
const NESTED_UNDECLARED = "NESTED-UNDECLARED-0c4b88";
/** A bidi override, a zero-width space and a tag character: what cleaning takes out of the model's text. */
const INVISIBLE = "\u202e\u200b\u{e0041}";

/** An open schema: anything validates, so undeclared properties are admitted and only the view keeps them out. */
const openSchema = { type: "object" } as const;

/** `internalNotes` is omitted (absent from the plan); `meta` is shown whole (`any`); labels are cut to 40. */
const plan: ViewPlan = {
  kind: "object",
  properties: {
    recordId: { kind: "string", max: 64, overflow: "excerpt" },
    items: {
      kind: "array",
      take: 6,
      items: {
        kind: "object",
        properties: { id: { kind: "value" }, label: { kind: "string", max: 40, overflow: "excerpt" } },
      },
    },
    meta: { kind: "any", max: 50, take: 2 },
  },
};

function openTool(oversize: Array<"spill" | "shorten" | "drop">) {
  const spec = recordSpec({
    validateResult: compile(openSchema) as never,
    view: { plan, maxStringChars: 2000 },
    buildView: (data) => project(data, plan, { maxStringChars: 2000 }),
    oversize,
    context: { unit: "bytes", max: 700 },
  });
  return defineTool(spec);
}

/** A label longer than the view's 40: the spill holds it whole, cleaned. */
const label = (i: number) => `label ${i} ${INVISIBLE} ${"y".repeat(60)} end-${i}`;
const cleanLabel = (i: number) => `label ${i}  ${"y".repeat(60)} end-${i}`;

function hostileRecord(count = 120) {
  return {
    recordId: `r-1${INVISIBLE}`,
    internalNotes: `${OMITTED}: do not show`,
    undeclaredTop: `${UNDECLARED} at the top`,
    items: Array.from({ length: count }, (_, id) => ({ id, label: label(id), secret: `${NESTED_UNDECLARED} ${id}` })),
    meta: { [`key${INVISIBLE}`]: `value ${INVISIBLE}`, list: [1, 2, 3, 4, 5] },
  };
}

function page(outcome: ReadBackOutcome) {
  if (!outcome.ok) throw new Error(`expected a page, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.page;
}

async function readAll(reader: ReturnType<typeof readBack>, first: ReadBackArgs): Promise<ReadBackOutcome[]> {
  const pages: ReadBackOutcome[] = [];
  let args: ReadBackArgs | undefined = first;
  while (args !== undefined) {
    const outcome = await reader.handle(args);
    pages.push(outcome);
    args = page(outcome).next;
    if (pages.length > 1000) throw new Error("pages never end");
  }
  return pages;
}

/** Everything a page hands on: its content, and the whole MCP result (structured content included). */
function everything(pages: readonly ReadBackOutcome[]): string {
  return pages.map((p) => `${p.content}\n${JSON.stringify(p.toolResult)}\n${JSON.stringify(p)}`).join("\n");
}

function expectKeptOut(text: string): void {
  for (const marker of [OMITTED, UNDECLARED, NESTED_UNDECLARED, "internalNotes", "undeclaredTop", "secret"]) {
    expect(text).not.toContain(marker);
  }
  expect(hasInvisible(text)).toBe(false);
}

describe.each(["spill", "shorten"] as const)("a structured result spilled by %s", (policy) => {
  async function spilled() {
    const store = new MemorySpillStore();
    const reader = readBack(store, { budget: { unit: "bytes", max: 3000 } });
    const outcome = await openTool([policy, "drop"]).admit(JSON.stringify(hostileRecord()), reader.context);
    if (!outcome.ok || outcome.spill === undefined)
      throw new Error(`expected a spill, got ${outcome.ok ? outcome.policy : outcome.error.code}`);
    return { store, reader, outcome, handle: outcome.spill.handle };
  }

  it("stores the view whole: no omitted or undeclared field, no invisible character, labels uncut", async () => {
    const { store, outcome, handle } = await spilled();
    expectKeptOut(toModelContent(outcome));
    const record = await store.read?.(handle);
    const stored = JSON.stringify(record);
    expectKeptOut(stored);
    // Positive control: every declared field of every item, whole, past the view's take of 6 and its 40 characters.
    const value = JSON.parse((record as { json: string }).json) as { items: Array<{ id: number; label: string }> };
    expect(value.items).toHaveLength(120);
    expect(value.items[119]).toEqual({ id: 119, label: cleanLabel(119) });
    // The application still reads the validated value whole, from the outcome.
    expect(JSON.stringify(outcome.data)).toContain(OMITTED);
  });

  it("pages of an array's items show every item's declared fields, whole, and nothing else", async () => {
    const { reader, handle } = await spilled();
    const pages = await readAll(reader, { handle, pointer: "/items" });
    expectKeptOut(everything(pages));
    const items = pages.flatMap((p) => page(p).items ?? []);
    expect(items).toEqual(Array.from({ length: 120 }, (_, id) => ({ id, label: cleanLabel(id) })));
  });

  it("a pattern with * and the root read the same: matches and the whole value hold only the view", async () => {
    const { reader, handle } = await spilled();
    const matches = await readAll(reader, { handle, pointer: "/items/*/label" });
    expectKeptOut(everything(matches));
    const values = matches.flatMap((p) => (page(p).matches ?? []).map((m) => (m as { value: unknown }).value));
    expect(values).toEqual(Array.from({ length: 120 }, (_, id) => cleanLabel(id)));
    const root = await reader.handle({ handle, pointer: "" });
    expectKeptOut(everything([root]));
    const meta = await reader.handle({ handle, pointer: "/meta/list" });
    expect(page(meta).items).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("a page's structured body is built from what its content shows", () => {
  it("an entry written raw to a shared store is cleaned in both, and they agree", async () => {
    const store = new MemorySpillStore();
    const reader = readBack(store, { budget: { unit: "bytes", max: 3000 } });
    const json = JSON.stringify({ items: [`a${INVISIBLE}b`, { [`k${INVISIBLE}`]: `v${INVISIBLE}` }, "plain"] });
    const { handle } = await store.put({ tool: "raw", json, sha256: "0".repeat(64) });
    const outcome = await reader.handle({ handle, pointer: "/items" });
    expect(hasInvisible(JSON.stringify(outcome.toolResult))).toBe(false);
    expect(page(outcome).items).toEqual(["ab", { k: "v" }, "plain"]);
    // The content's JSON line is the body's items, markup escaped.
    expect(JSON.parse(outcome.content.split("\n")[1] as string)).toEqual({ items: page(outcome).items });
  });

  it("a raw text entry's lines and matches are cleaned in both", async () => {
    const store = new MemorySpillStore();
    const reader = readBack(store, { budget: { unit: "bytes", max: 3000 } });
    const text = ["first", `sec${INVISIBLE}ond`, "third"].join("\n");
    const { handle } = await store.put({ tool: "raw", json: JSON.stringify(text), sha256: "0".repeat(64) });
    const lines = await reader.handle({ handle });
    expect(page(lines).lines).toEqual(["first", "second", "third"]);
    const found = await reader.handle({ handle, pattern: "second" });
    expect(page(found).matches).toEqual([{ line: 2, text: "second" }]);
    expect(hasInvisible(everything([lines, found]))).toBe(false);
  });
});

describe("a text result spilled", () => {
  it("stores and pages its cleaned text, every line of it", async () => {
    const store = new MemorySpillStore();
    const reader = readBack(store, { budget: { unit: "bytes", max: 3000 } });
    const tool = textTool({ oversize: ["spill", "drop"], context: { unit: "bytes", max: 600 } });
    const text = Array.from({ length: 300 }, (_, i) => `line ${i} ${INVISIBLE} text`).join("\n");
    const outcome = await tool.admit(text, reader.context);
    if (!outcome.ok || outcome.spill === undefined) throw new Error("expected a spill");
    const pages = await readAll(reader, { handle: outcome.spill.handle });
    expect(hasInvisible(everything(pages))).toBe(false);
    const lines = pages.flatMap((p) => page(p).lines ?? []);
    expect(lines).toEqual(Array.from({ length: 300 }, (_, i) => `line ${i}  text`));
  });
});

describe("the plan a spill is projected with", () => {
  it("is the view's plan without its cuts, a recursive plan included: every level, item and character", () => {
    const tree: ViewPlan = { kind: "object", properties: {} };
    (tree as { properties: Record<string, ViewPlan> }).properties = {
      name: { kind: "string", max: 5, overflow: "omit" },
      children: { kind: "array", take: 1, items: tree },
    };
    const node = (depth: number): Record<string, unknown> => ({
      name: `node-${depth}${INVISIBLE}-long`,
      secret: OMITTED,
      children: depth === 0 ? [] : [node(depth - 1), node(depth - 1)],
    });
    const whole = project(node(3), wholePlan(tree), { maxStringChars: Number.POSITIVE_INFINITY });
    const text = JSON.stringify(whole.view);
    expectKeptOut(text);
    expect(whole.omissions).toEqual([]);
    // Positive control: 15 nodes, each name whole and cleaned; the view's own plan is left as it was.
    expect(text.match(/"name":"node-\d-long"/g)).toHaveLength(15);
    expect((tree as unknown as { properties: { children: { take: number } } }).properties.children.take).toBe(1);
  });
});
