/**
 * OpenAI Agents JS (`@openai/agents`): an MCP server whose every tool result is gated before the agent sees it.
 *
 * The SDK turns an MCP server's `callTool` content into the function-call output the model reads (one part as is,
 * several as a list; text and image parts become `input_text` and `input_image`), or, when the server says
 * `useStructuredContent`, the raw `structuredContent` as JSON. The gated server answers `callTool` with the gated
 * model content only and never uses structured content, so the view or the typed failure is all that reaches the
 * model, whatever the wrapped server was set to do.
 *
 * The SDK's MCP client checks `structuredContent` against the output schema the server advertised and throws on a
 * mismatch, before the gate sees the result: that refusal reaches the model as a typed `transport_error` that says a
 * retry will not help (the gate's own `schema_mismatch` is for what the client lets through: a server that
 * advertises no output schema, or another one than the contract's).
 *
 * The SDK's shapes are typed structurally here: nothing in this file imports the SDK, and the types follow the
 * application's own server class.
 */
import { type TransportFailure, transportFailure } from "../contract/failure.js";
import type { Outcome } from "../contract/types.js";
import type { ToolCatalog } from "../gate/context.js";
import type { ModelPart } from "../stages/model-content.js";
import {
  adaptersFor,
  findAdapter,
  type GateOptions,
  gateCall,
  readBackCall,
  reportsFailure,
  type ToolCallInfo,
  UngatedToolError,
} from "./gate-call.js";
import { mcpCallFailure } from "./mcp-validator.js";

/**
 * A tool as an MCP server of the SDK lists it (its `MCPTool`). These shapes say `undefined` in an optional member
 * exactly where the SDK's do, so a gated server is an `MCPServer` under `exactOptionalPropertyTypes` too.
 */
export interface AgentsMcpTool {
  name: string;
  description?: string | undefined;
  inputSchema: {
    type: "object";
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's own type for a JSON Schema's properties.
    properties: Record<string, any>;
    required: string[];
    additionalProperties: boolean;
  };
}

/** The content of a tool result as the SDK's MCP servers return it: MCP content blocks, with the result's flags. */
export type AgentsMcpContent = Array<{ type: string; [key: string]: unknown }> & {
  _meta?: Record<string, unknown>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** A whole MCP `CallToolResult`, as `callToolResult` returns it. */
export interface AgentsMcpCallResult {
  content: Array<{ type: string; [key: string]: unknown }>;
  _meta?: Record<string, unknown>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the SDK passes with a call: the run's abort signal. */
export interface AgentsMcpCallOptions {
  signal?: AbortSignal;
}

/** The part of the SDK's `MCPServer` interface the gate uses; `MCPServerStdio`, `MCPServerStreamableHttp`… have it. */
export interface AgentsMcpServer {
  readonly name: string;
  cacheToolsList: boolean;
  connect(): Promise<void>;
  close(): Promise<void>;
  listTools(): Promise<AgentsMcpTool[]>;
  callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: AgentsMcpCallOptions,
  ): Promise<AgentsMcpContent>;
  callToolResult?(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: AgentsMcpCallOptions,
  ): Promise<AgentsMcpCallResult>;
  invalidateToolsCache(): Promise<void>;
}

/** The wrapped server's settings the gated server hands on as they are (read each time the SDK asks). */
const DELEGATED = [
  "toolMetaResolver",
  "customDataExtractor",
  "toolInputGuardrails",
  "toolOutputGuardrails",
  "errorFunction",
] as const;

/** The SDK's tool filter, of either kind (a static allow and block list, or a function of the run and the tool). */
type ToolFilter =
  | { allowedToolNames?: string[] | undefined; blockedToolNames?: string[] | undefined }
  | ((context: unknown, tool: AgentsMcpTool) => Promise<boolean>);

/**
 * The gated server: the wrapped server's name, cache setting, filter, guardrails, meta resolver and error function,
 * with `listTools` and `callTool` gated, and structured content never shown to the model.
 */
export type GatedMcpServer<S extends AgentsMcpServer = AgentsMcpServer> = AgentsMcpServer &
  Pick<S, Extract<keyof S, (typeof DELEGATED)[number] | "toolFilter">> & {
    readonly useStructuredContent: false;
    callToolResult(
      toolName: string,
      args: Record<string, unknown> | null,
      meta?: Record<string, unknown> | null,
      options?: AgentsMcpCallOptions,
    ): Promise<AgentsMcpCallResult>;
  };

/** Options of {@link gateMcpServer} (and of `gateTools`, for function tools). */
export interface AgentsGateOptions extends GateOptions {
  /**
   * Called with each gated call's outcome, before the model's content goes back to the SDK: where the application
   * takes the validated `data` (the whole value, private fields too, which the model never sees) or the failure.
   * A throw from it is ignored: it never changes what the model reads.
   */
  onOutcome?: ((outcome: Outcome<unknown, unknown>, call: ToolCallInfo) => void) | undefined;
}

/**
 * Wraps any MCP server of the SDK so that every result of its tools is admitted with the tool's adapter from
 * `catalog` before the model reads it: `listTools` lists the tools the catalog gates (a tool without a contract is
 * refused, hidden or passed, as `options.ungated` says; refused means `connect` and `listTools` throw
 * {@link UngatedToolError} naming each one) and, with `options.readBack`, the read-back tool; `callTool` answers with
 * the delimited view or the typed failure only (`toModelParts`: the text, then each admitted image).
 *
 * The application gets each outcome (and so the validated `data`) from `options.onOutcome`, or from the `Turn`
 * given as `options.context: { turn }` (its report has one contribution per call); events go to the context's
 * `sink`. The SDK does not tell an MCP server which run or call a call belongs to: for a turn per run, wrap the
 * connected server per run (wrapping is cheap), or give `context` as a function that finds the run's turn.
 * `connect`, `close`, the name and cache invalidation are the wrapped server's.
 */
export function gateMcpServer<S extends AgentsMcpServer>(
  server: S,
  catalog: ToolCatalog,
  options: AgentsGateOptions = {},
): GatedMcpServer<S> {
  const gated = new GatedServer(server, catalog, options);
  for (const key of DELEGATED) {
    Object.defineProperty(gated, key, { enumerable: true, get: () => (server as Record<string, unknown>)[key] });
  }
  Object.defineProperty(gated, "toolFilter", {
    enumerable: true,
    get: () => keepReadBack((server as { toolFilter?: ToolFilter }).toolFilter, options.readBack?.definition.name),
  });
  return gated as unknown as GatedMcpServer<S>;
}

/** The gate around one server; {@link gateMcpServer} adds the settings it hands on. */
class GatedServer {
  readonly useStructuredContent = false;
  readonly #server: AgentsMcpServer;
  readonly #catalog: ToolCatalog;
  readonly #options: AgentsGateOptions;

  constructor(server: AgentsMcpServer, catalog: ToolCatalog, options: AgentsGateOptions) {
    this.#server = server;
    this.#catalog = catalog;
    this.#options = options;
  }

  get name(): string {
    return this.#server.name;
  }

  get cacheToolsList(): boolean {
    return this.#server.cacheToolsList;
  }

  set cacheToolsList(value: boolean) {
    this.#server.cacheToolsList = value;
  }

  /** Connects the wrapped server; when tools without a contract are refused, lists them once so a refusal comes now. */
  async connect(): Promise<void> {
    await this.#server.connect();
    if ((this.#options.ungated ?? "refuse") !== "refuse") return;
    try {
      await this.listTools();
    } catch (error) {
      await this.#server.close().catch(() => undefined);
      throw error;
    }
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  /** The server a server-side tool name is of: `options.server`, else the name the app gave the wrapped server. */
  #serverName(): string | undefined {
    return this.#options.server ?? this.#server.name;
  }

  invalidateToolsCache(): Promise<void> {
    return this.#server.invalidateToolsCache();
  }

  /** The wrapped server's tools the catalog gates (and the ungated ones under `"pass"`), then the read-back tool. */
  async listTools(): Promise<AgentsMcpTool[]> {
    const tools = await this.#server.listTools();
    const gated = adaptersFor(
      this.#catalog,
      tools.map((tool) => tool.name),
      { ...this.#options, server: this.#serverName() },
    );
    const offered = this.#options.ungated === "pass" ? tools : tools.filter((tool) => gated.has(tool.name));
    const reader = this.#options.readBack;
    if (reader === undefined) return offered;
    const { name, description, inputSchema } = reader.definition;
    return [...offered, { name, description, inputSchema: inputSchema as AgentsMcpTool["inputSchema"] }];
  }

  async callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: AgentsMcpCallOptions,
  ): Promise<AgentsMcpContent> {
    const result = await this.callToolResult(toolName, args, meta, options);
    const content: AgentsMcpContent = result.content;
    // As the SDK's own servers attach a result's flags: beside the blocks, not among them.
    if (result.isError === true) Object.defineProperty(content, "isError", { value: true, configurable: true });
    return content;
  }

  /**
   * One call: the read-back tool answers from the store; a gated tool's result is admitted and answered with the
   * model's content (`isError` on a failure, never `structuredContent`); a tool without a contract is refused
   * (the server is not called) unless `ungated` is `"pass"`.
   */
  async callToolResult(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: AgentsMcpCallOptions,
  ): Promise<AgentsMcpCallResult> {
    const call: ToolCallInfo = { tool: toolName, args: args ?? undefined, signal: options?.signal };
    const reader = this.#options.readBack;
    if (reader !== undefined && toolName === reader.definition.name) {
      const page = await readBackCall(reader, call, this.#options);
      return answer([{ type: "text", text: page.content }], page.ok);
    }
    const adapter = findAdapter(this.#catalog, toolName, this.#serverName());
    if (adapter === undefined) {
      if (this.#options.ungated === "pass") return rawResult(this.#server, toolName, args, meta, options);
      throw new UngatedToolError([toolName]);
    }
    const raw = rawResult(this.#server, toolName, args, meta, options).catch(callFailure);
    const gated = await gateCall(adapter, raw, call, this.#options);
    try {
      this.#options.onOutcome?.(gated.outcome, call);
    } catch {
      // The application's callback never changes what the model reads.
    }
    return answer(modelContent(gated.parts), !reportsFailure(gated.outcome));
  }
}

/** A result with only the model's content, marked as an error when the call failed. */
function answer(content: AgentsMcpCallResult["content"], ok: boolean): AgentsMcpCallResult {
  return ok ? { content } : { content, isError: true };
}

/**
 * The gated parts as the SDK maps MCP content: text, and images (as `input_image`). The SDK has no audio input for
 * a tool's output, so an audio block is left to its `<media …/>` line in the text.
 */
function modelContent(parts: readonly ModelPart[]): AgentsMcpCallResult["content"] {
  return parts.filter((part) => part.type !== "audio").map((part) => ({ ...part }));
}

/** The wrapped server's whole result for a call: `callToolResult` where it has one, else `callTool`'s content. */
async function rawResult(
  server: AgentsMcpServer,
  toolName: string,
  args: Record<string, unknown> | null,
  meta: Record<string, unknown> | null | undefined,
  options: AgentsMcpCallOptions | undefined,
): Promise<AgentsMcpCallResult> {
  if (server.callToolResult !== undefined) return server.callToolResult(toolName, args, meta, options);
  const content = await server.callTool(toolName, args, meta, options);
  const result: AgentsMcpCallResult = { content: [...content] };
  if (content.structuredContent !== undefined) result.structuredContent = content.structuredContent;
  if (content.isError !== undefined) result.isError = content.isError;
  if (content._meta !== undefined) result._meta = content._meta;
  return result;
}

/** What the SDK's MCP client throws when a result breaks the tool's advertised output schema (matched, never kept). */
const OUTPUT_SCHEMA_REFUSED =
  /Structured content does not match the tool's output schema|has an output schema but did not return structured content|Failed to validate structured content/;

/**
 * What to admit when the wrapped server's call threw: the MCP client's refusal of a result that breaks the
 * advertised output schema is a `transport_error` no retry helps (the same call returns the same result); anything
 * else is {@link mcpCallFailure}'s (a timeout, or a `transport_error`).
 */
function callFailure(error: unknown): TransportFailure {
  let message: unknown;
  try {
    message = (error as { message?: unknown } | null)?.message;
  } catch {
    // A hostile error's getter: classified without its message.
  }
  if (typeof message === "string" && OUTPUT_SCHEMA_REFUSED.test(message)) {
    return transportFailure(
      "transport_error",
      "The MCP client refused the result: it breaks the advertised output schema.",
      {
        reason: "output_schema_refused",
        retryable: false,
      },
    );
  }
  return mcpCallFailure(error);
}

/**
 * The wrapped server's tool filter, with the read-back tool let through: a filter written for the server's own tools
 * (an allow list of them) would otherwise take away the tool every spilled result names.
 */
function keepReadBack(filter: ToolFilter | undefined, readTool: string | undefined): ToolFilter | undefined {
  if (filter === undefined || readTool === undefined) return filter;
  if (typeof filter === "function") {
    return (context, tool) => (tool.name === readTool ? Promise.resolve(true) : filter(context, tool));
  }
  const allowed = filter.allowedToolNames;
  if (allowed === undefined || allowed.length === 0 || allowed.includes(readTool)) return filter;
  return { ...filter, allowedToolNames: [...allowed, readTool] };
}
