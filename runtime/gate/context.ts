/**
 * What callers and generated adapters see of the gate: the adapter, the context of one call, and the hooks through
 * which the caller's own code takes part (semantic checks, summaries, re-calls). Types only.
 */

import type { GateMode, InputIssue, Outcome, ToolSpec } from "../contract/types.js";
import type { SpillStore } from "../policies/spill-store.js";
import type { EventSink } from "../record/events.js";
import type { Turn } from "../record/turn.js";

/** What a semantic hook learns about the call besides the data. */
export interface SemanticInfo<I> {
  tool: string;
  tenant?: string | undefined;
  args?: I | undefined;
  correlationId?: string | undefined;
}

/** One broken rule: where (a JSON pointer into the result) and which rule (a short code, not a message). */
export interface SemanticViolation {
  path: string;
  rule: string;
}

/** A hook's verdict: nothing, `true` or `[]` passes; `false`, a violation or violations fail the call. */
export type SemanticVerdict = undefined | boolean | SemanticViolation | readonly SemanticViolation[];

/** The caller's own check of a valid result, e.g. that a record belongs to the caller's tenant. */
export type SemanticHook<T, I> = (
  data: T,
  info: SemanticInfo<I>,
) => SemanticVerdict | undefined | Promise<SemanticVerdict | undefined>;

/** What the `summarize` hook is told. */
export interface SummarizeInfo<V> {
  tool: string;
  /** sha256 of the raw payload: summaries are cached by it. */
  rawSha256: string;
  /** The summary's own budget (`spec.summaryMax`, in the contract's unit). */
  budget: { unit: "bytes" | "tokens"; max: number };
  /** The full view that was over budget. */
  view: V;
}

/** Writes a short text standing for a result too large to show; `undefined` declines. */
export type SummarizeHook<T, V> = (data: T, info: SummarizeInfo<V>) => string | undefined | Promise<string | undefined>;

/** What the `recall` hook is told. */
export interface RecallInfo<V> {
  tool: string;
  /** Re-calls of this tool already made in the turn. */
  attempt: number;
  budget: { unit: "bytes" | "tokens"; max: number };
  /** The rendered view's size (a floor when counting stopped at the budget). */
  viewSize: number;
  /** The largest array in the view and its length: usually what a narrower call should ask less of. */
  largest?: { path: string; items: number } | undefined;
  view: V;
}

/** Narrows the call's arguments so the result fits (a page size, a filter); `undefined` declines. */
export type RecallHook<I, V> = (args: I | undefined, info: RecallInfo<V>) => I | undefined | Promise<I | undefined>;

/** The caller's code that the gate runs. None of it is ever written into generated files. */
export interface GateHooks<T, V, I> {
  semantic?: SemanticHook<T, I> | ReadonlyArray<SemanticHook<T, I>> | undefined;
  summarize?: SummarizeHook<T, V> | undefined;
  recall?: RecallHook<I, V> | undefined;
}

/** Everything `admit` knows about the call besides the raw result. Every field is optional. */
export interface AdmitContext<T, V, I> {
  /** The caller's id for this call, carried into provenance and events. */
  correlationId?: string | undefined;
  /** The arguments the tool was called with: hashed into provenance, handed to hooks and to `recall`. */
  args?: I | undefined;
  /** The caller's tenant, for semantic hooks such as `ownedByTenant`. */
  tenant?: string | undefined;
  hooks?: GateHooks<T, V, I> | undefined;
  /** The agent turn this call belongs to: records the outcome and holds the per-turn re-call limit. */
  turn?: Turn | undefined;
  /** Calls the tool again with narrowed arguments (for `recall`); returns the new raw result. */
  call?: ((args: I) => unknown) | undefined;
  /** Where events go; default: the sink set with `setDefaultSink`. */
  sink?: EventSink | undefined;
  /** Where `spill` writes; default: `getDefaultSpillStore()`. */
  spillStore?: SpillStore | undefined;
  /**
   * The session the call belongs to, when there is one: a spilled result is then readable back only in it (and
   * only by `tenant`).
   */
  session?: string | undefined;
  /**
   * The name of the read-back tool the model has (`readBack(store).definition.name`): a spilled result's model
   * content then names it beside the handle. `readBack(store).context` sets it with the store.
   */
  readTool?: string | undefined;
  /**
   * Stops waiting for the transport (a promise, a stream, an iterable): e.g. `AbortSignal.timeout(5_000)` ends a
   * stalled read as `timeout`, and the stream is cancelled.
   */
  signal?: AbortSignal | undefined;
  /**
   * `observe` runs every stage and records the outcome enforcement would give (the event says `mode: "observe"`),
   * and the outcome carries the original result, untouched, as `observed` (see `Observation`); `enforce` gates
   * it. Overrides the contract's `x-toolgate.mode`; absent, the contract's mode, which is `enforce` by default.
   */
  mode?: GateMode | undefined;
  /** The clock for `receivedAt` (tests pass a fixed one). */
  now?: (() => Date) | undefined;
}

/**
 * The result of `checkInput`: the arguments typed as the tool's input, or why not. Check `ok`, then pass `value` on
 * (to the tool and as `ctx.args`); `issues` say what to fix, e.g. `missing required property "recordId"`.
 */
export type InputCheck<I> = { ok: true; value: I } | { ok: false; issues: InputIssue[] };

/** A tool's typed gate, as generated code exports it. */
export interface ToolAdapter<T, V, I> {
  readonly name: string;
  readonly spec: ToolSpec<T, V, I>;
  /** Turns a raw result into exactly one outcome. Never rejects for anything the payload does. */
  admit(raw: unknown, ctx?: AdmitContext<T, V, I>): Promise<Outcome<T, V>>;
  /** Checks arguments against the input schema before the call. */
  checkInput(args: unknown): InputCheck<I>;
  /** The same adapter with context defaults (hooks, sink, tenant…) that each call's context extends. */
  with(defaults: AdmitContext<T, V, I>): ToolAdapter<T, V, I>;
}

/** What `lookupTool` looks in: the tools by name, each with its adapter, as `generated/index.ts` exports `catalog`. */
export type ToolCatalog = { readonly [name: string]: { readonly adapter: unknown } };

/** The adapters of a catalog's tools, as a union. */
type AdapterOf<C extends ToolCatalog> = C[keyof C] extends infer E
  ? E extends { adapter: infer A }
    ? A
    : never
  : never;
type ResultOf<A> = A extends ToolAdapter<infer T, infer _V, infer _I> ? T : never;
type ViewOf<A> = A extends ToolAdapter<infer _T, infer V, infer _I> ? V : never;
type InputOf<A> = A extends ToolAdapter<infer _T, infer _V, infer I> ? I : never;

/**
 * The adapter of any one tool of catalog `C`, for a name known only at run time: its result, view and input types
 * are the unions over the catalog's tools, so `checkInput` types the arguments as one of the inputs, `admit` takes
 * them, and the outcome is one of the tools' outcomes.
 */
export type CatalogAdapter<C extends ToolCatalog> = ToolAdapter<
  ResultOf<AdapterOf<C>>,
  ViewOf<AdapterOf<C>>,
  InputOf<AdapterOf<C>>
>;

/** Per-adapter state shared by its `with` copies. */
export interface GateState<T, V, I> {
  spec: ToolSpec<T, V, I>;
  /** Summaries by raw sha256, per summarize hook: another hook would write another summary. */
  summaries: WeakMap<SummarizeHook<T, V>, Map<string, string>>;
}

/**
 * A call's context inside the gate: `turn` is never undefined (a call without one gets a private turn), and
 * `recalls` counts the re-calls the call made, shared by the re-calls' own contexts, for the call's one event.
 */
export type CallContext<T, V, I> = AdmitContext<T, V, I> & { turn: Turn; recalls?: { made: number } };
