/**
 * Properties over generated payloads: admit always resolves to exactly one outcome, a failure never carries the
 * payload, and whatever a valid result holds, the delimiter closes only once.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type GateEvent, toModelContent } from "../../runtime/index.js";
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
});
