/**
 * `@langchain/mcp-adapters`: the `afterToolCall` hook of `MultiServerMCPClient` and `loadMcpTools`, gating each MCP
 * tool result before it becomes the tool's `ToolMessage`, for tools that run outside `createAgent` (a LangGraph
 * `ToolNode`, a tool invoked directly). Under `createAgent`, `gateMiddleware` alone gates these tools too.
 */
import type { ToolCatalog } from "../gate/context.js";
import { type AnyToolAdapter, findAdapter, type GateOptions, gateCall } from "./gate-call.js";
import { type LangChainBlock, langChainContent, markGated, mcpContent, refusalContent } from "./langchain-content.js";

/** What `afterToolCall` is told of one MCP tool call: the tool, its arguments, and the converted result. */
export interface McpToolCallResult {
  /** The tool's name on its server (without any prefix `loadMcpTools` added). */
  name: string;
  serverName: string;
  args?: unknown;
  /** The adapters' conversion of the `CallToolResult`: its content, and its other blocks (resources). */
  result: [unknown, unknown[]];
}

/** What the hook answers: the content the tool's `ToolMessage` gets, and no artifacts. */
export interface McpHookAnswer {
  result: [LangChainBlock[], []];
}

/** The hooks {@link gateMcpHooks} makes, to spread into the client's or `loadMcpTools`' options. */
export interface GateMcpHooks {
  /** The gated content, or `undefined` (synchronously) to leave a tool without a contract as it was (`"pass"`). */
  afterToolCall(call: McpToolCallResult, state?: unknown, config?: unknown): Promise<McpHookAnswer> | undefined;
}

/** The RunnableConfig fields the hook reads: the LangChain tool call the MCP call answers, and the run's signal. */
interface HookConfig {
  toolCall?: { id?: string } | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * The `afterToolCall` hook that gates every MCP tool result with the catalog's contracts:
 * `new MultiServerMCPClient({ mcpServers, ...gateMcpHooks(catalog, options) })`, or the same spread into
 * `loadMcpTools(server, client, { ...gateMcpHooks(catalog, options) })`.
 *
 * The tool's `ToolMessage` then holds the gated content (the delimited view or the typed failure, with any media
 * blocks) and the application reads the outcome with `outcomeOf(message)`. The adapters pass structured content
 * to the hook only beside a lone text block; a result with more blocks arrives without it, and fails as
 * `schema_mismatch` under a contract of kind `structured`. A tool without a contract is refused (its content
 * replaced by a typed refusal) unless `options.ungated` is `"pass"`.
 *
 * The adapters throw before calling the hook for an `isError` result (with the tool's text in the error) and for
 * one the MCP SDK client refused (structured content that breaks the advertised output schema): run these tools
 * under `gateMiddleware`, which turns the first into a typed `tool_error` with the server's error text cleaned and
 * bounded inside it (the contract may opt out), and the second into a `tool_error` with none of its text.
 */
export function gateMcpHooks(catalog: ToolCatalog, options: GateOptions = {}): GateMcpHooks {
  return {
    afterToolCall(call, _state, config) {
      // The hook is told the server (the client's key for it): a server-side name finds that server's contract only.
      const adapter = findAdapter(catalog, call.name, call.serverName ?? options.server);
      if (adapter !== undefined) return gateResult(adapter, call, (config ?? {}) as HookConfig, options);
      if (options.ungated === "pass") return undefined;
      return Promise.resolve({ result: [[{ type: "text", text: refusalContent(call.name) }], []] });
    },
  };
}

/** Admits one MCP result, and answers with the gated content, marked so `outcomeOf` finds its outcome. */
async function gateResult(
  adapter: AnyToolAdapter,
  call: McpToolCallResult,
  { toolCall, signal }: HookConfig,
  options: GateOptions,
): Promise<McpHookAnswer> {
  const info = { tool: call.name, args: call.args, callId: toolCall?.id, signal };
  const gated = await gateCall(adapter, callToolResult(call.result), info, options);
  const content = langChainContent(gated.parts);
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
  return { result: [markGated(blocks, gated.outcome), []] };
}

/** The MCP `CallToolResult` again, from the adapters' conversion: the blocks, and the structured content beside a
 * lone text block. */
function callToolResult(result: McpToolCallResult["result"]): unknown {
  const [content] = result;
  const blocks = Array.isArray(content) ? content : [];
  const carrier = blocks.find(
    (block) => typeof block === "object" && block !== null && "structuredContent" in (block as object),
  ) as { structuredContent?: unknown } | undefined;
  return {
    content: mcpContent(content),
    ...(carrier === undefined ? {} : { structuredContent: carrier.structuredContent }),
  };
}
