/**
 * What observe mode keeps of a raw result for the caller, and what the gate reads in its place. A value held in
 * memory (a string, bytes, a `parsedResult`, an MCP result) is read by the gate without being changed, so the caller
 * gets the very value back. What can be read only once is split first: a `Response` is cloned (the gate reads the
 * clone), a web stream teed (the gate reads one branch), an async iterable replayed (the chunks the gate read are
 * kept for the caller, the rest pulled from the source when the caller reads them). See `Observation` in `types.ts`.
 */
import { isTransportFailure } from "../../contract/failure.js";
import { chunkBytes, DETACHED, isAsyncIterable, isReadableStream } from "./chunks.js";
import { isParsedResult } from "./parsed-value.js";
import { isResponse } from "./response.js";

/** The original result, once receive has settled it: `undefined` until then, and for a transport that failed. */
export interface KeptOriginal {
  value: unknown;
}

/**
 * Keeps what a transport delivered (after a promise settled) as the caller's original, and returns what the gate
 * reads instead. A transport failure (a `transportFailure`, an `Error`) is no result, and is not kept. May throw
 * what the raw value's own code throws: receive calls it inside its guard.
 */
export function keepOriginal(raw: unknown, kept: { original?: KeptOriginal | undefined }): unknown {
  if (typeof raw !== "object" || raw === null) {
    kept.original = { value: raw };
    return raw;
  }
  if (isTransportFailure(raw) || raw instanceof Error) return raw;
  const split = splitOnce(raw);
  kept.original = { value: split === undefined ? raw : split.original };
  return split === undefined ? raw : split.gate;
}

/** A result that can be read once, as two: the gate's and the caller's. `undefined` for a value in memory. */
function splitOnce(raw: object): { gate: unknown; original: unknown } | undefined {
  if (ArrayBuffer.isView(raw) || raw instanceof ArrayBuffer || isParsedResult(raw)) return undefined;
  if (isResponse(raw)) {
    const clone = (raw as { clone?: unknown }).clone;
    // The caller keeps the response itself, body unread; the gate reads the clone's body, a tee of the same bytes.
    return typeof clone === "function" ? { gate: Reflect.apply(clone, raw, []), original: raw } : undefined;
  }
  if (isReadableStream(raw)) {
    const tee = (raw as { tee?: unknown }).tee;
    if (typeof tee !== "function") return undefined;
    const [gate, original] = Reflect.apply(tee, raw, []) as [unknown, unknown];
    return { gate, original };
  }
  if (isAsyncIterable(raw)) return replayed(raw);
  return undefined;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * An async iterable as the gate's and the caller's. The gate's iterator pulls from the source and keeps each chunk;
 * its `return()` (the gate stopping at its ceiling, or its wait ending) leaves the source open. The caller's replays
 * the kept chunks, waits for a read the gate left in flight, then pulls the rest from the source, and closes the
 * source if the caller stops early.
 */
function replayed(iterable: AsyncIterable<unknown>): {
  gate: AsyncIterable<unknown>;
  original: AsyncIterable<unknown>;
} {
  const source = iterable[Symbol.asyncIterator]();
  const seen: unknown[] = [];
  let ended = false;
  let inFlight: Promise<unknown> | undefined;
  const pull = async (): Promise<IteratorResult<unknown>> => {
    const step = await source.next();
    if (step.done === true) ended = true;
    else seen.push(step.value);
    return step;
  };
  const gateIterator: AsyncIterator<unknown> = {
    next() {
      if (ended) return Promise.resolve(DONE);
      const step = pull();
      inFlight = step.catch(() => undefined);
      return step;
    },
    return() {
      return Promise.resolve(DONE);
    },
  };
  async function* original(): AsyncGenerator<unknown, void, undefined> {
    let finished = false;
    try {
      let i = 0;
      for (;;) {
        if (i < seen.length) {
          yield seen[i++];
          continue;
        }
        if (inFlight !== undefined) {
          const pending = inFlight;
          inFlight = undefined;
          await pending;
          continue;
        }
        if (ended) break;
        const step = await source.next();
        if (step.done === true) break;
        yield step.value;
      }
      finished = true;
    } finally {
      // The caller stopped before the end: the source is closed, as a `for await` over it would close it.
      if (!finished && !ended) await source.return?.();
      seen.length = 0;
    }
  }
  return { gate: { [Symbol.asyncIterator]: () => gateIterator }, original: original() };
}

const decoder = new TextDecoder();

/**
 * The original's text for the model, whole, where the gate can tell it without reading anything again: a string as
 * it is, bytes as UTF-8 (malformed sequences as U+FFFD), an MCP result's text blocks joined by newlines; else the
 * text the gate decoded (`decoded`: a parsed value's JSON, a stream or response read to its end), else `undefined`.
 * Never throws: a hostile original has no text.
 */
export function originalText(original: unknown, decoded: string | undefined): string | undefined {
  try {
    if (typeof original === "string") return original;
    if (typeof original !== "object" || original === null) return decoded;
    if (ArrayBuffer.isView(original) || original instanceof ArrayBuffer) {
      const bytes = chunkBytes(original);
      return bytes === undefined || bytes === DETACHED ? undefined : decoder.decode(bytes);
    }
    if (isParsedResult(original)) return decoded ?? JSON.stringify(original.value);
    const content = (original as { content?: unknown }).content;
    if (Array.isArray(content) && !isResponse(original)) return mcpText(content);
    return decoded;
  } catch {
    return undefined;
  }
}

/** The text blocks of an MCP result, joined by newlines, as a client without a gate shows them. */
function mcpText(content: readonly unknown[]): string {
  const texts: string[] = [];
  for (const block of content) {
    if (typeof block !== "object" || block === null) continue;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type === "text" && typeof text === "string") texts.push(text);
  }
  return texts.join("\n");
}
