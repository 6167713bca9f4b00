/**
 * The proxy reads the server's stdout itself, one newline-delimited JSON-RPC message at a time, so that a message
 * past the ceiling is cut on the wire: its bytes are dropped as they arrive (never more than the ceiling is held),
 * and what is left is its size and the id of the request it answers, read from its first and last bytes. The
 * session goes on with the next line; the SDK's own reader would have closed it (it refuses a message over 10 MB).
 */

/** A JSON-RPC request id. */
export type MessageId = string | number;

/** What one line of the server's output was. */
export type Frame =
  | { kind: "message"; text: string }
  /** A line past the ceiling: its size, and the id it answers when its first or last bytes say. */
  | { kind: "oversize"; bytes: number; id: MessageId | undefined };

/** How many of an oversize line's first and last bytes are kept to find its id. */
const EDGE_BYTES = 1024;

const NEWLINE = 0x0a;

/** One decoder for every line (as the SDK's reader, bad UTF-8 becomes U+FFFD: the gate judges the content). */
const DECODER = new TextDecoder();

/**
 * Splits a byte stream into lines of at most `maxBytes` bytes (without the newline; a `\r` before it is dropped). A
 * longer line becomes an `oversize` frame and is never held whole.
 */
export class LineFramer {
  #parts: Uint8Array[] = [];
  #size = 0;
  #over = false;
  #head: Uint8Array = new Uint8Array(0);
  #tail: Uint8Array = new Uint8Array(0);

  constructor(readonly maxBytes: number) {
    if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0)) throw new RangeError("maxBytes must be a positive integer");
  }

  /** The lines `chunk` completes, in order. */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.#take(chunk.subarray(start, end));
      frames.push(this.#finish());
      start = end + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
    return frames;
  }

  /** Bytes of an unfinished line held now (at most `maxBytes`). */
  get pending(): number {
    return this.#over ? 0 : this.#size;
  }

  #take(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#size += bytes.length;
    if (!this.#over && this.#size <= this.maxBytes) {
      this.#parts.push(bytes.slice());
      return;
    }
    if (!this.#over) {
      // Past the ceiling: keep only the edges from here on.
      this.#over = true;
      const held = concat(this.#parts);
      this.#parts = [];
      this.#head = held.slice(0, EDGE_BYTES);
      this.#tail = lastBytes(held, EDGE_BYTES);
      if (this.#head.length < EDGE_BYTES) {
        this.#head = concat([this.#head, bytes.subarray(0, EDGE_BYTES - this.#head.length)]);
      }
    }
    this.#tail = lastBytes(concat([this.#tail, lastBytes(bytes, EDGE_BYTES)]), EDGE_BYTES);
  }

  #finish(): Frame {
    let frame: Frame;
    if (this.#over) {
      frame = { kind: "oversize", bytes: this.#size, id: idOf(this.#head, this.#tail) };
    } else {
      const line = concat(this.#parts);
      const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
      frame = { kind: "message", text: DECODER.decode(line.subarray(0, end)) };
    }
    this.#parts = [];
    this.#size = 0;
    this.#over = false;
    this.#head = new Uint8Array(0);
    this.#tail = new Uint8Array(0);
    return frame;
  }
}

/** An id as JSON writes it: a number, or a string of at most 256 characters. */
const ID = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")`;
/** The id closing the message (`…,"id":7}`): JSON keeps the last of duplicate keys, so the tail wins. */
const TAIL_ID = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*\r?$`);
/** The id opening it (`{"jsonrpc":"2.0","id":7,…`). */
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*,`);

/** The id an oversize message answers, from its first and last bytes, when they say. */
function idOf(head: Uint8Array, tail: Uint8Array): MessageId | undefined {
  const found = TAIL_ID.exec(DECODER.decode(tail))?.[1] ?? HEAD_ID.exec(DECODER.decode(head))?.[1];
  if (found === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(found);
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The bytes of `parts` one after another, in a buffer of their own. */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** {@link joinBytes}, without a copy for a single part. */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  return parts.length === 1 ? (parts[0] as Uint8Array) : joinBytes(parts);
}

function lastBytes(bytes: Uint8Array, count: number): Uint8Array {
  return bytes.length <= count ? bytes : bytes.subarray(bytes.length - count);
}
