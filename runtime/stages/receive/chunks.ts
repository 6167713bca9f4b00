/**
 * Bytes that arrive in pieces (a web stream, an async iterable): read chunk by chunk under the ceiling, the producer
 * stopped as soon as the running total passes it, yielded to the event loop so timers run against any producer.
 */
import { codeForThrown } from "../../contract/failure.js";
import type { FailureCode, GateStage } from "../../contract/types.js";
import { startSha256 } from "../../record/provenance.js";
import { isWellFormedText } from "../../text/hygiene.js";
import {
  FREE_EMPTY_CHUNKS,
  MAX_EMPTY_CHUNKS,
  type NotReceived,
  type RawKind,
  type Received,
  refused,
  YIELD_EVERY_CHUNKS,
} from "./received.js";
import {
  nextTurn,
  type Stopped,
  settle,
  sleep,
  stopProducer,
  stoppedRefusal,
  type Waiting,
  within,
} from "./waiting.js";

const encoder = new TextEncoder();

/** What {@link chunkBytes} says of a typed array or buffer whose memory was transferred away. */
export const DETACHED: unique symbol = Symbol("detached");

/**
 * One binary chunk as a `Uint8Array` of the gate's own, `DETACHED` for one over a detached buffer, or `undefined`
 * for a chunk type no transport should deliver. Only a real `ArrayBuffer` or view is accepted (`ArrayBuffer.isView`
 * looks at the object itself, so a proxy or a look-alike is not one); bytes over shared or resizable memory are
 * copied, so what the gate hashes is what it decodes.
 */
export function chunkBytes(chunk: unknown): Uint8Array | typeof DETACHED | undefined {
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
export function readStream(kind: RawKind, stream: ReadableStream<unknown>, maxBytes: number, waiting: Waiting) {
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
export function readIterable(
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

/** Whether `value` is a web `ReadableStream` (or anything with a `getReader`). */
export function isReadableStream(value: object): value is ReadableStream<unknown> {
  return typeof (value as Partial<ReadableStream>).getReader === "function";
}

/** Whether `value` is an async iterable. */
export function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === "function";
}
