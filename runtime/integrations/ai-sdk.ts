/**
 * The AI SDK adapter: `gateTools(tools, catalog)` wraps a `ToolSet` so each tool's result is admitted by its
 * contract before the model reads it.
 *
 * The AI SDK hands a tool's `execute` return to the model as JSON (or through `toModelOutput`) without checking it
 * against any schema or bounding it, and a thrown `execute` puts its message before the model. Wrapped, `execute`
 * resolves to the call's one `Outcome` (what `steps`, `toolResults` and `onStepFinish` give the application, `data`
 * included), never throws, and `toModelOutput` gives the model only what `toModelParts` renders of it: the delimited
 * view (with media), or the typed failure as `error-text`.
 *
 * The AI SDK's shapes are typed structurally here, and nothing of `ai` is imported (the read-back tool's input schema
 * is a Standard Schema, which the AI SDK takes), so the adapter adds little to a bundle and serves nearby versions.
 */
import type { ToolAdapter, ToolCatalog } from "../gate/context.js";
import type { ReadBack, ReadBackOutcome } from "../read-back/index.js";
import { parsedResult } from "../stages/receive/parsed-value.js";
import type { Outcome } from "../types.js";
import { type AiInputSchema, type AiToolOutput, aiSchema, gatedOutput, readBackOutput } from "./ai-sdk-output.js";
import {
  type AnyToolAdapter,
  adaptersFor,
  type GateOptions,
  gateCall,
  readBackCall,
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

/** The members of a gated tool that replace the user's: `execute` resolves to the outcome, the model reads its view. */
export interface GatedMembers<I, O> {
  execute(input: I, options: AiToolCallOptions): Promise<O>;
  toModelOutput(options: { output: O }): AiToolOutput;
}

/** The input type of a tool's `execute`. */
type InputOf<T> = T extends { execute?: ((input: infer I, ...rest: never[]) => unknown) | undefined } ? I : unknown;

/**
 * One gated tool: the user's tool (description, input schema, everything else) with the gate's `execute` and
 * `toModelOutput`, and without `outputSchema`, which described the raw value and not the outcome the tool now gives.
 */
export type GatedTool<T, O> = T extends unknown
  ? Omit<T, "execute" | "toModelOutput" | "outputSchema"> & GatedMembers<InputOf<T>, O>
  : never;

/** The read-back tool as the model is offered it: its outcome is the page, or why the read failed. */
export interface ReadBackTool extends GatedMembers<unknown, ReadBackOutcome> {
  description: string;
  inputSchema: AiInputSchema;
}

/** The gated tool set: each tool by its name, and the read-back tool when `options.readBack` is given. */
export type GatedToolSet<TOOLS, C> = { [K in keyof TOOLS]: GatedTool<TOOLS[K], OutcomeOf<C, K>> } & {
  read_tool_result?: ReadBackTool;
};

/**
 * Wraps the AI SDK tools `tools` so every call's result (a value, an MCP `CallToolResult`, a throw or a rejection) is
 * admitted by its tool's adapter in `catalog`, found by the tool's name (or its MCP server name, see `findAdapter`).
 *
 * - `execute` resolves to the call's `Outcome`: the application reads `data` from the tool result the AI SDK reports
 *   (`result.steps[i].toolResults[j].output`, `onStepFinish`'s `toolResults`, the UI message's tool part), and it
 *   is the only thing an `execute` resolves to. A tool's throw is a `tool_error` whose message is never shown (an
 *   abort or a timeout is `timeout` or `transport_error`; so is an MCP tool's throw, the client's own failure).
 *   The outcome goes wherever the AI SDK sends tool results: an app that streams UI messages to a browser sends
 *   `data` there too, unless it filters the tool parts it streams.
 * - `toModelOutput` gives the model `{ type: "text" }` with the delimited view, `{ type: "content" }` with it and
 *   each admitted image or audio block, or `{ type: "error-text" }` with the typed failure.
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
  options: GateOptions = {},
): GatedToolSet<TOOLS, C> {
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
  return gated as GatedToolSet<TOOLS, C>;
}

/** Sets a tool as an own property, even one named `__proto__`, as a tool set from a server may name one. */
function define(set: object, name: string, tool: unknown): void {
  Object.defineProperty(set, name, { value: tool, enumerable: true, writable: true, configurable: true });
}

/** The user's tool with the gate's `execute` and `toModelOutput`. */
function gateTool(name: string, tool: AiTool, adapter: AnyToolAdapter, options: GateOptions): object {
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
      return (await gateCall(adapter, raw, info, options)).outcome;
    },
    toModelOutput: ({ output }: { output: unknown }) => gatedOutput(output, adapter.name),
  };
}

/** The read-back tool in the AI SDK's shape: the model pages through a spilled result by its handle. */
function readBackTool(reader: ReadBack, options: GateOptions): ReadBackTool {
  const { name, description, inputSchema } = reader.definition;
  return {
    description,
    inputSchema: aiSchema(inputSchema),
    execute: (input, call) =>
      readBackCall(reader, { tool: name, args: input, callId: call?.toolCallId, signal: call?.abortSignal }, options),
    toModelOutput: ({ output }) => readBackOutput(output, name),
  };
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
