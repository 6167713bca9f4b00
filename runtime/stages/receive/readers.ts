/**
 * The kinds of raw object the gate receives, in the order they are tried: adding a result kind is one file with
 * its reader and one line in {@link RAW_READERS}. Order matters where shapes overlap (a `Response` has a body that
 * is a stream; an MCP result is any object with a `content` array, so it comes last).
 */
import { chunkBytes, DETACHED, isAsyncIterable, isReadableStream, readIterable, readStream } from "./chunks.js";
import { incompleteRefusal, incompleteResultType, receiveCallToolResult } from "./mcp-result.js";
import { isParsedResult, receiveParsedValue } from "./parsed-value.js";
import type { NotReceived, Received, ReceiveLimits } from "./received.js";
import { refused } from "./received.js";
import { isResponse, receiveResponse } from "./response.js";
import { receiveString } from "./string.js";
import type { Waiting } from "./waiting.js";

/**
 * Receives `raw` when it is of the reader's kind, else `undefined` (the next reader is tried). It may throw what
 * the raw value's code throws: `receive` guards every reader.
 */
export type RawReader = (
  raw: object,
  limits: ReceiveLimits,
  waiting: Waiting,
) => Received | NotReceived | Promise<Received | NotReceived> | undefined;

/** A `Uint8Array`, `ArrayBuffer`, typed array or `DataView`: refused over the ceiling, else handed on to decode. */
function readBytes(raw: object, limits: ReceiveLimits): Received | NotReceived | undefined {
  if (!ArrayBuffer.isView(raw) && !(raw instanceof ArrayBuffer)) return undefined;
  const bytes = chunkBytes(raw);
  if (bytes === DETACHED || bytes === undefined) {
    return refused("bytes", "transport_error", "transport", 0, { reason: "detached_buffer" });
  }
  if (bytes.byteLength > limits.maxBytes) {
    return refused("bytes", "result_too_large", "receive", bytes.byteLength, { reason: "over_ceiling" });
  }
  return { ok: true, kind: "bytes", bytes, flags: [] };
}

/**
 * A `parsedResult(value)` from an in-process tool. Under a `text` contract the value is the text itself, so it must
 * be a string (`schema_mismatch`, `not_text`, else).
 */
const readParsed: RawReader = (raw, limits) => {
  if (!isParsedResult(raw)) return undefined;
  const { value } = raw;
  if (limits.result?.kind !== "text") return receiveParsedValue("parsed", value, limits);
  if (typeof value === "string") return receiveString("parsed", value, limits.maxBytes);
  return refused("parsed", "schema_mismatch", "validate", 0, { reason: "not_text" });
};

/** A fetch `Response`. */
const readResponse: RawReader = (raw, limits, waiting) =>
  isResponse(raw) ? receiveResponse(raw, limits.maxBytes, waiting) : undefined;

/** A web `ReadableStream`. */
const readWebStream: RawReader = (raw, limits, waiting) =>
  isReadableStream(raw) ? readStream("stream", raw, limits.maxBytes, waiting) : undefined;

/** An async iterable of chunks (a Node `Readable`, an async generator). */
const readAsyncIterable: RawReader = (raw, limits, waiting) =>
  isAsyncIterable(raw) ? readIterable("iterable", raw, limits.maxBytes, waiting) : undefined;

/**
 * An MCP `CallToolResult`: `content` is read once, and must be an array. A result that is not the tool's complete
 * answer (a 2026-07-28 `resultType` other than `"complete"`, a 2025-11-25 `{ task }`) is refused by name first.
 */
const readMcpResult: RawReader = (raw, limits) => {
  const content = (raw as { content?: unknown }).content;
  const incomplete = incompleteResultType(raw, content);
  if (incomplete !== undefined) return incompleteRefusal(incomplete);
  return Array.isArray(content) ? receiveCallToolResult(raw, content, limits) : undefined;
};

/** Every reader, tried in order; the first that knows the raw value's kind receives it. */
export const RAW_READERS: readonly RawReader[] = [
  readBytes,
  readParsed,
  readResponse,
  readWebStream,
  readAsyncIterable,
  readMcpResult,
];
