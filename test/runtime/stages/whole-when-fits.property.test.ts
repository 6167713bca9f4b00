/**
 * A result whose whole view fits the context budget reaches the model whole, for every result kind, in bytes and in
 * tokens with either tokenizer: the outcome is `complete: true` and the model content is exactly the content of the
 * whole view. And whatever the budget, an admitted view is within it.
 *
 * The whole view's content is taken from the same tool under a budget no view reaches, then measured in the unit
 * under test; the budget is drawn around that size, so both sides of the boundary (and the boundary itself) are
 * tried. Texts mix short and long lines, CRLF, markup characters, astral and CJK characters and empty lines: the
 * forms where the text view once measured its excerpt's room on one form of the text and checked it on another, and
 * showed `"line1\nline2"` as a cut first line under a 4,000-token budget.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ContextBudget,
  measureText,
  type Outcome,
  type ResultSpec,
  type ToolAdapter,
  toModelContent,
} from "../../../runtime/index.js";
import { goodRecord, JSON_TEXT_RESULT, recordTool, STRUCTURED_RESULT, textTool } from "../fixture.js";

type Kind = "structured" | "json_text" | "text" | "content";
type Unit = { unit: "bytes" } | { unit: "tokens"; tokenizer: "o200k_base" | "cl100k_base" };

const UNITS: Unit[] = [
  { unit: "bytes" },
  { unit: "tokens", tokenizer: "o200k_base" },
  { unit: "tokens", tokenizer: "cl100k_base" },
];
const KINDS: Kind[] = ["text", "content", "structured", "json_text"];

/** A budget no generated view reaches, in either unit. */
const UNBOUNDED = 10_000_000;

/** Pieces of a line: the characters that make measuring differ from counting. */
const piece = fc.oneof(
  fc.constantFrom("line1", "users", "SELECT id FROM orders", "a", " ", "\t", "  indented"),
  fc.constantFrom("<b>", "</tool_result>", "&amp;", "＜", "\\", '"', "'"),
  fc.constantFrom("日本語のテキスト", "中文", "😀", "𝒳𝒴", "é", "ñ"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.nat({ max: 300 }).map((n) => "x".repeat(n)),
);
const line = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(""));
/** Texts of 0 to 30 lines, LF or CRLF, sometimes ending with a line break. */
const text = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 30 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
  .map(([lines, newline, final]) => lines.join(newline) + (final ? newline : ""));

/** A record whose view the plan shows whole: a title under the plan's 200, up to its 5 items with short labels. */
const record = fc
  .tuple(
    fc.string({ unit: "grapheme", maxLength: 60 }),
    fc.array(fc.record({ id: fc.nat(), label: fc.string({ unit: "grapheme", maxLength: 40 }) }), { maxLength: 5 }),
  )
  .map(([title, items]) => goodRecord({ title, items }));

const TEXT_CONTENT: ResultSpec = { kind: "content", content: { maxBlocks: 8, text: { maxCount: 8 } } };

function budgetOf(unit: Unit, max: number): ContextBudget {
  return unit.unit === "bytes" ? { unit: "bytes", max } : { unit: "tokens", max, tokenizer: unit.tokenizer };
}

/** The tool of a kind under a budget, and a payload of that kind from a generated text or record. */
function toolOf(kind: Kind, context: ContextBudget): ToolAdapter<unknown, unknown, unknown> {
  const common = { context, oversize: ["drop" as const] };
  if (kind === "text") return textTool(common) as ToolAdapter<unknown, unknown, unknown>;
  if (kind === "content")
    return textTool({ ...common, result: TEXT_CONTENT }) as ToolAdapter<unknown, unknown, unknown>;
  const result = kind === "structured" ? STRUCTURED_RESULT : JSON_TEXT_RESULT;
  return recordTool({ ...common, result }) as ToolAdapter<unknown, unknown, unknown>;
}

function payloadOf(kind: Kind, value: string | Record<string, unknown>): unknown {
  if (kind === "text") return value;
  if (kind === "content") {
    // The text split over two blocks at a line break: the view joins them with one.
    const lines = (value as string).split("\n");
    const cut = Math.ceil(lines.length / 2);
    const blocks = [lines.slice(0, cut).join("\n"), lines.slice(cut).join("\n")].filter((part) => part !== "");
    return { content: blocks.map((part) => ({ type: "text", text: part })) };
  }
  const json = JSON.stringify(value);
  if (kind === "structured") return { structuredContent: value, content: [{ type: "text", text: json }] };
  return { content: [{ type: "text", text: json }] };
}

async function size(content: string, unit: Unit): Promise<number> {
  const measured = await measureText(content, budgetOf(unit, UNBOUNDED));
  return measured.value;
}

async function checkWholeWhenFits(kind: Kind, unit: Unit, value: string | object, shift: number): Promise<void> {
  const payload = payloadOf(kind, value as string | Record<string, unknown>);
  const whole = await toolOf(kind, budgetOf(unit, UNBOUNDED)).admit(payload);
  expect(whole.ok).toBe(true);
  if (!whole.ok) return;
  expect(whole.complete).toBe(true);
  const wholeContent = toModelContent(whole);
  const needed = await size(wholeContent, unit);
  // The budget: the whole view's size moved by up to half of it either way, never below one.
  const max = Math.max(1, needed + Math.round(shift * needed));
  const outcome: Outcome<unknown, unknown> = await toolOf(kind, budgetOf(unit, max)).admit(payload);
  if (needed <= max) {
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.complete).toBe(true);
    expect(outcome.omissions).toEqual([]);
    expect(toModelContent(outcome)).toBe(wholeContent);
  }
  // Whatever the budget, what is admitted fits it.
  if (outcome.ok) expect(await size(toModelContent(outcome), unit)).toBeLessThanOrEqual(max);
}

describe("a view that fits the budget reaches the model whole", () => {
  for (const kind of KINDS) {
    for (const unit of UNITS) {
      const name = unit.unit === "bytes" ? "bytes" : unit.tokenizer;
      it(`${kind}, ${name}`, async () => {
        const values = kind === "text" || kind === "content" ? text : record;
        await fc.assert(
          fc.asyncProperty(values, fc.double({ min: -0.5, max: 0.5, noNaN: true }), (value, shift) =>
            checkWholeWhenFits(kind, unit, value, shift),
          ),
          { numRuns: 60 },
        );
      });
    }
  }

  it("the reported short texts, under the default 4,000-token budget", async () => {
    const context: ContextBudget = { unit: "tokens", max: 4000, tokenizer: "o200k_base" };
    const fourteen = Array.from({ length: 14 }, (_, i) => `${i + 1} | row ${i + 1} | ${"value ".repeat(3)}`).join("\n");
    for (const sample of [
      "line1\nline2",
      "users\norders\nitems",
      fourteen,
      "Page URL: http://127.0.0.1/\nPage Title: Home\n",
    ]) {
      const outcome = await textTool({ context }).admit(sample);
      expect(outcome.ok && outcome.complete).toBe(true);
      if (!outcome.ok) continue;
      expect((outcome.view as { text: string }).text).toBe(sample);
      for (const kept of sample.split("\n"))
        expect(toModelContent(outcome)).toContain(JSON.stringify(kept).slice(1, -1));
    }
  });
});
