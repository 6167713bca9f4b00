/**
 * Failure codes, their retry defaults, and the transport failures a caller hands to `admit`.
 */
import type { FailureCode } from "./types.js";

/**
 * Whether retrying the same call may help, per failure code, unless the contract's `retry` block says otherwise.
 * Only what the network did is worth repeating; a result that was malformed, invalid, refused by a hook or too
 * large will come back the same way, and a tool that reported its own error needs different arguments.
 */
export const RETRY_DEFAULTS: Readonly<Record<FailureCode, boolean>> = Object.freeze({
  timeout: true,
  transport_error: true,
  tool_error: false,
  result_too_large: false,
  invalid_encoding: false,
  invalid_json: false,
  schema_mismatch: false,
  semantic_violation: false,
  oversize: false,
});

/** Every failure code, in the order the gate's stages can produce them. */
export const FAILURE_CODES: readonly FailureCode[] = Object.freeze(Object.keys(RETRY_DEFAULTS) as FailureCode[]);

const TRANSPORT_FAILURE = Symbol.for("toolgate.transportFailure");

/** A call that produced no payload: what the caller passes to `admit` when the transport gave up. */
export interface TransportFailure {
  readonly [TRANSPORT_FAILURE]: true;
  readonly kind: "timeout" | "transport_error";
  /** The caller's own words about what happened (trusted text: it does not come from the tool). */
  readonly message: string;
}

/**
 * Makes a transport failure for `admit`: `admit(transportFailure("timeout"), ctx)` ends in a `timeout` outcome.
 * `message` is the caller's own text and appears in `outcome.error.message`, so never put tool output in it.
 */
export function transportFailure(kind: "timeout" | "transport_error", message?: string): TransportFailure {
  return Object.freeze({
    [TRANSPORT_FAILURE]: true as const,
    kind,
    message: message ?? (kind === "timeout" ? "The tool call timed out." : "The transport failed."),
  });
}

/** Whether `raw` is a {@link TransportFailure} made by {@link transportFailure}. */
export function isTransportFailure(raw: unknown): raw is TransportFailure {
  return typeof raw === "object" && raw !== null && (raw as Record<symbol, unknown>)[TRANSPORT_FAILURE] === true;
}

/**
 * The failure code for an exception a transport threw: a `TimeoutError` (as `AbortSignal.timeout` raises) is a
 * `timeout`, anything else a `transport_error`.
 */
export function codeForThrown(error: unknown): "timeout" | "transport_error" {
  const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
  return name === "TimeoutError" ? "timeout" : "transport_error";
}

/** The default text of `outcome.error.message` per code: written by the gate, never containing payload text. */
export const FAILURE_MESSAGES: Readonly<Record<FailureCode, string>> = Object.freeze({
  timeout: "The tool call timed out.",
  transport_error: "The transport failed before a complete result arrived.",
  tool_error: "The tool reported an error.",
  result_too_large: "The result is larger than the contract's receive ceiling.",
  invalid_encoding: "The result is not valid UTF-8 text.",
  invalid_json: "The result is not JSON the gate can accept.",
  schema_mismatch: "The result does not match the tool's output schema.",
  semantic_violation: "The result breaks a semantic rule of the caller.",
  oversize: "The result's view is over the context budget.",
});
