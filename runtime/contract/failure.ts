/**
 * Failure codes, their retry defaults, the transport failures a caller hands to `admit`, and the one way text built
 * from payload keys (paths in diagnostics and messages) is made safe to show.
 */
import { boundText, hasInvisible, leadingCodePoints } from "../text/hygiene.js";
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

/**
 * What the transport reports instead of a payload: it gave up (`timeout`, `transport_error`), or it refused an answer
 * past a ceiling of its own before the gate could read it (`result_too_large`, e.g. `toolgate proxy` cutting a
 * message on the wire).
 */
export type TransportFailureKind = "timeout" | "transport_error" | "result_too_large";

const KINDS: ReadonlySet<string> = new Set<TransportFailureKind>(["timeout", "transport_error", "result_too_large"]);

/** A call that produced no payload: what the caller passes to `admit` when the transport gave up. */
export interface TransportFailure {
  readonly [TRANSPORT_FAILURE]: true;
  readonly kind: TransportFailureKind;
  /** The caller's own words about what happened (trusted text: it does not come from the tool). */
  readonly message: string;
  /** Why, as a code (`sdk_buffer_exceeded`): the outcome's `diagnostics.detail.reason`. */
  readonly reason?: string | undefined;
  /** Whether the same call may succeed when repeated, when the caller knows; else the code's default. */
  readonly retryable?: boolean | undefined;
  /** How many bytes the transport saw (for `result_too_large`, the refused answer's size): `provenance.rawBytes`. */
  readonly bytes?: number | undefined;
}

/** What a caller may add to a transport failure: why, as a code, whether repeating the call may help, its size. */
export interface TransportFailureOptions {
  /** A code of lower-case letters, digits and `_` (at most 64), e.g. `sdk_buffer_exceeded`; anything else is dropped. */
  reason?: string | undefined;
  retryable?: boolean | undefined;
  /** The bytes the transport saw, a non-negative safe integer; anything else is dropped. */
  bytes?: number | undefined;
}

const DEFAULT_TRANSPORT_MESSAGES: Readonly<Record<TransportFailureKind, string>> = {
  timeout: "The tool call timed out.",
  transport_error: "The transport failed.",
  result_too_large: "The transport refused an answer past its ceiling.",
};

/**
 * Makes a transport failure for `admit`: `admit(transportFailure("timeout"), ctx)` ends in a `timeout` outcome.
 * `message` is the caller's own text and appears in `outcome.error.message`, so never put tool output in it.
 */
export function transportFailure(
  kind: TransportFailureKind,
  message?: string,
  options: TransportFailureOptions = {},
): TransportFailure {
  return Object.freeze({
    [TRANSPORT_FAILURE]: true as const,
    kind,
    message: message ?? DEFAULT_TRANSPORT_MESSAGES[kind] ?? "The transport failed.",
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.retryable === undefined ? {} : { retryable: options.retryable }),
    ...(options.bytes === undefined ? {} : { bytes: options.bytes }),
  });
}

/** What a transport failure's reason may be: a code, never prose. */
const REASON_CODE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Whether `raw` is a {@link TransportFailure} made by {@link transportFailure}: marked, frozen as made, with a known
 * kind and a string message. The mark is a registered symbol (so two copies of the runtime recognise each other's
 * failures), which anyone can write; what the gate then shows is checked again by {@link transportFailureOf}.
 */
export function isTransportFailure(raw: unknown): raw is TransportFailure {
  return typeof raw === "object" && raw !== null && (raw as Record<symbol, unknown>)[TRANSPORT_FAILURE] === true;
}

/** Longest caller message kept from a transport failure: it is shown to the model. */
const MAX_CALLER_MESSAGE_CHARS = 500;

/**
 * The kind, message, reason and retryability of a transport failure as the gate uses them, read once each: `undefined` for an object that
 * carries the mark but was not made by {@link transportFailure} (not frozen, an unknown kind, a message that is not
 * a string). The message is cleaned and bounded, since it reaches the model.
 */
export function transportFailureOf(raw: TransportFailure):
  | {
      kind: TransportFailureKind;
      message: string;
      reason: string | undefined;
      retryable: boolean | undefined;
      bytes: number | undefined;
    }
  | undefined {
  if (!Object.isFrozen(raw)) return undefined;
  const { kind, message, reason, retryable, bytes } = raw;
  if (!KINDS.has(kind) || typeof message !== "string") return undefined;
  return {
    kind,
    message: boundText(message, MAX_CALLER_MESSAGE_CHARS).text,
    reason: typeof reason === "string" && REASON_CODE.test(reason) ? reason : undefined,
    retryable: typeof retryable === "boolean" ? retryable : undefined,
    bytes: Number.isSafeInteger(bytes) && (bytes as number) >= 0 ? bytes : undefined,
  };
}

/**
 * The failure code for an exception a transport threw: a `TimeoutError` (as `AbortSignal.timeout` raises) is a
 * `timeout`, anything else a `transport_error`. The error may be hostile (a getter on `name` that throws, a revoked
 * proxy): reading it never throws, and nothing of it but that comparison is kept.
 */
export function codeForThrown(error: unknown): "timeout" | "transport_error" {
  return errorProperty(error, "name") === "TimeoutError" ? "timeout" : "transport_error";
}

/**
 * A property of a thrown or rejected value, or `undefined` when it has none or reading it throws: such a value is
 * anyone's object (a getter that throws, a revoked proxy), and asking it must never throw in turn.
 */
export function errorProperty(error: unknown, key: "name" | "code" | "message"): unknown {
  try {
    return typeof error === "object" && error !== null ? (error as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** Longest path text in diagnostics and messages, in code points: enough to locate a problem in a real result. */
export const MAX_PATH_CHARS = 128;

/** Whether a code point is a C0 or C1 control, DEL, or a surrogate (for..of yields only lone ones alone). */
function isControlOrLone(point: number): boolean {
  return point < 0x20 || (point >= 0x7f && point <= 0x9f) || (point >= 0xd800 && point <= 0xdfff);
}

/**
 * Text built from payload keys (an instance path, a pointer a hook returned) made safe for diagnostics, events and
 * messages: only a bounded prefix is read, every control, invisible or formatting character and lone surrogate is
 * written as a visible `\u{…}` escape (so two keys that differ only by one stay distinguishable, and nothing
 * invisible survives), and the result is bounded to `max` code points with the excerpt mark.
 */
export function diagnosticText(text: string, max: number = MAX_PATH_CHARS): string {
  // One code point more than the bound, so an over-long text still ends in the excerpt mark.
  const prefix = leadingCodePoints(text, max + 1);
  let escaped = "";
  let changed = false;
  for (const char of prefix) {
    const point = char.codePointAt(0) as number;
    if (isControlOrLone(point) || hasInvisible(char)) {
      escaped += `\\u{${point.toString(16).toUpperCase()}}`;
      changed = true;
    } else escaped += char;
  }
  const shown = changed || prefix.length < text.length ? escaped : text;
  return boundText(shown, max).text;
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
