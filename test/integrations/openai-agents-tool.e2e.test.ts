/**
 * OpenAI Agents JS function tools end to end: `list_orders` as an in-process tool (its `execute` returns the
 * fixture's value, or throws its error), built by `gateTools` with the SDK's own `tool()`, in the SDK's own agent
 * loop (`run`) driven by the scripted model. Each of the four answers is checked in the prompt that follows the call,
 * the spilled one read back by the handle the model read.
 */
import { Agent, run, setTracingDisabled } from "@openai/agents";
import { beforeAll, describe, expect, it } from "vitest";
import { type GateEvent, type Outcome, Turn } from "../../runtime/index.js";
import { type GatedToolOptions, gateTools, UngatedToolError } from "../../runtime/openai-agents.js";
import {
  advertisedTool,
  ERROR_MARKER,
  expectModelSaw,
  type Orders,
  type OrdersSetup,
  ordersSetup,
  ordersValue,
  PLANTED_MARKER,
  PRIVATE_MARKER,
  spillHandle,
  TOOL,
  VARIANTS,
  type Variant,
} from "./fixture.js";
import { ordersModel, READ_TOOL, toolOutputs } from "./openai-agents-model.js";

let setup: OrdersSetup;
let ordersTool: GatedToolOptions;

beforeAll(async () => {
  setTracingDisabled(true);
  setup = await ordersSetup("openai-agents-tool");
  const { description, inputSchema } = await advertisedTool();
  ordersTool = {
    name: TOOL,
    description,
    parameters: inputSchema,
    strict: false,
    execute: async ({ customer, variant }: { customer: string; variant: Variant }) => {
      if (variant === "error") throw new Error(String(ordersValue(customer, "error")));
      return ordersValue(customer, variant);
    },
  };
}, 120_000);

/** One run of an agent with the gated `list_orders` tool, and what it recorded. */
async function runOrders(variant: Variant) {
  const turn = new Turn();
  const events: GateEvent[] = [];
  const outcomes: Outcome<unknown, unknown>[] = [];
  const tools = gateTools([ordersTool], setup.catalog, {
    readBack: setup.reader,
    context: { turn, sink: (event) => events.push(event) },
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  const model = ordersModel(variant);
  const agent = new Agent({ name: "orders", instructions: "Answer about orders.", model, tools });
  const result = await run(agent, "List acme's orders.");
  return { finalOutput: result.finalOutput, requests: model.requests, turn, events, outcomes };
}

describe("gateTools in an OpenAI Agents run", () => {
  for (const variant of VARIANTS) {
    it(`sends the model only the gated content of the tool's value (${variant}), one outcome per call`, async () => {
      const { finalOutput, requests, turn, events, outcomes } = await runOrders(variant);
      expect(finalOutput).toBe("done");
      expect(requests[0]?.tools.sort()).toEqual([TOOL, READ_TOOL].sort());
      const seen = toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "";
      // The in-process tool throws for `error`: the tool's error, its message never shown.
      expectModelSaw(seen, variant);
      for (const request of requests) {
        const prompt = JSON.stringify(request.input);
        for (const marker of [PRIVATE_MARKER, PLANTED_MARKER, ERROR_MARKER]) expect(prompt).not.toContain(marker);
      }
      expect(turn.report().contributions).toHaveLength(1);
      expect(events.map((event) => event.correlationId)).toEqual(["call_1"]);
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([variant === "ok" || variant === "large"]);
      expect(requests).toHaveLength(variant === "large" ? 3 : 2);
    });
  }

  it("gives the application the whole validated value", async () => {
    const { outcomes } = await runOrders("ok");
    const outcome = outcomes[0];
    if (outcome?.ok !== true) throw new Error("expected a success");
    expect((outcome.data as Orders).internalNotes).toContain(PRIVATE_MARKER);
  });

  it("reads a spilled value back by the handle the model saw, and the page reaches its next prompt", async () => {
    const { requests } = await runOrders("large");
    const handle = spillHandle(toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "");
    const call = requests[2]?.input.find((item) => item.type === "function_call" && item.name === READ_TOOL);
    expect(call).toMatchObject({ arguments: JSON.stringify({ handle, pointer: "/orders" }) });
    const page = toolOutputs(requests[2]?.input ?? []).find((output) => output.name === READ_TOOL)?.text ?? "";
    expect(page).toContain(`<tool_result tool="${READ_TOOL}"`);
    expect(page).toContain("ord_0011");
  });

  it("refuses a tool the catalog has no contract for, and leaves it out or builds it as it is when told", () => {
    const other = { ...ordersTool, name: "send_email" };
    expect(() => gateTools([ordersTool, other], setup.catalog)).toThrowError(UngatedToolError);
    expect(gateTools([ordersTool, other], setup.catalog, { ungated: "hide" }).map((t) => t.name)).toEqual([TOOL]);
    expect(gateTools([ordersTool, other], setup.catalog, { ungated: "pass" }).map((t) => t.name)).toEqual([
      TOOL,
      "send_email",
    ]);
  });
});
