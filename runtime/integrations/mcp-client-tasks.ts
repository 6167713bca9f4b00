/**
 * Task-augmented calls through `gateClient` (the 2025-11-25 revision's tasks, which a v2 client reaches through
 * its raw `request`: the v2 SDK keeps the task vocabulary but runs no tasks itself). A call made with `task` answers
 * the task's state, cleaned; the task's result is the tool's result, admitted by the tool's contract when it is
 * fetched with `taskResult`, once per task (a second fetch gets the first one's outcome).
 */
import { markupSafeText } from "../stages/model-content.js";
import { boundText } from "../text/hygiene.js";
import type { AnyToolAdapter } from "./gate-call.js";

/** Most tasks one gated client remembers; past it, the oldest is forgotten (its result can no longer be fetched). */
export const MAX_CLIENT_TASKS = 1_000;

/** Most characters of a task's status message passed on. */
const STATUS_MESSAGE_MAX_CHARS = 4_000;

/** Most characters of a task's id or time passed on; a longer one is left out. */
const FIELD_MAX_CHARS = 128;

/** A task as the application is told of it: its state, never its result. */
export interface TaskState {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  createdAt?: string;
  lastUpdatedAt?: string;
  ttl?: number | null;
  pollInterval?: number;
  /** The server's words, cleaned, bounded and markup-escaped. */
  statusMessage?: string;
}

const STATUSES: ReadonlySet<string> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/**
 * A Standard Schema that accepts any value: the client's `request` is handed it for `tools/call` with `task` and for
 * `tasks/result`, whose answers the gate judges, not the client.
 */
export const ANY_RESULT = {
  "~standard": { version: 1, vendor: "toolgate", validate: (value: unknown) => ({ value }) },
} as const;

/** A field of a hostile object, or undefined when reading it throws. */
export function field(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** A short string passed as it is (an id, a time): printable ASCII without markup, within {@link FIELD_MAX_CHARS}. */
function plain(value: unknown): string | undefined {
  return typeof value === "string" &&
    value.length <= FIELD_MAX_CHARS &&
    /^[\x20-\x7E]*$/.test(value) &&
    !/[<>&]/.test(value)
    ? value
    : undefined;
}

/** A server's task as the application is told of it ({@link TaskState}); undefined when it is not a task. */
export function taskStateOf(task: unknown): TaskState | undefined {
  const taskId = plain(field(task, "taskId"));
  const status = field(task, "status");
  if (taskId === undefined || typeof status !== "string" || !STATUSES.has(status)) return undefined;
  const createdAt = plain(field(task, "createdAt"));
  const lastUpdatedAt = plain(field(task, "lastUpdatedAt"));
  const ttl = field(task, "ttl");
  const pollInterval = field(task, "pollInterval");
  const message = field(task, "statusMessage");
  return {
    taskId,
    status: status as TaskState["status"],
    ...(createdAt === undefined ? {} : { createdAt }),
    ...(lastUpdatedAt === undefined ? {} : { lastUpdatedAt }),
    ...(ttl === null || (typeof ttl === "number" && Number.isFinite(ttl)) ? { ttl } : {}),
    ...(typeof pollInterval === "number" && Number.isFinite(pollInterval) ? { pollInterval } : {}),
    ...(typeof message === "string"
      ? { statusMessage: markupSafeText(boundText(message, STATUS_MESSAGE_MAX_CHARS).text) }
      : {}),
  };
}

/** One task a gated client started: the tool that runs it, and its admitted result once fetched. */
export interface ClientTask<A> {
  adapter: AnyToolAdapter;
  /** The name the application called the tool by. */
  tool: string;
  args: unknown;
  answer?: Promise<A>;
}

/** The tasks one gated client started, by id, oldest first. */
export class ClientTasks<A> {
  readonly #tasks = new Map<string, ClientTask<A>>();

  add(taskId: string, task: ClientTask<A>): void {
    this.#tasks.delete(taskId);
    this.#tasks.set(taskId, task);
    if (this.#tasks.size > MAX_CLIENT_TASKS) this.#tasks.delete(this.#tasks.keys().next().value as string);
  }

  get(taskId: string): ClientTask<A> | undefined {
    return this.#tasks.get(taskId);
  }
}
