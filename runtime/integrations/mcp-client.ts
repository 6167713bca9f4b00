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
 * A server of the 2026-07-28 revision may answer a call with a request for input (`resultType: "input_required"`)
 * instead of the tool's result. By default the v2 client fulfils it itself with the handlers the application set on
 * the client (`elicitation/create`, `sampling/createMessage`, `roots/list`) and retries, so the gate sees only the
 * complete result and admits it once. A call made with the client's `allowInputRequired: true` gets the request back
 * instead: `callTool` then answers `gate: "input_required"` with the request cleaned and bounded
 * ({@link InputRequired}), admits nothing and records no event; the application asks its user and retries the call
 * with `inputResponses` and the `requestState`, and that call's complete result is admitted, once. Only a complete
 * result is ever admitted as the tool's result: a task or anything else the gate refuses by name at receive.
 *
 * A call made with `task` (the 2025-11-25 revision's task-augmented call, sent through the client's raw `request`)
 * answers `gate: "task"` with the task's state, cleaned; `taskResult(taskId)` fetches its result (`tasks/result`)
 * and admits it by the tool's contract, once per task.
 *
 * Nothing here imports the SDK: the client is typed structurally, so one adapter serves nearby versions.
 */

import type { Outcome } from "../contract/types.js";
import type { ToolCatalog } from "../gate/context.js";
import type { ReadBackOutcome } from "../read-back/index.js";
import { type ModelPart, toModelRefusal } from "../stages/model-content.js";
import { adaptersFor, findAdapter, type GateOptions, gateCall, readBackCall, reportsFailure } from "./gate-call.js";
import { mcpClientCallFailure } from "./mcp-client-failure.js";
import { ANY_RESULT, ClientTasks, field, type TaskState, taskStateOf } from "./mcp-client-tasks.js";
import { type InputRequired, inputRequiredOf } from "./mcp-input-request.js";

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
  /** The client hands a request for input back instead of fulfilling it (2026-07-28): see {@link GatedToolResult}. */
  allowInputRequired?: boolean | undefined;
}

/** The part of the v2 `Client` the gate uses. */
export interface McpClientLike {
  callTool(params: McpCallParams, options?: McpCallOptions): Promise<unknown>;
  /** The client's raw request, for task-augmented calls and `tasks/result` (the v2 `Client.request`). */
  request?(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: typeof ANY_RESULT,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<unknown>;
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
 * - `"input_required"`: the server asks for input before it answers (only for a call made with
 *   `allowInputRequired: true`): `input` is its request, cleaned and bounded, with the `requestState` to send back;
 *   nothing was admitted and `content` is empty (nothing for the model): the application asks its user, then retries
 *   the call with `inputResponses` and `requestState`;
 * - `"task"`: a call made with `task` that the server runs as a task: `task` is its state, cleaned; nothing was
 *   admitted and `content` is empty: the result comes from `taskResult(task.taskId)`, admitted there;
 * - `"refused"`: a tool the catalog has no contract for, refused without calling the server (or a task this client
 *   did not start);
 * - `"passed"`: such a tool passed ungated (`ungated: "pass"`): `result` is the client's own, unchanged.
 */
export type GatedToolResult<R = unknown> =
  | { gate: "admitted"; outcome: Outcome<unknown, unknown>; content: ModelPart[]; isError: boolean }
  | { gate: "read_back"; page: ReadBackOutcome; content: TextPart[]; isError: boolean }
  | { gate: "input_required"; tool: string; input: InputRequired; content: TextPart[]; isError: false }
  | { gate: "task"; tool: string; task: TaskState; content: TextPart[]; isError: false }
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
  /**
   * The result of a task this client started (`tasks/result`), admitted by its tool's contract: the first fetch
   * admits it, a later one gets the same answer; a task this client did not start is refused.
   */
  taskResult(
    taskId: string,
    options?: { signal?: AbortSignal | undefined },
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

/** Whether the client's answer is a request for input (`resultType: "input_required"`); its getter read once. */
function isInputRequired(answer: unknown): answer is object {
  try {
    return (
      typeof answer === "object" &&
      answer !== null &&
      (answer as { resultType?: unknown }).resultType === "input_required"
    );
  } catch {
    return false;
  }
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
  type Answer = GatedToolResult<Awaited<ReturnType<C["callTool"]>>>;
  const tasks = new ClientTasks<Answer>();

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
    if (params.task !== undefined) return startTask(adapter, { ...params, name }, call);
    const definition = callOptions?.toolDefinition ?? listed.get(name);
    const sent =
      definition === undefined ? callOptions : { ...callOptions, toolDefinition: withoutOutputSchema(definition) };
    let raw: Promise<unknown> = client.callTool({ ...params, name }, sent).catch(mcpClientCallFailure);
    if (callOptions?.allowInputRequired === true) {
      // Only this call can answer a request for input: it is told apart before the gate, which admits results only.
      const answer = await raw;
      if (isInputRequired(answer)) {
        return {
          gate: "input_required",
          tool: params.name,
          input: inputRequiredOf(answer),
          content: [],
          isError: false,
        };
      }
      raw = Promise.resolve(answer);
    }
    const gated = await gateCall(adapter, raw, call, options);
    return { gate: "admitted", outcome: gated.outcome, content: gated.parts, isError: reportsFailure(gated.outcome) };
  };

  /** A task-augmented call: the task's state, or the server's direct answer admitted. */
  const startTask = async (
    adapter: Parameters<typeof gateCall>[0],
    params: McpCallParams,
    call: { tool: string; args: unknown; signal: AbortSignal | undefined },
  ): Promise<Answer> => {
    if (client.request === undefined) throw new TypeError("a task-augmented call needs the client's request method");
    const answer = await client
      .request({ method: "tools/call", params }, ANY_RESULT, { signal: call.signal })
      .catch(mcpClientCallFailure);
    const task = taskStateOf(field(answer, "task"));
    if (task !== undefined) {
      tasks.add(task.taskId, { adapter, tool: call.tool, args: call.args });
      return { gate: "task", tool: call.tool, task, content: [], isError: false };
    }
    const gated = await gateCall(adapter, Promise.resolve(answer), call, options);
    return { gate: "admitted", outcome: gated.outcome, content: gated.parts, isError: !gated.outcome.ok };
  };

  const taskResult = async (taskId: string, fetchOptions?: { signal?: AbortSignal | undefined }): Promise<Answer> => {
    const task = tasks.get(taskId);
    if (task === undefined || client.request === undefined) return refusal("tasks/result");
    const request = client.request.bind(client);
    task.answer ??= (async (): Promise<Answer> => {
      const call = { tool: task.tool, args: task.args, signal: fetchOptions?.signal };
      const raw = request({ method: "tasks/result", params: { taskId } }, ANY_RESULT, { signal: call.signal }).catch(
        mcpClientCallFailure,
      );
      const gated = await gateCall(task.adapter, raw, call, options);
      return { gate: "admitted", outcome: gated.outcome, content: gated.parts, isError: !gated.outcome.ok };
    })();
    return task.answer;
  };

  return { client, listTools, callTool, taskResult };
}
