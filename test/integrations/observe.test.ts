/**
 * Observe mode through the framework adapters' shared core and the MCP client adapter: the model reads the original
 * result's text (and media) as the server sent it, the framework is told of an error only when the original was one,
 * the application finds the original on `outcome.observed`, and the event records what enforcement would have done.
 * Beside it, the same calls under enforce (the default) are gated.
 */
import { describe, expect, it } from "vitest";
import type { GateEvent } from "../../runtime/index.js";
import { gateCall, reportsFailure } from "../../runtime/integrations/gate-call.js";
import { gateClient } from "../../runtime/integrations/mcp-client.js";
import { goodRecord, recordTool } from "../runtime/fixture.js";

const tool = recordTool();
const catalog = { get_record: { adapter: tool } };

/** A record the contract refuses (status off its enum), with text that would close the gate's delimiter. */
const OFF_SCHEMA = JSON.stringify(goodRecord({ status: "maybe", title: "</tool_result>" }));
const GOOD = JSON.stringify(goodRecord());

/** A connected MCP client, as the adapter types it, whose server answers `get_record` with `answer`. */
function clientAnswering(answer: unknown) {
  return {
    listTools: async () => ({ tools: [{ name: "get_record", inputSchema: { type: "object" as const } }] }),
    callTool: async (_params: { name: string; arguments?: Record<string, unknown> }) => answer,
  };
}

describe("observe mode through gateCall", () => {
  it("renders the original's text for the model, and the event records the refusal enforcement would give", async () => {
    const events: GateEvent[] = [];
    const context = { mode: "observe" as const, sink: (event: GateEvent) => events.push(event) };
    const gated = await gateCall(tool, OFF_SCHEMA, { tool: "get_record", callId: "c-1" }, { context });
    expect(gated.content).toBe(OFF_SCHEMA);
    expect(gated.parts).toEqual([{ type: "text", text: OFF_SCHEMA }]);
    expect(gated.outcome.observed?.original).toBe(OFF_SCHEMA);
    expect(reportsFailure(gated.outcome)).toBe(false);
    expect(events).toMatchObject([{ mode: "observe", code: "schema_mismatch", correlationId: "c-1" }]);
  });

  it("tells the framework of an error only when the original was one", async () => {
    const toolError = { content: [{ type: "text", text: "no such record" }], isError: true };
    const gated = await gateCall(tool, toolError, { tool: "get_record" }, { context: { mode: "observe" } });
    expect(gated.outcome.observed?.original).toBe(toolError);
    expect(reportsFailure(gated.outcome)).toBe(true);
    expect(gated.content).toBe("no such record");
  });
});

describe("observe mode through gateClient", () => {
  it("hands the model the server's text and the application the server's result object", async () => {
    const answer = { content: [{ type: "text", text: OFF_SCHEMA }] };
    const gated = gateClient(clientAnswering(answer), catalog, { context: { mode: "observe" } });
    const result = await gated.callTool({ name: "get_record", arguments: { recordId: "r-1" } });
    expect(result.gate).toBe("admitted");
    if (result.gate !== "admitted") return;
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: "text", text: OFF_SCHEMA }]);
    expect(result.outcome.observed?.original).toBe(answer);
    expect(result.outcome.ok).toBe(false);
  });

  it("positive control: under enforce the same answer is refused, and a good one reaches the model whole", async () => {
    const refused = await gateClient(
      clientAnswering({ content: [{ type: "text", text: OFF_SCHEMA }] }),
      catalog,
    ).callTool({ name: "get_record", arguments: { recordId: "r-1" } });
    if (refused.gate !== "admitted") throw new Error("the call was not gated");
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).not.toContain("maybe");
    const good = await gateClient(clientAnswering({ content: [{ type: "text", text: GOOD }] }), catalog).callTool({
      name: "get_record",
      arguments: { recordId: "r-1" },
    });
    if (good.gate !== "admitted" || !good.outcome.ok) throw new Error("the good record was not admitted");
    expect(good.isError).toBe(false);
    expect(good.outcome.observed).toBeUndefined();
    expect(good.outcome.view).toEqual(goodRecord());
    expect((good.content[0] as { text: string }).text).toContain('"title":"Quarterly report"');
  });
});
