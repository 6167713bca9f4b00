/**
 * The Claude Agent SDK adapter end to end: the SDK's real `query()` runs the Claude Code binary it ships, offline,
 * against a scripted model (a local Messages API server) that calls `list_orders` for each of the fixture's four
 * answers, then reads the spilled one back through `read_tool_result` with the handle it found in its prompt. The
 * tool is served in process (`createSdkMcpServer`), returning the fixture's MCP results as they are, and gated
 * either by the `PostToolUse` hook (`gateHooks`) or in its handler (`gateSdkTools`). What is asserted is what the
 * binary sent the model on the next request, and the one outcome each call ended in.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSdkMcpServer, type McpServerConfig, type Options, query, tool } from "@anthropic-ai/claude-agent-sdk";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { gateHooks, gateSdkTools, readBackServer } from "../../runtime/claude-agent-sdk.js";
import type { Outcome } from "../../runtime/contract/types.js";
import type { GateEvent } from "../../runtime/index.js";
import { UngatedToolError } from "../../runtime/integrations/gate-call.js";
import { Turn } from "../../runtime/record/turn.js";
import {
  type ModelRequest,
  type ScriptedBlock,
  type ScriptedModel,
  type SeenToolResult,
  scriptedModel,
  toolResults,
} from "./claude-agent-sdk-model.js";
import {
  ERROR_MARKER,
  expectModelSaw,
  type OrdersSetup,
  ordersCallResult,
  ordersSetup,
  PRIVATE_MARKER,
  spillHandle,
  TOOL,
  VARIANTS,
  type Variant,
} from "./fixture.js";

const READ_TOOL = "mcp__toolgate__read_tool_result";
const BINARY_TIMEOUT = 90_000;

let setup: OrdersSetup;
let model: ScriptedModel | undefined;
const homes: string[] = [];
beforeAll(async () => {
  setup = await ordersSetup("claude-agent-sdk");
});
afterEach(async () => {
  await model?.close();
  model = undefined;
  await Promise.all(homes.splice(0).map((home) => rm(home, { recursive: true, force: true })));
});

/**
 * `list_orders` as an in-process SDK tool that returns the fixture's MCP result for the variant, as it is, or with
 * `summary` its structured results' text replaced by a line of prose, as many servers send beside the value.
 */
function listOrders(summary = false) {
  return tool(
    TOOL,
    "List a customer's orders.",
    { customer: z.string(), variant: z.enum(["ok", "invalid", "error", "large"]) },
    async ({ customer, variant }) => {
      const result = ordersCallResult(customer, variant);
      if (!summary || variant === "error") return result as CallToolResult;
      return { ...result, content: [{ type: "text", text: "The orders are in the structured content." }] };
    },
  );
}

/** A tool the catalog has no contract for, whose output must never reach the model. */
const sendEmail = tool("send_email", "Send an email.", { to: z.string() }, async () => ({
  content: [{ type: "text", text: "SENT-d41c9a mailbox contents" }],
}));

/** What the gate observed: each outcome by call id, the turn, and the events. */
interface Observed {
  outcomes: Map<string, Outcome<unknown, unknown>[]>;
  turn: Turn;
  events: GateEvent[];
}

function observer(): Observed & { onOutcome(outcome: Outcome<unknown, unknown>, call: { callId?: string }): void } {
  const outcomes = new Map<string, Outcome<unknown, unknown>[]>();
  return {
    outcomes,
    turn: new Turn(),
    events: [],
    onOutcome(outcome, call) {
      const id = call.callId ?? "none";
      outcomes.set(id, [...(outcomes.get(id) ?? []), outcome]);
    },
  };
}

/**
 * The model's script: one call per variant, then the read-back of the spilled result by the handle in the prompt
 * it received, then (for `extra`) one more call, then its answer.
 */
function script(server: string, extra?: ScriptedBlock): Array<(request: ModelRequest) => ScriptedBlock[]> {
  const call = (variant: Variant): ScriptedBlock => ({
    type: "tool_use",
    id: `toolu_${variant}`,
    name: `mcp__${server}__${TOOL}`,
    input: { customer: "acme", variant },
  });
  const readBack = (request: ModelRequest): ScriptedBlock[] => {
    const seen = toolResults(request).find((result) => result.toolUseId === "toolu_large");
    const handle = spillHandle(seen?.text ?? "");
    return [{ type: "tool_use", id: "toolu_read", name: READ_TOOL, input: { handle, pointer: "/orders" } }];
  };
  return [...VARIANTS.map((variant) => () => [call(variant)]), readBack, ...(extra ? [() => [extra]] : [])];
}

/** Runs `query()` with the binary against the scripted model, in a fresh home with no settings read. */
async function run(mcpServers: Record<string, McpServerConfig>, hooks?: Options["hooks"]) {
  if (model === undefined) throw new Error("start the model first");
  const home = await mkdtemp(path.join(os.tmpdir(), "toolgate-claude-"));
  homes.push(home);
  const stderr: string[] = [];
  const messages: Array<{ type: string; subtype?: string }> = [];
  const options: Options = {
    cwd: home,
    settingSources: [],
    mcpServers,
    tools: [],
    allowedTools: Object.keys(mcpServers).map((name) => `mcp__${name}`),
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
      ANTHROPIC_BASE_URL: model.baseUrl,
      ANTHROPIC_API_KEY: "sk-ant-test-not-a-key",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    stderr: (data) => stderr.push(data),
    ...(hooks === undefined ? {} : { hooks }),
  };
  for await (const message of query({ prompt: "List acme's orders.", options })) messages.push(message);
  expect(messages.at(-1), stderr.join("")).toMatchObject({ type: "result", subtype: "success" });
  return model.requests;
}

/**
 * What the model read of call `id`: its `tool_result` in the request right after the answer that made the call
 * (and never before it).
 */
function seen(id: string): SeenToolResult {
  if (model === undefined) throw new Error("no model");
  const { requests, answers } = model;
  const step = answers.findIndex((blocks) => blocks.some((block) => block.type === "tool_use" && block.id === id));
  expect(step, `the model never called ${id}`).toBeGreaterThanOrEqual(0);
  expect(
    requests
      .slice(0, step + 1)
      .flatMap(toolResults)
      .some((result) => result.toolUseId === id),
  ).toBe(false);
  const found = toolResults(requests[step + 1] as ModelRequest).filter((result) => result.toolUseId === id);
  expect(
    found,
    `${id} in the request after the call ${JSON.stringify(requests.slice(step).map((r) => r.messages.slice(-3)))}`,
  ).toHaveLength(1);
  return found[0] as SeenToolResult;
}

/** The checks both ways of gating share: the model's prompts, the read-back, and one outcome per call. */
function expectGated(requests: ModelRequest[], server: string, observed: Observed): void {
  expect(model?.others).toEqual([]);
  for (const request of requests) {
    const names = request.tools.map((t) => t.name);
    expect(names).toContain(`mcp__${server}__${TOOL}`);
    expect(names).toContain(READ_TOOL);
    const reader = request.tools.find((t) => t.name === READ_TOOL);
    expect(reader?.input_schema).toMatchObject({ properties: { handle: { type: "string" } }, required: ["handle"] });
  }
  for (const variant of ["ok", "invalid", "large"] as const) {
    expectModelSaw(seen(`toolu_${variant}`).text, variant);
  }
  const page = seen("toolu_read");
  expect(page.isError).toBe(false);
  expect(page.text).toMatch(/^<tool_result tool="read_tool_result"/);
  expect(page.text).toContain("ord_0011");
  expect(page.text).not.toContain(PRIVATE_MARKER);

  const ids = VARIANTS.map((variant) => `toolu_${variant}`);
  expect([...observed.outcomes.keys()].sort()).toEqual([...ids].sort());
  for (const id of ids) expect(observed.outcomes.get(id)).toHaveLength(1);
  const outcome = (variant: Variant) => observed.outcomes.get(`toolu_${variant}`)?.[0];
  expect(outcome("ok")).toMatchObject({ ok: true, data: { internalNotes: expect.stringContaining(PRIVATE_MARKER) } });
  expect(outcome("invalid")).toMatchObject({ ok: false, error: { code: "schema_mismatch" } });
  expect(outcome("error")).toMatchObject({ ok: false, error: { code: "tool_error" } });
  expect(outcome("large")).toMatchObject({ ok: true, policy: "spill" });

  const contributions = observed.turn.report().contributions;
  expect(contributions.map((c) => c.correlationId).sort()).toEqual([...ids].sort());
  expect(observed.events.map((event) => event.correlationId).sort()).toEqual([...ids].sort());
}

describe("Claude Agent SDK: the real query() loop, the Claude Code binary, a scripted model", () => {
  it(
    "gates an MCP server's results in the PostToolUse hook, spills and reads back, and refuses a tool without a contract",
    async () => {
      const refused: ScriptedBlock = {
        type: "tool_use",
        id: "toolu_email",
        name: "mcp__orders__send_email",
        input: { to: "a@b.c" },
      };
      model = await scriptedModel(script("orders", refused));
      const observed = observer();
      const { onOutcome, turn, events } = observed;
      const context = { turn, tenant: "acme", sink: (event: GateEvent) => events.push(event) };
      const hooks = gateHooks(setup.catalog, { servers: ["orders"], readBack: setup.reader, context, onOutcome });
      // Claude Code hands the hook a structured result as its value's JSON text: the contract admits the value.
      const orders = createSdkMcpServer({ name: "orders", version: "1.0.0", tools: [listOrders(true), sendEmail] });
      // The spill is the tenant's: the read-back server reads it in the same tenant.
      const toolgate = readBackServer(setup.reader, { context: { tenant: "acme" } });
      const requests = await run({ orders, toolgate }, hooks);

      expectGated(requests, "orders", observed);
      // A tool error never reaches PostToolUse: its outcome is recorded (above), but no hook can replace what the
      // binary sends the model, the error's own text. Gating the tool in its handler (next test) closes that gap.
      const error = seen("toolu_error");
      expect(error.isError).toBe(true);
      expect(error.text).toContain(ERROR_MARKER);

      const email = seen("toolu_email");
      expect(email.text).toContain('error="no_contract"');
      expect(email.text).not.toContain("SENT-d41c9a");
    },
    BINARY_TIMEOUT,
  );

  it(
    "gates an in-process server's tools in their handlers: a tool error reaches the model as a typed failure with its words",
    async () => {
      model = await scriptedModel(script("shop"));
      const observed = observer();
      const { onOutcome, turn, events } = observed;
      const options = {
        readBack: setup.reader,
        context: { turn, sink: (event: GateEvent) => events.push(event) },
        onOutcome,
      };
      const shop = createSdkMcpServer({
        name: "shop",
        version: "1.0.0",
        tools: gateSdkTools(setup.catalog, [listOrders()], options),
      });
      const requests = await run({ shop, toolgate: readBackServer(setup.reader) });

      expectGated(requests, "shop", observed);
      const error = seen("toolu_error");
      expect(error.isError).toBe(true);
      expectModelSaw(error.text, "error", "mcp");
    },
    BINARY_TIMEOUT,
  );
});

describe("gateSdkTools", () => {
  it("refuses a tool without a contract, or leaves it out or ungated as told", () => {
    expect(() => gateSdkTools(setup.catalog, [listOrders(), sendEmail])).toThrowError(UngatedToolError);
    expect(gateSdkTools(setup.catalog, [listOrders(), sendEmail], { ungated: "hide" }).map((t) => t.name)).toEqual([
      TOOL,
    ]);
    const passed = gateSdkTools(setup.catalog, [listOrders(), sendEmail], { ungated: "pass" });
    expect(passed.map((t) => t.name)).toEqual([TOOL, "send_email"]);
    expect(passed[1]).toBe(sendEmail);
  });
});
