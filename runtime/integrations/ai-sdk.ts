/**
 * The AI SDK adapter: `gateTools(tools, catalog)` wraps a `ToolSet` so each tool's result is admitted by its
 * contract before the model reads it.
 *
 * The AI SDK hands a tool's `execute` return to the model as JSON (or through `toModelOutput`) without checking it
 * against any schema or bounding it, and a thrown `execute` puts its message before the model. It also sends that
 * return wherever tool results go: to a browser in a UI message stream, and back to the model as JSON when a stored
 * history is converted without the tools (`convertToModelMessages(messages)`). Wrapped, `execute` never throws and
 * resolves to the model's rendering of the call's one `Outcome` only (`toModelParts`: the delimited view with its
 * media, or the typed failure as `error-text`), safe wherever the AI SDK sends it; the application reads the outcome,
 * `data` included, from `options.onOutcome` or `outcomeOf(output)`.
 *
 * The AI SDK's shapes are typed structurally here, and nothing of `ai` is imported (the read-back tool's input schema
 * is a Standard Schema, which the AI SDK takes), so the adapter adds little to a bundle and serves nearby versions.
 */

import type { Outcome } from "../contract/types.js";
import type { ToolAdapter, ToolCatalog } from "../gate/context.js";
import type { ReadBack, ReadBackOutcome } from "../read-back/index.js";
import { parsedResult } from "../stages/receive/parsed-value.js";
import { type AiInputSchema, type AiToolOutput, aiSchema, renderedOutput, shownOutput } from "./ai-sdk-output.js";
import {
  type AnyToolAdapter,
  adaptersFor,
  type GateOptions,
  gateCall,
  readBackCall,
  type ToolCallInfo,
  thrownByTool,
} from "./gate-call.js";

export type { AiContentPart, AiInputSchema, AiToolOutput } from "./ai-sdk-output.js";

/** What the AI SDK passes `execute` besides the input (`ToolExecutionOptions`), as far as the gate reads it. */
export interface AiToolCallOptions {
  toolCallId: string;
  abortSignal?: AbortSignal | undefined;
}

/** An AI SDK tool (`tool()`, `dynamicTool()`, `@ai-sdk/mcp`'s `client.tools()`), as far as the gate reads it. */
export interface AiTool {
  /** A method, so a tool whose `execute` takes the AI SDK's fuller options still fits. */
  // biome-ignore lint/suspicious/noExplicitAny: the tool's own input type, which the wrapped tool keeps.
  execute?(input: any, options: AiToolCallOptions): unknown;
  metadata?: unknown;
}

/** The outcome a tool's calls end in: typed by its contract when the tool's name is the catalog's key for it. */
export type OutcomeOf<C, K> = K extends keyof C
  ? C[K] extends { adapter: ToolAdapter<infer T, infer V, infer _I> }
    ? Outcome<T, V>
    : Outcome<unknown, unknown>
  : Outcome<unknown, unknown>;

/**
 * The members of a gated tool that replace the user's: `execute` resolves to the model's rendering of the outcome,
 * which is what the model reads.
 */
export interface GatedMembers<I> {
  execute(input: I, options: AiToolCallOptions): Promise<AiToolOutput>;
  toModelOutput(options: { output: AiToolOutput }): AiToolOutput;
}

/** Options of {@link gateTools}: the shared {@link GateOptions}, and where the application gets each outcome. */
export interface AiGateOptions extends GateOptions {
  /**
   * Called with each gated call's one outcome (`data` included) and the call, before `execute` resolves; a read-back
   * call's outcome is its `ReadBackOutcome`. What it throws is ignored.
   */
  onOutcome?: ((outcome: Outcome<unknown, unknown> | ReadBackOutcome, call: ToolCallInfo) => void) | undefined;
}

/** The input type of a tool's `execute`. */
type InputOf<T> = T extends { execute?: ((input: infer I, ...rest: never[]) => unknown) | undefined } ? I : unknown;

/**
 * One gated tool: the user's tool (description, input schema, everything else) with the gate's `execute` and
 * `toModelOutput`, and without `outputSchema`, which described the raw value and not the outcome the tool now gives.
 */
export type GatedTool<T> = T extends unknown
  ? Omit<T, "execute" | "toModelOutput" | "outputSchema"> & GatedMembers<InputOf<T>>
  : never;

/** The read-back tool as the model is offered it: it renders the page, or why the read failed. */
export interface ReadBackTool extends GatedMembers<unknown> {
  description: string;
  inputSchema: AiInputSchema;
}

/** The gated tool set: each tool by its name, and the read-back tool when `options.readBack` is given. */
export type GatedToolSet<TOOLS> = { [K in keyof TOOLS]: GatedTool<TOOLS[K]> } & {
  read_tool_result?: ReadBackTool;
};

/**
 * Wraps the AI SDK tools `tools` so every call's result (a value, an MCP `CallToolResult`, a throw or a rejection) is
 * admitted by its tool's adapter in `catalog`, found by the tool's name (or its MCP server name, see `findAdapter`).
 *
 * - `execute` resolves to what the model reads: `{ type: "text" }` with the delimited view, `{ type: "content" }`
 *   with it and each admitted image or audio block, or `{ type: "error-text" }` with the typed failure; and
 *   `toModelOutput` hands that on. Nothing else of the call goes where the AI SDK sends tool results (a UI message
 *   stream, a stored history), so no private field, undeclared property or raw error reaches a browser or, through
 *   a history converted without the tools, the model. A tool's throw is a `tool_error` whose message is never shown
 *   (an abort or a timeout is `timeout` or `transport_error`; so is an MCP tool's throw, the client's own failure).
 * - The application reads the call's `Outcome`, `data` included, from `options.onOutcome`, or with
 *   `outcomeOf(output)` on the output the AI SDK reports (`result.steps[i].toolResults[j].output`, `onStepFinish`'s
 *   `toolResults`), in the process that ran the call.
 * - An `@ai-sdk/mcp` tool's `CallToolResult` is admitted as it is, and so is the `{ content: [...] }` of a tool whose
 *   contract's result kind is `content`; any other tool's value as an in-process value (`parsedResult`). A
 *   streaming `execute` (an async iterable) is admitted by its last value.
 * - With `options.readBack`, the set also holds the read-back tool (`read_tool_result`), and spilled results name it.
 * - A tool without a contract is refused (an `UngatedToolError` naming each), hidden or passed as it is, as
 *   `options.ungated` says. A tool with a contract but no `execute` (answered by the client or the provider) is a
 *   `TypeError`: its result would never pass through the gate.
 *
 * `options.context` (a `Turn`, an event sink, the tenant and session…) is every call's context; as a function it is
 * asked per call, with the AI SDK's `toolCallId` as the call's id.
 */
export function gateTools<TOOLS extends { [name: string]: AiTool }, C extends ToolCatalog>(
  tools: TOOLS,
  catalog: C,
  options: AiGateOptions = {},
): GatedToolSet<TOOLS> {
  const names = Object.keys(tools);
  const adapters = adaptersFor(catalog, names, options);
  const gated = {};
  for (const name of names) {
    const tool = tools[name] as AiTool;
    const adapter = adapters.get(name);
    if (adapter !== undefined) define(gated, name, gateTool(name, tool, adapter, options));
    else if (options.ungated === "pass") define(gated, name, tool);
  }
  if (options.readBack !== undefined) {
    const readName = options.readBack.definition.name;
    if (Object.hasOwn(gated, readName)) {
      throw new TypeError(`toolgate: the tool set already has a tool named ${JSON.stringify(readName)}`);
    }
    define(gated, readName, readBackTool(options.readBack, options));
  }
  return gated as GatedToolSet<TOOLS>;
}

/** Sets a tool as an own property, even one named `__proto__`, as a tool set from a server may name one. */
function define(set: object, name: string, tool: unknown): void {
  Object.defineProperty(set, name, { value: tool, enumerable: true, writable: true, configurable: true });
}

/** The user's tool with the gate's `execute` and `toModelOutput`. */
function gateTool(name: string, tool: AiTool, adapter: AnyToolAdapter, options: AiGateOptions): object {
  const execute = tool.execute;
  if (typeof execute !== "function") {
    throw new TypeError(`toolgate: ${JSON.stringify(name)} has no execute, so its result would never be admitted`);
  }
  const fromMcp = isMcpTool(tool);
  // A `content` contract's result is content blocks (a screenshot), which an in-process tool returns as MCP's.
  const blocks = fromMcp || adapter.spec?.result?.kind === "content";
  const { outputSchema: _described, ...kept } = tool as AiTool & { outputSchema?: unknown };
  return {
    ...kept,
    execute: async (input: unknown, call: AiToolCallOptions) => {
      // A throw, a rejection and an iterable's failure all end in the promise, which the gate admits as a failure.
      const raw = new Promise((resolve) => resolve(execute.call(tool, input, call)))
        .then((value) => (isAsyncIterable(value) ? lastOf(value) : value))
        .then(
          (value) => asRaw(value, blocks),
          (error: unknown) => (fromMcp ? Promise.reject(error) : thrownByTool(error)),
        );
      const info = { tool: name, args: input, callId: call?.toolCallId, signal: call?.abortSignal };
      const { outcome } = await gateCall(adapter, raw, info, options);
      tell(options, outcome, info);
      return renderedOutput(outcome, adapter.name);
    },
    toModelOutput: ({ output }: { output: unknown }) => shownOutput(output, adapter.name),
  };
}

/** The read-back tool in the AI SDK's shape: the model pages through a spilled result by its handle. */
function readBackTool(reader: ReadBack, options: AiGateOptions): ReadBackTool {
  const { name, description, inputSchema } = reader.definition;
  return {
    description,
    inputSchema: aiSchema(inputSchema),
    execute: async (input, call) => {
      const info = { tool: name, args: input, callId: call?.toolCallId, signal: call?.abortSignal };
      const page = await readBackCall(reader, info, options);
      tell(options, page, info);
      return renderedOutput(page, name, true);
    },
    toModelOutput: ({ output }) => shownOutput(output, name),
  };
}

/** Hands the application a call's outcome; the model's rendering stands whatever the callback does. */
function tell(options: AiGateOptions, outcome: Outcome<unknown, unknown> | ReadBackOutcome, call: ToolCallInfo): void {
  try {
    options.onOutcome?.(outcome, call);
  } catch {
    // The outcome is the application's to read.
  }
}

/**
 * Whether `tool` comes from `@ai-sdk/mcp`'s `client.tools()`, which names the client and the server's tool in its
 * `metadata`: its `execute` resolves to the server's `CallToolResult`.
 */
function isMcpTool(tool: AiTool): boolean {
  const metadata = tool.metadata as { clientName?: unknown; toolName?: unknown } | null | undefined;
  return typeof metadata?.clientName === "string" && typeof metadata.toolName === "string";
}

/**
 * What the gate admits of a resolved `execute`: a `CallToolResult` as it is when the tool answers in blocks (an MCP
 * tool, whose client resolves to the structured value instead under `schemas`, or a `content` contract's tool),
 * every other value as an in-process tool's value.
 */
function asRaw(value: unknown, blocks: boolean): unknown {
  const isCallToolResult =
    blocks && typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content);
  return isCallToolResult ? value : parsedResult(value);
}

/** Whether `execute` streams its results (an async generator): the AI SDK's preliminary results, then the last. */
function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === "function";
}

/** The last value a streaming `execute` yields: the AI SDK's final result of it. */
async function lastOf(iterable: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of iterable) last = value;
  return last;
}
