/**
 * The adapter generated code exports: {@link defineTool} turns a tool's spec into `admit`, `checkInput` and `with`.
 * `admit` merges the call's context over the adapter's defaults, runs {@link admitPayload} inside the outermost net,
 * and records the outcome on the turn. {@link lookupTool} finds a catalog's adapter by a name chosen at run time.
 */
import { FAILURE_MESSAGES, RETRY_DEFAULTS } from "../contract/failure.js";
import type { ContextBudget, Failure, Outcome, Success, ToolSpec } from "../contract/types.js";
import {
  deliver,
  EVENT_VERSION,
  type EventSink,
  type GateEvent,
  gateCounters,
  getDefaultSink,
} from "../record/events.js";
import { Turn } from "../record/turn.js";
import { TOO_DEEP_INPUT_ISSUE, toInputIssues } from "../stages/issues.js";
import {
  contextUsedOf,
  isTokenizerUnavailable,
  type Measured,
  measureModelContent,
  measureText,
} from "../stages/measure.js";
import { toModelContent } from "../stages/model-content.js";
import { admitPayload } from "./admit.js";
import type {
  AdmitContext,
  CallContext,
  CatalogAdapter,
  GateHooks,
  GateState,
  SemanticHook,
  ToolAdapter,
  ToolCatalog,
} from "./context.js";

/**
 * Makes a tool's adapter from its spec: what generated `adapter.ts` files export.
 *
 * ```ts
 * const outcome = await getRecord.admit(raw, { correlationId, args, tenant, hooks: { semantic }, turn });
 * if (outcome.ok) use(outcome.data); else log(outcome.error.code);
 * messages.push(toModelContent(outcome));
 * ```
 */
export function defineTool<T, V, I = unknown>(spec: ToolSpec<T, V, I>): ToolAdapter<T, V, I> {
  return adapterFor({ spec, summaries: new WeakMap() }, {});
}

/**
 * The adapter of the tool named `name` in `catalog` (`generated/index.ts` exports one), or `undefined`. Own keys
 * only: a name the model chose finds a tool the catalog declares, never a member of `Object` such as `constructor`
 * or `__proto__`. The adapter is typed for any of the catalog's tools (see {@link CatalogAdapter}):
 *
 * ```ts
 * const tool = lookupTool(catalog, name);
 * const input = tool?.checkInput(args);
 * if (tool !== undefined && input?.ok) outcome = await tool.admit(raw, { args: input.value });
 * ```
 */
export function lookupTool<C extends ToolCatalog>(catalog: C, name: string): CatalogAdapter<C> | undefined {
  if (typeof name !== "string" || !Object.hasOwn(catalog, name)) return undefined;
  // The catalog's entries are generated adapters, which CatalogAdapter types as the union of them all.
  return catalog[name]?.adapter as CatalogAdapter<C> | undefined;
}

/** The semantic hooks as a list. */
function semanticList<T, I>(hooks: GateHooks<T, unknown, I>["semantic"]): Array<SemanticHook<T, I>> {
  if (hooks === undefined) return [];
  return typeof hooks === "function" ? [hooks] : [...hooks];
}

/**
 * A call's hooks on top of the adapter's defaults. Semantic hooks add up (a call cannot drop a default check such
 * as the tenant rule by passing its own); `summarize` and `recall` of the call replace the defaults.
 */
function mergeHooks<T, V, I>(
  defaults: GateHooks<T, V, I> | undefined,
  call: GateHooks<T, V, I> | undefined,
): GateHooks<T, V, I> {
  // The usual call names no hooks, and its adapter none either: no lists to build.
  if (defaults === undefined && call === undefined) return { semantic: undefined };
  const semantic = [...semanticList(defaults?.semantic), ...semanticList(call?.semantic)];
  return {
    ...defaults,
    ...call,
    semantic: semantic.length === 0 ? undefined : semantic,
  };
}

/** The messages of the two ways an admit can end by a throw, by `detail.reason`. */
const THROWN_MESSAGES = {
  unexpected_throw: FAILURE_MESSAGES.transport_error,
  tokenizer_unavailable:
    "The contract counts its budget in tokens, and gpt-tokenizer, which counts them, could not be loaded where the gate runs (is it installed?).",
} as const;

/**
 * The outcome of an admit that threw: a `transport_error` with `detail.reason` saying why, and its one event. A
 * tokenizer the contract needs but cannot load (`tokenizer_unavailable`, see {@link isTokenizerUnavailable}) is
 * named, and not retryable: the same call fails the same way until the package is installed. Anything else threw
 * where nothing should (`unexpected_throw`, the gate's fixed message). Reads of the caller's context are guarded too,
 * and the thrown value is never asked anything (it may be a revoked proxy). The call's turn records the failure.
 */
function thrownFailure<T, V, I>(
  spec: ToolSpec<T, V, I>,
  ctx: AdmitContext<T, V, I>,
  reason: keyof typeof THROWN_MESSAGES,
): Outcome<T, V> {
  let correlationId: string | undefined;
  let turn: Turn | undefined;
  let sink: EventSink | undefined;
  let receivedAt: string;
  let observe = false;
  try {
    observe = (ctx.mode ?? spec.mode) === "observe";
    correlationId = typeof ctx.correlationId === "string" ? ctx.correlationId : undefined;
    turn = ctx.turn instanceof Turn ? ctx.turn : undefined;
    sink = ctx.sink;
    receivedAt = (ctx.now?.() ?? new Date()).toISOString();
  } catch {
    receivedAt = new Date().toISOString();
  }
  const code = "transport_error";
  const failure: Failure = {
    ok: false,
    error: {
      code,
      retryable: reason === "unexpected_throw" && (spec.retry[code] ?? RETRY_DEFAULTS[code]),
      message: THROWN_MESSAGES[reason],
    },
    diagnostics: { stage: "transport", detail: { reason } },
    provenance: {
      tool: spec.name,
      contractVersion: spec.contract.version,
      contractHash: spec.contract.sha256,
      correlationId,
      rawBytes: 0,
      receivedAt,
    },
  };
  const event: GateEvent = {
    v: EVENT_VERSION,
    tool: spec.name,
    contractVersion: spec.contract.version,
    code,
    stage: "transport",
    rawKind: "unsupported",
    sizes: { rawBytes: 0, maxBytes: spec.limits.maxBytes },
    correlationId,
    turn: turn?.id,
    ...(observe ? { mode: "observe" as const } : {}),
    receivedAt,
  };
  gateCounters.emit(event);
  deliver(sink ?? getDefaultSink(), event);
  // The turn learns of the call as of any failure (its note unmeasured), not as a result that never arrived.
  turn?.record(failure as Outcome<unknown, unknown>);
  return failure;
}

/**
 * Whether a turn sums tokens; asked of what the caller passed as a turn, which may be no `Turn` at all (or one of
 * another copy of the runtime, so it is asked by its property, not by its class).
 */
function turnCountsTokens(turn: unknown): boolean {
  try {
    return (turn as { countsTokens?: unknown }).countsTokens === true;
  } catch {
    return false;
  }
}

/** A failure's note as the turn records it; `undefined` when its tokens cannot be counted. */
async function measureNote(outcome: Failure, budget: ContextBudget, exactly: boolean): Promise<Measured | undefined> {
  const measuring = exactly ? measureText(toModelContent(outcome), budget) : measureModelContent(outcome, budget);
  return measuring.catch(() => undefined);
}

/**
 * Replaces a success's bound on its tokens by their count (no verdict changes: the bound was within the budget, and
 * the count is at most the bound); the bound stays when the tokenizer cannot be loaded.
 */
async function countTokens<T, V>(outcome: Success<T, V>, budget: ContextBudget): Promise<void> {
  const counted = await measureText(toModelContent(outcome as Success<unknown, unknown>), budget).catch(
    () => undefined,
  );
  if (counted?.within === true) outcome.contextUsed = contextUsedOf(counted, budget);
}

function adapterFor<T, V, I>(gate: GateState<T, V, I>, defaults: AdmitContext<T, V, I>): ToolAdapter<T, V, I> {
  const { spec } = gate;
  return {
    name: spec.name,
    spec,
    async admit(raw, ctx = {}) {
      let merged: AdmitContext<T, V, I> = defaults;
      // The caller's turn, before a call without one is given its own.
      let given: Turn | undefined;
      let outcome: Outcome<T, V>;
      try {
        // One object for the call's context: the merged one is the context the stages get, with a private turn when
        // the caller named none (so the re-call limit still holds).
        const call = { ...defaults, ...ctx, hooks: mergeHooks(defaults.hooks, ctx.hooks) } as CallContext<T, V, I>;
        merged = call;
        given = call.turn as Turn | undefined;
        if (given === undefined) call.turn = new Turn();
        outcome = await admitPayload(gate, raw, call, 0);
      } catch (error) {
        // The outermost net: every stage guards what it touches, so only a missing tokenizer should get here; if
        // anything else does, the call still ends in one typed outcome with one event, and the error is dropped.
        return thrownFailure(
          spec,
          merged === defaults ? merged : { ...merged, turn: given },
          isTokenizerUnavailable(error) ? "tokenizer_unavailable" : "unexpected_throw",
        );
      }
      if (given !== undefined) {
        // A failure's note is short, but it is in the context too: measure it the way the contract counts (left
        // unmeasured when the tokenizer cannot be loaded: the outcome is what the call ends in, whatever the note).
        // A turn that sums tokens gets counts, not the byte bounds the gate's verdicts are made on.
        const exactly = turnCountsTokens(given) && spec.context.unit === "tokens";
        const note = outcome.ok ? undefined : await measureNote(outcome, spec.context, exactly);
        if (outcome.ok && exactly && outcome.contextUsed.exact === false) await countTokens(outcome, spec.context);
        try {
          given.record(outcome as Outcome<unknown, unknown>, note && { unit: note.unit, value: note.value });
        } catch {
          // A `turn` that is no Turn (the caller's mistake) is not recorded in; the call still ends in its outcome.
        }
      }
      return outcome;
    },
    checkInput(args) {
      const validate = spec.validateInput;
      if (validate === undefined) return { ok: true, value: args as I };
      try {
        if (validate(args)) return { ok: true, value: args };
        return { ok: false, issues: toInputIssues(validate.errors) };
      } catch {
        // A validator recursing through hostile nesting overflows the stack; the arguments are refused, not thrown.
        return { ok: false, issues: [{ ...TOO_DEEP_INPUT_ISSUE }] };
      }
    },
    with(more) {
      return adapterFor(gate, { ...defaults, ...more, hooks: mergeHooks(defaults.hooks, more.hooks) });
    },
  };
}
