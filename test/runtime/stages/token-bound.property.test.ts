/**
 * A token budget is decided without the tokenizer when the rendered view's UTF-8 length is within it (a token is at
 * least one byte), and the verdict is the one a count gives: the same outcome, view, omissions, provenance and model
 * content whether or not the tokenizer ran, for every result kind, with either tokenizer, on both sides of the
 * budget. Only `contextUsed` may differ: a bound (`exact: false`, the UTF-8 length) where no count was made, never
 * below the count.
 *
 * The gate is run twice on each payload: as it is, and with its verdicts forced through the tokenizer (the measure
 * module's verdict functions and its measure stage replaced by the full count, for this file only; a test below
 * checks the forcing reaches every result kind). Budgets are drawn between the view's
 * token count and its byte length, where only the bound can spare the count, and around both ends.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { Success } from "../../../runtime/contract/types.js";
import {
  type ContextBudget,
  type GateEvent,
  measureText,
  type Outcome,
  toModelContent,
} from "../../../runtime/index.js";
import { measureVerdict } from "../../../runtime/stages/measure.js";
import { utf8Length } from "../../../runtime/text/hygiene.js";
import { goodRecord, JSON_TEXT_RESULT, recordTool, STRUCTURED_RESULT, textTool } from "../fixture.js";

/** Whether the gate's verdicts are forced through the tokenizer. */
const mode = vi.hoisted(() => ({ count: false }));

vi.mock("../../../runtime/stages/measure.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../../runtime/stages/measure.js")>();
  const { toModelContent: render } = await vi.importActual<typeof import("../../../runtime/stages/model-content.js")>(
    "../../../runtime/stages/model-content.js",
  );
  return {
    ...original,
    measureVerdict: (text: string, budget: ContextBudget, limit?: number) =>
      mode.count ? original.measureText(text, budget, limit) : original.measureVerdict(text, budget, limit),
    measureModelContent: (outcome: Outcome<unknown, unknown>, budget: ContextBudget) =>
      mode.count ? original.measureText(render(outcome), budget) : original.measureModelContent(outcome, budget),
    // The gate's measure stage: a view the view stage already measured is counted again, so structured and JSON
    // text results, whose views only this stage measures, meet the tokenizer too.
    measureView: (view: Success<unknown, unknown>, budget: ContextBudget) =>
      mode.count ? original.measureText(render(view), budget) : original.measureView(view, budget),
  };
});

type Kind = "structured" | "json_text" | "text" | "content";
type Tokenizer = "o200k_base" | "cl100k_base";
const KINDS: Kind[] = ["text", "content", "structured", "json_text"];
const TOKENIZERS: Tokenizer[] = ["o200k_base", "cl100k_base"];
const UNBOUNDED = 10_000_000;
const RECEIVED_AT = new Date("2026-01-02T03:04:05.000Z");

/** Pieces of a line: prose, markup that escapes, multi-byte characters, and runs long enough to count by bytes. */
const piece = fc.oneof(
  fc.constantFrom("The committee reviewed the report.", "SELECT id FROM orders", " ", "\t", "  indented"),
  fc.constantFrom("<b>", "</tool_result>", "&amp;", "＜", "\\", '"'),
  fc.constantFrom("日本語のテキスト", "中文", "😀", "𝒳𝒴", "é"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.nat({ max: 400 }).map((n) => "x".repeat(n)),
  fc.nat({ max: 300 }).map((n) => "漢".repeat(n)),
);
const line = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(""));
const text = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 30 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
  .map(([lines, newline, final]) => lines.join(newline) + (final ? newline : ""));
const record = fc
  .tuple(
    fc.string({ unit: "grapheme", maxLength: 60 }),
    fc.array(fc.record({ id: fc.nat(), label: fc.string({ unit: "grapheme", maxLength: 40 }) }), { maxLength: 5 }),
  )
  .map(([title, items]) => goodRecord({ title, items }));

function budgetOf(tokenizer: Tokenizer, max: number): ContextBudget {
  return { unit: "tokens", max, tokenizer };
}

function admitWith(kind: Kind, context: ContextBudget, payload: unknown): Promise<Outcome<unknown, unknown>> {
  const common = { context, oversize: ["shorten" as const] };
  const ctx = { now: () => RECEIVED_AT, correlationId: "call-1" };
  if (kind === "text") return textTool(common).admit(payload, ctx) as Promise<Outcome<unknown, unknown>>;
  if (kind === "content") {
    const result = { kind: "content" as const, content: { maxBlocks: 8, text: { maxCount: 8 } } };
    return textTool({ ...common, result }).admit(payload, ctx) as Promise<Outcome<unknown, unknown>>;
  }
  const result = kind === "structured" ? STRUCTURED_RESULT : JSON_TEXT_RESULT;
  return recordTool({ ...common, result }).admit(payload, ctx) as Promise<Outcome<unknown, unknown>>;
}

function payloadOf(kind: Kind, value: string | Record<string, unknown>): unknown {
  if (kind === "text") return value;
  if (kind === "content") {
    const lines = (value as string).split("\n");
    const cut = Math.ceil(lines.length / 2);
    const blocks = [lines.slice(0, cut).join("\n"), lines.slice(cut).join("\n")].filter((part) => part !== "");
    return { content: blocks.map((part) => ({ type: "text", text: part })) };
  }
  const json = JSON.stringify(value);
  if (kind === "structured") return { structuredContent: value, content: [{ type: "text", text: json }] };
  return { content: [{ type: "text", text: json }] };
}

/** The outcome without its context use, which is the one thing allowed to differ. */
function decided(outcome: Outcome<unknown, unknown>): unknown {
  if (!outcome.ok)
    return { ok: false, error: outcome.error, diagnostics: outcome.diagnostics, provenance: outcome.provenance };
  const { contextUsed: _used, ...rest } = outcome;
  return { ...rest, content: toModelContent(outcome) };
}

async function checkSameVerdict(kind: Kind, tokenizer: Tokenizer, value: string | object, at: number): Promise<void> {
  const payload = payloadOf(kind, value as string | Record<string, unknown>);
  mode.count = true;
  const whole = await admitWith(kind, budgetOf(tokenizer, UNBOUNDED), payload);
  expect(whole.ok).toBe(true);
  if (!whole.ok) return;
  const content = toModelContent(whole);
  const bytes = utf8Length(content);
  const tokens = (await measureText(content, budgetOf(tokenizer, UNBOUNDED))).value;
  // From a little under the count to a little over the bytes: where the bound decides, and on both sides of it.
  const low = Math.max(1, Math.floor(tokens * 0.8));
  const high = Math.ceil(bytes * 1.1);
  const max = Math.max(1, Math.round(low + at * (high - low)));

  mode.count = true;
  const counted = await admitWith(kind, budgetOf(tokenizer, max), payload);
  mode.count = false;
  const bounded = await admitWith(kind, budgetOf(tokenizer, max), payload);
  expect(decided(bounded)).toEqual(decided(counted));
  if (!bounded.ok || !counted.ok) return;
  expect(bounded.contextUsed.value).toBeLessThanOrEqual(max);
  if (bounded.contextUsed.exact === false) {
    // A bound is never below the count, and it is the rendered view's UTF-8 length or a long run's bytes.
    expect(bounded.contextUsed.value).toBeGreaterThanOrEqual(counted.contextUsed.value);
  } else {
    expect(bounded.contextUsed).toEqual(counted.contextUsed);
  }
  if (max >= bytes) {
    // Positive control: a view within the budget by its bytes reaches the model whole, uncounted.
    expect(bounded.complete).toBe(true);
    expect(toModelContent(bounded)).toBe(content);
    expect(bounded.contextUsed).toEqual({ unit: "tokens", value: bytes, budget: max, exact: false });
  }
}

describe("the forced count of this file", () => {
  it("reaches every result kind: a view within the budget by its bytes is counted when forced, bounded when not", async () => {
    for (const kind of KINDS) {
      const value = kind === "text" || kind === "content" ? "The committee reviewed the report." : goodRecord({});
      const payload = payloadOf(kind, value);
      mode.count = true;
      const counted = await admitWith(kind, budgetOf("o200k_base", UNBOUNDED), payload);
      mode.count = false;
      const bounded = await admitWith(kind, budgetOf("o200k_base", UNBOUNDED), payload);
      expect(counted.ok && bounded.ok, kind).toBe(true);
      if (!counted.ok || !bounded.ok) continue;
      expect(counted.contextUsed.exact, kind).toBeUndefined();
      expect(counted.contextUsed.value, kind).toBe(
        (await measureText(toModelContent(counted), budgetOf("o200k_base", UNBOUNDED))).value,
      );
      expect(bounded.contextUsed.exact, kind).toBe(false);
    }
  });
});

describe("a token budget gets the same verdict whether or not the tokenizer ran", () => {
  for (const tokenizer of TOKENIZERS) {
    it(`measureVerdict agrees with the count, ${tokenizer}`, async () => {
      await fc.assert(
        fc.asyncProperty(text, fc.double({ min: 0, max: 1, noNaN: true }), async (sample, at) => {
          const bytes = utf8Length(sample);
          const tokens = (await measureText(sample, budgetOf(tokenizer, UNBOUNDED))).value;
          // Between a little under the count and a little over the bytes, as for the admits below.
          const low = Math.floor(tokens * 0.8);
          const limit = Math.max(1, Math.round(low + at * (Math.ceil(bytes * 1.1) - low)));
          const budget = budgetOf(tokenizer, limit);
          const verdict = await measureVerdict(sample, budget);
          const count = await measureText(sample, budget);
          expect(verdict.within).toBe(count.within);
          if (verdict.bound === "bytes") {
            expect(verdict).toEqual({ unit: "tokens", value: bytes, exact: false, within: true, bound: "bytes" });
            expect(count.value).toBeLessThanOrEqual(bytes);
          } else {
            expect(verdict).toEqual(count);
          }
        }),
        { numRuns: 200 },
      );
    });

    for (const kind of KINDS) {
      it(`admit, ${kind}, ${tokenizer}`, async () => {
        const values = kind === "text" || kind === "content" ? text : record;
        await fc.assert(
          fc.asyncProperty(values, fc.double({ min: 0, max: 1, noNaN: true }), (value, at) =>
            checkSameVerdict(kind, tokenizer, value, at),
          ),
          { numRuns: 40 },
        );
      });
    }
  }
});

describe("what a bound is called where it is reported", () => {
  it("the outcome and its event say when the view's size is a bound, and say nothing when it is a count", async () => {
    mode.count = false;
    const events: GateEvent[] = [];
    const sink = (event: GateEvent) => events.push(event);
    const context = budgetOf("o200k_base", 200);
    const tool = textTool({ context, oversize: ["shorten"] });
    // Within 200 by its bytes: uncounted. About 250 bytes of prose: over 200 in bytes, within it in tokens.
    const short = await tool.admit("a short note", { sink });
    const prose = "The committee reviewed the report and found most samples within limits.\n".repeat(3);
    const long = await tool.admit(prose, { sink });
    expect(short.ok && long.ok).toBe(true);
    if (!short.ok || !long.ok) return;
    expect((short.view as { text: string }).text).toBe("a short note");
    expect(short.contextUsed).toEqual({
      unit: "tokens",
      value: utf8Length(toModelContent(short)),
      budget: 200,
      exact: false,
    });
    expect(events[0]?.sizes).toMatchObject({ viewSize: short.contextUsed.value, unit: "tokens", exact: false });
    expect(long.complete).toBe(true);
    expect(utf8Length(toModelContent(long))).toBeGreaterThan(200);
    expect(long.contextUsed.exact).toBeUndefined();
    expect(long.contextUsed.value).toBe((await measureText(toModelContent(long), context)).value);
    expect(events[1]?.sizes.exact).toBeUndefined();
  });
});
