/**
 * LangChain.js end to end: `createAgent`'s own agent loop with a scripted chat model, `list_orders` both as an
 * in-process `tool()` and from the fixture MCP server through `@langchain/mcp-adapters`, each of the four answers
 * gated by `gateMiddleware` (and by `gateMcpHooks`). The checks are on the prompts the model receives: the view or
 * the typed failure only, the spill handle and the read-back tool bound, the page the model reads back with the
 * handle it read; and on what the application keeps: exactly one outcome per call, as the `ToolMessage`'s artifact.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type DynamicStructuredTool, tool } from "@langchain/core/tools";
import { loadMcpTools, MultiServerMCPClient } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { AIMessage, type BaseMessage, createAgent, HumanMessage, ToolMessage } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { gateMcpHooks, gateMiddleware, outcomeOf, readBackTool } from "../../runtime/langchain.js";
import type { GateEvent } from "../../runtime/record/events.js";
import { Turn } from "../../runtime/record/turn.js";
import {
  type ErrorSource,
  expectModelSaw,
  keptOutMarkers,
  type Orders,
  type OrdersSetup,
  ordersServer,
  ordersServerTransport,
  ordersSetup,
  ordersValue,
  PRIVATE_MARKER,
  spillHandle,
  TOOL,
  VARIANTS,
  type Variant,
} from "./fixture.js";
import { callTool, type Prompt, type Script, ScriptedChatModel, textOf } from "./langchain-model.js";

let setup: OrdersSetup;
let closeServer: (() => Promise<void>) | undefined;
let mcpClient: Client;

beforeAll(async () => {
  setup = await ordersSetup("langchain");
  const { clientTransport, close } = await ordersServerTransport();
  closeServer = close;
  mcpClient = new Client({ name: "langchain-e2e", version: "1.0.0" });
  await mcpClient.connect(clientTransport);
}, 120_000);

afterAll(async () => {
  await mcpClient?.close();
  await closeServer?.();
});

/** `list_orders` in process: returns the fixture's value, throws the error's text for `error`. */
const inProcessOrders = tool(
  async ({ customer, variant }) => {
    if (variant === "error") throw new Error(String(ordersValue(customer, "error")));
    return ordersValue(customer, variant ?? "ok");
  },
  {
    name: TOOL,
    description: "A customer's orders.",
    schema: z.object({ customer: z.string(), variant: z.enum(["ok", "invalid", "error", "large"]).optional() }),
  },
);

/** `list_orders` from the fixture MCP server, loaded by `@langchain/mcp-adapters` (with hooks, when given). */
async function mcpTools(hooks?: ReturnType<typeof gateMcpHooks>): Promise<DynamicStructuredTool[]> {
  return (await loadMcpTools("orders", mcpClient, hooks)) as DynamicStructuredTool[];
}

/**
 * The model's script for one variant: call `list_orders`; when the tool message names a spill, call the read-back
 * tool with the handle read from it; then answer.
 */
function ordersScript(variant: Variant): Script {
  return (prompt, step) => {
    if (step === 0) return callTool(TOOL, { customer: "acme", variant }, "call-orders");
    const handle = spillHandle(textOf(prompt.messages.at(-1) as BaseMessage));
    if (step === 1 && handle !== undefined) {
      return callTool("read_tool_result", { handle, pointer: "/orders", offset: 3, limit: 9 }, "call-read");
    }
    return new AIMessage("Here are the orders.");
  };
}

/** All the text the model was sent in one prompt: every message's content, as the model's API would get it. */
function promptText(prompt: Prompt): string {
  return prompt.messages.map((message) => JSON.stringify(message.content)).join("\n");
}

/** The tool message that answers `callId` in a prompt or a run's messages. */
function answerTo(messages: readonly BaseMessage[], callId: string): ToolMessage {
  const found = messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === callId);
  if (!ToolMessage.isInstance(found)) throw new Error(`no tool message for ${callId}`);
  return found;
}

interface Run {
  model: ScriptedChatModel;
  messages: BaseMessage[];
  turn: Turn;
  events: GateEvent[];
}

/** Every call's context in a run: its turn, and a sink that keeps the events. */
interface RunContext {
  turn: Turn;
  sink: (event: GateEvent) => void;
}

/** The agent's tools for a run, made with the run's context (for `gateMcpHooks`). */
type Tools = (context: RunContext) => DynamicStructuredTool[] | Promise<DynamicStructuredTool[]>;

/** One agent run of `variant`, with the middleware (unless `middleware` is false) in a turn with a sink. */
async function runAgent(variant: Variant, tools: Tools, options: { middleware?: boolean } = {}): Promise<Run> {
  const turn = new Turn();
  const events: GateEvent[] = [];
  const model = new ScriptedChatModel(ordersScript(variant));
  const context = { turn, sink: (event: GateEvent) => events.push(event) };
  const middleware =
    options.middleware === false ? [] : [gateMiddleware(setup.catalog, { readBack: setup.reader, context })];
  const agent = createAgent({ model, tools: await tools(context), middleware });
  const result = await agent.invoke({ messages: [new HumanMessage("List acme's orders.")] });
  return { model, messages: result.messages, turn, events };
}

/**
 * Where the answer the gate is given over MCP came from: the server's `isError` result for `error` (its words reach
 * the model), the SDK client's own refusal for `invalid` (a throw, none of its text).
 */
function mcpErrors(variant: Variant): ErrorSource {
  return variant === "error" ? "mcp" : "throw";
}

/**
 * The checks every path makes: what each prompt held, the outcome kept as the artifact, one outcome per call.
 * `seen` is the answer the gate was given: the MCP SDK client itself refuses a result that breaks the tool's
 * output schema, and `@langchain/mcp-adapters` throws that refusal, so over MCP `invalid` arrives as the tool's error.
 */
function expectGatedRun(run: Run, variant: Variant, seen: Variant = variant, errors: ErrorSource = "throw"): void {
  const { prompts } = run.model;
  expect(prompts[0]?.tools).toEqual(expect.arrayContaining([TOOL, "read_tool_result"]));
  const answer = answerTo(prompts[1]?.messages ?? [], "call-orders");
  expectModelSaw(textOf(answer), seen, errors);
  if (variant === "invalid") expect(textOf(answer)).not.toContain("ord_0001");
  for (const prompt of prompts) {
    for (const marker of keptOutMarkers(errors)) expect(promptText(prompt)).not.toContain(marker);
  }
  const outcome = outcomeOf(answerTo(run.messages, "call-orders"));
  expect(outcome?.ok).toBe(variant === "ok" || variant === "large");
  expect(outcome?.provenance.correlationId).toBe("call-orders");
  if (variant === "ok" && outcome?.ok) {
    const data = outcome.data as Orders;
    expect(data.orders).toHaveLength(60);
    expect(data.internalNotes).toContain(PRIVATE_MARKER);
  }
  if (seen === "invalid") expect(outcome?.ok === false && outcome.error.code).toBe("schema_mismatch");
  if (seen === "error") expect(outcome?.ok === false && outcome.error.code).toBe("tool_error");
  expect(run.events.filter((event) => event.tool === TOOL)).toHaveLength(1);
  expect(run.turn.report().contributions.filter((c) => c.tool === TOOL)).toHaveLength(1);
  if (variant === "large") expectReadBack(run, textOf(answer));
  else expect(prompts).toHaveLength(2);
}

/** The model called the read-back tool with the handle it read, and the page reached its next prompt. */
function expectReadBack(run: Run, spilled: string): void {
  const { prompts } = run.model;
  expect(prompts).toHaveLength(3);
  const asked = prompts[2]?.messages.find((m) => AIMessage.isInstance(m) && m.tool_calls?.[0]?.id === "call-read");
  expect((asked as AIMessage | undefined)?.tool_calls?.[0]?.args.handle).toBe(spillHandle(spilled));
  const page = answerTo(prompts[2]?.messages ?? [], "call-read");
  expect(textOf(page)).toContain('<tool_result tool="read_tool_result"');
  expect(textOf(page)).toContain("ord_0011");
  expect(textOf(page)).not.toContain("ord_0002");
  expect((page.artifact as { ok?: boolean }).ok).toBe(true);
}

describe("gateMiddleware with an in-process tool", () => {
  for (const variant of VARIANTS) {
    it(`gives the model only the gated answer (${variant})`, async () => {
      expectGatedRun(await runAgent(variant, () => [inProcessOrders]), variant);
    });
  }
});

describe("gateMiddleware with an MCP tool from @langchain/mcp-adapters", () => {
  for (const variant of VARIANTS) {
    it(`gives the model only the gated answer (${variant})`, async () => {
      const run = await runAgent(variant, () => mcpTools());
      expectGatedRun(run, variant, variant === "invalid" ? "error" : variant, mcpErrors(variant));
    });
  }

  it("admits an MCP result once when gateMcpHooks gated it already", async () => {
    for (const variant of VARIANTS) {
      const hooks = hookedOnce(variant);
      const run = await runAgent(variant, (context) => mcpTools(hooks.make(context)));
      expectGatedRun(run, variant, variant === "invalid" ? "error" : variant, mcpErrors(variant));
      hooks.expectGated();
    }
  });
});

/**
 * Hooks for one run that count their own events beside the run's: a result reaches the hook only when the adapters
 * did not throw (`ok`, `large`); otherwise the middleware admits the throw. Either way the run has one outcome.
 */
function hookedOnce(variant: Variant) {
  const events: GateEvent[] = [];
  return {
    make: (context: RunContext) =>
      gateMcpHooks(setup.catalog, {
        readBack: setup.reader,
        context: {
          turn: context.turn,
          sink: (event: GateEvent) => {
            events.push(event);
            context.sink(event);
          },
        },
      }),
    expectGated: () => expect(events).toHaveLength(variant === "ok" || variant === "large" ? 1 : 0),
  };
}

/** The fixture MCP server over streamable HTTP (stateless: a fresh server per request), on a free local port. */
async function ordersHttpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (request, response) => {
    const server = await ordersServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

describe("MultiServerMCPClient with gateMcpHooks, under gateMiddleware", () => {
  it("gates each answer once, the hooks spread into the client's configuration", async () => {
    const http = await ordersHttpServer();
    try {
      for (const variant of VARIANTS) {
        const hooks = hookedOnce(variant);
        let client: MultiServerMCPClient | undefined;
        const run = await runAgent(variant, async (context) => {
          client = new MultiServerMCPClient({
            mcpServers: { orders: { transport: "http", url: http.url } },
            ...hooks.make(context),
          });
          return (await client.getTools()) as DynamicStructuredTool[];
        });
        await client?.close();
        expectGatedRun(run, variant, variant === "invalid" ? "error" : variant, mcpErrors(variant));
        hooks.expectGated();
      }
    } finally {
      await http.close();
    }
  }, 60_000);
});

describe("gateMcpHooks alone", () => {
  // The adapters throw before the hook for an `isError` result and for one the SDK client refused (see gateMcpHooks).
  for (const variant of ["ok", "large"] as const) {
    it(`gates the MCP result before the agent's tool node (${variant})`, async () => {
      const run = await runAgent(
        variant,
        async (context) => [
          ...(await mcpTools(gateMcpHooks(setup.catalog, { readBack: setup.reader, context }))),
          readBackTool(setup.reader),
        ],
        { middleware: false },
      );
      const answer = answerTo(run.model.prompts[1]?.messages ?? [], "call-orders");
      expectModelSaw(textOf(answer), variant);
      const outcome = outcomeOf(answerTo(run.messages, "call-orders"));
      expect(outcome?.ok).toBe(true);
      expect((outcome?.ok && (outcome.data as Orders).customer) || undefined).toBe("acme");
      expect(run.events).toHaveLength(1);
      expect(run.turn.report().contributions).toHaveLength(1);
      if (variant === "large") expectReadBack(run, textOf(answer));
    });
  }
});

describe("tools without a contract", () => {
  let runs = 0;
  const sendEmail = tool(
    async () => {
      runs++;
      return "sent: RAW-SEND-RESULT";
    },
    { name: "send_email", description: "Sends an email.", schema: z.object({ to: z.string() }) },
  );
  const emailScript: Script = (_prompt, step) =>
    step === 0 ? callTool("send_email", { to: "a@example.com" }, "call-email") : new AIMessage("done");

  async function runEmail(ungated?: "refuse" | "hide" | "pass") {
    const model = new ScriptedChatModel(emailScript);
    const middleware = [gateMiddleware(setup.catalog, { ungated })];
    const agent = createAgent({ model, tools: [inProcessOrders, sendEmail], middleware });
    await agent.invoke({ messages: [new HumanMessage("Email a.")] });
    return model.prompts;
  }

  it("refuses a call with a typed failure, without running the tool, by default", async () => {
    runs = 0;
    const prompts = await runEmail();
    expect(runs).toBe(0);
    const answer = textOf(answerTo(prompts[1]?.messages ?? [], "call-email"));
    expect(answer).toBe(
      '<tool_result tool="send_email" source="none" complete="false" error="no_contract" retryable="false"/>',
    );
  });

  it('takes the tool away from the model with "hide", and runs it ungated with "pass"', async () => {
    runs = 0;
    const hidden = await runEmail("hide");
    expect(hidden[0]?.tools).toEqual([TOOL]);
    expect(runs).toBe(0);
    const passed = await runEmail("pass");
    expect(passed[0]?.tools).toEqual([TOOL, "send_email"]);
    expect(runs).toBe(1);
    expect(textOf(answerTo(passed[1]?.messages ?? [], "call-email"))).toBe("sent: RAW-SEND-RESULT");
  });
});
