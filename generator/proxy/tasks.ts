/**
 * Task-augmented calls through the proxy (the 2025-11-25 revision's tasks): a host may ask that a `tools/call` of
 * a gated tool run as a task, when the server offers that; the call's arguments are checked by the contract first,
 * as any call's, and the server's `{ task }` reaches the host with nothing but the task's state. The task's result
 * is the tool's result: it reaches the host only through `tasks/result`, admitted by the same contract as a direct
 * answer, once (a second fetch gets the same gated answer, and records no second event). `tasks/get`,
 * `tasks/list` and `tasks/cancel` answer the task's state only (its id, status, times and status message, cleaned),
 * never any result content, and only for tasks this host session created: the server's other tasks do not exist
 * for it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { hostText, LOG_MAX_CHARS } from "./hygiene.js";

type Sdk = typeof import("@modelcontextprotocol/sdk/types.js");

/** The `_meta` key a task's result names its task by (2025-11-25). */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** Most tasks one host session holds; past it, the oldest is forgotten (its result can no longer be fetched). */
export const MAX_TASKS = 1_000;

/** Most characters of a task's id or time the host is passed; a longer one is left out. */
const FIELD_MAX_CHARS = 128;

/** A task as the host is told of it: its state, never its result. */
export interface HostTask {
  taskId: string;
  status: string;
  ttl: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  pollInterval?: number;
  statusMessage?: string;
}

/** The statuses of a task (2025-11-25). */
const STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/** A field of a hostile object, or undefined when reading it throws. */
function field(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** A short string passed as it is (an id, a time): printable ASCII only, within {@link FIELD_MAX_CHARS}. */
function plain(value: unknown): string | undefined {
  return typeof value === "string" &&
    value.length <= FIELD_MAX_CHARS &&
    /^[\x20-\x7E]*$/.test(value) &&
    !/[<>&]/.test(value)
    ? value
    : undefined;
}

/**
 * A server's task as the host is told of it: id, status, times and poll interval as they are when well formed, the
 * status message cleaned and bounded, nothing else; undefined when it is not a task.
 */
export function hostTask(task: unknown): HostTask | undefined {
  const taskId = plain(field(task, "taskId"));
  const status = field(task, "status");
  if (taskId === undefined || typeof status !== "string" || !STATUSES.has(status)) return undefined;
  const ttl = field(task, "ttl");
  const pollInterval = field(task, "pollInterval");
  const statusMessage = hostText(field(task, "statusMessage"), LOG_MAX_CHARS);
  return {
    taskId,
    status,
    ttl: typeof ttl === "number" && Number.isFinite(ttl) ? ttl : null,
    createdAt: plain(field(task, "createdAt")) ?? "",
    lastUpdatedAt: plain(field(task, "lastUpdatedAt")) ?? "",
    ...(typeof pollInterval === "number" && Number.isFinite(pollInterval) ? { pollInterval } : {}),
    ...(statusMessage === undefined ? {} : { statusMessage }),
  };
}

/**
 * The tasks capability the proxy declares to the host: only when the server runs `tools/call` as tasks, with its
 * `list` and `cancel` flags; none of anything else the server says of tasks.
 */
export function taskCapability(server: ServerCapabilities): ServerCapabilities["tasks"] | undefined {
  const tasks = field(server, "tasks");
  const call = field(field(field(tasks, "requests"), "tools"), "call");
  if (typeof call !== "object" || call === null) return undefined;
  return {
    requests: { tools: { call: {} } },
    ...(typeof field(tasks, "list") === "object" && field(tasks, "list") !== null ? { list: {} } : {}),
    ...(typeof field(tasks, "cancel") === "object" && field(tasks, "cancel") !== null ? { cancel: {} } : {}),
  };
}

/** One task a host session created: the tool it runs, and its gated answer once fetched. */
interface TaskEntry {
  tool: string;
  answer?: Promise<CallToolResult>;
}

/** The tasks of one host session, by id, oldest first. */
export class TaskLedger {
  readonly #tasks = new Map<string, TaskEntry>();

  /** Records a task the server created for a call of `tool`. */
  add(taskId: string, tool: string): void {
    this.#tasks.delete(taskId);
    this.#tasks.set(taskId, { tool });
    if (this.#tasks.size > MAX_TASKS) this.#tasks.delete(this.#tasks.keys().next().value as string);
  }

  get(taskId: unknown): TaskEntry | undefined {
    return typeof taskId === "string" ? this.#tasks.get(taskId) : undefined;
  }

  has(taskId: string): boolean {
    return this.#tasks.has(taskId);
  }
}

/** Admits a task's result with the contract of the tool that ran it; the host's answer. */
export type GateTaskResult = (
  tool: string,
  raw: Promise<unknown>,
  signal: AbortSignal,
  taskId: string,
) => Promise<CallToolResult>;

/** What a task handler is given of its call (the SDK's `RequestHandlerExtra`). */
interface TaskExtra {
  signal: AbortSignal;
}

/**
 * Serves the host's `tasks/get`, `tasks/list`, `tasks/result` and `tasks/cancel` for the tasks in `ledger`, each
 * asked of the server and answered as described in the module comment. A task id the ledger does not hold is
 * refused without asking the server.
 */
export function serveTasks(server: Server, client: Client, types: Sdk, ledger: TaskLedger, gate: GateTaskResult): void {
  const unknown = (taskId: unknown) =>
    new types.McpError(
      types.ErrorCode.InvalidParams,
      `no task ${JSON.stringify(String(taskId).slice(0, 64))} in this session`,
    );
  const ask = (method: string, params: Record<string, unknown>, extra: TaskExtra) =>
    client.request({ method, params } as never, types.ResultSchema, { signal: extra.signal });
  const state = (result: unknown) => {
    const task = hostTask(result);
    if (task === undefined)
      throw new types.McpError(types.ErrorCode.InternalError, "the server's answer is not a task");
    return task;
  };

  server.setRequestHandler(types.GetTaskRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    if (ledger.get(taskId) === undefined) throw unknown(taskId);
    return state(await ask("tasks/get", { taskId }, extra)) as never;
  });
  server.setRequestHandler(types.CancelTaskRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    if (ledger.get(taskId) === undefined) throw unknown(taskId);
    return state(await ask("tasks/cancel", { taskId }, extra)) as never;
  });
  server.setRequestHandler(types.ListTasksRequestSchema, async (request, extra) => {
    const cursor = request.params?.cursor;
    const page = await ask("tasks/list", cursor === undefined ? {} : { cursor }, extra);
    const listed = field(page, "tasks");
    const tasks = (Array.isArray(listed) ? listed.slice(0, MAX_TASKS) : [])
      .map(hostTask)
      .filter((task): task is HostTask => task !== undefined && ledger.has(task.taskId));
    const next = plain(field(page, "nextCursor"));
    return { tasks, ...(next === undefined ? {} : { nextCursor: next }) } as never;
  });
  server.setRequestHandler(types.GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const entry = ledger.get(taskId);
    if (entry === undefined) throw unknown(taskId);
    // Gated once: a second fetch gets the first fetch's answer.
    entry.answer ??= gate(entry.tool, ask("tasks/result", { taskId }, extra), extra.signal, taskId).then((answer) => ({
      ...answer,
      _meta: { [RELATED_TASK]: { taskId } },
    }));
    return (await entry.answer) as never;
  });
}
