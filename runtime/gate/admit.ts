/**
 * The gate: turns whatever a transport delivered into exactly one {@link Outcome}.
 *
 * ```
 * raw → classify → receive (byte ceiling, content blocks) → decode (UTF-8) → primary value by result kind
 *     (JSON: parse, validate whole; text: line bound; content: the blocks) → semantic (field rules, hooks)
 *     → view (projection, or the text view) → measure → oversize policy → one Outcome
 * ```
 *
 * Generated adapters call `defineTool` (`adapter.ts`) with their `ToolSpec`; users call `adapter.admit(raw, ctx)` on
 * every tool result and `adapter.checkInput(args)` before every call.
 *
 * Decisions a reader should know:
 * - Nesting deeper than `limits.maxDepth` and integers past 2^53 − 1 (however written) are found at stage `parse`,
 *   before anything recursive (the validator, the view, `JSON.stringify`) touches the value: `JSON.parse` survives any
 *   nesting, one iterative pass over what it made checks depth and numbers, and only a value that needs a closer
 *   look has its text scanned (see `parseJsonText`). Too deep is `schema_mismatch` (keyword `maxDepth`, `detail.reason = "too_deep"`): the
 *   text is well-formed JSON, and the depth bound is the contract's (derived from the schema), so a deeper value is
 *   one the contract does not allow, e.g. an object where the schema's deepest level has a string. An unsafe
 *   integer is `invalid_json` (`detail.reason = "unsafe_integer"`): the text has no faithful JSON value in this
 *   runtime, whatever the schema says. A leading byte order mark is `invalid_json` too (`byte_order_mark`).
 * - `admit` never rejects and never waits without bound: receive touches the raw value only inside its guard (a
 *   throw there is `transport_error`, `detail.reason = "hostile_raw"`), every wait ends with `ctx.signal` or the
 *   contract's `limits.timeoutMs`, and an outermost net turns anything else into `transport_error`
 *   (`unexpected_throw`). No message of a thrown error is ever kept.
 * - Paths in diagnostics and messages are built from the tool's keys: bounded to 128 code points, with every
 *   control or invisible character escaped (`diagnosticText`).
 * - Parsed data is never spread or `Object.assign`ed: a `__proto__` key stays an own property of `data`.
 * - A view over budget goes through the contract's policy chain in order; a policy that cannot apply (no hook,
 *   limit reached, result still over budget) passes to the next, and when none is left the call fails `oversize`.
 *   A text view within budget that left lines out goes through it too when the chain holds `spill` and the call
 *   names a store, so the whole text can be read back; nothing is refused for it (the excerpt is the fallback).
 * - `recall` re-calls the tool only through the caller: `ctx.hooks.recall(args, info)` narrows the arguments and
 *   `ctx.call(narrowed)` fetches a new raw result, which is admitted again. At most `spec.recallLimit` re-calls per
 *   tool per turn (counted on `ctx.turn`, or per admit without one); arguments already used in the turn fail the
 *   call as `oversize` with `detail.recall = "repeated_arguments"`, since they would return the same result.
 */

import type { Outcome, Provenance } from "../contract/types.js";
import { largestArray } from "../policies/candidate.js";
import { finishDirect, spillsIncompleteText } from "../policies/direct.js";
import { isoTimestamp } from "../record/clock.js";
import { hashArguments } from "../record/provenance.js";
import { decode, hashPayload } from "../stages/decode.js";
import { KIND_STAGES } from "../stages/kinds.js";
import { measureView } from "../stages/measure.js";
import { type KeptOriginal, keepOriginal } from "../stages/receive/observe.js";
import { receive } from "../stages/receive/receive.js";
import { refusalOutcome } from "../stages/receive/refusal.js";
import { semantic } from "../stages/semantic.js";
import { Admission } from "./admission.js";
import type { CallContext, GateState } from "./context.js";

/**
 * Admits one raw payload: the gate's stages in order, each either handing on or ending the admit with its one
 * outcome. `recallDepth` > 0 for payloads fetched by `recall`: their outcome becomes the outcome of the original
 * admit, which emits the one event for both. `turn` is never undefined here (a call without one gets a private turn
 * so the re-call limit still holds).
 */
export async function admitPayload<T, V, I>(
  gate: GateState<T, V, I>,
  raw: unknown,
  ctx: CallContext<T, V, I>,
  recallDepth: number,
): Promise<Outcome<T, V>> {
  const { spec } = gate;
  const { limits, context: budget } = spec;
  const provenance: Provenance = {
    tool: spec.name,
    contractVersion: spec.contract.version,
    contractHash: spec.contract.sha256,
    correlationId: ctx.correlationId,
    rawBytes: 0,
    argumentsHash: undefined,
    receivedAt: "",
  };
  // The call's count of re-calls, which every re-call's context shares (`{ ...ctx, args }` below).
  if (recallDepth === 0) ctx.recalls = { made: 0 };
  const admission = new Admission(spec, ctx, provenance, recallDepth);
  // Receive: classify and read under the ceiling. The payload counts as received once it is all read (or refused).
  const receiving = receive(raw, {
    maxBytes: limits.maxBytes,
    maxDepth: limits.maxDepth,
    screen: admission.screen,
    result: admission.result,
    signal: ctx.signal,
    timeoutMs: limits.timeoutMs,
    keep: admission.observing === undefined ? undefined : keeperFor(admission.observing),
  });
  const received = receiving instanceof Promise ? await receiving : receiving;
  // The caller's clock when it has one (tests pass a fixed one), else the clock's text without a `Date` per call.
  const now = ctx.now?.();
  provenance.receivedAt = now === undefined || now === null ? isoTimestamp() : now.toISOString();
  const argumentsHash = ctx.args === undefined ? undefined : await hashArguments(ctx.args);
  if (argumentsHash !== undefined) ctx.turn.noteArguments(spec.name, argumentsHash);
  provenance.argumentsHash = argumentsHash;
  if (!received.ok) return refusalOutcome(admission, received);
  admission.rawKind = received.kind;
  admission.flags = [...received.flags];
  admission.parts = received.parts;
  admission.parsed = received.parsed;

  // Decode: the payload's hash and size for provenance (a large one's taken on the helper thread meanwhile, and
  // settled before anything reads it), then strict UTF-8.
  const hashing = hashPayload(admission, received);
  if (hashing !== undefined) await hashing;
  admission.sizes = { rawBytes: provenance.rawBytes, maxBytes: limits.maxBytes };
  const text = decode(admission, received);
  if (typeof text !== "string") return text;
  if (admission.observing !== undefined) admission.observing.decoded = text;

  // The primary value, by the result kind (`stages/kinds.ts`): JSON is parsed, then validated whole, before any view
  // or shortening; text is bounded by its lines; content is the admitted blocks.
  const stages = KIND_STAGES[admission.result.kind];
  const primary = stages.primary(admission, text);
  if (!primary.ok) return primary;
  const data = primary.value as T;

  // Semantic: the contract's field rules, then the caller's hooks (waited for only when there are some). Hooks are
  // the caller's code: they see only a payload whose hash has settled, and so is known to be well-formed. A view
  // that renders the model's content to fit it needs the hash that content names.
  if (ctx.hooks?.semantic !== undefined || stages.rendersContent) {
    const malformed = admission.settle();
    if (malformed !== undefined) return malformed;
  }
  const checked = semantic(admission, data);
  const violation = checked instanceof Promise ? await checked : checked;
  if (violation !== undefined) return violation;

  // View (the plan's projection, or the text view fitted to the budget), and measure what the model would read.
  const shown = stages.view(admission, data);
  const success = shown instanceof Promise ? await shown : shown;
  // The model's content names the payload's hash: it is settled here at the latest.
  const malformed = admission.settle();
  if (malformed !== undefined) return malformed;
  const measuring = measureView(success, budget, admission.tally);
  const measured = measuring instanceof Promise ? await measuring : measuring;
  // Within budget, the admit ends here; but a text view that left lines out goes to a chain that can spill it, so
  // the model can read the lines it was told were left out (`spillsIncompleteText`).
  if (measured.within && !spillsIncompleteText(admission, success)) return finishDirect(admission, success, measured);

  // Over budget (or an incomplete text view to spill): the contract's policy chain, in order.
  const { runPolicies } = policyChain ?? (await loadPolicyChain());
  return runPolicies({
    admission,
    gate,
    data,
    success,
    measured,
    largest: largestArray(success.view),
    passed: {},
    readmit: (next, args) => admitPayload(gate, next, { ...ctx, args }, recallDepth + 1),
  });
}

/**
 * The policy chain and every policy, once loaded. They are loaded at the first result that reaches the chain, not
 * when the runtime is imported: most results fit their budget, and a process whose first result fits (a fresh
 * agent's first call) would otherwise load eight modules it does not run.
 */
let policyChain: typeof import("../policies/chain.js") | undefined;

async function loadPolicyChain(): Promise<typeof import("../policies/chain.js")> {
  policyChain = await import("../policies/chain.js");
  return policyChain;
}

/** Observe mode's keeper: receive hands it what was delivered, and it keeps the original for the caller. */
function keeperFor(observing: { original?: KeptOriginal | undefined }): (raw: unknown) => unknown {
  return (raw) => keepOriginal(raw, observing);
}
