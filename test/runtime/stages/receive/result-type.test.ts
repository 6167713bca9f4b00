/**
 * Only a complete result is the tool's answer (MCP 2026-07-28 `resultType`): a request for input or a task handed
 * to the gate is refused by name, never read as an empty answer, and its text reaches neither the model nor the
 * event; a result marked `complete`, and one of the 2025 shape without the mark, are the tool's answer, whole.
 */
import { describe, expect, it } from "vitest";
import { toModelContent } from "../../../../runtime/index.js";
import { admitCollecting, textTool } from "../../fixture.js";

/** Planted in what the server sent: it must reach neither the model nor an event. */
const MARKER = "RESULTTYPEMARKER51c2";

const INCOMPLETE: ReadonlyArray<[string, { given: object; want: string }]> = [
  [
    "a request for input (2026-07-28)",
    {
      given: {
        resultType: "input_required",
        inputRequests: { confirm: { method: "elicitation/create", params: { message: MARKER } } },
        requestState: MARKER,
      },
      want: "input_required",
    },
  ],
  [
    "a task (2026-07-28)",
    { given: { resultType: "task", taskId: MARKER, status: "working", statusMessage: MARKER }, want: "task" },
  ],
  [
    "a task of a task-augmented call (2025-11-25)",
    { given: { task: { taskId: MARKER, status: "working", statusMessage: MARKER } }, want: "task" },
  ],
  [
    "a request for input that also carries content",
    {
      given: { resultType: "input_required", requestState: "s", content: [{ type: "text", text: MARKER }] },
      want: "input_required",
    },
  ],
  [
    "a result type nobody defined yet",
    { given: { resultType: `later-${MARKER}`, content: [{ type: "text", text: MARKER }] }, want: "other" },
  ],
];

describe("a result that is not the tool's complete answer", () => {
  it.each(INCOMPLETE)("%s is refused as not_complete, named, with nothing of its text passed on", async (_, c) => {
    const { outcome, events } = await admitCollecting(textTool(), c.given);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("transport_error");
    expect(outcome.diagnostics.detail).toMatchObject({ reason: "not_complete", resultType: c.want });
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(MARKER);
    expect(toModelContent(outcome)).not.toContain(MARKER);
  });
});

describe("a complete result (positive control)", () => {
  const text = "line one\nline two";
  it.each([
    ["marked complete (2026-07-28)", { resultType: "complete", content: [{ type: "text", text }] }],
    ["of the 2025 shape, unmarked", { content: [{ type: "text", text }] }],
  ])("%s is the tool's answer, whole", async (_, raw) => {
    const { outcome, events } = await admitCollecting(textTool(), raw);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.data).toBe(text);
    expect(toModelContent(outcome)).toContain("line two");
    expect(events.map((event) => event.code)).toEqual(["ok"]);
  });
});
