/**
 * The MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`) behind the gate: {@link gateClient} wraps a
 * connected `Client` in an object with the client's own `listTools` and `callTool`, where `listTools` lists only the
 * tools the catalog has contracts for (and the read-back tool), and `callTool` admits every result with its tool's
 * adapter, so each call ends in exactly one typed outcome and the model is handed only the view or the typed failure.
 *
 * The v2 client checks `structuredContent` itself and rejects a result that breaks the schema, which would leave the
 * gate only "the call failed". The gate's own check is the same generated validator, with diagnostics, so a gated
 * call gives the client the tool's listed definition without its `outputSchema` (v2's `toolDefinition` call option,
 * which also keeps the input schema for v2's header mirroring): the client passes the result on and the gate judges
 * it (`schema_mismatch`). A call the client still refuses (a tool the gate has not listed, while the client has) ends
 * in the typed failure {@link mcpClientCallFailure} gives.
 *
 * Nothing here imports the SDK: the client is typed structurally, so one adapter serves nearby versions.
 */
import type { ToolCatalog } from "../gate/context.js";
import type { ReadBackOutcome } from "../read-back/index.js";
import { type ModelPart, toModelRefusal } from "../stages/model-content.js";
import type { Outcome } from "../types.js";
import { adaptersFor, findAdapter, type GateOptions, gateCall, readBackCall, reportsFailure } from "./gate-call.js";
import { mcpClientCallFailure } from "./mcp-client-failure.js";

/** An MCP tool definition as `tools/list` gives it (the SDK's `Tool`), as far as the gate reads it. */
export interface McpTool {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
  [key: string]: unknown;
}

/** The parameters of `tools/call` (the SDK's `CallToolRequest["params"]`). */
export interface McpCallParams {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  [key: string]: unknown;
}

/** The per-call options the gate reads (the SDK's `CallToolRequestOptions`); the rest reach the client as given. */
export interface McpCallOptions {
  signal?: AbortSignal | undefined;
  toolDefinition?: McpTool | undefined;
}

/** The part of the v2 `Client` the gate uses. */
export interface McpClientLike {
  callTool(params: McpCallParams, options?: McpCallOptions): Promise<unknown>;
  listTools(params?: { cursor?: string | undefined }, options?: unknown): Promise<{ tools: McpTool[] }>;
}

/** One text part of what the model reads. */
type TextPart = Extract<ModelPart, { type: "text" }>;

/**
 * One call through the gate, shaped like the v2 client's `CallToolResult` (`content`, `isError`) so a loop hands
 * `content` to the model as it would a tool result, with what the application reads beside it, by `gate`:
 * - `"admitted"`: a gated tool's call; `outcome` is its one outcome: `outcome.data` (when `outcome.ok`) is the
 *   validated result for the application, never shown to the model;
 * - `"read_back"`: a page of a spilled result (`page`), read with the read-back tool;
 * - `"refused"`: a tool the catalog has no contract for, refused without calling the server;
 * - `"passed"`: such a tool passed ungated (`ungated: "pass"`): `result` is the client's own, unchanged.
 */
export type GatedToolResult<R = unknown> =
  | { gate: "admitted"; outcome: Outcome<unknown, unknown>; content: ModelPart[]; isError: boolean }
  | { gate: "read_back"; page: ReadBackOutcome; content: TextPart[]; isError: boolean }
  | { gate: "refused"; tool: string; content: TextPart[]; isError: true }
  | { gate: "passed"; result: R };

/** A v2 client behind the gate: its `listTools` and `callTool`, gated, and the client itself for everything else. */
export interface GatedClient<C extends McpClientLike> {
  readonly client: C;
  /**
   * The server's tools that the catalog has contracts for, then the read-back tool when `options.readBack` is
   * given (on the first page). A tool without a contract throws {@link UngatedToolError} (the default), is left
   * out (`ungated: "hide"`) or listed as is (`"pass"`). A server's tool named as the read-back tool is left out:
   * the gate answers that name.
   */
  listTools(...args: Parameters<C["listTools"]>): Promise<Awaited<ReturnType<C["listTools"]>>>;
  /** Calls the tool and admits its result, or reads a spilled result back; never rejects for a gated tool. */
  callTool(
    params: Parameters<C["callTool"]>[0],
    options?: Parameters<C["callTool"]>[1],
  ): Promise<GatedToolResult<Awaited<ReturnType<C["callTool"]>>>>;
}

/** The model's text for a call of a tool the application does not offer: a typed refusal, no call made. */
function refusal(tool: string): GatedToolResult<never> {
  return {
    gate: "refused",
    tool,
    content: [{ type: "text", text: toModelRefusal(tool, "unknown_tool") }],
    isError: true,
  };
}

/** `definition` without its output schema: what the client is given so the gate alone judges the result. */
function withoutOutputSchema(definition: McpTool): McpTool {
  const { outputSchema: _judgedByTheGate, ...rest } = definition;
  return rest as McpTool;
}

/**
 * Wraps a connected v2 `Client` so every tool result reaches the model only through the gate:
 *
 * ```ts
 * const gated = gateClient(client, catalog, { context: { turn }, readBack: readBack(store) });
 * const { tools } = await gated.listTools();              // for the model
 * const result = await gated.callTool({ name, arguments: args });
 * // result.content → the model; result.gate === "admitted" && result.outcome.ok → result.outcome.data
 * ```
 *
 * `options.context` (a `Turn`, a sink, the tenant and session, hooks) is every call's context, or a function of the
 * call returning it; `options.readBack` offers `read_tool_result` and gives spilled results its store.
 */
export function gateClient<C extends McpClientLike>(
  client: C,
  catalog: ToolCatalog,
  options: GateOptions = {},
): GatedClient<C> {
  /** Each gated tool's definition as the server last listed it, by the server's name for it. */
  const listed = new Map<string, McpTool>();
  const reader = options.readBack;

  const listTools = async (...args: Parameters<C["listTools"]>): Promise<Awaited<ReturnType<C["listTools"]>>> => {
    const result = await client.listTools(...(args as [undefined?, unknown?]));
    const served = result.tools.filter((tool) => tool.name !== reader?.definition.name);
    const adapters = adaptersFor(
      catalog,
      served.map((tool) => tool.name),
      options,
    );
    for (const tool of served) if (adapters.has(tool.name)) listed.set(tool.name, tool);
    const tools = options.ungated === "pass" ? served : served.filter((tool) => adapters.has(tool.name));
    const firstPage = args[0]?.cursor === undefined;
    if (reader !== undefined && firstPage) tools.push(reader.definition as unknown as McpTool);
    return { ...result, tools } as unknown as Awaited<ReturnType<C["listTools"]>>;
  };

  const callTool = async (
    params: Parameters<C["callTool"]>[0],
    callOptions?: Parameters<C["callTool"]>[1],
  ): Promise<GatedToolResult<Awaited<ReturnType<C["callTool"]>>>> => {
    const call = { tool: params.name, args: params.arguments, signal: callOptions?.signal };
    if (reader !== undefined && params.name === reader.definition.name) {
      const page = await readBackCall(reader, call, options);
      return { gate: "read_back", page, content: [{ type: "text", text: page.content }], isError: !page.ok };
    }
    const adapter = findAdapter(catalog, params.name, options.server);
    if (adapter === undefined) {
      if (options.ungated !== "pass") return refusal(params.name);
      const result = (await client.callTool(params, callOptions)) as Awaited<ReturnType<C["callTool"]>>;
      return { gate: "passed", result };
    }
    const name = adapter.spec.mcp?.name ?? params.name;
    const definition = callOptions?.toolDefinition ?? listed.get(name);
    const sent =
      definition === undefined ? callOptions : { ...callOptions, toolDefinition: withoutOutputSchema(definition) };
    const raw = client.callTool({ ...params, name }, sent).catch(mcpClientCallFailure);
    const gated = await gateCall(adapter, raw, call, options);
    return { gate: "admitted", outcome: gated.outcome, content: gated.parts, isError: reportsFailure(gated.outcome) };
  };

  return { client, listTools, callTool };
}
