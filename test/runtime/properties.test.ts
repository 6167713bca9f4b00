/**
 * Properties over generated payloads: admit always resolves to exactly one outcome, a failure never carries the
 * payload, and whatever a valid result holds, the delimiter closes only once.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../runtime/contract/types.js";
import { type GateEvent, toModelContent } from "../../runtime/index.js";
import { modelContentPieces } from "../../runtime/stages/model-content.js";
import { compile, goodRecord, outputSchema, type RecordResult, recordTool } from "./fixture.js";

const MARKER = "PLANTEDMARKER";
/**
 * JSON values without integers past 2^53 − 1, as digits or with an exponent (`1e+21`), which the gate refuses by
 * design (tested elsewhere).
 */
const safeJson = fc
  .jsonValue({ maxDepth: 4 })
  .filter((value) => !/(^|[^\d.eE])-?\d{16,}(?![\d.eE])|\de\+/.test(JSON.stringify(value)));

const open = compile<RecordResult>({ ...outputSchema, additionalProperties: true });

describe("admit, for any payload", () => {
  it("resolves to one outcome, and a failure shows neither the model nor the events any payload text", async () => {
    const tool = recordTool({ limits: { maxBytes: 2048, maxDepth: 6 } });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: "binary" }).map((text) => `${text}${MARKER}`),
          fc
            .uint8Array({ maxLength: 300 })
            .map((bytes) => new Uint8Array([...bytes, ...new TextEncoder().encode(MARKER)])),
          fc.jsonValue({ maxDepth: 8 }).map((value) => JSON.stringify({ value, [MARKER]: MARKER })),
        ),
        async (raw) => {
          const events: GateEvent[] = [];
          const outcome = await tool.admit(raw, { sink: (event) => events.push(event) });
          expect(events).toHaveLength(1);
          expect(typeof outcome.ok).toBe("boolean");
          if (!outcome.ok) {
            expect(toModelContent(outcome)).not.toContain(MARKER);
            expect(JSON.stringify(events)).not.toContain(MARKER);
            expect(JSON.stringify(outcome.diagnostics)).not.toContain(MARKER);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a valid result's content closes its delimiter exactly once and round-trips the view", async () => {
    const tool = recordTool({ validateResult: open, context: { unit: "bytes", max: 100_000 } });
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 150 }), safeJson, async (title, extra) => {
        const outcome = await tool.admit(JSON.stringify(goodRecord({ title, extra })));
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const content = toModelContent(outcome);
        expect(content.match(/<\/tool_result>/g)).toHaveLength(1);
        expect(content.match(/<tool_result /g)).toHaveLength(1);
        expect(JSON.parse(content.split("\n")[1] as string)).toEqual(outcome.view);
        expect(outcome.data.title).toBe(title);
      }),
      { numRuns: 300 },
    );
  });

  it("a byte budget's contextUsed is the UTF-8 length of the content, counted piece by piece", async () => {
    const tool = recordTool({ validateResult: open, context: { unit: "bytes", max: 100_000 } });
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 150 }), safeJson, async (title, extra) => {
        const outcome = await tool.admit(JSON.stringify(goodRecord({ title, extra })));
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const content = toModelContent(outcome);
        expect(outcome.contextUsed.value).toBe(new TextEncoder().encode(content).byteLength);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the model content's pieces", () => {
  /** Text that may hold anything: lone surrogates, pairs, markup and its lookalikes, line separators. */
  const anyText = fc.string({ unit: "binary", maxLength: 40 });

  /** Successes and failures with every part the content can have, each optional, made of any text. */
  const outcomes = fc
    .record({
      tool: anyText,
      ok: fc.boolean(),
      view: fc.jsonValue({ maxDepth: 3 }),
      complete: fc.boolean(),
      summary: fc.option(anyText, { nil: undefined }),
      omissions: fc.array(fc.record({ path: anyText, kind: fc.constant("excerpt"), count: fc.nat() }), {
        maxLength: 3,
      }),
      continuation: fc.option(anyText, { nil: undefined }),
      spill: fc.option(
        fc.record({ handle: anyText, bytes: fc.nat(), readTool: fc.option(anyText, { nil: undefined }) }),
        {
          nil: undefined,
        },
      ),
      media: fc.array(fc.record({ type: fc.constantFrom("image", "audio"), mimeType: anyText, bytes: fc.nat() }), {
        maxLength: 2,
      }),
      modelMessage: fc.option(anyText, { nil: undefined }),
      observed: fc.option(anyText, { nil: undefined }),
    })
    .map((parts) => {
      const provenance = { tool: parts.tool, rawSha256: "0".repeat(64) };
      const observed = parts.observed === undefined ? {} : { observed: { text: parts.observed } };
      if (!parts.ok) {
        return {
          ok: false,
          error: { code: "tool_error", retryable: false },
          diagnostics: {},
          modelMessage: parts.modelMessage,
          provenance,
          ...observed,
        } as unknown as Outcome<unknown, unknown>;
      }
      return {
        ok: true,
        view: parts.view,
        complete: parts.complete,
        summary: parts.summary,
        omissions: parts.omissions,
        continuation: parts.continuation,
        spill: parts.spill,
        parts: parts.media.map((media) => ({ ...media, data: "" })),
        provenance,
        ...observed,
      } as unknown as Outcome<unknown, unknown>;
    });

  it("make the content, and no surrogate pair straddles two of them, so their UTF-8 lengths add up", () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(outcomes, (outcome) => {
        const pieces = modelContentPieces(outcome);
        const content = toModelContent(outcome);
        expect(pieces.join("")).toBe(content);
        const bytes = pieces.reduce((sum, piece) => sum + encoder.encode(piece).byteLength, 0);
        expect(bytes).toBe(encoder.encode(content).byteLength);
        if (pieces.length > 1) {
          for (const piece of pieces) {
            expect(piece.charCodeAt(0)).toBeLessThan(0x80);
            expect(piece.charCodeAt(piece.length - 1)).toBeLessThan(0x80);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});
