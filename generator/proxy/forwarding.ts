/**
 * What the proxy passes between host and server besides `tools/list` and `tools/call`: an allow-list, method by
 * method. A request the list does not name is refused by name (`MethodNotFound`), whichever side sends it, and a
 * notification it does not name is dropped: a method added to the protocol later (or a server's own) reaches
 * nobody until someone decides what it carries. Every answer that carries the server's words is cleaned and
 * bounded on the way (`hygiene.ts`); the capabilities the host is told are those the proxy serves, never a copy of
 * the server's (`tasks` only as `tasks.ts` serves them: a task's result gated when fetched, its state cleaned).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { JSONRPCRequest, Progress, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { cleanText } from "@toolgate/runtime";
import { cleanInputParams } from "@toolgate/runtime/mcp-client";
import {
  hostCompletion,
  hostLogMessage,
  hostPrompt,
  hostPromptList,
  hostResourceList,
  hostResourceRead,
  hostTemplateList,
  hostText,
  hostUri,
  LOG_MAX_CHARS,
} from "./hygiene.js";
import { taskCapability } from "./tasks.js";

type Sdk = typeof import("@modelcontextprotocol/sdk/types.js");

/** What happens to one method or notification. */
export type Treatment = "gated" | "cleaned" | "forwarded" | "answered" | "dropped" | "refused";

/**
 * The host's requests the proxy passes to the server, each with how its answer reaches the host. `tools/*` are
 * the proxy's own handlers (gated); `initialize` and `ping` the SDK answers; anything else is refused.
 */
const HOST_REQUESTS: Readonly<Record<string, (result: unknown) => unknown>> = {
  "resources/list": hostResourceList,
  "resources/templates/list": hostTemplateList,
  "resources/read": hostResourceRead,
  // An empty answer: nothing of the server's reaches the host.
  "resources/subscribe": () => ({}),
  "resources/unsubscribe": () => ({}),
  "prompts/list": hostPromptList,
  "prompts/get": hostPrompt,
  "completion/complete": hostCompletion,
  "logging/setLevel": () => ({}),
};

/**
 * The server's requests the proxy passes to the host: only what the host said it answers (the proxy declares no
 * more to the server), answered by the host and its user, each with how its parameters reach the host. A request
 * for input (an elicitation, a sampling request: what a 2026-07-28 server's `input_required` becomes on the
 * 2025-11-25 wire) carries the server's words to a person or a model: every string cleaned, bounded and
 * markup-escaped, binary data left out ({@link cleanInputParams}). Anything else is refused.
 */
const SERVER_REQUESTS: Readonly<Record<string, (params: unknown) => Record<string, unknown> | undefined>> = {
  "sampling/createMessage": cleanInputParams,
  "elicitation/create": cleanInputParams,
  "roots/list": (params) => params as Record<string, unknown> | undefined,
};

/** The server's notifications the host receives, each as it is passed; any other is dropped. */
const SERVER_NOTIFICATIONS: Readonly<Record<string, (params: unknown) => Record<string, unknown> | undefined>> = {
  "notifications/message": hostLogMessage,
  "notifications/resources/updated": (params) => {
    const uri = hostUri(field(params, "uri"));
    return uri === undefined ? undefined : { uri };
  },
  "notifications/resources/list_changed": () => ({}),
  "notifications/prompts/list_changed": () => ({}),
  "notifications/tools/list_changed": () => ({}),
  // The end of an elicitation the host started (its id only).
  "notifications/elicitation/complete": (params) => {
    const id = field(params, "elicitationId");
    return typeof id === "string" && id.length <= 256 && hostUri(id) === id ? { elicitationId: id } : undefined;
  },
};

/** The host's notifications the server receives (cancellation and progress go with their requests). */
const HOST_NOTIFICATIONS: ReadonlySet<string> = new Set(["notifications/roots/list_changed"]);

/**
 * The forwarding table, for docs/security.md and its test: every MCP method and notification the protocol names, and
 * what the proxy does with it.
 */
export const FORWARDING: Readonly<Record<string, Treatment>> = {
  "server/discover": "answered",
  initialize: "answered",
  ping: "answered",
  "tools/list": "gated",
  "tools/call": "gated",
  "resources/list": "cleaned",
  "resources/templates/list": "cleaned",
  "resources/read": "cleaned",
  "resources/subscribe": "forwarded",
  "resources/unsubscribe": "forwarded",
  "prompts/list": "cleaned",
  "prompts/get": "cleaned",
  "completion/complete": "cleaned",
  "logging/setLevel": "forwarded",
  "tasks/get": "cleaned",
  "tasks/result": "gated",
  "tasks/list": "cleaned",
  "tasks/cancel": "cleaned",
  "sampling/createMessage": "cleaned",
  "elicitation/create": "cleaned",
  "roots/list": "forwarded",
  "notifications/initialized": "answered",
  "notifications/cancelled": "forwarded",
  "notifications/progress": "cleaned",
  "notifications/message": "cleaned",
  "notifications/resources/updated": "cleaned",
  "notifications/resources/list_changed": "forwarded",
  "notifications/prompts/list_changed": "forwarded",
  "notifications/tools/list_changed": "forwarded",
  "notifications/roots/list_changed": "forwarded",
  "notifications/elicitation/complete": "cleaned",
  "notifications/tasks/status": "dropped",
};

/** A field of a hostile object, or undefined when reading it throws. */
function field(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The capabilities the proxy declares to the host: tools always (the gated tools and the read-back tool), and of
 * the server's only what the proxy passes (resources, prompts, completions, logging), with just the flags it
 * forwards; `tasks` only when the server runs calls as tasks (`tasks.ts`), with its `list` and `cancel` flags.
 * `experimental` and anything unknown are never copied.
 */
export function proxyCapabilities(server: ServerCapabilities, readBack: boolean): ServerCapabilities {
  const flag = (value: unknown, name: "listChanged" | "subscribe") =>
    field(value, name) === true ? { [name]: true } : {};
  const resources =
    server.resources === undefined
      ? readBack
        ? {}
        : undefined
      : { ...flag(server.resources, "listChanged"), ...flag(server.resources, "subscribe") };
  const tasks = taskCapability(server);
  return {
    tools: flag(server.tools, "listChanged"),
    ...(resources === undefined ? {} : { resources }),
    ...(server.prompts === undefined ? {} : { prompts: flag(server.prompts, "listChanged") }),
    ...(server.completions === undefined ? {} : { completions: {} }),
    ...(server.logging === undefined ? {} : { logging: {} }),
    ...(tasks === undefined ? {} : { tasks }),
  };
}

/** What a handler is given of its call (the SDK's `RequestHandlerExtra`). */
interface CallExtra {
  signal: AbortSignal;
  sendNotification(notification: never): Promise<void>;
}

/**
 * The allow-list both ways: the host's requests to the server, cleaned on the way back; the server's requests the
 * host answers; the server's notifications cleaned or dropped; the host's roots notification. A request no list
 * names is refused, naming the method; `log` says once per method what was refused or dropped. `declared` is what
 * the proxy told the host ({@link proxyCapabilities}).
 */
export function forwardAllowed(
  server: Server,
  client: Client,
  types: Sdk,
  declared: ServerCapabilities,
  log: (line: string) => void,
): void {
  const said = new Set<string>();
  const once = (what: string, method: string) => {
    const name = JSON.stringify(cleanText(method.slice(0, 64)));
    if (said.size < 100 && !said.has(`${what} ${name}`)) {
      said.add(`${what} ${name}`);
      log(`toolgate proxy: ${what} ${name}: not on the proxy's forwarding list`);
    }
  };
  const refuse = (method: string, from: string) => {
    once(`refused the ${from}'s`, method);
    return new types.McpError(
      types.ErrorCode.MethodNotFound,
      `toolgate proxy does not forward ${JSON.stringify(cleanText(method.slice(0, 64)))}`,
    );
  };
  const forward = async (to: Client | Server, request: Pick<JSONRPCRequest, "method" | "params">, extra: CallExtra) => {
    const progress = progressTo(extra, request.params?._meta?.progressToken as string | number | undefined);
    const result = await to.request(strip(request), types.ResultSchema, {
      signal: extra.signal,
      onprogress: progress.onprogress,
    });
    await progress.sent();
    return result;
  };
  // The SDK's server answers `logging/setLevel` itself when it declares logging: the server is to hear it.
  if (declared.logging !== undefined) {
    server.setRequestHandler(types.SetLevelRequestSchema, async (request, extra) => {
      await forward(client, request, extra);
      return {};
    });
  }
  server.fallbackRequestHandler = async (request, extra) => {
    const clean = HOST_REQUESTS[request.method];
    if (clean === undefined) throw refuse(request.method, "host");
    const result = await forward(client, request, extra);
    return clean(result) as never;
  };
  client.fallbackRequestHandler = async (request, extra) => {
    const clean = SERVER_REQUESTS[request.method];
    if (clean === undefined) throw refuse(request.method, "server");
    const params = clean(request.params);
    return forward(
      server,
      params === undefined ? { method: request.method } : { method: request.method, params },
      extra,
    );
  };
  server.fallbackNotificationHandler = async (notification) => {
    if (HOST_NOTIFICATIONS.has(notification.method)) await client.notification({ method: notification.method });
  };
  client.fallbackNotificationHandler = async (notification) => {
    const clean = SERVER_NOTIFICATIONS[notification.method];
    const params = clean?.(notification.params);
    if (params === undefined) {
      once("dropped the server's", notification.method);
      return;
    }
    // A notification the host's capabilities do not cover is the server's mistake: dropped, not thrown.
    await server.notification({ method: notification.method, params } as never).catch(() => undefined);
  };
}

/** A request as the other side is sent it: its method and parameters (the SDK gives it a new id). */
function strip(request: Pick<JSONRPCRequest, "method" | "params">): {
  method: string;
  params?: Record<string, unknown>;
} {
  return request.params === undefined ? { method: request.method } : { method: request.method, params: request.params };
}

/**
 * Forwards the other side's progress to whoever asked, under their own token: its numbers, and its message cleaned
 * and bounded. `sent` settles when every notification forwarded so far went out: a handler awaits it before it
 * answers, so the last progress is never overtaken by the answer (after which the asker drops it).
 */
export function progressTo(
  extra: { sendNotification(notification: never): Promise<void> },
  token: string | number | undefined,
): { onprogress?: (progress: Progress) => void; sent(): Promise<void> } {
  if (token === undefined) return { sent: () => Promise.resolve() };
  let last: Promise<void> = Promise.resolve();
  return {
    onprogress: (progress) => {
      const total = field(progress, "total");
      const message = hostText(field(progress, "message"), LOG_MAX_CHARS);
      const params = {
        progressToken: token,
        progress: progress.progress,
        ...(typeof total === "number" ? { total } : {}),
        ...(message === undefined ? {} : { message }),
      };
      const notification = { method: "notifications/progress", params };
      last = last.then(() => extra.sendNotification(notification as never)).catch(() => undefined);
    },
    sent: () => last,
  };
}
