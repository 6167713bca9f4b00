/**
 * The proxy meets the host before the server: the host's `initialize` says what the host can do (answer sampling,
 * elicitation, roots), and the proxy connects to the server declaring exactly that, so a server never asks the
 * host for what it cannot give. {@link awaitInitialize} starts the host's transport, holds what arrives until the
 * `initialize` request, and hands back a transport that replays it to the SDK's `Server`.
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

/** Starts `host` and resolves at its `initialize` request; rejects when the host goes before sending one. */
export async function awaitInitialize(host: Transport): Promise<HostHello> {
  const held: JSONRPCMessage[] = [];
  const hello = new Promise<{ capabilities: ClientCapabilities; protocolVersion: string | undefined }>(
    (resolve, reject) => {
      host.onmessage = (message) => {
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
