/** A fetch `Response` (any fetch implementation, checked by shape): status, declared length, then the body. */
import { isAsyncIterable, isReadableStream, readIterable, readStream } from "./chunks.js";
import { type NotReceived, type Received, refused } from "./received.js";
import { stopProducer, type Waiting } from "./waiting.js";

/**
 * Whether `value` looks like a fetch `Response` (checked by shape, so any fetch implementation works, the host's
 * own included). Never by `instanceof Response`: in Node the global `Response` is a lazy getter, and its first read
 * loads undici's whole fetch (tens of milliseconds), which a gate handed anything else has no use for.
 */
export function isResponse(value: object): value is Response {
  const candidate = value as Partial<Response>;
  return (
    typeof candidate.status === "number" &&
    typeof candidate.ok === "boolean" &&
    typeof candidate.headers?.get === "function" &&
    "body" in candidate
  );
}

/**
 * How to stop a response body: `cancel()` for a web stream, `destroy()` for a Node stream (node-fetch v2's body),
 * nothing for anything else.
 */
function bodyStopper(body: unknown): () => unknown {
  return () => {
    if (body === null || typeof body !== "object") return undefined;
    const cancel = (body as { cancel?: unknown }).cancel;
    if (typeof cancel === "function") return Reflect.apply(cancel, body, []);
    const destroy = (body as { destroy?: unknown }).destroy;
    return typeof destroy === "function" ? Reflect.apply(destroy, body, []) : undefined;
  };
}

/**
 * Reads a fetch `Response`: non-2xx is a `transport_error` (408/504 a `timeout`), a `Content-Length` over the ceiling
 * is refused before reading, and the body is read under the ceiling, whether it is a web `ReadableStream` (fetch,
 * undici) or a Node stream (node-fetch v2). A body that is refused unread is stopped, within the grace.
 */
export async function receiveResponse(
  response: Response,
  maxBytes: number,
  waiting: Waiting,
): Promise<Received | NotReceived> {
  const { ok, status } = response;
  const body: unknown = response.body;
  const stopBody = bodyStopper(body);
  if (!ok) {
    await stopProducer(stopBody, waiting);
    const code = status === 408 || status === 504 ? "timeout" : "transport_error";
    return refused("response", code, "transport", 0, { reason: "http_status", status });
  }
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await stopProducer(stopBody, waiting);
    return refused("response", "result_too_large", "receive", 0, {
      reason: "declared_over_ceiling",
      declaredBytes: declared,
    });
  }
  if (response.bodyUsed === true) {
    return refused("response", "transport_error", "transport", 0, { reason: "body_used" });
  }
  if (body === null || body === undefined) return { ok: true, kind: "response", bytes: new Uint8Array(0), flags: [] };
  if (typeof body === "object" && isReadableStream(body)) return readStream("response", body, maxBytes, waiting);
  if (typeof body === "object" && isAsyncIterable(body)) return readIterable("response", body, maxBytes, waiting);
  return refused("response", "transport_error", "transport", 0, { reason: "unsupported_body" });
}
