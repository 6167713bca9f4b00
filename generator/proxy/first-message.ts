/**
 * The proxy meets the host before the server: the host's `initialize` says what the host can do (answer sampling,
 * elicitation, roots), and the proxy connects to the server declaring exactly that, so a server never asks the
 * host for what it cannot give. {@link awaitInitialize} starts the host's transport, holds what arrives until the
 * `initialize` request, and hands back a transport that replays it to the SDK's `Server`.
 *
 * The proxy speaks the revisions of its SDK (2025-11-25 and earlier) to both sides. A host of the 2026-07-28
 * revision opens with `server/discover` instead of `initialize`; the proxy answers it at once with the revision's
 * own "unsupported protocol version" error naming the revisions it speaks, and such a host falls back to
 * `initialize` (a v2 SDK client does, on stdio and on HTTP). A server of 2026-07-28 serves the proxy's 2025-11-25
 * client as it serves any: its requests for input arrive as `elicitation/create` and `sampling/createMessage`
 * requests, which the forwarding list passes to the host cleaned, and only complete results answer `tools/call`.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What the host's `initialize` said, and its transport with that request still to be read. */
export interface HostHello {
  capabilities: ClientCapabilities;
  /** The protocol version the host asked for. */
  protocolVersion: string | undefined;
  transport: Transport;
}

/**
 * The JSON-RPC error code of 2026-07-28's "unsupported protocol version": the answer to a revision the receiver does
 * not speak, with `data.supported` the revisions it does.
 */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** The revisions the proxy speaks to a host, newest first (its SDK's). */
export const HOST_REVISIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** The answer to a `server/discover` probe: the revision it asked for is not one the proxy speaks. */
function discoverRefusal(message: JSONRPCMessage): JSONRPCMessage | undefined {
  if (!("method" in message) || message.method !== "server/discover" || !("id" in message)) return undefined;
  const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const requested = meta?.["io.modelcontextprotocol/protocolVersion"];
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: `toolgate proxy speaks ${HOST_REVISIONS.join(", ")}: open with initialize`,
      data: {
        supported: [...HOST_REVISIONS],
        ...(typeof requested === "string" && requested.length <= 64 ? { requested } : {}),
      },
    },
  } as JSONRPCMessage;
}

/**
 * Starts `host` and resolves at its `initialize` request; rejects when the host goes before sending one. A
 * `server/discover` probe before it is answered at once (see the module comment), not held.
 */
export async function awaitInitialize(host: Transport): Promise<HostHello> {
  const held: JSONRPCMessage[] = [];
  const hello = new Promise<{ capabilities: ClientCapabilities; protocolVersion: string | undefined }>(
    (resolve, reject) => {
      host.onmessage = (message) => {
        const refusal = discoverRefusal(message);
        if (refusal !== undefined) {
          host.send(refusal).catch(() => undefined);
          return;
        }
        held.push(message);
        if ("method" in message && message.method === "initialize" && "id" in message) {
          const params = message.params as { capabilities?: ClientCapabilities; protocolVersion?: unknown } | undefined;
          const version = params?.protocolVersion;
          resolve({
            capabilities: params?.capabilities ?? {},
            protocolVersion: typeof version === "string" ? version : undefined,
          });
        }
      };
      host.onclose = () => reject(new Error("the host closed before it initialized"));
      host.onerror = () => undefined;
    },
  );
  await host.start();
  const { capabilities, protocolVersion } = await hello;

  const replay: Transport = {
    start: async () => {
      host.onmessage = (message, extra) => replay.onmessage?.(message, extra);
      host.onclose = () => replay.onclose?.();
      host.onerror = (error) => replay.onerror?.(error);
      // After `connect` has set its handlers and awaited this start: the held messages, in order.
      queueMicrotask(() => {
        for (const message of held.splice(0)) replay.onmessage?.(message);
      });
    },
    send: (message, options) => host.send(message, options),
    close: () => host.close(),
  };
  return { capabilities, protocolVersion, transport: replay };
}
