/**
 * The first two stages of the gate: classify what the transport delivered, and receive its bytes under the
 * contract's ceiling.
 *
 * The ceiling is enforced while reading: a stream is read chunk by chunk, and as soon as the running total passes
 * `maxBytes` the stream is cancelled (or the iterator returned) and what was read is dropped. So the gate reads at
 * most the ceiling plus one chunk, and keeps none of it.
 *
 * Whatever was delivered may be hostile: a getter that throws, a proxy, a revoked proxy, a thenable that resolves
 * with itself, an iterator that yields nothing forever or answers `null`, a typed array over a detached buffer, a
 * `cancel()` that never settles. So:
 * - every touch of the raw value (a property read, a getter, `then`, an iterator, a typed array's buffer) happens
 *   inside {@link receive}'s guard, and anything it throws is a `transport_error` (`detail.reason = "hostile_raw"`)
 *   whose error is dropped: nothing the raw value's code says reaches a message;
 * - a foreign thenable is never handed to `await` or `Promise.resolve` (which would follow a self-resolving one
 *   forever in microtasks, where no timer can run): the gate calls its `then` itself, once per hop, and follows at
 *   most {@link MAX_THENABLE_HOPS} of them; a longer chain never settles and ends with the wait;
 * - every wait for the transport ends when `limits.signal` aborts or `limits.timeoutMs` passes, whichever is first
 *   (`timeout`, `detail.reason = "deadline"`, for the contract's time limit);
 * - a producer is yielded to the event loop every {@link YIELD_EVERY_CHUNKS} chunks, so a caller's timer runs even
 *   against a producer that answers at once, and empty chunks are slowed and then refused (`empty_chunks`);
 * - a producer's `cancel()`/`return()` is awaited at most {@link STOP_GRACE_MS} ms, never past the wait's end.
 */
import { codeForThrown, isTransportFailure, transportFailureOf } from "../../contract/failure.js";
import { RAW_READERS, type RawReader } from "./readers.js";
import { DEFAULT_TIMEOUT_MS, type NotReceived, type Received, type ReceiveLimits, refused } from "./received.js";
import { receiveString } from "./string.js";
import { settle, stoppedRefusal, thenOf, type Waiting } from "./waiting.js";

/**
 * Classifies what was delivered and receives its bytes under `limits.maxBytes`. A promise (any thenable) is
 * settled first (its rejection is the transport failure). Accepts: a `transportFailure(...)`, an `Error`
 * (a failed transport: `TimeoutError` → `timeout`, else `transport_error`), a string, a `Uint8Array`/`ArrayBuffer`/
 * typed array/`DataView`, a fetch `Response` (non-2xx → `transport_error`, 408/504 → `timeout`; a `Content-Length`
 * over the ceiling is refused before reading; a web or a Node stream body), a web `ReadableStream`, an async
 * iterable of chunks (bytes or strings), an MCP `CallToolResult`, and a `parsedResult(value)` from an in-process
 * tool. Anything else is refused as `transport_error` (`unsupported_raw`): a bare object is ambiguous (see
 * `parsedResult`). Never rejects: whatever the raw value's own code throws is a `transport_error`
 * (`hostile_raw`), and every wait ends with `limits.signal` or `limits.timeoutMs`.
 */
export function receive(
  delivered: unknown,
  limits: ReceiveLimits,
): Received | NotReceived | Promise<Received | NotReceived> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const waiting: Waiting = { signal: limits.signal, deadline: Date.now() + timeoutMs, timeoutMs };
  // What is at hand (a string, bytes, a parsed value) is received without a promise, so a small result waits for
  // nothing; only what must be waited for (a promise, a stream, a response) returns one.
  try {
    const received = receiveRaw(delivered, limits, waiting);
    return received instanceof Promise ? received.catch(hostileRefusal) : received;
  } catch {
    return hostileRefusal();
  }
}

/**
 * A getter, a proxy trap or a revoked proxy threw while the gate looked at the raw value: the error is the raw
 * value's own (its message may be anything), so only the fact is kept.
 */
function hostileRefusal(): NotReceived {
  return refused("unsupported", "transport_error", "transport", 0, { reason: "hostile_raw" });
}

/**
 * {@link receive} without its guard: it may throw whatever the raw value's code throws. A promise is settled, a
 * string received as text; an object goes to the first reader of {@link RAW_READERS} that knows its kind.
 */
function receiveRaw(
  delivered: unknown,
  limits: ReceiveLimits,
  waiting: Waiting,
): Received | NotReceived | Promise<Received | NotReceived> {
  if (thenOf(delivered) !== undefined) return receiveSettled(delivered, limits, waiting);
  return receiveValue(delivered, limits, waiting);
}

/** `admit(fetch(url))`, `admit(client.callTool(...))`: the transport's own rejection is the transport failure. */
async function receiveSettled(
  delivered: unknown,
  limits: ReceiveLimits,
  waiting: Waiting,
): Promise<Received | NotReceived> {
  const settled = await settle(delivered, waiting);
  if (typeof settled === "symbol") return stoppedRefusal("transport_failure", settled, waiting, 0);
  if (!settled.ok)
    return refused("transport_failure", codeForThrown(settled.error), "transport", 0, { reason: "thrown" });
  return receiveValue(settled.value, limits, waiting);
}

/** What was delivered, or what its promise settled to: classified and read by its kind. */
function receiveValue(
  delivered: unknown,
  limits: ReceiveLimits,
  waiting: Waiting,
): Received | NotReceived | Promise<Received | NotReceived> {
  const raw = limits.keep === undefined ? delivered : limits.keep(delivered);
  if (typeof raw === "string") return receiveString("string", raw, limits.maxBytes, limits.screen);
  if (typeof raw !== "object" || raw === null)
    return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
  if (isTransportFailure(raw)) {
    const failure = transportFailureOf(raw);
    if (failure === undefined)
      return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
    const detail: Record<string, string> = failure.reason === undefined ? {} : { reason: failure.reason };
    return {
      ...refused("transport_failure", failure.kind, "transport", failure.bytes ?? 0, detail),
      callerMessage: failure.message,
      ...(failure.retryable === undefined ? {} : { retryable: failure.retryable }),
    };
  }
  if (raw instanceof Error)
    return refused("transport_failure", codeForThrown(raw), "transport", 0, { reason: "thrown" });
  for (let i = 0; i < RAW_READERS.length; i++) {
    const received = (RAW_READERS[i] as RawReader)(raw, limits, waiting);
    if (received !== undefined) return received;
  }
  return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
}
