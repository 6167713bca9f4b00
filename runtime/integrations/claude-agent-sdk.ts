/**
 * The Claude Agent SDK adapter: `gateHooks(catalog, { servers })` is the `hooks` option of `query()`, whose
 * `PostToolUse` hook admits each result of the named MCP servers' tools by its contract and replaces the output the
 * model reads with the gated content (`updatedMCPToolOutput`); `gateSdkTools(catalog, tools)` gates the tools of an
 * in-process server (`createSdkMcpServer`) in their handlers; `readBackServer(reader)` (in
 * `claude-agent-sdk-read-back.ts`) serves the read-back tool.
 *
 * Claude Code runs the loop in its own process and calls each hook with the tool's output as it read it: a result
 * with `structuredContent` as that value's JSON text (its text blocks left out), else one text block as its text and
 * several as the block array; that is what the contract admits. A hook that fails blocks the call
 * (`onFailure: "block"`) rather than let its raw output through. A tool error (`isError`) ends in
 * `PostToolUseFailure`, whose output cannot replace what the model reads: the hook records its outcome, but the
 * model reads the error's own text. Tools gated in their handlers (`gateSdkTools`) give the model the typed failure
 * for an error too.
 *
 * The application gets each outcome, `data` included, from `options.onOutcome`, and through `options.context` (a
 * `Turn`, an event sink) as every gated call does. The SDK's shapes are typed structurally: this file imports
 * nothing of it.
 */

import type { Outcome } from "../contract/types.js";
import type { ToolCatalog } from "../gate/context.js";
import { type ModelPart, toModelRefusal } from "../stages/model-content.js";
import {
  type AnyToolAdapter,
  adaptersFor,
  findAdapter,
  type GateOptions,
  gateCall,
  reportsFailure,
  type ToolCallInfo,
} from "./gate-call.js";

/** Options of {@link gateHooks} and {@link gateSdkTools}. */
export interface ClaudeGateOptions extends GateOptions {
  /** Called with each call's one outcome (`data` included) and the call, once the model's content is made. */
  onOutcome?: ((outcome: Outcome<unknown, unknown>, call: ToolCallInfo) => void) | undefined;
}

/** Options of {@link gateHooks}: which MCP servers' tools it gates, by the names given in `mcpServers`. */
export interface ClaudeHookOptions extends ClaudeGateOptions {
  /**
   * The servers whose tools are gated (keys of `query()`'s `mcpServers`); others, built-in tools, the read-back
   * server and servers gated in process by {@link gateSdkTools}, are left alone.
   */
  servers: readonly string[];
}

/** What a hook returns, as far as the gate writes it (a `SyncHookJSONOutput`). */
export interface GateHookOutput {
  hookSpecificOutput?: {
    hookEventName: "PostToolUse";
    /** The SDK's field for an MCP tool's output, and its newer one for any tool's: both hold the same content. */
    updatedMCPToolOutput: ModelPart[];
    updatedToolOutput: ModelPart[];
  };
}

/** A hook callback of the SDK (`HookCallback`): it takes every event's input, and reads the two it is matched to. */
export type GateHook = (
  input: { hook_event_name: string },
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<GateHookOutput>;

/** One `HookCallbackMatcher`: a pattern of tool names, and the hook. */
export interface GateHookMatcher {
  matcher: string;
  hooks: GateHook[];
  /** `"block"`: a hook that fails or times out blocks the call, so its raw output never reaches the model. */
  onFailure: "block";
}

/** The `hooks` option value: spread it beside the application's own hooks. */
export interface GateHooks {
  PostToolUse: GateHookMatcher[];
  PostToolUseFailure: GateHookMatcher[];
}

/** `PostToolUseHookInput` and `PostToolUseFailureHookInput`, as far as the gate reads them. */
interface ToolHookInput {
  hook_event_name: string;
  tool_name: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  error?: string;
  is_interrupt?: boolean;
}

/** A server's name as Claude Code spells it in its tools' names (`mcp__<server>__<tool>`). */
function normalized(server: string): string {
  return server.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * The hooks that gate every tool of `options.servers`:
 * - `PostToolUse` admits the tool's output by the contract of the tool the server calls by that name (the catalog
 *   key, or `spec.mcp.name` of an imported tool) and replaces it with the gated content: the view, a spill's handle
 *   naming the read-back tool, or the typed failure of a result the contract refuses;
 * - `PostToolUseFailure` records the outcome of a tool error (`tool_error`) or an interrupted call, for the turn,
 *   events and `onOutcome`; the SDK lets no hook replace what the model reads of a failed call.
 *
 * A tool of those servers without a contract: with `ungated: "refuse"` (the default) or `"hide"`, its output is
 * replaced by a refusal (`error="no_contract"`; hooks cannot take a tool from the model, `disallowedTools` can);
 * with `"pass"` it reaches the model as it was.
 */
export function gateHooks(catalog: ToolCatalog, options: ClaudeHookOptions): GateHooks {
  const prefixes = options.servers.map((server) => `mcp__${normalized(server)}__`).sort((a, b) => b.length - a.length);
  // A normalized name holds no character a regular expression reads specially.
  const matcher = `^(${prefixes.join("|")})`;
  const serverOf = new Map(options.servers.map((server) => [`mcp__${normalized(server)}__`, server]));
  /** The server-side name of a gated server's tool and the server it is of, or undefined for any other tool. */
  const toolOf = (name: string): { tool: string; server: string | undefined } | undefined => {
    const prefix = prefixes.find((p) => name.startsWith(p) && name.length > p.length);
    return prefix === undefined ? undefined : { tool: name.slice(prefix.length), server: serverOf.get(prefix) };
  };
  const admit = async (input: ToolHookInput, signal: AbortSignal, raw: (i: ToolHookInput) => unknown) => {
    const named = toolOf(input.tool_name);
    const tool = named?.tool;
    if (named === undefined || tool === undefined) return { tool };
    // The server is the one `mcp__<server>__` names: a server-side name finds that server's contract only.
    const adapter = findAdapter(catalog, tool, named.server);
    if (adapter === undefined) return { tool };
    const call: ToolCallInfo = { tool, args: input.tool_input, callId: input.tool_use_id, signal };
    const gated = await gateCall(adapter, raw(input), call, options);
    reportOutcome(options, gated.outcome, call);
    return { tool, parts: gated.parts };
  };
  const post: GateHook = async (input, _id, { signal }) => {
    if (input.hook_event_name !== "PostToolUse") return {};
    const { tool, parts } = await admit(input as ToolHookInput, signal, (i) => callResult(i.tool_response));
    if (parts !== undefined) return replaced(parts);
    if (tool === undefined || options.ungated === "pass") return {};
    return replaced([{ type: "text", text: toModelRefusal(tool, "no_contract") }]);
  };
  const failure: GateHook = async (input, _id, { signal }) => {
    if (input.hook_event_name === "PostToolUseFailure") await admit(input as ToolHookInput, signal, failedCall);
    return {};
  };
  return {
    PostToolUse: prefixes.length === 0 ? [] : [{ matcher, hooks: [post], onFailure: "block" }],
    PostToolUseFailure: prefixes.length === 0 ? [] : [{ matcher, hooks: [failure], onFailure: "block" }],
  };
}

/** Hands the application the outcome; its callback's failure must not turn a gated call into an ungated one. */
function reportOutcome(options: ClaudeGateOptions, outcome: Outcome<unknown, unknown>, call: ToolCallInfo): void {
  try {
    options.onOutcome?.(outcome, call);
  } catch {
    // The outcome is the application's to read; the model's content stands whatever the callback does.
  }
}

/** The hook's `tool_response` as the gate admits it: a text (a structured value's JSON, or one text block) as is. */
function callResult(response: unknown): unknown {
  return Array.isArray(response) ? { content: response } : response;
}

/** A failed call as the gate admits it: the error's text as an MCP error result, an interrupt as a transport error. */
function failedCall(input: ToolHookInput): unknown {
  if (input.is_interrupt === true) return Promise.reject(new Error("the call was interrupted"));
  return { content: [{ type: "text", text: String(input.error ?? "") }], isError: true };
}

function replaced(parts: ModelPart[]): GateHookOutput {
  return {
    hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: parts, updatedToolOutput: parts },
  };
}

/** A tool of `createSdkMcpServer` (what the SDK's `tool()` returns), as far as the gate reads it. */
export interface SdkToolLike {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tool's own argument type, which the gated tool keeps.
  handler: (args: any, extra: unknown) => Promise<unknown>;
}

/** What the MCP server passes a handler besides the arguments, as far as the gate reads it. */
interface HandlerExtra {
  signal?: AbortSignal;
  _meta?: Record<string, unknown>;
}

/**
 * The `tools` of `createSdkMcpServer`, each gated in its handler: the handler's result (or its throw) is admitted by
 * the tool's contract, and the server answers with the gated content, a failure as an error result holding only the
 * typed failure. A tool without a contract throws `UngatedToolError`, is left out (`"hide"`) or kept ungated
 * (`"pass"`), as `options.ungated` says. Leave this server out of {@link gateHooks}' `servers`.
 */
export function gateSdkTools<T extends SdkToolLike>(
  catalog: ToolCatalog,
  tools: readonly T[],
  options: ClaudeGateOptions = {},
): T[] {
  const adapters = adaptersFor(
    catalog,
    tools.map((t) => t.name),
    options,
  );
  const gated: T[] = [];
  for (const tool of tools) {
    const adapter = adapters.get(tool.name);
    if (adapter !== undefined) gated.push({ ...tool, handler: gatedHandler(tool, adapter, options) });
    else if (options.ungated === "pass") gated.push(tool);
  }
  return gated;
}

function gatedHandler(tool: SdkToolLike, adapter: AnyToolAdapter, options: ClaudeGateOptions): SdkToolLike["handler"] {
  return async (args, extra) => {
    const { signal, _meta } = (extra ?? {}) as HandlerExtra;
    const callId = _meta?.["claudecode/toolUseId"];
    const call: ToolCallInfo = {
      tool: tool.name,
      args,
      signal,
      callId: typeof callId === "string" ? callId : undefined,
    };
    const raw = Promise.resolve().then(() => tool.handler(args, extra));
    const { outcome, parts } = await gateCall(adapter, raw, call, options);
    reportOutcome(options, outcome, call);
    return reportsFailure(outcome) ? { content: parts, isError: true } : { content: parts };
  };
}
