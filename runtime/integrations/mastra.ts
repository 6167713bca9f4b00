/**
 * Mastra tools through the gate. Mastra passes a tool's result on to the model as it is (an MCP client's tools get
 * a validator that accepts anything), unless the tool has `toModelOutput`: the hook that turns the result into what
 * the model reads, while the agent's `toolResults`, steps, memory and UI streams keep the result itself and send it
 * on. So a gated tool's `execute` returns only what the model reads (the delimited view, or the typed failure, as
 * {@link MastraModelOutput}), which `toModelOutput` hands on; the application gets the call's one {@link Outcome},
 * `data` included, from `options.onOutcome`, or with {@link outcomeOf} on the result in the process that ran it.
 *
 * The tools are typed structurally; only {@link readBackTool} constructs a Mastra tool, with Mastra's `createTool`.
 */
import { createTool } from "@mastra/core/tools";
import type { Outcome } from "../contract/types.js";
import type { ToolCatalog } from "../gate/context.js";
import type { ReadBack, ReadBackOutcome } from "../read-back/index.js";
import { type ModelPart, RESULT_TAG } from "../stages/model-content.js";
import { parsedResult } from "../stages/receive/parsed-value.js";
import {
  type AnyAdmitContext,
  type AnyToolAdapter,
  adaptersFor,
  catalogKey,
  type GateOptions,
  gateCall,
  readBackCall,
  type ToolCallInfo,
  thrownByTool,
} from "./gate-call.js";

/** The members of a Mastra tool (from `createTool`, or an MCP client's `listTools()`) the gate uses. */
export interface MastraTool {
  id: string;
  execute?: ((input: never, context: never) => Promise<unknown>) | undefined;
  /** Set by Mastra's MCP client: the tool is then `<serverName>_<the server's name for it>`. */
  mcpMetadata?: { serverName: string } | undefined;
}

/** Mastra's request context, as a call's context function may read it (e.g. the turn of this agent run). */
export interface MastraRequestContext {
  get(key: string): unknown;
}

/** One call of a Mastra tool: the framework's call, with the request context of the agent run it belongs to. */
export interface MastraToolCall extends ToolCallInfo {
  requestContext?: MastraRequestContext | undefined;
}

/** {@link GateOptions}, with the call's context as a function of the Mastra call, and where each outcome goes. */
export interface MastraGateOptions extends Omit<GateOptions, "context"> {
  context?: AnyAdmitContext | ((call: MastraToolCall) => AnyAdmitContext | undefined) | undefined;
  /**
   * Called with each gated call's one outcome (`data` included) and the call, before `execute` resolves; a read-back
   * call's outcome is its `ReadBackOutcome`. What it throws is ignored.
   */
  onOutcome?: ((outcome: Outcome<unknown, unknown> | ReadBackOutcome, call: MastraToolCall) => void) | undefined;
}

/** What a tool's `toModelOutput` returns: an AI SDK tool result output, which Mastra puts in the next prompt. */
export type MastraModelOutput =
  | { type: "text"; value: string }
  | {
      type: "content";
      value: Array<
        { type: "text"; text: string } | { type: "image-data" | "file-data"; data: string; mediaType: string }
      >;
    };

/** A gated tool: `execute` resolves to what the model reads, never rejects, and `toModelOutput` hands that on. */
export type GatedMastraTool<T extends MastraTool> = Omit<T, "execute" | "toModelOutput" | "outputSchema"> & {
  execute: (input: unknown, context?: unknown) => Promise<MastraModelOutput>;
  toModelOutput: (output: unknown) => MastraModelOutput;
};

/** The read-back tool as Mastra holds it: `execute` resolves to the page as the model reads it. */
export type MastraReadBackTool = ReturnType<typeof createTool> & {
  toModelOutput: (output: unknown) => MastraModelOutput;
};

/** What Mastra gives a tool's `execute` beside the input, as far as the gate reads it. */
interface MastraExecuteContext {
  toolCallId?: string;
  abortSignal?: AbortSignal;
  requestContext?: MastraRequestContext;
  agent?: { toolCallId?: string };
}

/** The call as the gate reports it, from what Mastra gave `execute`. */
function mastraCall(tool: string, args: unknown, context: unknown): MastraToolCall {
  const ctx = (typeof context === "object" && context !== null ? context : {}) as MastraExecuteContext;
  const callId = ctx.agent?.toolCallId || ctx.toolCallId || undefined;
  return { tool, args, callId, signal: ctx.abortSignal, requestContext: ctx.requestContext };
}

/**
 * The gated content as an AI SDK tool result output: the text alone, or, when media were admitted with the result,
 * the text then each image (`image-data`) or audio clip (`file-data`) with its base64 data.
 */
export function mastraModelOutput(parts: readonly ModelPart[]): MastraModelOutput {
  const [first, ...media] = parts;
  const text = first?.type === "text" ? first.text : "";
  if (media.length === 0) return { type: "text", value: text };
  const value: Extract<MastraModelOutput, { type: "content" }>["value"] = [{ type: "text", text }];
  for (const part of media) {
    if (part.type === "text") value.push(part);
    else
      value.push({
        type: part.type === "image" ? "image-data" : "file-data",
        data: part.data,
        mediaType: part.mimeType,
      });
  }
  return { type: "content", value };
}

/** The outcome behind each output a gated `execute` resolved to, for {@link outcomeOf}; it never travels with it. */
const outcomes = new WeakMap<object, Outcome<unknown, unknown> | ReadBackOutcome>();

/** `output` kept as the rendering of `outcome`, and the application told. */
function rendered(
  output: MastraModelOutput,
  outcome: Outcome<unknown, unknown> | ReadBackOutcome,
  call: MastraToolCall,
  options: MastraGateOptions,
): MastraModelOutput {
  outcomes.set(output, outcome);
  try {
    options.onOutcome?.(outcome, call);
  } catch {
    // The outcome is the application's to read; the model's rendering stands whatever the callback does.
  }
  return output;
}

/**
 * The outcome a gated tool's result stands for, `data` included (a read-back call's: its `ReadBackOutcome`), while
 * the result is the very object `execute` resolved to; `undefined` for anything else, such as a copy Mastra made.
 */
export function outcomeOf(output: unknown): Outcome<unknown, unknown> | ReadBackOutcome | undefined {
  return typeof output === "object" && output !== null ? outcomes.get(output) : undefined;
}

/**
 * Whether `output` has the shape of a rendering a gated `execute` makes (possibly as Mastra copied it between its
 * steps, or read it back from memory), its text opening a delimited result.
 */
function isRendered(output: unknown): output is MastraModelOutput {
  const candidate = output as { type?: unknown; value?: unknown } | null | undefined;
  const delimited = (text: unknown) => typeof text === "string" && text.startsWith(`<${RESULT_TAG} `);
  if (candidate?.type === "text") return delimited(candidate.value);
  if (candidate?.type !== "content" || !Array.isArray(candidate.value)) return false;
  const [first, ...rest] = candidate.value as Array<{ type?: unknown; text?: unknown; data?: unknown }>;
  return (
    first?.type === "text" &&
    delimited(first.text) &&
    rest.every((part) => (part?.type === "image-data" || part?.type === "file-data") && typeof part.data === "string")
  );
}

/**
 * The one other result Mastra hands `toModelOutput`: its own refusal of the model's arguments (`{ error: true,
 * message }`) when they broke the tool's input schema, and the tool never ran. Its message is about the arguments
 * only, so the model reads it, to call again.
 */
function argumentRefusal(output: unknown): string | undefined {
  const refusal = output as { error?: unknown; message?: unknown } | null | undefined;
  return refusal?.error === true && typeof refusal.message === "string" ? refusal.message : undefined;
}

/** What the model reads of a gated tool's result: its rendering, or Mastra's refusal of its arguments. */
function gatedModelOutput(output: unknown): MastraModelOutput {
  if (isRendered(output)) return output;
  return { type: "text", value: argumentRefusal(output) ?? "toolgate: this result did not come through the gate" };
}

/**
 * What the gate admits of one run of a tool: an MCP tool's `CallToolResult` as it is, any other value as an
 * in-process tool's value. A throw is the tool's error (`tool_error`), its message dropped: it was written for the
 * tool's developer, not the model. A timeout or an abort stays what it is, so the gate reports it as such.
 */
async function runOnce(run: () => Promise<unknown>, fromMcp: boolean): Promise<unknown> {
  let value: unknown;
  try {
    value = await run();
  } catch (error) {
    return thrownByTool(error);
  }
  const isCallToolResult = fromMcp && Array.isArray((value as { content?: unknown } | null)?.content);
  return isCallToolResult ? value : parsedResult(value);
}

/** `tool` with its result gated by `adapter`, under the name `name` the catalog knows it by. */
function wrap<T extends MastraTool>(tool: T, name: string, adapter: AnyToolAdapter, options: MastraGateOptions) {
  const run = tool.execute as ((input: unknown, context: unknown) => Promise<unknown>) | undefined;
  if (typeof run !== "function") {
    throw new TypeError(`toolgate: ${JSON.stringify(name)} has no execute, so its result would never be admitted`);
  }
  const fromMcp = tool.mcpMetadata !== undefined;
  const execute = async (input: unknown, context?: unknown): Promise<MastraModelOutput> => {
    const raw = runOnce(() => run.call(tool, input, context), fromMcp);
    const call = mastraCall(name, input, context);
    const { outcome, parts } = await gateCall(adapter, raw, call, options as GateOptions);
    return rendered(mastraModelOutput(parts), outcome, call, options);
  };
  // A copy of the tool (own members and prototype, so Mastra still knows it for its own), without the output
  // schema: the result is now the model's rendering, and the contract is what checks the tool's value.
  const copy = Object.assign(Object.create(Object.getPrototypeOf(tool)), tool, {
    execute,
    toModelOutput: gatedModelOutput,
    outputSchema: undefined,
  });
  return copy as GatedMastraTool<T>;
}

/**
 * The catalog key of a tool's contract, found by its key in the agent's tools, its id, or an MCP tool's name on its
 * server: that last one only under the contract of the server Mastra's MCP client names (`mcpMetadata.serverName`,
 * else `options.server`), so another server's tool of the same name is not taken for it. The tool's key when none.
 */
function catalogName(catalog: ToolCatalog, key: string, tool: MastraTool, options: MastraGateOptions): string {
  const server = tool.mcpMetadata?.serverName;
  const names = [key, tool.id];
  if (server !== undefined && tool.id.startsWith(`${server}_`)) names.push(tool.id.slice(server.length + 1));
  for (const name of names) {
    const found = catalogKey(catalog, name, server ?? options.server);
    if (found !== undefined) return found;
  }
  return key;
}

/**
 * A record of Mastra tools (the agent's `tools`, or what an MCP client's `listTools()` gives) with each tool's
 * result gated by its contract in `catalog`: see {@link gateTool}. A tool the catalog has no contract for is
 * refused (throws `UngatedToolError` naming each), left out, or passed on ungated, as `options.ungated` says. With
 * `options.readBack`, the read-back tool is added under its name, so the model can page through spilled results.
 */
export function gateTools<R extends Record<string, MastraTool>>(
  tools: R,
  catalog: ToolCatalog,
  options: MastraGateOptions = {},
): Record<string, GatedMastraTool<R[keyof R]> | R[keyof R] | MastraReadBackTool> {
  const names = new Map(Object.entries(tools).map(([key, tool]) => [key, catalogName(catalog, key, tool, options)]));
  const adapters = adaptersFor(catalog, [...names.values()], options as GateOptions);
  const gated: Record<string, GatedMastraTool<R[keyof R]> | R[keyof R] | MastraReadBackTool> = {};
  for (const [key, tool] of Object.entries(tools) as Array<[string, R[keyof R]]>) {
    const name = names.get(key) ?? key;
    const adapter = adapters.get(name);
    if (adapter !== undefined) gated[key] = wrap(tool, name, adapter, options);
    else if (options.ungated === "pass") gated[key] = tool;
  }
  if (options.readBack !== undefined) {
    const readName = options.readBack.definition.name;
    if (Object.hasOwn(gated, readName)) throw new TypeError(`toolgate: a tool is already named "${readName}"`);
    gated[readName] = readBackTool(options.readBack, options);
  }
  return gated;
}

/**
 * `tool` (a Mastra tool from `createTool`, or one an MCP client lists) with its result gated by its contract in
 * `catalog` (found by the tool's id, or an MCP tool's name on its server). Its `execute` runs the tool and admits
 * what it returns or throws: it resolves to the model's rendering of the call's one outcome (the delimited view and
 * any admitted media, or the typed failure) and never rejects, so a thrown message never reaches the model, and
 * nothing else of the call is where Mastra keeps and sends tool results. The application reads the outcome, with
 * `data` when `ok`, from `options.onOutcome`, or with {@link outcomeOf} on the result Mastra reports
 * (`result.toolResults[i].payload.result`).
 *
 * A tool without a contract throws `UngatedToolError` (a lone tool has no set to be hidden from), unless
 * `options.ungated` is `"pass"`: then it is returned as it was. Spilled results name the read-back tool when `options.readBack` is given: add
 * {@link readBackTool} to the agent's tools (or use {@link gateTools}, which adds it).
 */
export function gateTool<T extends MastraTool>(
  tool: T,
  catalog: ToolCatalog,
  options?: MastraGateOptions & { ungated?: "refuse" | "hide" | undefined },
): GatedMastraTool<T>;
export function gateTool<T extends MastraTool>(
  tool: T,
  catalog: ToolCatalog,
  options: MastraGateOptions,
): GatedMastraTool<T> | T;
export function gateTool<T extends MastraTool>(
  tool: T,
  catalog: ToolCatalog,
  options: MastraGateOptions = {},
): GatedMastraTool<T> | T {
  const name = catalogName(catalog, tool.id, tool, options);
  const adapter = adaptersFor(catalog, [name], {
    ...options,
    ungated: options.ungated === "pass" ? "pass" : "refuse",
  } as GateOptions).get(name);
  return adapter === undefined ? tool : wrap(tool, name, adapter, options);
}

/**
 * The read-back tool over `reader` as a Mastra tool (named by its definition, `read_tool_result` by default): the
 * model pages through a spilled result with it, in the tenant and session `options.context` gives the call. Its
 * `execute` resolves to the page as the model reads it (or the typed failure), which `toModelOutput` hands on.
 */
export function readBackTool(reader: ReadBack, options: MastraGateOptions = {}): MastraReadBackTool {
  const { name, description, inputSchema } = reader.definition;
  const tool = createTool({
    id: name,
    description,
    inputSchema: inputSchema as Parameters<typeof createTool>[0]["inputSchema"],
    execute: async (input: unknown, context: unknown) => {
      const call = mastraCall(name, input, context);
      const page = await readBackCall(reader, call, options as GateOptions);
      return rendered({ type: "text", value: page.content }, page, call, options);
    },
    toModelOutput: (output: unknown): MastraModelOutput =>
      isRendered(output) ? output : { type: "text", value: argumentRefusal(output) ?? "" },
  });
  return tool as MastraReadBackTool;
}
