/**
 * The proxy between a host and a server, built on the MCP SDK: an SDK `Client` talks to the server, an SDK
 * `Server` to the host. `tools/list` lists each gated tool the server offers as its contract defines it (title,
 * description, input schema, annotations), with the schema of its view (what the host receives) as its output
 * schema, plus the read-back tool; `tools/call` checks the arguments against the contract's input schema, then
 * admits the server's result with the tool's adapter and answers with the model content and, as
 * `structuredContent`, the view. Every other method passes only by the allow-list of `forwarding.ts`, cleaned and
 * bounded. The full validated value never leaves the proxy except through the read-back tool.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  boundText,
  cleanText,
  type EventSink,
  type InputIssue,
  MemoryTurnStore,
  markupSafeJson,
  mcpCallFailure,
  type Outcome,
  type ReadBack,
  type ToolAdapter,
  Turn,
  toModelParts,
  toModelRefusal,
  transportFailure,
} from "@toolgate/runtime";
import { awaitInitialize } from "./first-message.js";
import { forwardAllowed, progressTo, proxyCapabilities } from "./forwarding.js";
import { hostInstructions, hostText, LABEL_MAX_CHARS } from "./hygiene.js";
import type { ServerHello } from "./sessions.js";
import { readsResourceLinks, serveSpillResources, spillLink } from "./spill-resources.js";
import { type GateTaskResult, hostTask, serveTasks, TaskLedger } from "./tasks.js";
import type { ProxyTelemetry, ToolCallTrace } from "./telemetry.js";
import { claimCall, SessionTurns, spend, type TurnSettings } from "./turns.js";
import { MESSAGE_TOO_LARGE } from "./upstream.js";

/** One tool the proxy gates: its adapter, the JSON Schema of its view, and its definition as the contract has it. */
export interface ProxyTool {
  // biome-ignore lint/suspicious/noExplicitAny: any tool's adapter; the proxy only admits and renders.
  adapter: ToolAdapter<any, any, any>;
  viewSchema: Record<string, unknown>;
  /** What the host is told of the tool in place of what the server lists now. */
  definition: {
    title?: string | undefined;
    description?: string | undefined;
    inputSchema?: Record<string, unknown> | undefined;
    annotations?: Record<string, unknown> | undefined;
  };
}

/** What the proxy serves. */
export interface ProxyOptions {
  /** The gated tool the server calls `name`, or undefined when it has no contract. */
  findTool(name: string): ProxyTool | undefined;
  /** The server: `UpstreamTransport` (stdio) or the SDK's Streamable HTTP client transport. */
  upstream: Transport;
  /** The host: the SDK's stdio or Streamable HTTP server transport. */
  host: Transport;
  /**
   * Tools whose contract the generator refused: hidden from `tools/list` and refused by name when called, even with
   * `allowUngated` (a refused contract is no permission to pass the tool's answers through ungated).
   */
  refused?: Pick<ReadonlySet<string>, "has"> | undefined;
  /** Serve tools without a contract (their text cleaned and bounded) instead of hiding them. */
  allowUngated?: boolean | undefined;
  /**
   * Observe mode for every call (`--observe`): each result is admitted and its event records what enforcement
   * would have done, and the host gets the server's answer and listing as the server sent them. Without it, a
   * contract's own `x-toolgate.mode` decides.
   */
  observe?: boolean | undefined;
  /** The read-back tool over the store spilled results go to; offered to the host when given. */
  readBack?: ReadBack | undefined;
  sink?: EventSink | undefined;
  /** OpenTelemetry spans and metrics of each `tools/call` (`--otel`), by the MCP semantic conventions. */
  telemetry?: ProxyTelemetry | undefined;
  /**
   * Subscribes to changes of the gated tools (a reloaded catalog), returning the unsubscribe: the proxy then
   * declares `tools.listChanged` and tells the host `notifications/tools/list_changed` at each change.
   */
  toolsChanged?: ((listener: () => void) => () => void) | undefined;
  /** One line for the proxy's log (stderr): what it hides, and why it stops. */
  log(line: string): void;
  /**
   * A host session another replica opened (`--redis`): `upstream` already carries the server's session id, so the
   * server is not initialized again; what it said then is served on, and spills are read back under the same id.
   */
  resume?: { server: ServerHello; readBack: string } | undefined;
  /** How calls are counted in turns (`turns.ts`): without it, a turn only where a host names one, in memory. */
  turns?: TurnSettings | undefined;
}

/** A running proxy. */
export interface RunningProxy {
  /** Settles when either side closes; the proxy is then closed. */
  closed: Promise<{ by: "host" | "server" }>;
  close(): Promise<void>;
  /** What another replica needs to serve this session on: what the server said, and the read-back session. */
  shared: { server: ServerHello; readBack: string };
}

const CLIENT_INFO = { name: "toolgate-proxy", version: "1" };

type Sdk = typeof import("@modelcontextprotocol/sdk/types.js");

/** What every handler of one proxy shares. */
interface Session {
  client: Client;
  options: ProxyOptions;
  /** The id spilled results are read back under: one host session. */
  id: string;
  types: Sdk;
  /** Whether a spilled result also carries a `resource_link` (the host's protocol knows it). */
  links: boolean;
  /** The protocol version the host asked for in its `initialize`. */
  protocolVersion: string | undefined;
  /** The tasks this host session created, when the proxy serves tasks (the server runs calls as tasks). */
  tasks: TaskLedger | undefined;
  /** The session's turns, where its calls' re-calls and context are counted. */
  turns: SessionTurns;
}

/** What a `tools/call` handler is given of the request (the SDK's `CallToolRequest`). */
interface ToolCall {
  params: {
    name: string;
    arguments?: Record<string, unknown>;
    _meta?: { progressToken?: string | number };
    task?: { ttl?: number };
  };
}

/** What a handler is given of its call (the SDK's `RequestHandlerExtra`). */
interface CallExtra {
  signal: AbortSignal;
  requestId: string | number;
  sendNotification(notification: never): Promise<void>;
}

/**
 * Waits for the host's `initialize`, connects to the server with the host's capabilities, then serves the host;
 * resolves once both are connected.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const [{ Client }, { Server }, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const hello = await awaitInitialize(options.host);
  // What the server may ask of the host: what the host said it can answer, forwarded to it.
  const { sampling, elicitation, roots } = hello.capabilities;
  const client: Client = new Client(CLIENT_INFO, {
    capabilities: {
      ...(sampling === undefined ? {} : { sampling }),
      ...(elicitation === undefined ? {} : { elicitation }),
      ...(roots === undefined ? {} : { roots }),
    },
  });
  await client.connect(options.upstream);
  const said: ServerHello = options.resume?.server ?? {
    capabilities: client.getServerCapabilities() ?? {},
    serverInfo: client.getServerVersion(),
    instructions: client.getInstructions(),
  };
  const serverCapabilities = said.capabilities as ReturnType<Client["getServerCapabilities"]> & object;
  const capabilities = proxyCapabilities(serverCapabilities, options.readBack !== undefined);
  if (options.toolsChanged !== undefined) capabilities.tools = { ...capabilities.tools, listChanged: true };
  // The server's instructions are no contract's, but they say how its tools fit together: passed cleaned and bounded.
  const instructions = hostInstructions(said.instructions);
  const server: Server = new Server(serverInfo(said.serverInfo), {
    capabilities,
    ...(instructions === undefined ? {} : { instructions }),
  });
  const links = options.readBack !== undefined && readsResourceLinks(hello.protocolVersion);
  const tasks = capabilities.tasks === undefined ? undefined : new TaskLedger();
  const id = options.resume?.readBack ?? randomUUID();
  const turns = new SessionTurns(options.turns ?? { store: new MemoryTurnStore(), scope: "named" }, id);
  const session: Session = { client, options, id, types, links, tasks, turns, protocolVersion: hello.protocolVersion };
  if (options.readBack !== undefined) {
    serveSpillResources(server, client, serverCapabilities, options.readBack, session.id, types);
  }
  server.setRequestHandler(types.ListToolsRequestSchema, listTools(session, serverCapabilities.tools !== undefined));
  // The calls under way: when the server goes, each still answers the host (with its typed failure) before the
  // proxy closes.
  const inFlight = new Set<Promise<unknown>>();
  server.setRequestHandler(types.CallToolRequestSchema, (request, extra) => {
    const trace = options.telemetry?.toolCall({
      name: request.params.name,
      meta: request.params._meta,
      session: session.id,
      protocolVersion: session.protocolVersion,
    });
    const answer = callTool(session, request, extra, trace);
    // A call that ended without a verdict of the gate's (a refusal, an ungated answer, a throw) ends its span here.
    if (trace !== undefined)
      void answer.then(
        (result) => trace.end(undefined, refusalCode(result)),
        () => trace.end(undefined, "_OTHER"),
      );
    inFlight.add(answer);
    void answer.finally(() => inFlight.delete(answer)).catch(() => undefined);
    return answer;
  });
  if (tasks !== undefined) serveTasks(server, client, types, tasks, gateTaskResult(session));
  forwardAllowed(server, client, types, capabilities, options.log);
  const running = lifecycle(server, client, inFlight);
  await server.connect(hello.transport);
  const unsubscribe = options.toolsChanged?.(() => void server.sendToolListChanged().catch(() => undefined));
  if (unsubscribe !== undefined) void running.closed.then(unsubscribe);
  return { ...running, shared: { server: said, readBack: session.id } };
}

/** `tools/list`: the server's page, each gated tool with its view's schema, then the read-back tool. */
function listTools(session: Session, serverHasTools: boolean) {
  const { client, options } = session;
  const hidden = new Set<string>();
  return async (request: { params?: { cursor?: string } }, extra: { signal: AbortSignal }) => {
    const page = serverHasTools
      ? await client.listTools(request.params, { signal: extra.signal })
      : { tools: [] as Tool[] };
    const tools: Tool[] = [];
    for (const tool of page.tools) {
      if (tool.name === options.readBack?.definition.name) continue;
      const gated = options.findTool(tool.name);
      if (options.refused?.has(tool.name)) {
        if (!hidden.has(tool.name)) {
          hidden.add(tool.name);
          options.log(`toolgate proxy: hiding ${JSON.stringify(tool.name)}: its contract is refused`);
        }
      } else if (gated !== undefined) {
        // Observed, the host gets the server's answers as they are: it is told of the tool as the server tells it.
        tools.push(observing(options, gated) ? tool : contractTool(tool.name, gated));
      } else if (options.allowUngated) tools.push(ungatedTool(tool));
      else if (!hidden.has(tool.name)) {
        hidden.add(tool.name);
        options.log(`toolgate proxy: hiding ${JSON.stringify(tool.name)}: no contract (--allow-ungated serves it)`);
      }
    }
    if (options.readBack !== undefined && request.params?.cursor === undefined) {
      tools.push(options.readBack.definition as unknown as Tool);
    }
    return { tools, ...(typeof page.nextCursor === "string" ? { nextCursor: page.nextCursor } : {}) };
  };
}

/**
 * A gated tool as the host is told of it: the name the server calls it, and everything else from the contract
 * (its description cleaned, since a reviewer cannot see a tag character); no `execution`, `icons` or `_meta` of
 * the server's. A contract without an input schema lists an object schema that says nothing of the arguments.
 */
function contractTool(name: string, tool: ProxyTool): Tool {
  const { title, description, inputSchema, annotations } = tool.definition;
  return {
    name,
    ...(title === undefined ? {} : { title: cleanText(title) }),
    ...(description === undefined ? {} : { description: cleanText(description) }),
    inputSchema: (inputSchema ?? { type: "object" }) as Tool["inputSchema"],
    outputSchema: tool.viewSchema as Tool["outputSchema"],
    ...(annotations === undefined ? {} : { annotations: annotations as Tool["annotations"] }),
  };
}

/** The server's name and version as the host is told them, cleaned and bounded. */
function serverInfo(info: { name?: unknown; version?: unknown } | undefined): { name: string; version: string } {
  const text = (value: unknown, fallback: string) =>
    typeof value === "string" && value !== "" ? boundText(value, 200).text : fallback;
  return { name: text(info?.name, CLIENT_INFO.name), version: text(info?.version, CLIENT_INFO.version) };
}

/** `tools/call`: a page of a spilled result, a refusal, an ungated answer cleaned, or the gated answer. */
async function callTool(
  session: Session,
  request: ToolCall,
  extra: CallExtra,
  trace?: ToolCallTrace | undefined,
): Promise<CallToolResult> {
  const { client, options, types } = session;
  const { name } = request.params;
  const reader = options.readBack;
  if (reader !== undefined && name === reader.definition.name) {
    const page = await reader.handle(request.params.arguments, { session: session.id });
    return page.toolResult as CallToolResult;
  }
  const progress = progressTo(extra, request.params._meta?.progressToken);
  const forward: RequestOptions = {
    signal: extra.signal,
    resetTimeoutOnProgress: true,
    onprogress: progress.onprogress,
  };
  // Only what a call is, and `task` only for a gated tool when the proxy serves tasks: its result is then fetched
  // through the proxy's `tasks/result`, gated by the same contract.
  const { arguments: args } = request.params;
  const tool = options.findTool(name);
  const ttl = request.params.task?.ttl;
  const task =
    session.tasks !== undefined && tool !== undefined && request.params.task !== undefined
      ? { ...(typeof ttl === "number" && Number.isFinite(ttl) ? { ttl } : {}) }
      : undefined;
  const call = () => {
    // Traced, the server is sent the proxy's own trace context in place of the host's.
    const _meta = trace === undefined ? request.params._meta : trace.upstreamMeta();
    return {
      method: "tools/call",
      params: {
        name,
        ...(args === undefined ? {} : { arguments: args }),
        ...(_meta === undefined ? {} : { _meta }),
        ...(task === undefined ? {} : { task }),
      },
    };
  };
  if (options.refused?.has(name)) {
    return { content: [{ type: "text", text: toModelRefusal(name, "no_contract") }], isError: true };
  }
  if (tool === undefined) {
    if (!options.allowUngated)
      return { content: [{ type: "text", text: toModelRefusal(name, "unknown_tool") }], isError: true };
    const sent = client.request(call(), types.ResultSchema, forward);
    trace?.watchUpstream(sent);
    return ungatedResult(name, await sent.catch(() => ({ content: [], isError: true })));
  }
  // Arguments the contract's input schema refuses never reach the server.
  const input = tool.adapter.checkInput(args ?? {});
  // Observed, the arguments reach the server as the host sent them: observe mode refuses nothing.
  if (!input.ok && !observing(options, tool)) return inputRefusal(name, input.issues);
  const turn = session.turns.turnOf(request.params._meta);
  if (turn !== undefined && !observing(options, tool)) {
    const refusal = await claimCall(turn, name, args, tool.adapter.spec.recallLimit);
    if (refusal !== undefined) return refusal;
  }
  // The server's answer as it sent it (a loose schema: the gate, not the SDK, judges its content).
  const sent = client.request(call(), types.ResultSchema, { ...forward, timeout: tool.adapter.spec.limits.timeoutMs });
  trace?.watchUpstream(sent);
  let raw: Promise<unknown> = sent.catch(callFailure);
  if (task !== undefined) {
    // A task is no result: the host is told its state, and gets its result from `tasks/result`, gated there.
    const answer = await raw;
    const created = hostTask((answer as { task?: unknown } | undefined)?.task);
    if (created !== undefined) {
      session.tasks?.add(created.taskId, name);
      return { task: created } as never;
    }
    raw = Promise.resolve(answer);
  }
  const answer = await admitted(session, name, tool, raw, String(extra.requestId), extra.signal, args, trace, turn);
  await progress.sent();
  return answer;
}

/** Admits a gated tool's raw answer, and the host's answer for its outcome (with a spilled result's link). */
async function admitted(
  session: Session,
  name: string,
  tool: ProxyTool,
  raw: Promise<unknown>,
  correlationId: string,
  signal: AbortSignal,
  args?: Record<string, unknown>,
  trace?: ToolCallTrace | undefined,
  turn?: Turn | undefined,
): Promise<CallToolResult> {
  const { options } = session;
  const reader = options.readBack;
  const outcome = await tool.adapter.admit(raw, {
    args,
    correlationId,
    session: session.id,
    // The event names the call's turn; a turn of its own records the outcome, so a long turn holds no ledger here.
    ...(turn === undefined ? {} : { turn: new Turn({ id: turn.id }) }),
    sink: options.sink,
    ...(reader === undefined ? {} : reader.context),
    signal,
    ...(options.observe === true ? { mode: "observe" as const } : {}),
  });
  trace?.end(outcome);
  if (turn !== undefined && outcome.ok && outcome.observed === undefined) await spend(turn, outcome.contextUsed);
  const answer = hostResult(outcome);
  if (session.links && outcome.ok && outcome.spill !== undefined && outcome.observed === undefined) {
    answer.content.push(spillLink(outcome.spill.handle, name));
  }
  return answer;
}

/** The `error="…"` code a refusal the proxy answered with carries (`no_contract`, `invalid_arguments`…), if any. */
function refusalCode(result: CallToolResult): string | undefined {
  if (result.isError !== true) return undefined;
  const first = result.content?.[0];
  const text = first?.type === "text" ? first.text : "";
  return /^<tool_result [^>]*\berror="([a-z_]+)"/.exec(text)?.[1] ?? "tool_error";
}

/** A task's result, admitted by the contract of the tool that ran it (a tool without one is refused by name). */
function gateTaskResult(session: Session): GateTaskResult {
  return async (name, raw, signal, taskId) => {
    const tool = session.options.findTool(name);
    if (tool === undefined) {
      return { content: [{ type: "text", text: toModelRefusal(name, "no_contract") }], isError: true };
    }
    return admitted(session, name, tool, raw.catch(callFailure), `task:${taskId}`, signal);
  };
}

/** When either side goes, the other is closed; when the server goes, the calls under way answer the host first. */
function lifecycle(
  server: Server,
  client: Client,
  inFlight: ReadonlySet<Promise<unknown>>,
): Omit<RunningProxy, "shared"> {
  let settle: (by: { by: "host" | "server" }) => void = () => undefined;
  const closed = new Promise<{ by: "host" | "server" }>((resolve) => {
    settle = resolve;
  });
  const close = async () => {
    await Promise.allSettled([server.close(), client.close()]);
  };
  client.onclose = () => {
    settle({ by: "server" });
    void Promise.allSettled([...inFlight])
      // The host is sent each answer before its transport closes.
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(close);
  };
  server.onclose = () => {
    settle({ by: "host" });
    void close();
  };
  return { closed, close };
}

/** What a failed `tools/call` hands the gate: the server's answer past the ceiling, or the call's failure. */
function callFailure(error: unknown) {
  let code: unknown;
  try {
    code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  } catch {
    code = undefined;
  }
  if (code === MESSAGE_TOO_LARGE) {
    const bytes = (error as { data?: { bytes?: unknown } }).data?.bytes;
    return transportFailure("result_too_large", "The server's answer was over the proxy's ceiling.", {
      reason: "message_too_large",
      bytes: typeof bytes === "number" ? bytes : undefined,
    });
  }
  return mcpCallFailure(error);
}

/** Whether the tool's calls are observed: `--observe`, or the contract's own `x-toolgate.mode`. */
function observing(options: ProxyOptions, tool: ProxyTool): boolean {
  return options.observe === true || tool.adapter.spec.mode === "observe";
}

/**
 * The host's answer for an outcome: the model content and, when it succeeded, the view as structured content. In
 * observe mode, the server's answer itself, as the proxy received it (the outcome went to the event only).
 */
export function hostResult(outcome: Outcome<unknown, unknown>): CallToolResult {
  const original = outcome.observed?.original;
  if (typeof original === "object" && original !== null) return original as CallToolResult;
  const content = toModelParts(outcome).map((part) =>
    part.type === "text" ? { type: "text" as const, text: part.text } : { ...part },
  );
  if (!outcome.ok) return { content, isError: true };
  return { content, structuredContent: outcome.view as Record<string, unknown> };
}

/**
 * A tool without a contract (only with `--allow-ungated`), as the host is told of it: its name, title and
 * description cleaned and bounded, and its input schema; no annotations (nobody reviewed a `readOnlyHint` a host
 * may approve calls by), no output schema (its answers are not gated into one), no `execution`, `icons` or `_meta`.
 */
function ungatedTool(tool: Tool): Tool {
  const title = hostText(tool.title, LABEL_MAX_CHARS);
  const description = hostText(tool.description, UNGATED_DESCRIPTION_MAX_CHARS);
  return {
    name: tool.name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    inputSchema: tool.inputSchema,
  };
}

/** The most characters of an ungated tool's description the host is told. */
const UNGATED_DESCRIPTION_MAX_CHARS = 4_000;

/** The most characters of an ungated tool's text the host receives, all its text blocks together. */
export const UNGATED_MAX_CHARS = 100_000;

/**
 * An ungated tool's result (only with `--allow-ungated`), under text hygiene: its text blocks cleaned (no bidi
 * controls, invisible or tag characters) and bounded together to {@link UNGATED_MAX_CHARS}, a cut marked, inside a
 * `tool_result` delimiter that says it was not gated; every other block and the structured content dropped (the
 * wire ceiling bounded the whole answer already). Hostile answers are read defensively.
 */
export function ungatedResult(name: string, result: unknown): CallToolResult {
  const texts: string[] = [];
  let isError = false;
  let dropped = 0;
  try {
    const { content, isError: error } = result as { content?: unknown; isError?: unknown };
    isError = error === true;
    for (const block of Array.isArray(content) ? content : []) {
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
      if (type === "text" && typeof text === "string") texts.push(text);
      else dropped++;
    }
  } catch {
    return { content: [{ type: "text", text: delimited(name, 'error="transport_error"', "") }], isError: true };
  }
  const bounded = boundText(texts.join("\n"), UNGATED_MAX_CHARS);
  const note = [bounded.leftOut > 0 ? `cut="${bounded.leftOut}"` : "", dropped > 0 ? `dropped_blocks="${dropped}"` : ""]
    .filter(Boolean)
    .join(" ");
  const body = markupSafeJson(bounded.text);
  return { content: [{ type: "text", text: delimited(name, note, body) }], ...(isError ? { isError: true } : {}) };
}

/** The most argument problems a refused call names. */
const MAX_INPUT_ISSUES = 8;

/**
 * A call whose arguments the contract's input schema refuses, answered without calling the server: a tool error
 * the model can correct, naming each problem (where, and the rule's message, written by the gate, never the
 * arguments' text): `<tool_result tool="x" source="none" complete="false" error="invalid_arguments"
 * retryable="true">` then the problems as JSON.
 */
export function inputRefusal(name: string, issues: readonly InputIssue[]): CallToolResult {
  const problems = issues
    .slice(0, MAX_INPUT_ISSUES)
    .map((issue) => ({ at: issue.instancePath === "" ? "/" : issue.instancePath, problem: issue.message }));
  const open = `<tool_result tool="${safeName(name)}" source="none" complete="false" error="invalid_arguments" retryable="true">`;
  const text = `${open}\n<issues>${markupSafeJson(problems)}</issues>\n</tool_result>`;
  return { content: [{ type: "text", text }], isError: true };
}

/** A `tool_result` delimiter for an ungated answer. */
function delimited(name: string, attributes: string, body: string): string {
  const open = `<tool_result tool="${safeName(name)}" gated="false"${attributes === "" ? "" : ` ${attributes}`}`;
  return body === "" ? `${open}/>` : `${open}>\n${body}\n</tool_result>`;
}

/** A tool name as an attribute: what a host-chosen name may hold, anything else as `_`. */
function safeName(name: string): string {
  return name.slice(0, 128).replace(/[^A-Za-z0-9_.-]/g, "_");
}
