/**
 * One payload's pass through the gate: what every stage reads (the spec, the call's context) and writes (the
 * provenance, the raw kind, the flags, the sizes), and the only way out, {@link Admission.finish}, which reports the
 * one event of the admit. One object per payload, with its methods on the prototype: the stages share it instead of
 * closing over locals.
 */
import { FAILURE_MESSAGES, RETRY_DEFAULTS } from "../contract/failure.js";
import type {
  ContentPart,
  Diagnostics,
  Failure,
  FailureCode,
  GateFlag,
  GateStage,
  Outcome,
  Provenance,
  ToolSpec,
} from "../contract/types.js";
import {
  deliver,
  EVENT_VERSION,
  type GateEvent,
  gateCounters,
  getDefaultSink,
  type PolicyMix,
  type SummarizeFacts,
} from "../record/events.js";
import type { KeyScreen } from "../record/key-screen.js";
import type { TextTally } from "../stages/content-size.js";
import { flagScreenOf } from "../stages/flag-screen.js";
import { type KeptOriginal, originalText } from "../stages/receive/observe.js";
import type { ParsedCopy, PendingText, RawKind } from "../stages/receive/received.js";
import { type ResolvedResult, resolveResult } from "../stages/result-kind.js";
import { isWellFormedText } from "../text/hygiene.js";
import { escapedLoneSurrogate } from "../text/json-surrogates.js";
import type { CallContext } from "./context.js";

/** What a finished admission reports to the event sink besides the outcome. */
export interface EventFacts {
  stage: GateStage;
  rawKind: RawKind;
  viewSize?: number | undefined;
  /** False when `viewSize` is an upper bound on the tokens, not their count (`contextUsed.exact`). */
  viewSizeExact?: false | undefined;
  policy?: PolicyMix | undefined;
  flags?: GateFlag[] | undefined;
}

/** The sizes every diagnostic past receive carries. */
export interface RawSizes {
  rawBytes: number;
  maxBytes: number;
}

/** Placeholders until receive sets the real values: shared and frozen, so the hot path allocates nothing for them. */
const NO_FLAGS = Object.freeze([]) as unknown as GateFlag[];
const NO_SIZES: RawSizes = Object.freeze({ rawBytes: 0, maxBytes: 0 });

/** Each spec's result, resolved on its first admit: the hot path allocates nothing for it. */
const RESOLVED = new WeakMap<object, ResolvedResult>();

function resolvedFor(spec: Pick<ToolSpec<unknown, unknown>, "result" | "mcp">): ResolvedResult {
  let resolved = RESOLVED.get(spec);
  if (resolved === undefined) {
    resolved = resolveResult(spec);
    RESOLVED.set(spec, resolved);
  }
  return resolved;
}

/** A payload being admitted. */
export class Admission<T, V, I> {
  /** What the transport delivered; set once receive has classified it. */
  rawKind: RawKind = "unsupported";
  /** Flags the outcome carries (receive's, then the semantic stage's); set once the payload is received. */
  flags: GateFlag[] = NO_FLAGS;
  /** The raw payload's size and ceiling; set once its bytes are hashed. */
  sizes: RawSizes = NO_SIZES;
  /**
   * The payload's hash while the helper thread takes it (`record/hash-thread.ts`), with the text it is of; settled
   * ({@link Admission.settle}) before anything reads the provenance's size or hash.
   */
  pending: (PendingText & { text: string }) | undefined;
  /**
   * A parse whose escaped lone surrogates are looked for when {@link pending} settles (`parseAccepted`): the text and
   * the value made of it.
   */
  surrogatesOf: { text: string; value: unknown } | undefined;
  /** What the `summarize` policy measured, when it ran: the event reports it whatever ends the admit. */
  summarize: SummarizeFacts | undefined;
  /** The content blocks admitted beside the primary value (an MCP result's); set once the payload is received. */
  parts: ContentPart[] | undefined;
  /** The payload's value when receive copied and checked it already (a value that arrived parsed): not parsed again. */
  parsed: ParsedCopy | undefined;
  /** A text result's lines, counted once by its line bound, for the text view of that same text. */
  counted: { text: string; lines: number } | undefined;
  /** The strings the generated projector placed in the view, with their cost, for the measure stage. */
  tally: TextTally | undefined;
  /** The tool's result kind and block rules, resolved once per spec. */
  readonly result: ResolvedResult;
  /**
   * What the helper thread screens a JSON payload for while it hashes it (`stages/flag-screen.ts`), when the
   * contract's flag rules allow it; `undefined` for a text or content result.
   */
  readonly screen: KeyScreen | undefined;
  /** Whether the payload's screen found nothing its flag rules would flag, as its hash settled. */
  private screened = false;
  /**
   * Observe mode only (`ctx.mode`, else the contract's): the original result receive kept for the caller, once it
   * has one, and the text the gate decoded of it. `undefined` when the gate enforces.
   */
  observing: { original?: KeptOriginal | undefined; decoded?: string | undefined } | undefined;

  /**
   * `recallDepth` > 0 for payloads fetched by `recall`: their outcome becomes the outcome of the original admit,
   * which emits the one event for both.
   */
  constructor(
    readonly spec: ToolSpec<T, V, I>,
    readonly ctx: CallContext<T, V, I>,
    readonly provenance: Provenance,
    readonly recallDepth: number,
  ) {
    this.result = resolvedFor(spec);
    const { kind } = this.result;
    this.screen = kind === "text" || kind === "content" ? undefined : flagScreenOf(spec.fields);
    this.observing = recallDepth === 0 && (ctx.mode ?? spec.mode) === "observe" ? {} : undefined;
  }

  /**
   * Reports the admit's one event (unless this is a re-call's payload) and returns the outcome; in observe mode the
   * event says so, and the outcome carries the original result as `observed`.
   */
  finish(outcome: Outcome<T, V>, facts: EventFacts): Outcome<T, V> {
    // A re-call's outcome becomes the original admit's, which reports the one event for both: nothing to build here.
    if (this.recallDepth > 0) return outcome;
    const { spec, ctx } = this;
    const budget = spec.context;
    // Built member by member, in the order the event has always listed them: only what applies is set.
    const sizes: GateEvent["sizes"] = { rawBytes: outcome.provenance.rawBytes, maxBytes: spec.limits.maxBytes };
    if (facts.viewSize !== undefined) {
      sizes.viewSize = facts.viewSize;
      sizes.budget = budget.max;
      sizes.unit = budget.unit;
    }
    if (facts.viewSizeExact === false) sizes.exact = false;
    const event: GateEvent = {
      v: EVENT_VERSION,
      tool: spec.name,
      contractVersion: spec.contract.version,
      code: outcome.ok ? "ok" : outcome.error.code,
      stage: facts.stage,
      rawKind: facts.rawKind,
      sizes,
      correlationId: ctx.correlationId,
      turn: ctx.turn.id,
      receivedAt: this.provenance.receivedAt,
    };
    if (facts.policy !== undefined) event.policy = facts.policy;
    if (facts.flags !== undefined && facts.flags.length > 0) event.flags = facts.flags;
    // Only a call that did re-call (not one whose recall was refused for repeated arguments) says so.
    const recalls = ctx.recalls?.made ?? 0;
    if (recalls > 0) {
      event.recall = true;
      event.recalls = recalls;
    }
    if (this.summarize !== undefined) event.summarize = this.summarize;
    const { observing } = this;
    // Set only in observe mode, so an enforced admit builds its event as before.
    if (observing !== undefined) event.mode = "observe";
    if (observing?.original !== undefined) {
      // The outcome stays what enforcement would give; the caller hands on the original instead (`Observation`).
      const original = observing.original.value;
      outcome.observed = { mode: "observe", original, text: originalText(original, observing.decoded) };
    }
    gateCounters.emit(event);
    deliver(ctx.sink ?? getDefaultSink(), event);
    return outcome;
  }

  /**
   * Settles a hash the helper thread was taking: the payload's UTF-8 length and sha256 go into the provenance and
   * the sizes (the object every diagnostic already holds). A string payload whose hash shows it may not be
   * well-formed is checked now, and one with a lone surrogate gets the failure receive gives such a string:
   * `invalid_encoding` at stage `decode`, with no hash. The gate settles before the semantic hooks, before it
   * measures, and before any failure, so no verdict, event or hook sees the difference.
   */
  settle(): Failure | undefined {
    const { pending } = this;
    if (pending === undefined) return undefined;
    this.pending = undefined;
    const hashed = pending.hash.settle();
    this.screened = pending.hash.screenedFree();
    const { provenance } = this;
    provenance.rawBytes = hashed.byteLength;
    this.sizes.rawBytes = hashed.byteLength;
    if (pending.unchecked && hashed.replacement && !isWellFormedText(pending.text)) {
      // A content block's is refused as receive refuses one: with its index, and nothing counted as received.
      const { block } = pending;
      const rawBytes = block === undefined ? hashed.byteLength : 0;
      provenance.rawBytes = rawBytes;
      const sizes = { rawBytes, maxBytes: this.spec.limits.maxBytes };
      const detail: Record<string, string | number> = { reason: "lone_surrogate" };
      if (block !== undefined) detail.block = block;
      return this.fail(
        "invalid_encoding",
        { stage: "decode", sizes, detail },
        { stage: "decode", rawKind: this.rawKind },
      );
    }
    provenance.rawSha256 = hashed.sha256;
    // The search for an escaped lone surrogate the parse left for now (`parseAccepted`); a payload the thread found no
    // `\u` in holds no such escape.
    const parsed = this.surrogatesOf;
    this.surrogatesOf = undefined;
    if (parsed === undefined || hashed.escapes === false) return undefined;
    return escapedLoneSurrogate(parsed.text, parsed.value) ? this.escapedSurrogate() : undefined;
  }

  /**
   * Whether the helper thread found no string under the contract's flag rules' keys that could read like
   * instructions, in the payload the value was parsed from: the flag rules then need no walk. Never waits.
   */
  flagsScreened(): boolean {
    if (this.screen === undefined || this.parsed !== undefined) return false;
    return this.pending === undefined ? this.screened : this.pending.hash.screenedFree();
  }

  /**
   * The refusal of half a surrogate pair written as a JSON escape, the same text as the character sent raw: not
   * UTF-8. The parse stage's (`parse.ts`), whether it finds one at once or the search waited for the hash.
   */
  escapedSurrogate(): Failure {
    return this.fail(
      "invalid_encoding",
      { stage: "decode", sizes: this.sizes, detail: { reason: "lone_surrogate" } },
      { stage: "decode", rawKind: this.rawKind },
    );
  }

  /**
   * A typed failure with the contract's retryability, finished; `retryable` when the transport knew better (a
   * session closed by a message the client could not hold fails the same way again).
   */
  fail(
    code: FailureCode,
    diagnostics: Diagnostics,
    facts: EventFacts,
    message: string = FAILURE_MESSAGES[code],
    retryable?: boolean,
  ): Failure {
    // A failure found while the hash was still being taken waits for it: a payload receive would have refused ends
    // as that refusal, and every other carries its size and hash.
    if (this.pending !== undefined) {
      const malformed = this.settle();
      if (malformed !== undefined) return malformed;
    }
    const failure: Failure = {
      ok: false,
      error: { code, retryable: retryable ?? this.spec.retry[code] ?? RETRY_DEFAULTS[code], message },
      diagnostics,
      provenance: this.provenance,
    };
    this.finish(failure, facts);
    return failure;
  }
}
