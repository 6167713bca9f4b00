/**
 * The bytes of one spilled value, as {@link FileSpillStore} writes a file and `RedisSpillStore` a key: a JSON object
 * whose last field, `value`, is the value's JSON text exactly as it was given (`jq .value` reads it), after a header
 * that states the handle, the value's byte length and sha256, who may read it (tenant, session), when it expires,
 * and the index that makes every array item (or every line of a text) addressable, with the index's own sha256.
 * Reading checks all of it before anything is parsed.
 */
import { indexSpill, type SpillIndex, type SpillKind, spillKindOf } from "./spill-layout.js";

/** The file format's name, the first field of every spilled file. */
export const FORMAT = "toolgate-spill/1";

/** What separates the header fields from the value; it cannot occur inside a JSON string. */
const VALUE_FIELD = ',"value":';

/** Who may read a spilled value back: the tenant (and session) of the call that spilled it. */
export interface SpillScope {
  tenant?: string | undefined;
  session?: string | undefined;
}

/** What a store knows of a spilled value besides the value. */
export interface SpillMeta extends SpillScope {
  handle: string;
  tool: string;
  kind: SpillKind;
  /** sha256 (hex) of the value's JSON text, UTF-8. */
  sha256: string;
  /** The value's JSON text's byte length. */
  bytes: number;
  /** When it was spilled, in milliseconds since the epoch (absent in files written before it was recorded). */
  createdAt?: number | undefined;
  /** When it stops being readable, in milliseconds since the epoch; absent: kept until pruned. */
  expiresAt?: number | undefined;
  /**
   * Whether the value's text holds control or invisible characters that model-facing text must lose (found once,
   * when it was spilled); absent when not known, and then a reader cleans every page.
   */
  invisible?: boolean | undefined;
}

/** A spilled value as a reader gets it back: verified, with its index. */
export interface SpillRecord {
  meta: SpillMeta;
  /** The value's JSON text (for a text value, the JSON string). */
  json: string;
  index: SpillIndex;
}

/** Why a store refused to use its directory or an entry. */
export type SpillStoreErrorCode =
  /** The directory is a symbolic link, not a directory, owned by another user, or writable by group or others. */
  | "unsafe_directory"
  /** The entry under a handle is not what this store wrote: replaced, truncated, edited, a link or not a file. */
  | "tampered"
  /** The entry's time to live is over (its `expiresAt` has passed): it is not returned, whatever it holds. */
  | "expired";

/**
 * A store refusing its directory or an entry. `put` throws it (the gate then passes to the next policy,
 * `detail.spill = "store_failed"`); reads throw it instead of returning a value they cannot vouch for. The message
 * names the directory or handle and what is wrong, never the value.
 */
export class SpillStoreError extends Error {
  override readonly name = "SpillStoreError";
  /** What is wrong. */
  readonly code: SpillStoreErrorCode;
  /** The handle read, for `tampered` and `expired`. */
  readonly handle: string | undefined;

  constructor(code: SpillStoreErrorCode, message: string, handle?: string) {
    super(message);
    this.code = code;
    this.handle = handle;
  }
}

type Hash = (bytes: Uint8Array) => string;

/**
 * The verified record, once it proves to be within its time to live by `now` (milliseconds since the epoch);
 * throws {@link SpillStoreError} (`expired`) past it. An entry without `expiresAt` never expires.
 */
export function unexpired(record: SpillRecord, now: number): SpillRecord {
  const { expiresAt, handle } = record.meta;
  if (expiresAt !== undefined && now >= expiresAt) {
    throw new SpillStoreError("expired", `The spilled entry for ${handle} has expired; it is not returned.`, handle);
  }
  return record;
}

/** The header and the value of a new spill, as bytes: `head`, `value`, then a closing `}`. */
export function encodeSpill(
  meta: SpillMeta,
  json: string,
  sha256: Hash,
): { head: Uint8Array; value: Uint8Array; tail: Uint8Array } {
  const index = indexSpill(json);
  const indexText = JSON.stringify(index);
  const header = JSON.stringify({
    format: FORMAT,
    handle: meta.handle,
    sha256: meta.sha256,
    bytes: meta.bytes,
    tool: meta.tool,
    kind: meta.kind,
    createdAt: meta.createdAt,
    expiresAt: meta.expiresAt,
    tenant: meta.tenant,
    session: meta.session,
    invisible: meta.invisible,
    indexSha256: sha256(new TextEncoder().encode(indexText)),
    index,
  });
  return {
    head: new TextEncoder().encode(`${header.slice(0, -1)}${VALUE_FIELD}`),
    value: new TextEncoder().encode(json),
    tail: new Uint8Array([0x7d]),
  };
}

interface Header {
  format?: unknown;
  handle?: unknown;
  sha256?: unknown;
  bytes?: unknown;
  tool?: unknown;
  kind?: unknown;
  createdAt?: unknown;
  expiresAt?: unknown;
  tenant?: unknown;
  session?: unknown;
  invisible?: unknown;
  indexSha256?: unknown;
  index?: unknown;
}

const optionalString = (value: unknown) => (typeof value === "string" ? value : undefined);
const optionalNumber = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/**
 * A spilled value from its bytes, once they prove to be the ones written under `handle`: the header names this
 * format and this handle, the value has the byte length and sha256 the header states (and, when this store wrote
 * it, the sha256 it remembers), and the index has its stated sha256. Throws {@link SpillStoreError} (`tampered`)
 * otherwise. A file without an index (written before indexes were stored) is indexed here.
 */
/**
 * What a store remembers of an entry it wrote, to know it unchanged on read: the sha256 of its header (everything
 * before the value: handle, scope, expiry, index) and of its value.
 */
export function rememberedDigest(head: Uint8Array, valueSha256: string, sha256: Hash): string {
  return `${sha256(head)}:${valueSha256}`;
}

export function decodeSpill(
  bytes: Uint8Array,
  handle: string,
  remembered: string | undefined,
  sha256: Hash,
): SpillRecord {
  const tampered = (what: string) =>
    new SpillStoreError("tampered", `The spilled entry for ${handle} ${what}; it is not returned.`, handle);
  const text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const delimiter = new TextEncoder().encode(VALUE_FIELD);
  const at = indexOf(bytes, delimiter);
  if (at < 0) throw tampered("is not a spill file");
  let header: Header;
  try {
    header = JSON.parse(`${text.decode(bytes.subarray(0, at))}}`);
  } catch {
    throw tampered("has a malformed header");
  }
  if (header.format !== FORMAT || header.handle !== handle) throw tampered("was written for another handle");
  const start = at + delimiter.length;
  const value = bytes.subarray(start, Math.max(start, bytes.length - 1));
  if (bytes[bytes.length - 1] !== 0x7d || value.byteLength !== header.bytes) throw tampered("is truncated or padded");
  const digest = sha256(value);
  if (digest !== header.sha256) throw tampered("does not match its sha256");
  // What the writing store remembers covers the header too (tenant, session, expiry): a header edited to another
  // tenant, or to a later expiry, is as tampered as a replaced value.
  if (remembered !== undefined && rememberedDigest(bytes.subarray(0, start), digest, sha256) !== remembered) {
    throw tampered("was changed since this store wrote it");
  }
  let json: string;
  try {
    json = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(value);
  } catch {
    throw tampered("is not UTF-8");
  }
  let index: SpillIndex;
  if (header.index === undefined) {
    try {
      index = indexSpill(json);
    } catch {
      throw tampered("does not hold JSON");
    }
  } else {
    if (sha256(new TextEncoder().encode(JSON.stringify(header.index))) !== header.indexSha256) {
      throw tampered("has an index that does not match its sha256");
    }
    index = header.index as SpillIndex;
  }
  const meta: SpillMeta = {
    handle,
    tool: optionalString(header.tool) ?? "",
    kind: header.kind === "text" || header.kind === "json" ? header.kind : spillKindOf(json),
    sha256: digest,
    bytes: value.byteLength,
    createdAt: optionalNumber(header.createdAt),
    expiresAt: optionalNumber(header.expiresAt),
    tenant: optionalString(header.tenant),
    session: optionalString(header.session),
    invisible: typeof header.invisible === "boolean" ? header.invisible : undefined,
  };
  return { meta, json, index };
}

/** Where `needle` first occurs in `haystack`, or −1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0] as number;
  for (
    let i = haystack.indexOf(first);
    i >= 0 && i + needle.length <= haystack.length;
    i = haystack.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
