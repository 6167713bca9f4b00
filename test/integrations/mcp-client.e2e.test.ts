/**
 * The MCP SDK v2 client behind the gate, end to end: the real `Client` of `@modelcontextprotocol/client` over v2's
 * own in-memory transport to the fixture's MCP server, a scripted model driving a loop that builds each prompt from
 * the tool results, and `gateClient`'s `listTools`/`callTool` in between. For each of the fixture's four answers the
 * next prompt holds only the view or the typed failure, the spilled result is read back by the handle the model read,
 * each call records exactly one outcome in the turn and one event, and the application gets the outcome's data. The
 * client's own output check runs on the generated validators (`mcpClientValidator`), compiling nothing.
 */
import {
  Client,
  InMemoryTransport,
  type jsonSchemaValidator,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GateEvent, Turn } from "../../runtime/index.js";
import { type GateOptions, UngatedToolError } from "../../runtime/integrations/gate-call.js";
import { type GatedClient, type GatedToolResult, gateClient } from "../../runtime/integrations/mcp-client.js";
import { mcpClientCallFailure, mcpClientValidator } from "../../runtime/integrations/mcp-client-failure.js";
import { type OutputValidators, outputSchemaSha256 } from "../../runtime/integrations/mcp-validator.js";
import {
  advertisedTool,
  expectModelSaw,
  type Orders,
  type OrdersSetup,
  ordersServer,
  ordersSetup,
  PLANTED_MARKER,
  PRIVATE_MARKER,
  spillHandle,
  TOOL,
  VARIANTS,
} from "./fixture.js";

let setup: OrdersSetup;
let outputValidators: OutputValidators;
beforeAll(async () => {
  setup = await ordersSetup("mcp-client");
  outputValidators = setup.index.outputValidators as OutputValidators;
});

/** Connections opened by a test, closed after it. */
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

/**
 * A real v2 client connected over v2's in-memory transport to a fresh fixture server; `tools/call`s counted, and with
 * `hold` kept from the server, so the call waits for an answer that never comes.
 */
async function connect(
  validator?: jsonSchemaValidator,
  { hold = false } = {},
): Promise<{ client: Client; served: string[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = await ordersServer();
  const served: string[] = [];
  await server.connect(serverSide as never);
  // The server reads what the transport delivers through onmessage: count the tool calls on the way.
  const deliver = serverSide.onmessage;
  serverSide.onmessage = (message, extra) => {
    if ((message as { method?: string }).method === "tools/call") {
      served.push(JSON.stringify(message));
      if (hold) return;
    }
    deliver?.(message, extra);
  };
  const client = new Client(
    { name: "toolgate-e2e", version: "1.0.0" },
    validator === undefined ? {} : { jsonSchemaValidator: validator },
  );
  await client.connect(clientSide);
  open.push(client);
  return { client, served };
}

/** What the scripted model receives each step: the conversation so far as text, and the tools it is offered. */
interface Prompt {
  text: string;
  tools: string[];
}
/** The model's reply: one tool call, or the answer. */
type Reply = { call: { name: string; arguments: Record<string, unknown> } } | { answer: string };

/**
 * The agent loop: list the tools for the model, then until it answers, call the tool it chose and append what the
 * gate gives the model to the conversation the next prompt is built from. Returns every prompt and every result.
 */
async function agentLoop(gated: GatedClient<Client>, model: (prompt: Prompt, step: number) => Reply) {
  const { tools } = await gated.listTools();
  const names = tools.map((tool) => tool.name);
  const conversation = ["user: What are acme's latest orders?"];
  const prompts: Prompt[] = [];
  const results: GatedToolResult[] = [];
  for (let step = 0; step < 10; step++) {
    const prompt = { text: conversation.join("\n"), tools: names };
    prompts.push(prompt);
    const reply = model(prompt, step);
    if ("answer" in reply) return { prompts, results };
    const result = await gated.callTool(reply.call);
    results.push(result);
    const content = result.gate === "passed" ? [] : result.content;
    conversation.push(
      `tool ${reply.call.name}: ${content.map((part) => (part.type === "text" ? part.text : "")).join("")}`,
    );
  }
  throw new Error("the loop did not end");
}

/** A model that calls `list_orders` once with `variant`, then answers. */
function callsOnce(variant: string) {
  return (_prompt: Prompt, step: number): Reply =>
    step === 0 ? { call: { name: TOOL, arguments: { customer: "acme", variant } } } : { answer: "done" };
}

/** Gate options with a turn and an event sink, to count outcomes. */
function counted(extra: GateOptions = {}) {
  const turn = new Turn();
  const events: GateEvent[] = [];
  return { turn, events, options: { ...extra, context: { turn, sink: (event: GateEvent) => events.push(event) } } };
}

/** The last tool result's text in the last prompt. */
function lastToolText(prompts: Prompt[]): string {
  const text = prompts.at(-1)?.text ?? "";
  return text.slice(text.lastIndexOf("\ntool "));
}

describe("the v2 client's agent loop behind the gate", () => {
  for (const variant of VARIANTS) {
    it(`gives the model only the gated content, one outcome per call (${variant})`, async () => {
      const { client, served } = await connect(mcpClientValidator(outputValidators));
      const { turn, events, options } = counted({ readBack: setup.reader });
      const { prompts, results } = await agentLoop(gateClient(client, setup.catalog, options), callsOnce(variant));

      expect(prompts).toHaveLength(2);
      expect(prompts[0]?.tools).toEqual([TOOL, "read_tool_result"]);
      expectModelSaw(lastToolText(prompts), variant, "mcp");
      expect(served).toHaveLength(1);
      expect(turn.report().contributions).toHaveLength(1);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ tool: TOOL, turn: turn.id });

      const result = results[0];
      if (result?.gate !== "admitted") throw new Error(`expected an admitted call, got ${result?.gate}`);
      expect(result.isError).toBe(!result.outcome.ok);
      expect(events[0]?.code).toBe(result.outcome.ok ? "ok" : result.outcome.error.code);
      if (variant === "ok") {
        // The application reads the whole validated value, private field included; the model never does.
        if (!result.outcome.ok) throw new Error("expected a success");
        const data = result.outcome.data as Orders;
        expect(data.orders).toHaveLength(60);
        expect(data.internalNotes).toContain(PRIVATE_MARKER);
      }
      if (variant === "invalid") {
        // The gate judged the result (the client passed it on): the typed mismatch, with where, never the value.
        if (result.outcome.ok) throw new Error("expected a failure");
        expect(result.outcome.error.code).toBe("schema_mismatch");
        expect(result.outcome.diagnostics.issues?.map((issue) => issue.instancePath)).toContain("/orders/0/total");
        expect(JSON.stringify(result.outcome)).not.toContain(PLANTED_MARKER);
      }
    });
  }

  it("reads a spilled result back by the handle the model read, and the page reaches the next prompt", async () => {
    const { client } = await connect(mcpClientValidator(outputValidators));
    const { turn, events, options } = counted({ readBack: setup.reader });
    const model = (prompt: Prompt, step: number): Reply => {
      if (step === 0) return { call: { name: TOOL, arguments: { customer: "acme", variant: "large" } } };
      if (step === 1) {
        const handle = spillHandle(prompt.text);
        if (handle === undefined || !prompt.tools.includes("read_tool_result")) return { answer: "cannot read it" };
        return { call: { name: "read_tool_result", arguments: { handle, pointer: "/orders", offset: 10 } } };
      }
      return { answer: "done" };
    };
    const { prompts, results } = await agentLoop(gateClient(client, setup.catalog, options), model);

    expect(prompts).toHaveLength(3);
    expectModelSaw(lastToolText(prompts.slice(0, 2)), "large");
    expect(prompts[1]?.text).not.toContain("ord_0011");
    const page = lastToolText(prompts);
    expect(page).toContain('<tool_result tool="read_tool_result"');
    expect(page).toContain("ord_0011");
    expect(page).not.toContain("ord_0009");
    expect(results.map((result) => result.gate)).toEqual(["admitted", "read_back"]);
    expect(results[1]?.gate === "read_back" && results[1].page.ok).toBe(true);
    // The read-back is not a tool outcome: still one per call of list_orders.
    expect(turn.report().contributions).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it("reads back only in the tenant the result was spilled for", async () => {
    const { client } = await connect();
    const acme = gateClient(client, setup.catalog, { readBack: setup.reader, context: { tenant: "acme" } });
    const spilled = await acme.callTool({ name: TOOL, arguments: { customer: "acme", variant: "large" } });
    const text = spilled.gate === "admitted" ? (spilled.content[0] as { text: string }).text : "";
    const handle = spillHandle(text);
    expect(handle).toBeDefined();
    const globex = gateClient(client, setup.catalog, { readBack: setup.reader, context: { tenant: "globex" } });
    const refused = await globex.callTool({ name: "read_tool_result", arguments: { handle, pointer: "/orders" } });
    expect(refused.gate === "read_back" && refused.isError).toBe(true);
    expect(JSON.stringify(refused)).not.toContain("ord_0011");
  });
});

describe("the v2 client's own output check", () => {
  /** The validator provider, counting the schemas it is asked for. */
  function countingValidator() {
    const provider = mcpClientValidator(outputValidators);
    const asked: string[] = [];
    const validator: jsonSchemaValidator = {
      getValidator<T>(schema: Parameters<jsonSchemaValidator["getValidator"]>[0]) {
        asked.push(outputSchemaSha256(schema) ?? "unhashable");
        return provider.getValidator<T>(schema);
      },
    };
    return { validator, asked };
  }

  /** Runs `body` with the global `Function` constructor watched: how many functions were made from strings. */
  async function functionsMadeDuring(body: () => Promise<unknown>): Promise<number> {
    const real = globalThis.Function;
    let made = 0;
    globalThis.Function = new Proxy(real, {
      construct: (target, args) => {
        made++;
        return Reflect.construct(target, args);
      },
      apply: (target, self, args) => {
        made++;
        return Reflect.apply(target, self, args);
      },
    });
    try {
      await body();
    } finally {
      globalThis.Function = real;
    }
    return made;
  }

  it("passes a valid result and refuses an invalid one with the generated validator, compiling nothing", async () => {
    const { validator, asked } = countingValidator();
    const { client } = await connect(validator);
    await client.listTools();
    let refused: unknown;
    const made = await functionsMadeDuring(async () => {
      const ok = await client.callTool({ name: TOOL, arguments: { customer: "acme", variant: "ok" } });
      expect((ok.structuredContent as Orders).orders).toHaveLength(60);
      refused = await client.callTool({ name: TOOL, arguments: { customer: "acme", variant: "invalid" } }).then(
        () => undefined,
        (error: unknown) => error,
      );
    });
    expect(made).toBe(0);
    // Asked once, for the advertised schema, whose hash is a generated validator's.
    const schemaHash = outputSchemaSha256((await advertisedTool()).outputSchema);
    expect(asked).toEqual([schemaHash]);
    expect(Object.keys(outputValidators)).toContain(schemaHash);
    // v2 rejects the call: a ProtocolError (-32602) naming the location, never the value.
    expect(refused).toBeInstanceOf(ProtocolError);
    expect((refused as ProtocolError).code).toBe(-32602);
    expect((refused as Error).message).toMatch(/does not match the contract at \/orders\/0\/total \(type\)/);
    expect((refused as Error).message).not.toContain(PLANTED_MARKER);
    expect(mcpClientCallFailure(refused)).toMatchObject({
      kind: "transport_error",
      reason: "output_schema_refused",
      retryable: false,
    });
  });

  it("the client's default validator compiles the schema at run time (what the provider avoids)", async () => {
    const { client } = await connect();
    await client.listTools();
    const made = await functionsMadeDuring(() =>
      client.callTool({ name: TOOL, arguments: { customer: "acme", variant: "ok" } }),
    );
    expect(made).toBeGreaterThan(0);
  });

  it("a gated call the client refuses itself (tools listed on the client, not the gate) is one typed failure", async () => {
    const { client } = await connect(mcpClientValidator(outputValidators));
    await client.listTools();
    const { turn, events, options } = counted();
    const result = await gateClient(client, setup.catalog, options).callTool({
      name: TOOL,
      arguments: { customer: "acme", variant: "invalid" },
    });
    if (result.gate !== "admitted" || result.outcome.ok) throw new Error("expected an admitted failure");
    expect(result.outcome.error).toMatchObject({ code: "transport_error", retryable: false });
    expect(result.outcome.diagnostics.detail).toMatchObject({ reason: "output_schema_refused" });
    expect(JSON.stringify(result)).not.toContain(PLANTED_MARKER);
    expect(turn.report().contributions).toHaveLength(1);
    expect(events).toHaveLength(1);
  });
});

describe("a call that fails in the client", () => {
  it("a closed session and a call cut off by closing are each one typed failure", async () => {
    const { client, served } = await connect(undefined, { hold: true });
    const { turn, events, options } = counted();
    const gated = gateClient(client, setup.catalog, options);
    const inFlight = gated.callTool({ name: TOOL, arguments: { customer: "acme" } });
    await expect.poll(() => served.length).toBe(1);
    await client.close();
    const afterClose = await gated.callTool({ name: TOOL, arguments: { customer: "acme" } });
    for (const result of [await inFlight, afterClose]) {
      if (result.gate !== "admitted" || result.outcome.ok) throw new Error("expected an admitted failure");
      expect(result.outcome.error.code).toBe("transport_error");
      expect((result.content[0] as { text: string }).text).toMatch(/error="transport_error" retryable="true"/);
    }
    const reasons = [await inFlight, afterClose].map(
      (result) => result.gate === "admitted" && !result.outcome.ok && result.outcome.diagnostics.detail?.reason,
    );
    expect(reasons).toEqual(["connection_closed", "not_connected"]);
    expect(turn.report().contributions).toHaveLength(2);
    expect(events).toHaveLength(2);
  });

  it("maps v2's own errors: a timeout is retryable, the rest are transport errors with their reason", () => {
    expect(mcpClientCallFailure(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out"))).toMatchObject({
      kind: "timeout",
    });
    expect(mcpClientCallFailure(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"))).toMatchObject({
      kind: "transport_error",
      reason: "connection_closed",
    });
    const serverError = mcpClientCallFailure(new ProtocolError(-32603, "secret server text"));
    expect(serverError).toMatchObject({
      kind: "transport_error",
      message: "The MCP call failed with JSON-RPC error -32603.",
    });
    const hostile = Object.defineProperty({}, "code", {
      get() {
        throw new Error("boom");
      },
    });
    expect(mcpClientCallFailure(hostile).kind).toBe("transport_error");
  });
});

describe("tools without a contract", () => {
  /** A catalog that has no contract for list_orders. */
  const empty = {};

  it("are refused when listed, naming each", async () => {
    const { client } = await connect();
    const error = await gateClient(client, empty)
      .listTools()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UngatedToolError);
    expect((error as UngatedToolError).tools).toEqual([TOOL]);
  });

  it("are hidden from the model and refused without calling the server", async () => {
    const { client, served } = await connect();
    const gated = gateClient(client, empty, { ungated: "hide", readBack: setup.reader });
    expect((await gated.listTools()).tools.map((tool) => tool.name)).toEqual(["read_tool_result"]);
    const result = await gated.callTool({ name: TOOL, arguments: { customer: "acme" } });
    expect(result).toMatchObject({ gate: "refused", tool: TOOL, isError: true });
    expect(result.gate === "refused" && result.content[0]?.text).toMatch(/error="unknown_tool" retryable="false"/);
    expect(served).toEqual([]);
  });

  it("are passed to the client as they are when told to", async () => {
    const { client, served } = await connect();
    const gated = gateClient(client, empty, { ungated: "pass" });
    expect((await gated.listTools()).tools.map((tool) => tool.name)).toEqual([TOOL]);
    const result = await gated.callTool({ name: TOOL, arguments: { customer: "acme" } });
    if (result.gate !== "passed") throw new Error(`expected a passed call, got ${result.gate}`);
    expect((result.result.structuredContent as Orders).internalNotes).toContain(PRIVATE_MARKER);
    expect(served).toHaveLength(1);
  });
});
