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
import { codeForThrown, isTransportFailure, transportFailureOf } from "../../failure.js";
import { canonicalJson, parsedValueJson, parseJsonText } from "../../json-text.js";
import { type HashedText, hashTextNow, startSha256 } from "../../record/provenance.js";
import { isWellFormedText, utf8Length } from "../../text.js";
import type { FailureCode, GateFlag, GateStage } from "../../types.js";

/** What the transport delivered, as far as the gate can tell. Used in events and diagnostics. */
export type RawKind =
  | "parsed"
  | "string"
  | "bytes"
  | "stream"
  | "response"
  | "iterable"
  | "mcp_text"
  | "mcp_structured"
  | "mcp_error"
  | "transport_failure"
  | "unsupported";

/** A payload received in full, under the ceiling. */
export type Received = ReceivedBytes | ReceivedText;

/** What every received payload carries. */
interface ReceivedPayload {
  ok: true;
  kind: RawKind;
  flags: GateFlag[];
}

/** A payload that arrived as bytes (or chunks of them): still to be decoded as strict UTF-8. */
export interface ReceivedBytes extends ReceivedPayload {
  bytes: Uint8Array;
  /** sha256 of the bytes, when they were hashed chunk by chunk as they arrived. */
  sha256?: string | undefined;
  text?: undefined;
}

/**
 * A payload that arrived as a string (or was serialised to one): already checked well-formed, so its bytes are its
 * UTF-8 encoding, never decoded again. Where the host hashes synchronously they were encoded once, to measure and
 * hash them (`hashed`); elsewhere the gate encodes them to hash.
 */
export interface ReceivedText extends ReceivedPayload {
  text: string;
  hashed: HashedText | undefined;
  bytes?: undefined;
}

/** Why nothing usable was received. Carries codes and numbers only, never payload text. */
export interface NotReceived {
  ok: false;
  kind: RawKind;
  code: FailureCode;
  stage: GateStage;
  /** Bytes read before the gate stopped (for a refused stream: at most the ceiling plus one chunk). */
  bytesRead: number;
  /** The bytes, when they were all read and are worth hashing for provenance (a tool error's text). */
  bytes?: Uint8Array;
  detail: Record<string, string | number | boolean>;
  /** The caller's own transport message (from `transportFailure`), trusted text. */
  callerMessage?: string;
  /** A tool error's text, read up to the receive ceiling, not yet cleaned (the gate cleans what it keeps). */
  toolMessage?: string;
}

/** What {@link receive} needs from the contract. */
export interface ReceiveLimits {
  maxBytes: number;
  maxDepth: number;
  /** Read MCP `structuredContent` (the contract declares an output schema) rather than the first text block. */
  structured: boolean;
  /**
   * Stops waiting for the transport: a pending promise or read is abandoned and the stream cancelled. Its reason
   * decides the code (`TimeoutError`, as from `AbortSignal.timeout(ms)`, is `timeout`; anything else
   * `transport_error`).
   */
  signal?: AbortSignal | undefined;
  /**
   * The contract's time limit on waiting for the transport, in milliseconds (`x-toolgate.receive.timeoutMs`), with
   * or without a signal: past it the call is a `timeout` (`detail.reason = "deadline"`). Default
   * {@link DEFAULT_TIMEOUT_MS}.
   */
  timeoutMs?: number | undefined;
}

/** The time limit on waiting for the transport when the contract does not set one. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Thenables followed at most: a chain longer than this (a thenable resolving with itself) never settles. */
export const MAX_THENABLE_HOPS = 32;
/** Chunks read between two yields to the event loop, so timers (the caller's signal) run against any producer. */
export const YIELD_EVERY_CHUNKS = 256;
/** Empty chunks in a row read at full speed; each further one waits a millisecond. */
export const FREE_EMPTY_CHUNKS = 64;
/**
 * Empty chunks in a row refused as `transport_error` (`empty_chunks`): a producer making no progress. With the
 * millisecond waits past {@link FREE_EMPTY_CHUNKS}, reaching it takes about a second, so a caller's shorter signal
 * ends such a call as `timeout` first.
 */
export const MAX_EMPTY_CHUNKS = 1024;
/** Longest wait for a producer to acknowledge `cancel()`/`return()` before the gate goes on without it. */
export const STOP_GRACE_MS = 100;

/** The bounds on every wait for the transport in one receive. */
interface Waiting {
  signal: AbortSignal | undefined;
  /** `Date.now()` past which waiting ends. */
  deadline: number;
  timeoutMs: number;
}

/** Why a wait ended before what it waited for: the caller's signal, or the contract's time limit. */
const ABORTED: unique symbol = Symbol("aborted");
const EXPIRED: unique symbol = Symbol("expired");
type Stopped = typeof ABORTED | typeof EXPIRED;

/**
 * Waits for `pending`, a promise of the gate's own that never rejects, unless the signal aborts or the deadline
 * passes first. The listener and the timer are removed as soon as one of them wins.
 */
function within<T>(pending: Promise<T>, waiting: Waiting): Promise<T | Stopped> {
  const { signal } = waiting;
  if (signal?.aborted) return Promise.resolve(ABORTED);
  const left = waiting.deadline - Date.now();
  if (left <= 0) return Promise.resolve(EXPIRED);
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (value: T | Stopped): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = (): void => finish(ABORTED);
    timer = setTimeout(() => finish(EXPIRED), left);
    signal?.addEventListener("abort", onAbort, { once: true });
    pending.then(finish, () => finish(ABORTED));
  });
}

/** A promise that never settles: what the gate waits on when a producer will never answer. */
function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** A promise of the next turn of the event loop (a macrotask, after any timers that are due). */
function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate === undefined ? setTimeout(resolve, 0) : immediate(resolve)));
}

/** A promise resolved after `ms` milliseconds. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How a foreign promise-like settled. */
type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The `then` of a value that has one (a thenable), else `undefined`. Reading it may throw (a getter, a proxy). */
function thenOf(value: unknown): ((...args: unknown[]) => unknown) | undefined {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return undefined;
  const then = (value as { then?: unknown }).then;
  return typeof then === "function" ? (then as (...args: unknown[]) => unknown) : undefined;
}

/**
 * Calls a thenable's `then` once, with callbacks of the gate's own: the first call of either wins, a throw is a
 * rejection. The outcome is boxed, so the gate's promise never adopts the value (which may be another thenable).
 */
function callThen(thenable: unknown, then: (...args: unknown[]) => unknown): Promise<Settled> {
  return new Promise((resolve) => {
    let done = false;
    const onValue = (value: unknown): void => {
      if (done) return;
      done = true;
      resolve({ ok: true, value });
    };
    const onError = (error: unknown): void => {
      if (done) return;
      done = true;
      resolve({ ok: false, error });
    };
    try {
      Reflect.apply(then, thenable, [onValue, onError]);
    } catch (error) {
      onError(error);
    }
  });
}

/**
 * What a value settles to, following thenables that resolve with thenables, at most {@link MAX_THENABLE_HOPS}
 * hops: past that the chain never settles, and the wait ends with the signal or the deadline, without spinning.
 * A value that is not a thenable settles to itself.
 */
async function settle(value: unknown, waiting: Waiting): Promise<Settled | Stopped> {
  let current = value;
  for (let hops = 0; ; hops++) {
    let then: ((...args: unknown[]) => unknown) | undefined;
    try {
      then = thenOf(current);
    } catch (error) {
      return { ok: false, error };
    }
    if (then === undefined) return { ok: true, value: current };
    const step = await within(hops < MAX_THENABLE_HOPS ? callThen(current, then) : never(), waiting);
    if (typeof step === "symbol" || !step.ok) return step;
    current = step.value;
  }
}

/** The refusal for a wait that the signal or the deadline ended. */
function stoppedRefusal(kind: RawKind, stopped: Stopped, waiting: Waiting, bytesRead: number): NotReceived {
  if (stopped === EXPIRED) {
    return refused(kind, "timeout", "transport", bytesRead, { reason: "deadline", timeoutMs: waiting.timeoutMs });
  }
  return refused(kind, codeForThrown(waiting.signal?.reason), "transport", bytesRead, { reason: "aborted" });
}

/**
 * Asks a producer to stop (`cancel()`, `return()`) and waits for it to acknowledge, at most {@link STOP_GRACE_MS}
 * and never past the wait's end: a producer whose acknowledgement never comes must not hold the call. Never throws.
 */
async function stopProducer(stop: () => unknown, waiting: Waiting): Promise<void> {
  let stopping: unknown;
  try {
    stopping = stop();
  } catch {
    return;
  }
  const grace = { ...waiting, deadline: Math.min(waiting.deadline, Date.now() + STOP_GRACE_MS) };
  await settle(stopping, grace);
}

const encoder = new TextEncoder();

const PARSED_RESULT = Symbol.for("toolgate.parsedResult");

/** A tool result that is already a JS value, marked by {@link parsedResult}. */
export interface ParsedResult {
  readonly [PARSED_RESULT]: true;
  readonly value: unknown;
}

/**
 * Marks a value an in-process tool returned (no transport, no JSON text) for `admit`:
 * `admit(parsedResult(await localTool(args)))`. The gate writes its JSON text itself, without recursion and
 * without calling `toJSON` or reading a property twice, refusing what is not plain JSON data (see
 * `parsedValueJson`), then treats it like any JSON payload. A bare object is not accepted, because an object with a
 * `content` array cannot be told apart from an MCP `CallToolResult`.
 */
export function parsedResult(value: unknown): ParsedResult {
  return Object.freeze({ [PARSED_RESULT]: true as const, value });
}

/** Whether `raw` was made by {@link parsedResult}. */
function isParsedResult(raw: object): raw is ParsedResult {
  return (raw as Record<symbol, unknown>)[PARSED_RESULT] === true;
}

/** A transport-level refusal with no payload. */
function refused(
  kind: RawKind,
  code: FailureCode,
  stage: GateStage,
  bytesRead: number,
  detail: Record<string, string | number | boolean> = {},
): NotReceived {
  return { ok: false, kind, code, stage, bytesRead, detail };
}

/** What {@link chunkBytes} says of a typed array or buffer whose memory was transferred away. */
const DETACHED: unique symbol = Symbol("detached");

/**
 * One binary chunk as a `Uint8Array` of the gate's own, `DETACHED` for one over a detached buffer, or `undefined`
 * for a chunk type no transport should deliver. Only a real `ArrayBuffer` or view is accepted (`ArrayBuffer.isView`
 * looks at the object itself, so a proxy or a look-alike is not one); bytes over shared or resizable memory are
 * copied, so what the gate hashes is what it decodes.
 */
function chunkBytes(chunk: unknown): Uint8Array | typeof DETACHED | undefined {
  let bytes: Uint8Array;
  try {
    if (ArrayBuffer.isView(chunk)) bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    else if (chunk instanceof ArrayBuffer) bytes = new Uint8Array(chunk);
    else return undefined;
  } catch {
    // A typed array, DataView or ArrayBuffer whose memory was transferred: nothing left to read.
    return DETACHED;
  }
  const buffer = bytes.buffer as ArrayBufferLike & { resizable?: boolean };
  const shared = typeof SharedArrayBuffer !== "undefined" && buffer instanceof SharedArrayBuffer;
  if (shared || buffer.resizable === true) {
    const copy = new Uint8Array(bytes.byteLength);
    copy.set(bytes);
    return copy;
  }
  return bytes;
}

/** Joins chunks into one array. */
function concatenate(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

/** Whether a UTF-16 unit is a high (leading) surrogate. */
function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Reads chunks from `next` until done, counting bytes. Past `maxBytes` it stops the producer (cancel the stream,
 * return the iterator), drops everything read, and refuses with `result_too_large`. A thrown or rejected read is a
 * `transport_error` (a `TimeoutError` a `timeout`); its message is not kept, as it may quote the payload.
 *
 * Each chunk is copied as it arrives, so a producer that reuses its buffer cannot change what was read.
 *
 * String chunks are one text cut in pieces: they are joined as strings, so a surrogate pair split across two chunks
 * is the character it encodes, and only a surrogate left alone in the joined text is `invalid_encoding`, as in a
 * string delivered whole. Binary chunks are joined as bytes and decoded together.
 */
async function readChunks(
  kind: RawKind,
  next: () => unknown,
  stop: () => unknown,
  maxBytes: number,
  waiting: Waiting,
): Promise<Received | NotReceived> {
  let chunks: Uint8Array[] = [];
  let total = 0;
  /** A high surrogate that ended the last string chunk, waiting for its pair. */
  let held = "";
  let sinceYield = 0;
  let emptyRun = 0;
  const hashing = startSha256();
  /** Drops what was read, stops the producer (awaited within the grace) and refuses. */
  const refuse = async (code: FailureCode, stage: GateStage, reason: string): Promise<NotReceived> => {
    chunks = [];
    await stopProducer(stop, waiting);
    return refused(kind, code, stage, total, { reason });
  };
  /** Ends a read the signal or the deadline stopped: the producer is asked to stop but not waited for. */
  const abandon = (stopped: Stopped): NotReceived => {
    chunks = [];
    void stopProducer(stop, waiting);
    return stoppedRefusal(kind, stopped, waiting, total);
  };
  for (;;) {
    let produced: unknown;
    try {
      produced = next();
    } catch (error) {
      chunks = [];
      return refused(kind, codeForThrown(error), "transport", total, { reason: "read_failed" });
    }
    const settled = await settle(produced, waiting);
    if (typeof settled === "symbol") return abandon(settled);
    if (!settled.ok) {
      chunks = [];
      return refused(kind, codeForThrown(settled.error), "transport", total, { reason: "read_failed" });
    }
    const step = settled.value;
    // The iterator protocol's result must be an object; `null` or a number is a broken producer.
    if (step === null || typeof step !== "object") return refuse("transport_error", "transport", "invalid_step");
    const { done, value } = step as { done?: unknown; value?: unknown };
    if (done) break;
    let bytes: Uint8Array | typeof DETACHED | undefined;
    if (typeof value === "string") {
      let text = held === "" ? value : `${held}${value}`;
      held = "";
      if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
        held = text.slice(-1);
        text = text.slice(0, -1);
      }
      if (!isWellFormedText(text)) return refuse("invalid_encoding", "decode", "lone_surrogate");
      bytes = encoder.encode(text);
    } else {
      if (held !== "") return refuse("invalid_encoding", "decode", "lone_surrogate");
      bytes = chunkBytes(value);
    }
    if (bytes === undefined) return refuse("transport_error", "transport", "unsupported_chunk");
    if (bytes === DETACHED) return refuse("transport_error", "transport", "detached_buffer");
    if (bytes.byteLength === 0) {
      emptyRun++;
      if (emptyRun > MAX_EMPTY_CHUNKS) return refuse("transport_error", "transport", "empty_chunks");
      if (emptyRun > FREE_EMPTY_CHUNKS) {
        const slept = await within(sleep(1), waiting);
        if (typeof slept === "symbol") return abandon(slept);
      }
    } else emptyRun = 0;
    total += bytes.byteLength;
    if (total > maxBytes) {
      // Drop the references first so nothing past the ceiling stays reachable, then stop the producer.
      chunks = [];
      await stopProducer(stop, waiting);
      return refused(kind, "result_too_large", "receive", total, { reason: "over_ceiling" });
    }
    // A copy of the gate's own: a producer may reuse its buffer for the next chunk (or change it later), and what
    // was hashed must be what is decoded.
    const own = bytes.slice();
    chunks.push(own);
    hashing?.update(own);
    if (++sinceYield >= YIELD_EVERY_CHUNKS) {
      sinceYield = 0;
      const turned = await within(nextTurn(), waiting);
      if (typeof turned === "symbol") return abandon(turned);
    }
  }
  // The text ended on half a surrogate pair.
  if (held !== "") {
    chunks = [];
    return refused(kind, "invalid_encoding", "decode", total, { reason: "lone_surrogate" });
  }
  return { ok: true, kind, bytes: concatenate(chunks, total), sha256: hashing?.hex(), flags: [] };
}

/** Reads a web `ReadableStream` under the ceiling, cancelling it when it goes over or the wait ends. */
function readStream(kind: RawKind, stream: ReadableStream<unknown>, maxBytes: number, waiting: Waiting) {
  if (stream.locked)
    return Promise.resolve(refused(kind, "transport_error", "transport", 0, { reason: "stream_locked" }));
  const reader = stream.getReader();
  return readChunks(
    kind,
    () => reader.read(),
    () => reader.cancel(),
    maxBytes,
    waiting,
  ).finally(() => {
    try {
      reader.releaseLock();
    } catch {
      // Releasing a lock on a stream that errored or was cancelled may throw in some runtimes; nothing to undo.
    }
  });
}

/**
 * Reads an async iterable of chunks (a Node `Readable`, an async generator) under the ceiling, returning the
 * iterator when it goes over or the wait ends. `next` and `return` are read once, as the iterator protocol does.
 */
function readIterable(
  kind: RawKind,
  iterable: AsyncIterable<unknown>,
  maxBytes: number,
  waiting: Waiting,
): Promise<Received | NotReceived> {
  const iterator = iterable[Symbol.asyncIterator]();
  const next = (iterator as { next?: unknown } | null | undefined)?.next;
  if (typeof next !== "function") {
    return Promise.resolve(refused(kind, "transport_error", "transport", 0, { reason: "invalid_iterator" }));
  }
  return readChunks(
    kind,
    () => Reflect.apply(next, iterator, []),
    () => {
      const finish = (iterator as { return?: unknown }).return;
      return typeof finish === "function" ? Reflect.apply(finish, iterator, []) : undefined;
    },
    maxBytes,
    waiting,
  );
}

/** Whether `value` looks like a fetch `Response` (checked by shape, so any fetch implementation works). */
function isResponse(value: object): value is Response {
  if (typeof Response !== "undefined" && value instanceof Response) return true;
  const candidate = value as Partial<Response>;
  return (
    typeof candidate.status === "number" &&
    typeof candidate.ok === "boolean" &&
    typeof candidate.headers?.get === "function" &&
    "body" in candidate
  );
}

/** Whether `value` is a web `ReadableStream` (or anything with a `getReader`). */
function isReadableStream(value: object): value is ReadableStream<unknown> {
  return typeof (value as Partial<ReadableStream>).getReader === "function";
}

/** Whether `value` is an async iterable. */
function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === "function";
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
async function receiveResponse(
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

/** The parts of an MCP `CallToolResult` the gate reads (2025-06-18 revision of the spec). */
export interface McpCallToolResult {
  content: Array<{ type?: unknown; text?: unknown }>;
  structuredContent?: unknown;
  isError?: unknown;
}

/** Text read from an MCP result's blocks, at most a bound: `over` when there was more. */
interface BlockText {
  text: string;
  over: boolean;
}

/** The text of a content block when it is a text block, else `undefined`; each property is read once. */
function blockText(block: unknown): string | undefined {
  if (block === null || typeof block !== "object") return undefined;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === "text" && typeof text === "string" ? text : undefined;
}

/**
 * The text of every text block, joined by newlines, reading at most `maxUnits` UTF-16 units (each at least one
 * UTF-8 byte, so a bound in bytes is one in units): a tool's 60 MB of error text is never joined, cleaned or
 * encoded whole.
 */
function textOf(content: readonly unknown[], maxUnits: number): BlockText {
  const parts: string[] = [];
  let units = 0;
  const count = content.length;
  for (let i = 0; i < count; i++) {
    const text = blockText(content[i]);
    if (text === undefined) continue;
    if (parts.length > 0) units++;
    if (units + text.length > maxUnits) {
      parts.push(text.slice(0, Math.max(0, maxUnits - units)));
      return { text: parts.join("\n"), over: true };
    }
    units += text.length;
    parts.push(text);
  }
  return { text: parts.join("\n"), over: false };
}

/** Whether an MCP result's text block carries the same JSON value as its structured content. */
function textAgreesWithStructure(text: string, structuredJson: string, limits: ReceiveLimits): boolean {
  // Cheapest first: servers usually send `JSON.stringify` of the same value, sometimes indented; only text with
  // keys in another order needs the canonical (sorted) comparison.
  if (text === structuredJson) return true;
  if (utf8Length(text) > limits.maxBytes) return false;
  const parsed = parseJsonText(text, limits.maxDepth);
  if (!parsed.ok) return false;
  if (JSON.stringify(parsed.value) === structuredJson) return true;
  try {
    return (
      canonicalJson(parsed.value, limits.maxDepth + 1) ===
      canonicalJson(JSON.parse(structuredJson), limits.maxDepth + 1)
    );
  } catch {
    return false;
  }
}

/**
 * A value that arrived already parsed (MCP `structuredContent`, an in-process tool's return value): written as JSON
 * text by the gate itself (`parsedValueJson`: plain JSON data only, every property read once, no `toJSON`, no
 * recursion, depth and size bounded as it goes), so from here on it goes through the same parse as any text
 * payload and `data` is a fresh JSON copy. The same rules as for text: a lone surrogate (in a string or a key) is
 * `invalid_encoding`, a number past 2^53 − 1 `invalid_json` (`unsafe_integer`), too deep `schema_mismatch`.
 */
function receiveParsedValue(kind: RawKind, value: unknown, limits: ReceiveLimits): ReceivedText | NotReceived {
  const json = parsedValueJson(value, limits.maxDepth, limits.maxBytes);
  if (!json.ok) {
    switch (json.reason) {
      case "too_large":
        return refused(kind, "result_too_large", "receive", json.atLeastBytes, { reason: "over_ceiling" });
      case "too_deep":
        // As for text: deeper than the contract allows is a mismatch with the contract (a cycle counts as too deep).
        return refused(kind, "schema_mismatch", "parse", 0, {
          reason: "too_deep",
          depth: json.depth,
          maxDepth: limits.maxDepth,
        });
      case "lone_surrogate":
        return refused(kind, "invalid_encoding", "decode", 0, { reason: "lone_surrogate" });
      default:
        return refused(kind, "invalid_json", "parse", 0, { reason: json.reason });
    }
  }
  const over = overCeiling(json.text, limits.maxBytes);
  if (over !== undefined) return refused(kind, "result_too_large", "receive", over, { reason: "over_ceiling" });
  return { ok: true, kind, text: json.text, hashed: hashTextNow(json.text), flags: [] };
}

/**
 * The UTF-8 length of `text` when it is over `maxBytes`, else `undefined`. A UTF-16 unit is at most 3 UTF-8 bytes,
 * so a text of at most `maxBytes / 3` units is under the ceiling without counting.
 */
function overCeiling(text: string, maxBytes: number): number | undefined {
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = utf8Length(text);
  return bytes > maxBytes ? bytes : undefined;
}

/**
 * Reads an MCP `CallToolResult` (its `content` already read, once, and found an array).
 * - `isError: true` → `tool_error`; the text blocks, read up to the receive ceiling, become the tool message (the
 *   gate cleans and bounds it), kept in diagnostics only.
 * - With an output schema (`structured`): `structuredContent` is the result; absent, the call fails as
 *   `schema_mismatch` (the MCP spec requires structured results that conform to the declared schema). It is
 *   written as JSON text by the gate (see {@link receiveParsedValue}) and from then on goes through the same parse
 *   as any text payload, so `data` is a fresh JSON copy. A text block that is not the same JSON is flagged
 *   `mcp_text_mismatch` (reported, not a failure).
 * - Without one: the first text block is the JSON text of the result.
 */
function receiveCallToolResult(
  result: object,
  content: readonly unknown[],
  limits: ReceiveLimits,
): Received | NotReceived {
  const { isError } = result as { isError?: unknown };
  if (isError === true) {
    const { text, over } = textOf(content, limits.maxBytes);
    const length = utf8Length(text);
    const bytes = !over && length <= limits.maxBytes ? encoder.encode(text) : undefined;
    return {
      ...refused("mcp_error", "tool_error", "transport", length, {
        reason: "is_error",
        ...(over ? { over: true } : {}),
      }),
      ...(bytes ? { bytes } : {}),
      toolMessage: text,
    };
  }
  if (limits.structured) {
    const structured =
      "structuredContent" in result ? (result as { structuredContent?: unknown }).structuredContent : undefined;
    if (structured === undefined) {
      return refused("mcp_structured", "schema_mismatch", "validate", 0, { reason: "no_structured_content" });
    }
    const serialised = receiveParsedValue("mcp_structured", structured, limits);
    if (!serialised.ok) return serialised;
    const { text, over } = textOf(content, limits.maxBytes);
    if (text !== "" && (over || !textAgreesWithStructure(text, serialised.text, limits))) {
      serialised.flags.push("mcp_text_mismatch");
    }
    return serialised;
  }
  for (let i = 0; i < content.length; i++) {
    const text = blockText(content[i]);
    if (text !== undefined) return receiveString("mcp_text", text, limits.maxBytes);
  }
  return refused("mcp_text", "invalid_json", "parse", 0, { reason: "no_text_content" });
}

/**
 * A string payload: refused over the ceiling without encoding it; lone surrogates are not UTF-8 text. The string is
 * kept as it is: the gate parses it directly and encodes it only to hash it.
 */
function receiveString(kind: RawKind, text: string, maxBytes: number): ReceivedText | NotReceived {
  // Every UTF-16 unit is at least one UTF-8 byte, so a string longer than the ceiling in units is over it in bytes.
  if (text.length > maxBytes) {
    return refused(kind, "result_too_large", "receive", text.length, { reason: "over_ceiling" });
  }
  const over = overCeiling(text, maxBytes);
  if (over !== undefined) return refused(kind, "result_too_large", "receive", over, { reason: "over_ceiling" });
  // Encoding to hash shows for free (no U+FFFD bytes) that nearly every text is well-formed; only text whose bytes
  // hold U+FFFD, or a host that cannot hash synchronously, needs the scan for lone surrogates.
  const hashed = hashTextNow(text);
  if ((hashed === undefined || hashed.replacement) && !isWellFormedText(text)) {
    return refused(kind, "invalid_encoding", "decode", hashed?.byteLength ?? utf8Length(text), {
      reason: "lone_surrogate",
    });
  }
  return { ok: true, kind, text, hashed, flags: [] };
}

/**
 * Classifies what was delivered and receives its bytes under `limits.maxBytes`. A promise (any thenable) is
 * settled first (its rejection is the transport failure). Accepts: a `transportFailure(...)`, an `Error`
 * (a failed transport: `TimeoutError` → `timeout`, else `transport_error`), a string, a `Uint8Array`/`ArrayBuffer`/
 * typed array/`DataView`, a fetch `Response` (non-2xx → `transport_error`, 408/504 → `timeout`; a `Content-Length`
 * over the ceiling is refused before reading; a web or a Node stream body), a web `ReadableStream`, an async
 * iterable of chunks (bytes or strings), an MCP `CallToolResult`, and a `parsedResult(value)` from an in-process
 * tool. Anything else is refused as `transport_error` (`unsupported_raw`): a bare object is ambiguous (see
 * {@link parsedResult}). Never rejects: whatever the raw value's own code throws is a `transport_error`
 * (`hostile_raw`), and every wait ends with `limits.signal` or `limits.timeoutMs`.
 */
export async function receive(delivered: unknown, limits: ReceiveLimits): Promise<Received | NotReceived> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const waiting: Waiting = { signal: limits.signal, deadline: Date.now() + timeoutMs, timeoutMs };
  try {
    return await receiveRaw(delivered, limits, waiting);
  } catch {
    // A getter, a proxy trap or a revoked proxy threw while the gate looked at the raw value: the error is the raw
    // value's own (its message may be anything), so only the fact is kept.
    return refused("unsupported", "transport_error", "transport", 0, { reason: "hostile_raw" });
  }
}

/** {@link receive} without its guard: it may throw whatever the raw value's code throws. */
async function receiveRaw(
  delivered: unknown,
  limits: ReceiveLimits,
  waiting: Waiting,
): Promise<Received | NotReceived> {
  const { maxBytes } = limits;
  let raw = delivered;
  if (thenOf(raw) !== undefined) {
    // `admit(fetch(url))`, `admit(client.callTool(...))`: the transport's own rejection is the transport failure.
    const settled = await settle(raw, waiting);
    if (typeof settled === "symbol") return stoppedRefusal("transport_failure", settled, waiting, 0);
    if (!settled.ok)
      return refused("transport_failure", codeForThrown(settled.error), "transport", 0, { reason: "thrown" });
    raw = settled.value;
  }
  if (typeof raw === "string") return receiveString("string", raw, maxBytes);
  if (typeof raw !== "object" || raw === null)
    return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
  if (isTransportFailure(raw)) {
    const failure = transportFailureOf(raw);
    if (failure === undefined)
      return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
    return { ...refused("transport_failure", failure.kind, "transport", 0), callerMessage: failure.message };
  }
  if (raw instanceof Error)
    return refused("transport_failure", codeForThrown(raw), "transport", 0, { reason: "thrown" });
  if (ArrayBuffer.isView(raw) || raw instanceof ArrayBuffer) {
    const bytes = chunkBytes(raw);
    if (bytes === DETACHED || bytes === undefined) {
      return refused("bytes", "transport_error", "transport", 0, { reason: "detached_buffer" });
    }
    if (bytes.byteLength > maxBytes) {
      return refused("bytes", "result_too_large", "receive", bytes.byteLength, { reason: "over_ceiling" });
    }
    return { ok: true, kind: "bytes", bytes, flags: [] };
  }
  if (isParsedResult(raw)) return receiveParsedValue("parsed", raw.value, limits);
  if (isResponse(raw)) return receiveResponse(raw, maxBytes, waiting);
  if (isReadableStream(raw)) return readStream("stream", raw, maxBytes, waiting);
  if (isAsyncIterable(raw)) return readIterable("iterable", raw, maxBytes, waiting);
  const content = (raw as { content?: unknown }).content;
  if (Array.isArray(content)) return receiveCallToolResult(raw, content, limits);
  return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
}
