/**
 * Mastra end to end: a real `Agent` whose model is the AI SDK's `MockLanguageModelV4`, scripted per step and
 * recording every prompt it is sent, calls the fixture's `list_orders` as an in-process `createTool` (and as the
 * tool Mastra's MCP client makes of a server's tool) gated with `gateTools`. For each of the four answers, the next
 * prompt holds only the gated content; the model reads a spill handle from its prompt and pages through it with
 * `read_tool_result`, which it was offered; every call is one outcome in the turn and one event; and the
 * application gets the outcome, with `data`, from the agent's result.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
} from "@ai-sdk/provider";
import { Agent } from "@mastra/core/agent";
import { RequestContext } from "@mastra/core/request-context";
import { createTool } from "@mastra/core/tools";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { GateEvent, Outcome } from "../../runtime/index.js";
import { UngatedToolError } from "../../runtime/integrations/gate-call.js";
import {
  gateTool,
  gateTools,
  type MastraGateOptions,
  mastraModelOutput,
  outcomeOf,
  readBackTool,
} from "../../runtime/integrations/mastra.js";
import { Turn } from "../../runtime/record/turn.js";
import {
  ERROR_MARKER,
  type ErrorSource,
  expectModelSaw,
  keptOutMarkers,
  type OrdersSetup,
  ordersCallResult,
  ordersSetup,
  ordersValue,
  PRIVATE_MARKER,
  spillHandle,
  TOOL,
  VARIANTS,
  type Variant,
} from "./fixture.js";

let setup: OrdersSetup;
beforeAll(async () => {
  setup = await ordersSetup("mastra");
});

const ordersInput = z.object({ customer: z.string(), variant: z.enum(["ok", "invalid", "error", "large"]).optional() });

/** The fixture's answer for `variant`, as an in-process tool gives it: its value, or a throw for `error`. */
async function ordersAnswer({ customer, variant }: z.infer<typeof ordersInput>): Promise<unknown> {
  if (variant === "error") throw new Error(String(ordersValue(customer, "error")));
  return ordersValue(customer, variant ?? "ok");
}

/** The fixture's tool as an app writes it for Mastra. */
function ordersTool() {
  return createTool({ id: TOOL, description: "A customer's orders.", inputSchema: ordersInput, execute: ordersAnswer });
}

/**
 * The tool Mastra's MCP client makes of the server's `list_orders` (named `<server>_<tool>`, marked with the
 * server's name): its `execute` resolves to the server's `CallToolResult`, an error answer included.
 */
function mcpOrdersTool() {
  return createTool({
    id: `orders_${TOOL}`,
    description: "A customer's orders.",
    inputSchema: ordersInput,
    mcpMetadata: { serverName: "orders" },
    execute: async ({ customer, variant }) => ordersCallResult(customer, variant ?? "ok"),
  });
}

/** One tool call the scripted model makes. */
interface Call {
  tool: string;
  input: unknown;
}

/** One step of the scripted model, from the prompt it read: its tool calls, or its final text. */
type Step = (prompt: LanguageModelV4Prompt) => Call | Call[] | string;

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** What the mock answers step `step` with: its tool calls (`call-<step>`, `call-<step>-<i>` after the first), or text. */
function contentOf(reply: ReturnType<Step>, step: number): LanguageModelV4Content[] {
  if (typeof reply === "string") return [{ type: "text", text: reply }];
  return [reply].flat().map((call, i) => ({
    type: "tool-call",
    toolCallId: i === 0 ? `call-${step}` : `call-${step}-${i}`,
    toolName: call.tool,
    input: JSON.stringify(call.input),
  }));
}

/** The model option of an `Agent`. */
type AgentModel = ConstructorParameters<typeof Agent>[0]["model"];

/** A step's answer as the stream `agent.stream` reads: the same content, part by part. */
function streamOf(content: LanguageModelV4Content[], finish: LanguageModelV4StreamPart): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  for (const [i, part] of content.entries()) {
    if (part.type === "text") {
      parts.push({ type: "text-start", id: `text-${i}` }, { type: "text-delta", id: `text-${i}`, delta: part.text });
      parts.push({ type: "text-end", id: `text-${i}` });
    } else if (part.type === "tool-call") parts.push(part);
  }
  return [...parts, finish];
}

/**
 * The scripted model: the AI SDK's mock, answering its `n`th call (`agent.generate` or `agent.stream`) with
 * `steps[n]`, and the calls it was sent.
 */
function scriptedModel(steps: Step[]): { model: AgentModel; calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  const answer = (options: LanguageModelV4CallOptions) => {
    calls.push(options);
    const next = steps[calls.length - 1];
    if (next === undefined) throw new Error(`the model was called ${calls.length} times, more than scripted`);
    const content = contentOf(next(options.prompt), calls.length);
    const unified = content[0]?.type === "tool-call" ? "tool-calls" : "stop";
    return { content, finishReason: { unified, raw: unified } as const, usage: USAGE, warnings: [] };
  };
  const mock = new MockLanguageModelV4({
    doGenerate: async (options) => answer(options),
    doStream: async (options) => {
      const { content, finishReason, usage } = answer(options);
      return { stream: convertArrayToReadableStream(streamOf(content, { type: "finish", finishReason, usage })) };
    },
  });
  // Mastra's own copy of the V4 model types predates the finish reason "interrupted" this @ai-sdk/provider has;
  // the model is the same at run time.
  return { model: mock as unknown as AgentModel, calls };
}

/** The text of a tool result as the model reads it. */
function outputText(output: LanguageModelV4ToolResultOutput): string {
  if (output.type === "text" || output.type === "error-text") return output.value;
  if (output.type === "content") return output.value.map((part) => (part.type === "text" ? part.text : "")).join("");
  return JSON.stringify(output);
}

/** What the prompt holds as the result of call `callId`, or undefined. */
function resultInPrompt(prompt: LanguageModelV4Prompt | undefined, callId: string): string | undefined {
  for (const message of prompt ?? []) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolCallId === callId) return outputText(part.output);
    }
  }
  return undefined;
}

/** Asserts that no prompt the model was sent holds any of the raw answers' markers (but an MCP error's words). */
function expectNoMarkers(calls: LanguageModelV4CallOptions[], errors: ErrorSource = "throw"): void {
  const everything = JSON.stringify(calls.map((call) => call.prompt));
  for (const marker of keptOutMarkers(errors)) expect(everything).not.toContain(marker);
}

/** An agent over `tools` gated with a turn and an event sink, and a scripted model. */
function ordersAgent(steps: Step[], tools: Record<string, ReturnType<typeof createTool>> = { [TOOL]: ordersTool() }) {
  const turn = new Turn();
  const events: GateEvent[] = [];
  const told: unknown[] = [];
  const gated = gateTools(tools, setup.catalog, {
    context: { turn, sink: (event) => events.push(event) },
    readBack: setup.reader,
    onOutcome: (outcome) => void told.push(outcome),
  });
  const { model, calls } = scriptedModel(steps);
  const agent = new Agent({ id: "orders", name: "orders", instructions: "Answer about orders.", model, tools: gated });
  return { agent, calls, turn, events, told };
}

/** The outcome the application reads of a tool call, from the agent's result. */
interface SeenOutcome {
  ok: boolean;
  data?: { orders: unknown[]; internalNotes?: string };
  error?: { code: string };
  provenance: { correlationId?: string };
}

const FAILURE_CODE = { invalid: "schema_mismatch", error: "tool_error" } as const;

for (const [source, tool, name, errors] of [
  ["an in-process createTool", ordersTool, TOOL, "throw"],
  ["an MCP client's tool", mcpOrdersTool, `orders_${TOOL}`, "mcp"],
] as const) {
  describe(`a Mastra agent with ${source}, gated`, () => {
    for (const variant of VARIANTS) {
      it(`puts only the gated content of the ${variant} answer in the next prompt, and the outcome in the result`, async () => {
        const { agent, calls, turn, events, told } = ordersAgent(
          [() => ({ tool: name, input: { customer: "acme", variant } }), () => "done"],
          { [name]: tool() },
        );
        const result = await agent.generate("List acme's orders.", { maxSteps: 4 });
        expect(result.text).toBe("done");
        expect(calls).toHaveLength(2);

        const seen = resultInPrompt(calls[1]?.prompt, "call-1");
        if (seen === undefined) throw new Error("the tool's result is not in the next prompt");
        expectModelSaw(seen, variant, errors);
        expectNoMarkers(calls, errors);

        // One outcome for the one call: in the turn, and as one event.
        expect(turn.report().contributions.map((c) => [c.tool, c.correlationId])).toEqual([[TOOL, "call-1"]]);
        expect(events.map((e) => [e.tool, e.correlationId, e.turn])).toEqual([[TOOL, "call-1", turn.id]]);
        expect(events[0]?.code).toBe(variant === "ok" || variant === "large" ? "ok" : FAILURE_CODE[variant]);

        // Where Mastra keeps (and sends on) tool results is what the model read, nothing more; the application reads
        // the outcome, `data` included, from `onOutcome`.
        const kept = JSON.stringify([result.toolResults, result.steps]);
        for (const marker of keptOutMarkers(errors)) expect(kept).not.toContain(marker);
        expect(result.toolResults[0]?.payload.result).toEqual({ type: "text", value: seen });
        const outcome = told[0] as SeenOutcome;
        expect(outcome.provenance.correlationId).toBe("call-1");
        if (variant === "ok") expect(outcome.data).toEqual(ordersValue("acme", "ok"));
        else if (variant === "large") expect(outcome.data?.orders).toHaveLength(12);
        else expect(outcome.error?.code).toBe(FAILURE_CODE[variant]);
      });
    }
  });
}

describe("the same agent without the gate", () => {
  it("puts the private field and a thrown message before the model: what the checks above keep out", async () => {
    const { model, calls } = scriptedModel([
      () => [
        { tool: TOOL, input: { customer: "acme", variant: "ok" } },
        { tool: TOOL, input: { customer: "acme", variant: "error" } },
      ],
      () => "done",
    ]);
    const agent = new Agent({ id: "raw", name: "raw", instructions: "", model, tools: { [TOOL]: ordersTool() } });
    await agent.generate("List acme's orders.", { maxSteps: 3 });
    expect(resultInPrompt(calls[1]?.prompt, "call-1")).toContain(PRIVATE_MARKER);
    expect(resultInPrompt(calls[1]?.prompt, "call-1-1")).toContain(ERROR_MARKER);
  });
});

describe("reading a spilled result back through Mastra", () => {
  it("offers read_tool_result, and the page the model asks for with the handle it read reaches its next prompt", async () => {
    let handle: string | undefined;
    const { agent, calls, turn, events } = ordersAgent([
      () => ({ tool: TOOL, input: { customer: "acme", variant: "large" } }),
      (prompt) => {
        handle = spillHandle(resultInPrompt(prompt, "call-1") ?? "");
        return { tool: "read_tool_result", input: { handle, pointer: "/orders", offset: 10 } };
      },
      () => "done",
    ]);
    const result = await agent.generate("List acme's orders.", { maxSteps: 5 });
    expect(result.text).toBe("done");
    expect(calls).toHaveLength(3);
    expect(handle).toMatch(/^spill_[0-9a-f]{32}$/);

    // The model is offered both tools on every step.
    for (const call of calls) expect((call.tools ?? []).map((t) => t.name).sort()).toEqual([TOOL, "read_tool_result"]);

    // The page holds the orders the view left out, and only within the delimiter.
    const page = resultInPrompt(calls[2]?.prompt, "call-2") ?? "";
    expect(page).toContain('<tool_result tool="read_tool_result"');
    expect(page).toContain("ord_0011");
    expect(resultInPrompt(calls[1]?.prompt, "call-1")).not.toContain("ord_0011");
    expectNoMarkers(calls);

    // The read is no second outcome of list_orders: one contribution, one event.
    expect(turn.report().contributions).toHaveLength(1);
    expect(events).toHaveLength(1);
    const read = result.toolResults.at(-1)?.payload.result as { type: string; value: string } | undefined;
    expect(read?.value).toBe(page);
  });

  it("pages a spill of a tool gated alone, with readBackTool beside it in the agent's tools", async () => {
    const turn = new Turn();
    const listOrders = gateTool(ordersTool(), setup.catalog, { context: { turn }, readBack: setup.reader });
    const { model, calls } = scriptedModel([
      () => ({ tool: TOOL, input: { customer: "acme", variant: "large" } }),
      (prompt) => ({
        tool: "read_tool_result",
        input: { handle: spillHandle(resultInPrompt(prompt, "call-1") ?? ""), pointer: "/orders", offset: 10 },
      }),
      () => "done",
    ]);
    const tools = { [TOOL]: listOrders, read_tool_result: readBackTool(setup.reader) };
    const agent = new Agent({ id: "orders", name: "orders", instructions: "", model, tools });
    await agent.generate("List acme's orders.", { maxSteps: 5 });
    expectModelSaw(resultInPrompt(calls[1]?.prompt, "call-1") ?? "", "large");
    expect(resultInPrompt(calls[2]?.prompt, "call-2")).toContain("ord_0011");
    expect(turn.report().contributions).toHaveLength(1);
  });

  it("reads back only in the tenant the call's context names, taken from Mastra's request context", async () => {
    const options: MastraGateOptions = {
      readBack: setup.reader,
      context: (call) => ({ tenant: String(call.requestContext?.get("tenant")) }),
    };
    const tools = gateTools({ [TOOL]: ordersTool() }, setup.catalog, options);
    const pages: string[] = [];
    const run = async (spilledFor: string, readFor: string) => {
      let handle: string | undefined;
      const { model, calls } = scriptedModel([
        () => ({ tool: TOOL, input: { customer: "acme", variant: "large" } }),
        (prompt) => {
          handle = spillHandle(resultInPrompt(prompt, "call-1") ?? "");
          return "next";
        },
      ]);
      const agent = new Agent({ id: "orders", name: "orders", instructions: "", model, tools });
      await agent.generate("List.", { maxSteps: 3, requestContext: new RequestContext([["tenant", spilledFor]]) });
      const reader = scriptedModel([
        () => ({ tool: "read_tool_result", input: { handle, pointer: "/orders" } }),
        () => "done",
      ]);
      const again = new Agent({ id: "orders", name: "orders", instructions: "", model: reader.model, tools });
      await again.generate("Read.", { maxSteps: 3, requestContext: new RequestContext([["tenant", readFor]]) });
      pages.push(resultInPrompt(reader.calls[1]?.prompt, "call-1") ?? "");
      expect(calls).toHaveLength(2);
    };
    await run("acme", "acme");
    await run("acme", "globex");
    expect(pages[0]).toContain("ord_0011");
    expect(pages[1]).toContain('<tool_result tool="read_tool_result"');
    expect(pages[1]).not.toContain("ord_0011");
  });
});

describe("several calls in one agent run", () => {
  it("gives each call, in one step or in turn, exactly one outcome the model reads apart", async () => {
    const call = (variant: Variant) => ({ tool: TOOL, input: { customer: "acme", variant } });
    const { agent, calls, turn, events, told } = ordersAgent([
      () => [call("ok"), call("invalid")],
      () => call("error"),
      () => "done",
    ]);
    const result = await agent.generate("List acme's orders.", { maxSteps: 5 });
    expect(result.text).toBe("done");
    expectModelSaw(resultInPrompt(calls[1]?.prompt, "call-1") ?? "", "ok");
    expectModelSaw(resultInPrompt(calls[1]?.prompt, "call-1-1") ?? "", "invalid");
    expectModelSaw(resultInPrompt(calls[2]?.prompt, "call-2") ?? "", "error");
    expectNoMarkers(calls);

    const ids = ["call-1", "call-1-1", "call-2"];
    expect(
      turn
        .report()
        .contributions.map((c) => c.correlationId)
        .sort(),
    ).toEqual(ids);
    expect(events.map((e) => e.correlationId).sort()).toEqual(ids);
    expect(events.map((e) => e.code).sort()).toEqual(["ok", "schema_mismatch", "tool_error"]);
    expect(result.steps.flatMap((step) => step.toolResults)).toHaveLength(ids.length);
    const outcomes = told as SeenOutcome[];
    expect(outcomes.map((o) => o.provenance.correlationId).sort()).toEqual(ids);
  });
});

describe("other ways through the agent", () => {
  it("gates a streamed run the same way: the stream's next prompt holds the view, the app the outcome", async () => {
    const { agent, calls, turn, told } = ordersAgent([
      () => ({ tool: TOOL, input: { customer: "acme", variant: "ok" } }),
      () => "done",
    ]);
    const stream = await agent.stream("List acme's orders.", { maxSteps: 3 });
    expect(await stream.text).toBe("done");
    expectModelSaw(resultInPrompt(calls[1]?.prompt, "call-1") ?? "", "ok");
    expectNoMarkers(calls);
    expect(turn.report().contributions).toHaveLength(1);
    expect(JSON.stringify(await stream.toolResults)).not.toContain(PRIVATE_MARKER);
    const outcome = told[0] as SeenOutcome;
    expect(outcome.data?.internalNotes).toContain(PRIVATE_MARKER);
  });

  it("gates a tool with its own output schema: Mastra's check of it never shows the model the raw value", async () => {
    const order = z.object({ id: z.string(), total: z.number(), note: z.string().optional() });
    const ordersOutput = z.object({
      customer: z.string(),
      orders: z.array(order),
      internalNotes: z.string().optional(),
    });
    const checked = createTool({
      id: TOOL,
      description: "A customer's orders.",
      inputSchema: ordersInput,
      outputSchema: ordersOutput,
      // The fixture's `invalid` answer breaks this schema as it breaks the contract: Mastra's own check refuses it.
      execute: async (input) => (await ordersAnswer(input)) as z.infer<typeof ordersOutput>,
    });
    const { agent, calls, events } = ordersAgent(
      [
        () => [
          { tool: TOOL, input: { customer: "acme", variant: "ok" } },
          { tool: TOOL, input: { customer: "acme", variant: "invalid" } },
        ],
        () => "done",
      ],
      { [TOOL]: checked },
    );
    await agent.generate("List acme's orders.", { maxSteps: 3 });
    expectModelSaw(resultInPrompt(calls[1]?.prompt, "call-1") ?? "", "ok");
    expectModelSaw(resultInPrompt(calls[1]?.prompt, "call-1-1") ?? "", "invalid");
    expectNoMarkers(calls);
    expect(events.map((e) => e.code).sort()).toEqual(["ok", "schema_mismatch"]);
  });

  it("reports a tool's timeout as a timeout, not as its error", async () => {
    const slow = createTool({
      id: TOOL,
      description: "A customer's orders.",
      execute: async () => {
        throw new DOMException("the order service did not answer", "TimeoutError");
      },
    });
    const output = await gateTool(slow, setup.catalog).execute({ customer: "acme" }, { toolCallId: "c1" });
    const outcome = outcomeOf(output) as Outcome<unknown, unknown>;
    expect(outcome.ok ? undefined : outcome.error.code).toBe("timeout");
    expect(outcome.provenance.correlationId).toBe("c1");
    expect(output.type === "text" && output.value).toMatch(/error="timeout"/);
  });

  it("shows the model Mastra's refusal of arguments that break the input schema, with no outcome: the tool never ran", async () => {
    const { agent, calls, turn, events } = ordersAgent([() => ({ tool: TOOL, input: { customer: 42 } }), () => "done"]);
    await agent.generate("List acme's orders.", { maxSteps: 3 });
    const seen = resultInPrompt(calls[1]?.prompt, "call-1") ?? "";
    expect(seen).toMatch(/validation failed/i);
    expect(seen).toContain("customer");
    expect(seen).not.toContain("<tool_result");
    expect(turn.report().contributions).toHaveLength(0);
    expect(events).toHaveLength(0);
  });
});

describe("tools without a contract", () => {
  const sendEmail = () =>
    createTool({ id: "send_email", description: "Sends an email.", execute: async () => ({ sent: true }) });

  it("refuses a tool set holding one, naming it, unless told to hide or pass it", () => {
    const tools = { [TOOL]: ordersTool(), send_email: sendEmail() };
    expect(() => gateTools(tools, setup.catalog)).toThrowError(UngatedToolError);
    expect(Object.keys(gateTools(tools, setup.catalog, { ungated: "hide" }))).toEqual([TOOL]);
    const passed = gateTools(tools, setup.catalog, { ungated: "pass" });
    expect(passed.send_email).toBe(tools.send_email);
    expect(passed[TOOL]).not.toBe(tools[TOOL]);
  });

  it("refuses one alone, and passes it as it was when told to", () => {
    expect(() => gateTool(sendEmail(), setup.catalog)).toThrowError(/send_email/);
    expect(() => gateTool(sendEmail(), setup.catalog, { ungated: "hide" })).toThrowError(UngatedToolError);
    const tool = sendEmail();
    expect(gateTool(tool, setup.catalog, { ungated: "pass" })).toBe(tool);
  });
});

describe("mastraModelOutput", () => {
  it("gives the text alone, or the text then each admitted image and audio clip as Mastra maps media", () => {
    expect(mastraModelOutput([{ type: "text", text: "<tool_result/>" }])).toEqual({
      type: "text",
      value: "<tool_result/>",
    });
    const parts = [
      { type: "text", text: "<tool_result/>" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    ] as const;
    expect(mastraModelOutput(parts)).toEqual({
      type: "content",
      value: [
        { type: "text", text: "<tool_result/>" },
        { type: "image-data", data: "iVBORw0KGgo=", mediaType: "image/png" },
        { type: "file-data", data: "UklGRg==", mediaType: "audio/wav" },
      ],
    });
  });
});
