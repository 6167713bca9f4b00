/**
 * The first two stages of the gate: classify what the transport delivered, and receive its bytes under the
 * contract's ceiling.
 *
 * The ceiling is enforced while reading: a stream is read chunk by chunk, and as soon as the running total passes
 * `maxBytes` the stream is cancelled (or the iterator returned) and what was read is dropped. So the gate reads at
 * most the ceiling plus one chunk, and keeps none of it.
 */
import { codeForThrown, isTransportFailure } from "./failure.js";
import { canonicalJson, guardParsedValue, parseJsonText } from "./json-text.js";
import { type HashedText, hashTextNow, startSha256 } from "./provenance.js";
import { cleanText, isWellFormedText, utf8Length } from "./text.js";
import type { FailureCode, GateFlag, GateStage } from "./types.js";

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
  /** A tool error's text, cleaned but not yet bounded. */
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
}

/** What {@link untilAborted} resolves to when the signal fired first. */
const ABORTED: unique symbol = Symbol("aborted");

/**
 * Waits for `pending` unless `signal` aborts first. A promise left behind has a handler attached, so its later
 * rejection is not reported as unhandled.
 */
async function untilAborted<T>(pending: PromiseLike<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (signal === undefined) return pending;
  Promise.resolve(pending).catch(() => undefined);
  if (signal.aborted) return ABORTED;
  let onAbort = (): void => undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
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
 * `admit(parsedResult(await localTool(args)))`. The gate guards its depth and size without recursion and
 * serialises it, then treats it like any JSON payload. A bare object is not accepted, because an object with a
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

/** One chunk as bytes, or `undefined` for a chunk type no transport should deliver. */
function chunkBytes(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === "string") return encoder.encode(chunk);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
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

/**
 * Reads chunks from `next` until done, counting bytes. Past `maxBytes` it calls `stop` (cancel the stream, return
 * the iterator), drops everything read, and refuses with `result_too_large`. A thrown read is a `transport_error`
 * (a `TimeoutError` a `timeout`); its message is not kept, as it may quote the payload.
 */
async function readChunks(
  kind: RawKind,
  next: () => Promise<IteratorResult<unknown>>,
  stop: () => Promise<unknown> | undefined,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Received | NotReceived> {
  let chunks: Uint8Array[] = [];
  let total = 0;
  const hashing = startSha256();
  for (;;) {
    let step: IteratorResult<unknown> | typeof ABORTED;
    try {
      step = await untilAborted(next(), signal);
    } catch (error) {
      chunks = [];
      return refused(kind, codeForThrown(error), "transport", total, { reason: "read_failed" });
    }
    if (step === ABORTED) {
      chunks = [];
      // Not awaited: a producer stuck in its read may never acknowledge; the caller asked to stop waiting.
      Promise.resolve(stop()).catch(() => undefined);
      return refused(kind, codeForThrown(signal?.reason), "transport", total, { reason: "aborted" });
    }
    if (step.done) break;
    const bytes = chunkBytes(step.value);
    if (bytes === undefined) {
      chunks = [];
      await Promise.resolve(stop()).catch(() => undefined);
      return refused(kind, "transport_error", "transport", total, { reason: "unsupported_chunk" });
    }
    total += bytes.byteLength;
    if (total > maxBytes) {
      // Drop the references first so nothing past the ceiling stays reachable, then stop the producer.
      chunks = [];
      await Promise.resolve(stop()).catch(() => undefined);
      return refused(kind, "result_too_large", "receive", total, { reason: "over_ceiling" });
    }
    chunks.push(bytes);
    hashing?.update(bytes);
  }
  return { ok: true, kind, bytes: concatenate(chunks, total), sha256: hashing?.hex(), flags: [] };
}

/** Reads a web `ReadableStream` under the ceiling, cancelling it when it goes over or the signal aborts. */
function readStream(kind: RawKind, stream: ReadableStream<unknown>, maxBytes: number, signal: AbortSignal | undefined) {
  if (stream.locked)
    return Promise.resolve(refused(kind, "transport_error", "transport", 0, { reason: "stream_locked" }));
  const reader = stream.getReader();
  return readChunks(
    kind,
    () => reader.read() as Promise<IteratorResult<unknown>>,
    () => reader.cancel(),
    maxBytes,
    signal,
  ).finally(() => {
    try {
      reader.releaseLock();
    } catch {
      // Releasing a lock on a stream that errored or was cancelled may throw in some runtimes; nothing to undo.
    }
  });
}

/** Whether `value` is a promise (or any thenable) of a raw result. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
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

/** Whether `value` is a web `ReadableStream`. */
function isReadableStream(value: object): value is ReadableStream<unknown> {
  return typeof (value as Partial<ReadableStream>).getReader === "function";
}

/** Whether `value` looks like an MCP `CallToolResult` (`{ content: [...], structuredContent?, isError? }`). */
export function isCallToolResult(value: object): value is McpCallToolResult {
  return Array.isArray((value as { content?: unknown }).content);
}

/** The parts of an MCP `CallToolResult` the gate reads (2025-06-18 revision of the spec). */
export interface McpCallToolResult {
  content: Array<{ type?: unknown; text?: unknown }>;
  structuredContent?: unknown;
  isError?: unknown;
}

/** The text of every text block, joined by newlines. */
function textOf(result: McpCallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content) {
    if (block !== null && typeof block === "object" && block.type === "text" && typeof block.text === "string") {
      parts.push(block.text);
    }
  }
  return parts.join("\n");
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
 * A value that arrived already parsed (MCP `structuredContent`, an in-process tool's return value): depth- and
 * size-guarded without recursion, then serialised, so from here on it goes through the same parse as any text
 * payload and `data` is a fresh JSON copy. An integral number past 2^53 − 1 is refused by that parse like an
 * integer literal, since it may already have been rounded.
 */
function receiveParsedValue(kind: RawKind, value: unknown, limits: ReceiveLimits): ReceivedText | NotReceived {
  const guard = guardParsedValue(value, limits.maxDepth, limits.maxBytes);
  if (!guard.ok) {
    if (guard.reason === "too_large") {
      return refused(kind, "result_too_large", "receive", guard.atLeastBytes, { reason: "over_ceiling" });
    }
    if (guard.reason === "too_deep") {
      // As for text: deeper than the contract allows is a mismatch with the contract (a cycle counts as too deep).
      return refused(kind, "schema_mismatch", "parse", 0, {
        reason: "too_deep",
        depth: guard.depth,
        maxDepth: limits.maxDepth,
      });
    }
    return refused(kind, "invalid_json", "parse", 0, { reason: guard.reason });
  }
  // `JSON.stringify` escapes lone surrogates (ES2019), so its text is always well-formed.
  const json = JSON.stringify(value);
  const over = overCeiling(json, limits.maxBytes);
  if (over !== undefined) return refused(kind, "result_too_large", "receive", over, { reason: "over_ceiling" });
  return { ok: true, kind, text: json, hashed: hashTextNow(json), flags: [] };
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
 * Reads an MCP `CallToolResult`.
 * - `isError: true` → `tool_error`; the text blocks become the (cleaned) tool message, kept in diagnostics only.
 * - With an output schema (`structured`): `structuredContent` is the result; absent, the call fails as
 *   `schema_mismatch` (the MCP spec requires structured results that conform to the declared schema). It is
 *   depth- and size-guarded, then serialised and from then on goes through the same parse as any text payload, so
 *   `data` is a fresh JSON copy. A text block that is not the same JSON is flagged
 *   `mcp_text_mismatch` (reported, not a failure).
 * - Without one: the first text block is the JSON text of the result.
 */
function receiveCallToolResult(result: McpCallToolResult, limits: ReceiveLimits): Received | NotReceived {
  if (result.isError === true) {
    const text = textOf(result);
    const length = utf8Length(text);
    const bytes = length <= limits.maxBytes ? encoder.encode(text) : undefined;
    return {
      ...refused("mcp_error", "tool_error", "transport", length, { reason: "is_error" }),
      ...(bytes ? { bytes } : {}),
      toolMessage: cleanText(text),
    };
  }
  if (limits.structured) {
    if (!("structuredContent" in result) || result.structuredContent === undefined) {
      return refused("mcp_structured", "schema_mismatch", "validate", 0, { reason: "no_structured_content" });
    }
    const serialised = receiveParsedValue("mcp_structured", result.structuredContent, limits);
    if (!serialised.ok) return serialised;
    const text = textOf(result);
    if (text !== "" && !textAgreesWithStructure(text, serialised.text, limits))
      serialised.flags.push("mcp_text_mismatch");
    return serialised;
  }
  const block = result.content.find(
    (entry) => entry !== null && typeof entry === "object" && entry.type === "text" && typeof entry.text === "string",
  );
  if (block === undefined) return refused("mcp_text", "invalid_json", "parse", 0, { reason: "no_text_content" });
  return receiveString("mcp_text", block.text as string, limits.maxBytes);
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
 * Classifies what was delivered and receives its bytes under `limits.maxBytes`. A promise is awaited first (its
 * rejection is the transport failure). Accepts: a `transportFailure(...)`, an `Error`
 * (a failed transport: `TimeoutError` → `timeout`, else `transport_error`), a string, a `Uint8Array`/`ArrayBuffer`/
 * typed array, a fetch `Response` (non-2xx → `transport_error`, 408/504 → `timeout`; a `Content-Length` over the
 * ceiling is refused before reading), a web `ReadableStream`, an async iterable of chunks (bytes or strings), and
 * an MCP `CallToolResult`, and a `parsedResult(value)` from an in-process tool. Anything else is refused as
 * `transport_error` (`unsupported_raw`): a bare object is ambiguous (see {@link parsedResult}).
 */
export async function receive(delivered: unknown, limits: ReceiveLimits): Promise<Received | NotReceived> {
  const { maxBytes, signal } = limits;
  let raw = delivered;
  if (isThenable(raw)) {
    // `admit(fetch(url))`, `admit(client.callTool(...))`: the transport's own rejection is the transport failure.
    let settled: unknown;
    try {
      settled = await untilAborted(raw, signal);
    } catch (error) {
      return refused("transport_failure", codeForThrown(error), "transport", 0, { reason: "thrown" });
    }
    if (settled === ABORTED) {
      return refused("transport_failure", codeForThrown(signal?.reason), "transport", 0, { reason: "aborted" });
    }
    raw = settled;
  }
  if (isTransportFailure(raw)) {
    return { ...refused("transport_failure", raw.kind, "transport", 0), callerMessage: raw.message };
  }
  if (raw instanceof Error)
    return refused("transport_failure", codeForThrown(raw), "transport", 0, { reason: "thrown" });
  if (typeof raw === "string") return receiveString("string", raw, maxBytes);
  if (raw instanceof Uint8Array || raw instanceof ArrayBuffer || ArrayBuffer.isView(raw)) {
    const bytes = chunkBytes(raw) as Uint8Array;
    if (bytes.byteLength > maxBytes) {
      return refused("bytes", "result_too_large", "receive", bytes.byteLength, { reason: "over_ceiling" });
    }
    return { ok: true, kind: "bytes", bytes, flags: [] };
  }
  if (typeof raw !== "object" || raw === null)
    return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });

  if (isParsedResult(raw)) return receiveParsedValue("parsed", raw.value, limits);
  if (isResponse(raw)) {
    const body = raw.body as ReadableStream<unknown> | null;
    const cancelBody = () => body?.cancel().catch(() => undefined);
    if (!raw.ok) {
      await cancelBody();
      const code = raw.status === 408 || raw.status === 504 ? "timeout" : "transport_error";
      return refused("response", code, "transport", 0, { reason: "http_status", status: raw.status });
    }
    const declared = Number(raw.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await cancelBody();
      return refused("response", "result_too_large", "receive", 0, {
        reason: "declared_over_ceiling",
        declaredBytes: declared,
      });
    }
    if (raw.bodyUsed) return refused("response", "transport_error", "transport", 0, { reason: "body_used" });
    if (body === null) return { ok: true, kind: "response", bytes: new Uint8Array(0), flags: [] };
    return readStream("response", body, maxBytes, signal);
  }
  if (isReadableStream(raw)) return readStream("stream", raw, maxBytes, signal);
  if (typeof (raw as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") {
    const iterator = (raw as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    return readChunks(
      "iterable",
      () => iterator.next(),
      () => iterator.return?.(),
      maxBytes,
      signal,
    );
  }
  if (isCallToolResult(raw)) return receiveCallToolResult(raw, limits);
  return refused("unsupported", "transport_error", "transport", 0, { reason: "unsupported_raw" });
}
