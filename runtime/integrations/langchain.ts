/**
 * LangChain.js: a `createAgent` middleware that gates every tool call, and the read-back tool as a LangChain tool.
 *
 * `gateMiddleware(catalog, options)` wraps each tool call (`wrapToolCall`): it runs the tool, admits what came back
 * (the `ToolMessage`'s content, or the `CallToolResult` of an MCP tool from `@langchain/mcp-adapters`, or the throw)
 * with the tool's adapter, and answers with a `ToolMessage` whose `content` is what the model may read (the
 * delimited view, or the typed failure) and whose `artifact` is the verdict alone ({@link GatedArtifact}: LangChain
 * sends no artifact to a model, but a stream or a checkpointer carries it on); the application reads the outcome,
 * `data` included, with `outcomeOf(message)`.
 *
 * The LangChain shapes are typed structurally; only `ToolMessage` and `DynamicStructuredTool` of `@langchain/core`
 * (the optional peer dependency) are constructed, so `langchain` itself is never imported.
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { Outcome } from "../contract/types.js";
import type { ToolCatalog } from "../gate/context.js";
import type { ReadBack } from "../read-back/index.js";
import {
  type AnyToolAdapter,
  findAdapter,
  type GateOptions,
  gateCall,
  readBackCall,
  reportsFailure,
  type ToolCallInfo,
  thrownByTool,
} from "./gate-call.js";
import {
  gatedArtifact,
  isGraphBubbleUp,
  langChainContent,
  mcpToolErrorOf,
  outcomeOf,
  rawOfToolMessage,
  rawOfValue,
  refusalContent,
} from "./langchain-content.js";

/** A tool call as LangChain's agent hands it to `wrapToolCall`: the call, and the run's signal. */
export interface LangChainToolCallRequest {
  toolCall: { name: string; args?: unknown; id?: string | undefined };
  runtime?: { signal?: AbortSignal | undefined } | undefined;
}

/** A model call as the agent hands it to `wrapModelCall`: the tools the model is about to be given. */
export interface LangChainModelRequest {
  tools?: readonly unknown[] | undefined;
}

/** Options of {@link gateMiddleware}: the shared {@link GateOptions}, and the middleware's name. */
export interface LangChainGateOptions extends GateOptions {
  /** The middleware's name in the agent (each middleware of an agent has its own); default `"toolgate"`. */
  name?: string | undefined;
}

/** The brand `langchain`'s `createMiddleware` sets on every middleware (`Symbol.for("AgentMiddleware")`). */
const MIDDLEWARE_BRAND = Symbol.for("AgentMiddleware");

/** The middleware {@link gateMiddleware} makes, in the shape of `langchain`'s `AgentMiddleware`. */
export interface GateMiddleware {
  readonly name: string;
  /** The read-back tool, when `options.readBack` is given: the agent offers it to the model beside its own tools. */
  readonly tools?: DynamicStructuredTool[];
  wrapToolCall<R extends LangChainToolCallRequest, H>(
    request: R,
    handler: (request: R) => H,
  ): Promise<ToolMessage | Awaited<H>>;
  wrapModelCall?<R extends LangChainModelRequest, A>(request: R, handler: (request: R) => A): A;
}

/**
 * A `createAgent` middleware that gates every tool call with the catalog's contracts:
 * `createAgent({ model, tools, middleware: [gateMiddleware(catalog, { readBack: reader })] })`.
 *
 * - A tool with a contract runs as usual, then its result is admitted: the `ToolMessage` the agent keeps has the
 *   model's content (`toModelContent`, or text and media blocks when the result has images or audio) and the
 *   verdict as `artifact`; `outcomeOf(message)` reads the outcome. An MCP tool's error (the `ToolException` the MCP
 *   adapters throw for `isError`) is a `tool_error` with the server's error text, cleaned and bounded, for the model
 *   to correct its call; a throw in an in-process tool (or a message an inner middleware marked `status: "error"`)
 *   is a `tool_error` whose text never reaches the model, since it was written for the tool's developer; a timeout
 *   or an abort is the wait's failure (`timeout`, `transport_error`); LangGraph's interrupts are thrown on.
 * - A tool without a contract (`options.ungated`): `"refuse"` (the default) answers its call with a typed refusal
 *   (`error="no_contract"`) without running it; `"hide"` also takes it out of the tools the model is given;
 *   `"pass"` runs it ungated.
 * - With `options.readBack`, the middleware adds the read-back tool ({@link readBackTool}) to the agent's tools, and
 *   a spilled result's content names it with its handle; its pages are bounded by the reader, and pass ungated.
 * - Each call's context is `options.context` (a `Turn`, a sink, the tenant and session…), with LangChain's tool call
 *   id as `correlationId` and the run's signal. An MCP tool gated by {@link gateMcpHooks} already is not admitted
 *   twice: its outcome becomes the artifact.
 */
export function gateMiddleware(catalog: ToolCatalog, options: LangChainGateOptions = {}): GateMiddleware {
  const readName = options.readBack?.definition.name;
  const ungated = options.ungated ?? "refuse";
  const middleware: GateMiddleware & { [MIDDLEWARE_BRAND]: true } = {
    [MIDDLEWARE_BRAND]: true,
    name: options.name ?? "toolgate",
    ...(options.readBack === undefined ? {} : { tools: [readBackTool(options.readBack, options)] }),
    async wrapToolCall<R extends LangChainToolCallRequest, H>(
      request: R,
      handler: (request: R) => H,
    ): Promise<ToolMessage | Awaited<H>> {
      const { toolCall } = request;
      if (toolCall.name === readName) return await handler(request);
      const adapter = adapterOf(catalog, toolCall.name, options);
      if (adapter === undefined) {
        if (ungated === "pass") return await handler(request);
        return new ToolMessage({
          content: refusalContent(toolCall.name),
          tool_call_id: toolCall.id ?? "",
          name: toolCall.name,
          status: "error",
        });
      }
      const call: ToolCallInfo = {
        tool: toolCall.name,
        args: toolCall.args,
        callId: toolCall.id,
        signal: request.runtime?.signal,
      };
      const result = await runTool(() => handler(request));
      if (result.ok && ToolMessage.isInstance(result.value)) {
        const already = outcomeOf(result.value);
        if (already !== undefined) return gatedMessage(toolCall, result.value.content, already);
      }
      const raw = result.ok ? rawOf(result.value) : (mcpToolErrorOf(result.error) ?? thrownByTool(result.error));
      const gated = await gateCall(adapter, raw, call, options);
      return gatedMessage(toolCall, langChainContent(gated.parts), gated.outcome);
    },
  };
  if (ungated === "hide") {
    middleware.wrapModelCall = (request, handler) =>
      handler({ ...request, tools: request.tools?.filter((tool) => offered(catalog, tool, readName, options)) });
  }
  return middleware;
}

/** Whether the model is still given `tool` under `ungated: "hide"`: it has a contract, is the read-back tool, or is
 * a provider's own tool (a plain object without a name), which never runs through the agent's tool node. */
function offered(
  catalog: ToolCatalog,
  tool: unknown,
  readName: string | undefined,
  options: LangChainGateOptions,
): boolean {
  const name = typeof tool === "object" && tool !== null ? (tool as { name?: unknown }).name : undefined;
  if (typeof name !== "string") return true;
  return name === readName || adapterOf(catalog, name, options) !== undefined;
}

/**
 * The adapter of the tool LangChain calls `name`: by the catalog key, or by a server-side name under the contract of
 * the server the call says it is of. `@langchain/mcp-adapters` says it in the name under
 * `prefixToolNameWithServerName` (`<server>__<tool>`); otherwise it is `options.server`. A name two ways of reading
 * find two contracts for is refused.
 */
function adapterOf(catalog: ToolCatalog, name: string, options: LangChainGateOptions): AnyToolAdapter | undefined {
  const direct = findAdapter(catalog, name, options.server);
  if (direct !== undefined) return direct;
  let found: AnyToolAdapter | undefined;
  for (let at = name.indexOf("__"); at > 0; at = name.indexOf("__", at + 1)) {
    const adapter = findAdapter(catalog, name.slice(at + 2), name.slice(0, at));
    if (adapter === undefined || adapter === found) continue;
    if (found !== undefined) return undefined;
    found = adapter;
  }
  return found;
}

/** What the tool call gave, or what it threw; LangGraph's interrupts are thrown on, never admitted. */
async function runTool(run: () => unknown): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (isGraphBubbleUp(error)) throw error;
    return { ok: false, error };
  }
}

/** The raw result of what the tool call gave: a `ToolMessage`'s content (or MCP result), or a value. */
function rawOf(value: unknown): unknown {
  return ToolMessage.isInstance(value) ? rawOfToolMessage(value) : rawOfValue(value);
}

/** The `ToolMessage` the agent keeps for a gated call: the model's content, the verdict as the artifact. */
function gatedMessage(
  toolCall: LangChainToolCallRequest["toolCall"],
  content: ToolMessage["content"],
  outcome: Outcome<unknown, unknown>,
): ToolMessage {
  return new ToolMessage({
    content,
    artifact: gatedArtifact(outcome),
    tool_call_id: toolCall.id ?? "",
    name: toolCall.name,
    status: reportsFailure(outcome) ? "error" : "success",
  });
}

/**
 * The read-back tool as a LangChain tool (`read_tool_result`, with the reader's JSON Schema): each call answers
 * with the page's content for the model and the `ReadBackOutcome` as the artifact, read in the tenant and session
 * `options.context` gives the call, so a spilled result is read back only where it was spilled. `gateMiddleware`
 * adds it itself when given `readBack`; add it to the tools yourself elsewhere (a LangGraph `ToolNode`).
 */
export function readBackTool(reader: ReadBack, options: GateOptions = {}): DynamicStructuredTool {
  const { name, description, inputSchema } = reader.definition;
  return new DynamicStructuredTool({
    name,
    description,
    schema: inputSchema,
    responseFormat: "content_and_artifact",
    func: async (args: unknown, _runManager?: unknown, config?: unknown) => {
      const callId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
      const page = await readBackCall(reader, { tool: name, args, callId }, options);
      return [page.content, page];
    },
  });
}

export { type GatedArtifact, outcomeOf } from "./langchain-content.js";
