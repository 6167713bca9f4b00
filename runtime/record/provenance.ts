/**
 * Hashes for provenance.
 *
 * Where the host has `node:crypto` (Node, Bun, Deno), hashing is synchronous through `createHash`: for the payload
 * sizes the gate sees it is many times cheaper than a Web Crypto `digest`, whose round trip through a thread pool
 * costs more than hashing a kilobyte. It is reached with `process.getBuiltinModule`, not an import, so the runtime
 * still loads where there is no such module; there the Web Crypto API (`crypto.subtle`, which every runtime the gate
 * targets provides) is the fallback.
 */
import { canonicalJson } from "../json-text.js";

const encoder = new TextEncoder();

/** A running hash of `node:crypto`. */
interface NodeHash {
  update(data: Uint8Array): NodeHash;
  digest(encoding: "hex"): string;
}

/** The part of `node:crypto` the gate uses. */
interface NodeHashing {
  createHash(algorithm: "sha256"): NodeHash;
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
  return nodeHashing?.createHash("sha256").update(bytes).digest("hex");
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
    from(buffer: ArrayBufferLike, offset: number, length: number): { indexOf(value: Uint8Array): number };
  };
}

const nodeBytes = hostBuiltin<NodeBytes>("node:buffer");

/** U+FFFD REPLACEMENT CHARACTER in UTF-8: what an encoder writes for a lone surrogate. */
const REPLACEMENT_BYTES = new Uint8Array([0xef, 0xbf, 0xbd]);

/** Scratch space for encoding text to hash it; kept between calls up to this many bytes. */
const SCRATCH_LIMIT = 4 * 1024 * 1024;
let scratch = new Uint8Array(0);

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
}

/**
 * The UTF-8 length and sha256 of a string, synchronously where the host has `node:crypto` and `node:buffer`, else
 * `undefined`. The text is encoded with `encodeInto` into scratch space reused between calls, so the length and the
 * bytes come from one pass and no buffer is allocated per payload; all of it happens before returning, so
 * concurrent admits never share the scratch.
 */
export function hashTextNow(text: string): HashedText | undefined {
  if (nodeHashing === undefined || nodeBytes === undefined) return undefined;
  // Each UTF-16 unit is at most 3 UTF-8 bytes (a surrogate pair, 2 units, is 4). Past the scratch limit the exact
  // length is counted first, so a large text never needs a buffer three times its size.
  let needed = text.length * 3;
  if (needed > SCRATCH_LIMIT) needed = nodeBytes.Buffer.byteLength(text, "utf8");
  let target = scratch;
  if (needed > target.byteLength) {
    target = new Uint8Array(needed);
    if (needed <= SCRATCH_LIMIT) scratch = target;
  }
  const { written } = encoder.encodeInto(text, target);
  const bytes = target.subarray(0, written);
  return {
    byteLength: written,
    sha256: nodeHashing.createHash("sha256").update(bytes).digest("hex"),
    replacement: nodeBytes.Buffer.from(target.buffer, 0, written).indexOf(REPLACEMENT_BYTES) >= 0,
  };
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
