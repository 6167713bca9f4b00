/**
 * What the receive stage hands on: a payload read in full under the ceiling, or why nothing usable was received,
 * and the bounds every receive works within.
 */

import type { ContentPart, FailureCode, GateFlag, GateStage } from "../../contract/types.js";
import type { PendingHash } from "../../record/hash-thread.js";
import type { KeyScreen } from "../../record/key-screen.js";
import type { HashedText } from "../../record/provenance.js";
import type { ResolvedResult } from "../result-kind.js";

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
  | "mcp_content"
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
  /**
   * An MCP result's content blocks admitted under the contract's rules, other than the primary value (for kind
   * `content`, every admitted block); absent for what was not an MCP result.
   */
  parts?: ContentPart[] | undefined;
}

/** A payload that arrived as bytes (or chunks of them): still to be decoded as strict UTF-8. */
export interface ReceivedBytes extends ReceivedPayload {
  bytes: Uint8Array;
  /** sha256 of the bytes, when they were hashed chunk by chunk as they arrived. */
  sha256?: string | undefined;
  text?: undefined;
  parsed?: undefined;
}

/**
 * A payload that arrived as a string (or was serialised to one): already checked well-formed, so its bytes are its
 * UTF-8 encoding, never decoded again. Where the host hashes synchronously they were encoded once, to measure and
 * hash them (`hashed`); elsewhere the gate encodes them to hash.
 */
export interface ReceivedText extends ReceivedPayload {
  /** The payload's text; empty for a large copy whose text was hashed in pieces and never joined (`parsed.pieces`). */
  text: string;
  hashed: HashedText | undefined;
  /**
   * The hash still being taken on the helper thread (`record/hash-thread.ts`) when `hashed` is undefined for that
   * reason; `unchecked` when the text is not yet known to be well-formed (a string payload: its hash says so as it
   * settles, see `Admission.settle`).
   */
  hashing?: PendingText | undefined;
  bytes?: undefined;
  /**
   * The value `text` is the JSON of, when the gate wrote the text itself from a private copy of a value that arrived
   * already parsed (`copyParsedValue`): checked as a parse of the text would be, so the gate takes it instead of
   * parsing the text again.
   */
  parsed?: ParsedCopy | undefined;
}

/** A text's hash being taken on the helper thread, and whether the text still has to be found well-formed. */
export interface PendingText {
  hash: PendingHash;
  unchecked: boolean;
  /**
   * The MCP content block the text is, when it stands for the result's structured content (`text-block.ts`): a lone
   * surrogate found as the hash settles is then refused as that block's, as receive refuses one.
   */
  block?: number | undefined;
}

/** A value the gate copied and checked itself: plain JSON data, equal to `JSON.parse` of its text. */
export interface ParsedCopy {
  value: unknown;
  /**
   * Present when the text was written in pieces and not kept (a large copy, see `writeJsonPieces`): for each text
   * the receive stage asked about (an MCP result's text blocks), whether it is exactly that text.
   */
  pieces?: { same: boolean[] } | undefined;
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
  /** Whether the same call may succeed when repeated, when the transport failure said (else the code's default). */
  retryable?: boolean;
}

/** What {@link receive} needs from the contract. */
export interface ReceiveLimits {
  maxBytes: number;
  maxDepth: number;
  /**
   * What the helper thread screens a large JSON text for while it hashes it (`stages/flag-screen.ts`), when the
   * text received is the one the gate parses.
   */
  screen?: KeyScreen | undefined;
  /**
   * UTF-16 units of JSON text from which a value that arrived parsed has its text written in pieces and not kept
   * (default `PIECES_FROM`, 8 Mi); tests lower it to reach that path with small values.
   */
  piecesFrom?: number | undefined;
  /**
   * The result kind and its block rules: how an MCP `CallToolResult` is read. Absent, the first text block is the
   * JSON of the result, under the default rules (`DEFAULT_RESULT`).
   */
  result?: ResolvedResult | undefined;
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
  /**
   * Observe mode: called once with what was delivered (what a promise settled to), before anything reads it; keeps
   * the original for the caller and returns what the gate reads in its place (see `keepOriginal`).
   */
  keep?: ((raw: unknown) => unknown) | undefined;
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

/** A transport-level refusal with no payload. */
export function refused(
  kind: RawKind,
  code: FailureCode,
  stage: GateStage,
  bytesRead: number,
  detail: Record<string, string | number | boolean> = {},
): NotReceived {
  return { ok: false, kind, code, stage, bytesRead, detail };
}
