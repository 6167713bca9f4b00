/**
 * Hashes for provenance.
 *
 * Where the host has `node:crypto` (Node, Bun, Deno), hashing is synchronous through `createHash`: for the payload
 * sizes the gate sees it is many times cheaper than a Web Crypto `digest`, whose round trip through a thread pool
 * costs more than hashing a kilobyte. It is reached with `process.getBuiltinModule`, not an import, so the runtime
 * still loads where there is no such module; there the Web Crypto API (`crypto.subtle`, which every runtime the gate
 * targets provides) is the fallback.
 */
import { canonicalJson } from "../text/json.js";

const encoder = new TextEncoder();

/** A running hash of `node:crypto`. */
interface NodeHash {
  update(data: Uint8Array): NodeHash;
  digest(encoding: "hex"): string;
}

/** The part of `node:crypto` the gate uses. */
interface NodeHashing {
  createHash(algorithm: "sha256"): NodeHash;
  /** One-shot digest (Node ≥ 20.12): no `Hash` object per call, about half the cost of one for a small payload. */
  hash?: (algorithm: "sha256", data: Uint8Array, encoding: "hex") => string;
}

/** A built-in module of the host, when it has one by that name (`process.getBuiltinModule`, Node ≥ 20.16). */
export function hostBuiltin<T>(name: string): T | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return host?.getBuiltinModule?.(name) as T | undefined;
  } catch {
    return undefined;
  }
}

const nodeHashing = hostBuiltin<NodeHashing>("node:crypto");

/** sha256 of bytes as lowercase hex with `node:crypto`: its one-shot digest where it has one. */
function nodeSha256Hex(hashing: NodeHashing, bytes: Uint8Array): string {
  return hashing.hash === undefined
    ? hashing.createHash("sha256").update(bytes).digest("hex")
    : hashing.hash("sha256", bytes, "hex");
}

/** sha256 of bytes as lowercase hex through Web Crypto: the path for hosts without `node:crypto`. */
export async function sha256HexWebCrypto(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * sha256 of bytes as lowercase hex, synchronously where the host can (`node:crypto`), else `undefined`: callers
 * then take {@link sha256Hex}'s asynchronous path.
 */
export function sha256HexNow(bytes: Uint8Array): string | undefined {
  return nodeHashing === undefined ? undefined : nodeSha256Hex(nodeHashing, bytes);
}

/** sha256 of bytes, as lowercase hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return sha256HexNow(bytes) ?? sha256HexWebCrypto(bytes);
}

/** A sha256 fed piece by piece. */
export interface RunningSha256 {
  update(bytes: Uint8Array): void;
  /** The digest of everything fed, as lowercase hex; the hash cannot be fed afterwards. */
  hex(): string;
}

/**
 * A sha256 to feed the chunks of a stream as they arrive, where the host has `node:crypto` (else `undefined`: Web
 * Crypto cannot hash incrementally). Hashing each chunk while the next is still in transit leaves no hashing to do
 * once the stream ends.
 */
export function startSha256(): RunningSha256 | undefined {
  if (nodeHashing === undefined) return undefined;
  const hash = nodeHashing.createHash("sha256");
  return {
    update(bytes) {
      hash.update(bytes);
    },
    hex: () => hash.digest("hex"),
  };
}

/** The part of `node:buffer` the gate uses: UTF-8 length and byte search, both native (SIMD in Node). */
interface NodeBytes {
  Buffer: {
    byteLength(text: string, encoding: "utf8"): number;
    from(buffer: ArrayBufferLike, offset: number, length: number): Uint8Array & { indexOf(value: Uint8Array): number };
  };
}

const nodeBytes = hostBuiltin<NodeBytes>("node:buffer");

/** U+FFFD REPLACEMENT CHARACTER in UTF-8: what an encoder writes for a lone surrogate. */
const REPLACEMENT_BYTES = new Uint8Array([0xef, 0xbf, 0xbd]);

/**
 * UTF-16 units of text encoded and hashed at a time. A text of up to this many units is encoded whole; a larger
 * one piece by piece through the same buffer, so hashing a 100 MB result allocates nothing in proportion to it (a
 * whole encoding would be another copy of the payload at the moment memory peaks). Slicing costs more than it
 * saves on a text that fits at once.
 */
const PIECE_UNITS = 1024 * 1024;
/** Room for one piece, kept between calls: each UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair is 4). */
let scratch: Uint8Array | undefined;

/** The UTF-8 encoding of a string, measured and hashed. */
export interface HashedText {
  byteLength: number;
  sha256: string;
  /**
   * Whether the encoding holds the bytes of U+FFFD, which is what the encoder wrote for any lone surrogate: when
   * false, the text is well-formed, and a search of the bytes (native, vectorised) has spared a scan of the string.
   * When true the text may be fine (it may hold U+FFFD itself) and must be checked.
   */
  replacement: boolean;
  /**
   * Whether the payload holds `\u` (a JSON escape), as the helper thread found while it hashed it; `undefined` when
   * nothing looked. When false, no escape in it can write half a surrogate pair.
   */
  escapes?: boolean;
}

/** A sha256 of UTF-8 text fed as strings, measured as it goes (see {@link startTextHash}). */
export interface RunningTextHash {
  /** Encodes `text` and feeds its bytes. A surrogate pair split between two calls is two U+FFFD. */
  add(text: string): void;
  /** The length, digest and U+FFFD finding of everything fed; the hash cannot be fed afterwards. */
  done(): HashedText;
}

/**
 * A sha256 to feed text to piece by piece, synchronously, where the host has `node:crypto` and `node:buffer`
 * (else `undefined`): each string is encoded with `encodeInto` into scratch space reused between calls (a long one
 * in pieces of {@link PIECE_UNITS}), so no buffer is allocated in proportion to the text. Each `add` encodes and
 * hashes before it returns, so running hashes of concurrent admits never see each other's bytes in the scratch.
 */
export function startTextHash(): RunningTextHash | undefined {
  if (nodeHashing === undefined || nodeBytes === undefined) return undefined;
  const { Buffer } = nodeBytes;
  const hash = nodeHashing.createHash("sha256");
  scratch ??= new Uint8Array(PIECE_UNITS * 3);
  const room = scratch;
  let byteLength = 0;
  let replacement = false;
  return {
    add(text) {
      const length = text.length;
      for (let start = 0; start < length; ) {
        let end = start + PIECE_UNITS;
        if (end >= length) end = length;
        else {
          // A piece never ends between the halves of a surrogate pair, which would encode as two U+FFFD.
          const last = text.charCodeAt(end - 1);
          if (last >= 0xd800 && last <= 0xdbff) end--;
        }
        const { written } = encoder.encodeInto(start === 0 && end === length ? text : text.slice(start, end), room);
        hash.update(room.subarray(0, written));
        if (!replacement) replacement = Buffer.from(room.buffer, 0, written).indexOf(REPLACEMENT_BYTES) >= 0;
        byteLength += written;
        start = end;
      }
    },
    done: () => ({ byteLength, sha256: hash.digest("hex"), replacement }),
  };
}

/**
 * The UTF-8 length and sha256 of a string, synchronously where the host has `node:crypto` and `node:buffer`, else
 * `undefined`. The text is encoded with `encodeInto`, piece by piece, into scratch space reused between calls, so
 * the length and the bytes come from one pass and no buffer is allocated per payload; all of it happens before
 * returning, so concurrent admits never share the scratch.
 */
export function hashTextNow(text: string): HashedText | undefined {
  if (text.length <= PIECE_UNITS && nodeHashing !== undefined && nodeBytes !== undefined) {
    // A text that is encoded whole (nearly every result): one view of the scratch for both the hash and the search,
    // and no running hash to build around it.
    scratch ??= new Uint8Array(PIECE_UNITS * 3);
    const { written } = encoder.encodeInto(text, scratch);
    const bytes = nodeBytes.Buffer.from(scratch.buffer, 0, written);
    const sha256 = nodeSha256Hex(nodeHashing, bytes);
    return { byteLength: written, sha256, replacement: bytes.indexOf(REPLACEMENT_BYTES) >= 0 };
  }
  const running = startTextHash();
  if (running === undefined) return undefined;
  running.add(text);
  return running.done();
}

/**
 * sha256 of a call's arguments serialised as JSON with sorted keys, so the same arguments in any key order hash
 * the same. `undefined` when there are no arguments or they cannot be serialised (nested past 1000 levels).
 */
export async function hashArguments(args: unknown): Promise<string | undefined> {
  if (args === undefined) return undefined;
  let json: string;
  try {
    json = canonicalJson(args);
  } catch {
    return undefined;
  }
  return sha256Hex(encoder.encode(json));
}
