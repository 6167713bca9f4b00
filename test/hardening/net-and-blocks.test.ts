/**
 * Decisions of the gate that a faster path must never change:
 * - the outermost net of `admit` ends in one typed outcome whatever was thrown, also a value that cannot be asked
 *   for its prototype (a revoked proxy, a proxy whose `getPrototypeOf` trap throws), and no text of the thrower's
 *   reaches the caller; a `turn` that is no `Turn` never makes it reject either;
 * - a problem with an MCP result's content blocks decides before its structured content is read, so a
 *   `structuredContent` getter (or a proxy trap) that throws does not turn a block refusal into a retryable
 *   `transport_error`;
 * - no text part with a lone surrogate is ever admitted beside structured content, whether or not it repeats the
 *   structured content's JSON.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../runtime/index.js";
import { isWellFormedText } from "../../runtime/text/hygiene.js";
import { admitCollecting, expectNoLeak, goodRecord, recordTool, STRUCTURED_RESULT } from "../runtime/fixture.js";

const MARKER = "HOSTILEr7k";
const good = JSON.stringify(goodRecord());

/** A proxy that throws on any question about its prototype, as `instanceof` asks. */
function unaskable(): object {
  return new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error(`${MARKER} thrown by a trap`);
      },
    },
  );
}

/** A revoked proxy: every operation on it throws. */
function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function reasonOf(outcome: Outcome<unknown, unknown>): [string, unknown] {
  return outcome.ok ? ["ok", undefined] : [outcome.error.code, outcome.diagnostics.detail?.reason];
}

describe("the outermost net, whatever is thrown", () => {
  it.each([
    ["a revoked proxy", revoked],
    ["a proxy whose getPrototypeOf trap throws", unaskable],
  ])("a view builder throwing %s ends in one transport_error and never rejects", async (_, thrown) => {
    const tool = recordTool({
      buildView: () => {
        throw thrown();
      },
    });
    const { outcome, events } = await admitCollecting(tool, good);
    expect(reasonOf(outcome)).toEqual(["transport_error", "unexpected_throw"]);
    expect(events).toHaveLength(1);
    expectNoLeak(outcome, events, MARKER);
  });

  it("a context getter throwing a revoked proxy is the same", async () => {
    const ctx = Object.defineProperty({}, "hooks", {
      get() {
        throw revoked();
      },
      enumerable: true,
    });
    const outcome = await recordTool().admit(good, ctx);
    expect(reasonOf(outcome)).toEqual(["transport_error", "unexpected_throw"]);
  });

  it("a turn that is no Turn leaves the call its own outcome", async () => {
    await expect(recordTool().admit(good, { turn: {} } as never)).resolves.toMatchObject({ ok: true });
    await expect(recordTool().admit(good, { turn: { record: 1 } } as never)).resolves.toMatchObject({ ok: true });
    const outcome = await recordTool().admit(good, { turn: revoked() } as never);
    expect(reasonOf(outcome)).toEqual(["transport_error", "unexpected_throw"]);
  });
});

describe("an MCP result's blocks decide before its structured content is read", () => {
  const tool = recordTool({ result: STRUCTURED_RESULT });
  /** An MCP result whose `structuredContent` getter throws the marker. */
  const throwingStructured = (content: unknown[]) =>
    Object.defineProperty({ content }, "structuredContent", {
      get() {
        throw new Error(`${MARKER} thrown by a getter`);
      },
      enumerable: true,
    });

  it.each([
    ["a text block with a lone surrogate", [{ type: "text", text: "\ud800" }], ["invalid_encoding", "lone_surrogate"]],
    [
      "more blocks than the contract allows",
      Array.from({ length: 17 }, () => ({ type: "text", text: "x" })),
      ["schema_mismatch", "too_many_blocks"],
    ],
    [
      "a kind the contract does not expect",
      [{ type: "image", data: "", mimeType: "image/png" }],
      ["schema_mismatch", "unexpected_block"],
    ],
  ])("%s is refused for the block, not as a hostile value", async (_, content, expected) => {
    const { outcome, events } = await admitCollecting(tool, throwingStructured(content));
    expect(reasonOf(outcome)).toEqual(expected);
    expect(!outcome.ok && outcome.error.retryable).toBe(false);
    expectNoLeak(outcome, events, MARKER);
  });

  it("with good blocks, the throwing getter is a hostile value", async () => {
    const { outcome } = await admitCollecting(tool, throwingStructured([{ type: "text", text: good }]));
    expect(reasonOf(outcome)).toEqual(["transport_error", "hostile_raw"]);
  });
});

describe("text blocks beside structured content", () => {
  const tool = recordTool({ result: STRUCTURED_RESULT });
  const unit = fc.constantFrom("a", "é", "東", '"', "\\", "\ud83d\ude80", "\ud800", "\udc00", "\ud83d", "\ude80");
  const title = fc.array(unit, { maxLength: 12 }).map((units) => units.join(""));

  it("never admit a text part with a lone surrogate, whether or not it repeats the structured JSON", async () => {
    await fc.assert(
      fc.asyncProperty(title, title, fc.constantFrom("json", "raw", "json+raw"), async (inStructure, inText, form) => {
        const structured = goodRecord({ title: inStructure });
        const json = JSON.stringify(structured);
        const text = form === "json" ? json : form === "raw" ? inText : `${json}${inText}`;
        const blocks = [{ type: "text", text }];
        const { outcome } = await admitCollecting(tool, { content: blocks, structuredContent: structured });
        if (!isWellFormedText(text) || !isWellFormedText(inStructure)) {
          expect(reasonOf(outcome)).toEqual(["invalid_encoding", "lone_surrogate"]);
        } else {
          expect(outcome.ok).toBe(true);
          for (const part of (outcome.ok && outcome.parts) || []) {
            if (part.type === "text") expect(isWellFormedText(part.text)).toBe(true);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
