/**
 * The wire ceiling over Streamable HTTP: a `fetch` for the MCP SDK's `StreamableHTTPClientTransport` that bounds
 * every response body to `maxBytes` before the SDK reads it, as {@link UpstreamTransport} bounds the server's stdout.
 *
 * - A JSON body (the answer to the request its POST carried) is read up to the ceiling; past it, the read is
 *   cancelled and the body replaced by a {@link MESSAGE_TOO_LARGE} error for each request the POST carried.
 * - An SSE stream is bounded per event (one JSON-RPC message each): an event past the ceiling is dropped as it
 *   arrives (never held whole), and when the stream ends, each request its POST carried gets the error (the server
 *   ends a POST's stream once it has answered; an error for a request already answered is ignored by the SDK as a
 *   response to an unknown id). Lines end in LF or CRLF, as every MCP SDK writes them.
 * - Any other body (an HTTP error's text) is cut at the ceiling.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type Frame, joinBytes, LineFramer, type MessageId } from "./frames.js";
import { MESSAGE_TOO_LARGE } from "./upstream.js";

/** A message dropped past the ceiling: its size (`exact: false` when the read was cut first, so it is larger). */
export interface HttpOversize {
  bytes: number;
  exact: boolean;
}

/** `fetch` (by default the global one) with every response body bounded to `maxBytes`. */
export function boundedFetch(
  maxBytes: number,
  onOversize: (oversize: HttpOversize) => void,
  base: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    // A redirect is the SDK's to follow or refuse, as it arrived.
    if (response.body === null || (response.status >= 300 && response.status < 400)) return response;
    const requests = requestIds(init?.body);
    const media = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    const like = { status: response.status, statusText: response.statusText, headers };
    if (response.ok && media === "text/event-stream") {
      return new Response(response.body.pipeThrough(boundedEvents(maxBytes, requests, onOversize)), like);
    }
    const body = await readBounded(response.body, maxBytes);
    if (body.bytes !== undefined) {
      const declared = Number(response.headers.get("content-length"));
      const exact = Number.isSafeInteger(declared) && declared > maxBytes;
      const bytes = exact ? declared : body.bytes;
      onOversize({ bytes, exact });
      if (response.ok && media === "application/json" && requests.length > 0) {
        const errors = requests.map((id) => tooLarge(id, bytes, exact, maxBytes));
        return new Response(JSON.stringify(errors.length === 1 ? errors[0] : errors), like);
      }
    }
    return new Response(body.data, like);
  };
}

/** The ids of the requests in a POST's body (the SDK sends one JSON-RPC message, or a batch, as a string). */
function requestIds(body: unknown): MessageId[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message) => {
    const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? [id] : [];
  });
}

/** The JSON-RPC error answering request `id` in place of an answer past the ceiling (as `UpstreamTransport`'s). */
function tooLarge(id: MessageId, bytes: number, exact: boolean, maxBytes: number) {
  const size = `${exact ? "" : "at least "}${bytes} bytes`;
  return {
    jsonrpc: "2.0" as const,
    id,
    error: {
      code: MESSAGE_TOO_LARGE,
      message: `The server's answer of ${size} is over the proxy's ceiling of ${maxBytes} bytes.`,
      data: { reason: "message_too_large", bytes, maxBytes },
    },
  };
}

/**
 * A body read whole when it is at most `maxBytes`; else the read is cancelled and what is kept is its first
 * `maxBytes` bytes and `bytes`, how many were read.
 */
async function readBounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<{ data: Uint8Array<ArrayBuffer>; bytes?: number }> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { data: joinBytes(parts) };
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      parts.push(value.subarray(0, value.length - (size - maxBytes)));
      return { data: joinBytes(parts), bytes: size };
    }
    parts.push(value);
  }
}

/** An SSE stream with each event past `maxBytes` dropped, and `requests` answered with the error at its end. */
function boundedEvents(
  maxBytes: number,
  requests: readonly MessageId[],
  onOversize: (oversize: HttpOversize) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const framer = new LineFramer(maxBytes);
  const encoder = new TextEncoder();
  let lines: string[] = [];
  let size = 0;
  let over = false;
  /** The event's `id` field: kept when it is dropped, so the SDK's resumption cursor still moves past it. */
  let eventId: string | undefined;
  let dropped = 0;
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (over) {
      dropped = Math.max(dropped, size);
      onOversize({ bytes: size, exact: true });
      if (eventId !== undefined) controller.enqueue(encoder.encode(`id: ${eventId}\n\n`));
    } else if (lines.length > 0) {
      controller.enqueue(encoder.encode(`${lines.join("\n")}\n\n`));
    }
    lines = [];
    size = 0;
    over = false;
    eventId = undefined;
  };
  /** One line of the event under way. */
  const take = (frame: Frame) => {
    size += (frame.kind === "message" ? Buffer.byteLength(frame.text) : frame.bytes) + 1;
    if (frame.kind === "message" && frame.text.startsWith("id:")) eventId = frame.text.slice(3).replace(/^ /, "");
    if (frame.kind === "oversize" || size > maxBytes) {
      over = true;
      lines = [];
    } else if (!over) lines.push(frame.text);
  };
  return new TransformStream({
    transform(chunk, controller) {
      for (const frame of framer.push(chunk)) {
        if (frame.kind === "message" && frame.text === "") endEvent(controller);
        else take(frame);
      }
    },
    flush(controller) {
      // An event the stream ends in the middle of is incomplete: SSE discards it (it counts when it was over).
      for (const frame of framer.push(new Uint8Array([0x0a])))
        if (frame.kind === "oversize" || frame.text !== "") take(frame);
      if (over) {
        dropped = Math.max(dropped, size);
        onOversize({ bytes: size, exact: true });
      }
      if (dropped === 0) return;
      for (const id of requests) {
        controller.enqueue(
          encoder.encode(`event: message\ndata: ${JSON.stringify(tooLarge(id, dropped, true, maxBytes))}\n\n`),
        );
      }
    },
  });
}
