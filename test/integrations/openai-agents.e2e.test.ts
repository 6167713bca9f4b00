/**
 * OpenAI Agents JS end to end: the SDK's own agent loop (`run`) over the SDK's own MCP client class
 * (`MCPServerStreamableHttp`, talking HTTP to the fixture's MCP server on the loopback), gated by `gateMcpServer`,
 * with a scripted model that implements the SDK's `Model` interface, keeps every request it is sent (the prompts
 * and tools the agent's model receives) and calls tools as a model would, reading only its prompt. Each of the
 * fixture's four answers is checked in the prompt that follows the call; the spilled one is read back by the handle
 * the model read, and the page reaches the prompt after that.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  Agent,
  createMCPToolStaticFilter,
  type MCPServer,
  MCPServerStreamableHttp,
  type MCPToolFilterCallable,
  type MCPToolFilterStatic,
  run,
  setTracingDisabled,
} from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Outcome } from "../../runtime/index.js";
import { type GateEvent, Turn } from "../../runtime/index.js";
import { type AgentsMcpServer, gateMcpServer, UngatedToolError } from "../../runtime/openai-agents.js";
import {
  advertisedTool,
  expectModelSaw,
  keptOutMarkers,
  type Orders,
  type OrdersSetup,
  ordersCallResult,
  ordersServer,
  ordersSetup,
  PLANTED_MARKER,
  PRIVATE_MARKER,
  serveOverHttp,
  spillHandle,
  TOOL,
  VARIANTS,
  type Variant,
} from "./fixture.js";
import { ordersModel, READ_TOOL, type ScriptedModel, toolOutputs } from "./openai-agents-model.js";

/**
 * The fixture's server as one that advertises no output schema (as many do): the SDK's MCP client then checks
 * nothing, and the result reaches the gate as the server sent it.
 */
async function unadvertisedOrdersServer(): Promise<Server> {
  const { outputSchema: _schema, ...tool } = await advertisedTool();
  const server = new Server({ name: "toolgate-orders", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }) as never);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as { customer?: string; variant?: Variant };
    return ordersCallResult(String(args.customer ?? ""), args.variant ?? "ok") as never;
  });
  return server;
}

let setup: OrdersSetup;
/** The fixture's own server (it advertises the contract's output schema), and the one that advertises none. */
let advertising: { url: string; close(): Promise<void> };
let unadvertised: { url: string; close(): Promise<void> };
const opened: MCPServer[] = [];

beforeAll(async () => {
  setTracingDisabled(true);
  setup = await ordersSetup("openai-agents");
  advertising = await serveOverHttp(ordersServer, { answers: "json" });
  unadvertised = await serveOverHttp(unadvertisedOrdersServer, { answers: "json" });
}, 120_000);

afterAll(async () => {
  for (const mcp of opened) await mcp.close();
  await advertising?.close();
  await unadvertised?.close();
});

/**
 * The SDK's MCP client for a server (by default the one that advertises no output schema), set to send the model
 * the raw `structuredContent` (the private field with it), as the SDK does when asked: the gate keeps that from the
 * model too.
 */
function ordersClient(
  options: { toolFilter?: MCPToolFilterStatic | MCPToolFilterCallable | undefined; url?: string } = {},
): MCPServerStreamableHttp {
  const client = new MCPServerStreamableHttp({
    url: unadvertised.url,
    name: "orders",
    useStructuredContent: true,
    ...options,
  });
  opened.push(client);
  return client;
}

/** One run of an agent whose only tools are `mcp`'s; the run's result and what its model was sent. */
async function runAgent(mcp: MCPServer, model: ScriptedModel, stream = false) {
  const agent = new Agent({ name: "orders", instructions: "Answer about orders.", model, mcpServers: [mcp] });
  if (stream) {
    const streamed = await run(agent, "List acme's orders.", { stream: true });
    await streamed.completed;
    return { finalOutput: streamed.finalOutput, requests: model.requests };
  }
  const result = await run(agent, "List acme's orders.");
  return { finalOutput: result.finalOutput, requests: model.requests };
}

/** A gated server over a fresh, connected client, with a turn, an event sink and the outcomes it reports. */
async function gatedOrders(url = unadvertised.url) {
  const turn = new Turn();
  const events: GateEvent[] = [];
  const outcomes: Outcome<unknown, unknown>[] = [];
  const gated = gateMcpServer(ordersClient({ url }), setup.catalog, {
    readBack: setup.reader,
    context: { turn, sink: (event) => events.push(event) },
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  await gated.connect();
  return { gated, turn, events, outcomes };
}

describe("gateMcpServer in an OpenAI Agents run", () => {
  it("lets the raw result, private field and all, reach the model when the server is not gated", async () => {
    const client = ordersClient();
    await client.connect();
    const { requests } = await runAgent(client, ordersModel("ok"));
    expect(JSON.stringify(requests[1]?.input)).toContain(PRIVATE_MARKER);
  });

  for (const variant of VARIANTS) {
    it(`sends the model only the gated content of a call (${variant}), one outcome per call`, async () => {
      const { gated, turn, events, outcomes } = await gatedOrders();
      const { finalOutput, requests } = await runAgent(gated, ordersModel(variant));
      expect(finalOutput).toBe("done");
      expect(requests[0]?.tools.sort()).toEqual([TOOL, READ_TOOL].sort());
      const seen = toolOutputs(requests[1]?.input ?? []);
      expect(seen.map((output) => output.name)).toEqual([TOOL]);
      expectModelSaw(seen[0]?.text ?? "", variant, "mcp");
      for (const request of requests) {
        const prompt = JSON.stringify(request.input);
        for (const marker of keptOutMarkers("mcp")) expect(prompt).not.toContain(marker);
      }
      expect(turn.report().contributions).toHaveLength(1);
      expect(events).toHaveLength(1);
      expect(outcomes).toHaveLength(1);
      expect(outcomes[0]?.ok).toBe(variant === "ok" || variant === "large");
      expect(requests).toHaveLength(variant === "large" ? 3 : 2);
    });
  }

  it("gives the application the whole validated data of a call the model sees a view of", async () => {
    const { gated, outcomes } = await gatedOrders();
    await runAgent(gated, ordersModel("ok"));
    const outcome = outcomes[0];
    if (outcome?.ok !== true) throw new Error("expected a success");
    const data = outcome.data as Orders;
    expect(data.orders).toHaveLength(60);
    expect(data.internalNotes).toContain(PRIVATE_MARKER);
  });

  it("sends the model the gated content even when the application's onOutcome throws", async () => {
    const gated = gateMcpServer(ordersClient(), setup.catalog, {
      onOutcome: () => {
        throw new Error(PRIVATE_MARKER);
      },
    });
    await gated.connect();
    const { finalOutput, requests } = await runAgent(gated, ordersModel("ok"));
    expect(finalOutput).toBe("done");
    expectModelSaw(toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "", "ok");
  });

  it("offers the read-back tool, and the page read by the handle the model saw reaches its next prompt", async () => {
    const { gated, turn } = await gatedOrders();
    const { requests } = await runAgent(gated, ordersModel("large"));
    const spilled = toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "";
    const handle = spillHandle(spilled);
    const call = requests[2]?.input.find((item) => item.type === "function_call" && item.name === READ_TOOL);
    expect(call).toMatchObject({ arguments: JSON.stringify({ handle, pointer: "/orders" }) });
    const page = toolOutputs(requests[2]?.input ?? []).find((output) => output.name === READ_TOOL)?.text ?? "";
    expect(page).toContain(`<tool_result tool="${READ_TOOL}"`);
    expect(page).toContain("ord_0011");
    expect(page).not.toContain('error="');
    expect(turn.report().contributions).toHaveLength(1);
  });

  it("turns the MCP client's refusal of a result against the advertised schema into a typed failure", async () => {
    const { gated, outcomes } = await gatedOrders(advertising.url);
    const { requests } = await runAgent(gated, ordersModel("invalid"));
    const seen = toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "";
    expect(seen).toMatch(
      new RegExp(
        `^<tool_result tool="${TOOL}" source="none" complete="false" error="transport_error" retryable="false"/>$`,
      ),
    );
    expect(JSON.stringify(requests)).not.toContain(PLANTED_MARKER);
    expect(outcomes).toHaveLength(1);
    const outcome = outcomes[0];
    if (outcome?.ok !== false) throw new Error("expected a failure");
    expect(outcome.diagnostics.detail?.reason).toBe("output_schema_refused");
  });

  it("sends the same gated content in a streamed run", async () => {
    const { gated, events } = await gatedOrders();
    const { finalOutput, requests } = await runAgent(gated, ordersModel("invalid"), true);
    expect(finalOutput).toBe("done");
    expect(requests.map((request) => request.streamed)).toEqual([true, true]);
    expectModelSaw(toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "", "invalid");
    expect(events).toHaveLength(1);
  });

  const filters: Record<string, MCPToolFilterStatic | MCPToolFilterCallable | undefined> = {
    "an allow list": createMCPToolStaticFilter({ allowed: [TOOL] }),
    "a function": async (_context, tool) => tool.name === TOOL,
  };
  for (const [kind, toolFilter] of Object.entries(filters)) {
    it(`keeps the read-back tool offered when the server's own filter (${kind}) lets only its tools through`, async () => {
      const gated = gateMcpServer(ordersClient({ toolFilter }), setup.catalog, { readBack: setup.reader });
      await gated.connect();
      const { requests } = await runAgent(gated, ordersModel("large"));
      expect(requests[0]?.tools.sort()).toEqual([TOOL, READ_TOOL].sort());
      expect(toolOutputs(requests[2]?.input ?? []).at(-1)?.text).toContain("ord_0011");
    });
  }

  it("gates a server that has only callTool, the one call the SDK's interface requires", async () => {
    const client = ordersClient();
    const minimal: AgentsMcpServer = {
      name: client.name,
      cacheToolsList: false,
      connect: () => client.connect(),
      close: () => client.close(),
      listTools: () => client.listTools(),
      callTool: (name, args, meta, options) => client.callTool(name, args, meta, options),
      invalidateToolsCache: () => client.invalidateToolsCache(),
    };
    const outcomes: Outcome<unknown, unknown>[] = [];
    const gated = gateMcpServer(minimal, setup.catalog, { onOutcome: (outcome) => outcomes.push(outcome) });
    await gated.connect();
    const { requests } = await runAgent(gated, ordersModel("invalid"));
    expectModelSaw(toolOutputs(requests[1]?.input ?? [])[0]?.text ?? "", "invalid");
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false]);
  });
});

describe("gateMcpServer with a tool the catalog has no contract for", () => {
  it("refuses it when connecting, naming it, and closes the server", async () => {
    const client = ordersClient();
    const gated = gateMcpServer(client, {}, { readBack: setup.reader });
    const refused = await gated.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UngatedToolError);
    expect((refused as UngatedToolError).tools).toEqual([TOOL]);
    await expect(client.listTools()).rejects.toThrow(/connect/);
  });

  it("hides it from the model and refuses a call of it without calling the server", async () => {
    const client = ordersClient();
    const sent = vi.spyOn(client, "callToolResult");
    const gated = gateMcpServer(client, {}, { readBack: setup.reader, ungated: "hide" });
    await gated.connect();
    expect((await gated.listTools()).map((tool) => tool.name)).toEqual([READ_TOOL]);
    await expect(gated.callTool(TOOL, { customer: "acme", variant: "ok" })).rejects.toThrowError(UngatedToolError);
    expect(sent).not.toHaveBeenCalled();
  });

  it("passes it through as it was when told to", async () => {
    const gated = gateMcpServer(ordersClient(), {}, { ungated: "pass" });
    await gated.connect();
    expect((await gated.listTools()).map((tool) => tool.name)).toEqual([TOOL]);
    const content = await gated.callTool(TOOL, { customer: "acme", variant: "ok" });
    expect(JSON.stringify(content)).toContain(PRIVATE_MARKER);
  });
});
