/**
 * The gate: turns whatever a transport delivered into exactly one {@link Outcome}.
 *
 * ```
 * raw → classify → receive (byte ceiling) → decode (UTF-8) → parse (depth, safe integers) → validate (whole value)
 *     → semantic (field rules, hooks) → provenance → view → measure → oversize policy → one Outcome
 * ```
 *
 * Generated adapters call {@link defineTool} with their {@link ToolSpec}; users call `adapter.admit(raw, ctx)` on
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
 * - `recall` re-calls the tool only through the caller: `ctx.hooks.recall(args, info)` narrows the arguments and
 *   `ctx.call(narrowed)` fetches a new raw result, which is admitted again. At most `spec.recallLimit` re-calls per
 *   tool per turn (counted on `ctx.turn`, or per admit without one); arguments already used in the turn fail the
 *   call as `oversize` with `detail.recall = "repeated_arguments"`, since they would return the same result.
 */
import { deliver, type EventSink, type GateEvent, gateCounters, getDefaultSink, type PolicyMix } from "../record/events.js";
import { codeForThrown, diagnosticText, FAILURE_MESSAGES, RETRY_DEFAULTS, transportFailure } from "../failure.js";
import { checkFieldRules, locate, opaqueTokenProblem } from "../stages/fields.js";
import { parseJsonText } from "../json-text.js";
import { type Measured, measureText } from "../stages/measure.js";
import { toModelContent } from "../stages/model-content.js";
import { pointerSegment, project } from "../stages/project.js";
import { hashArguments, sha256Hex, sha256HexNow, sha256HexWebCrypto } from "../record/provenance.js";
import { type RawKind, receive } from "../stages/receive/receive.js";
import { getDefaultSpillStore, type SpillStore } from "../policies/spill-store.js";
import { boundText, cleanText, codePointLength, decodeUtf8 } from "../text.js";
import { Turn } from "../record/turn.js";
import type {
  Diagnostics,
  Failure,
  FailureCode,
  GateFlag,
  GateStage,
  Omission,
  Outcome,
  Provenance,
  Success,
  ToolSpec,
  ValidateFunction,
  ValidationIssue,
  ViewPlan,
} from "../types.js";

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
   * Stops waiting for the transport (a promise, a stream, an iterable): e.g. `AbortSignal.timeout(5_000)` ends a
   * stalled read as `timeout`, and the stream is cancelled.
   */
  signal?: AbortSignal | undefined;
  /** The clock for `receivedAt` (tests pass a fixed one). */
  now?: (() => Date) | undefined;
}

/** The result of `checkInput`. */
export type InputCheck<I> = { ok: true; value: I } | { ok: false; issues: ValidationIssue[] };

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

/** Longest tool error text kept when the contract does not say. */
const DEFAULT_TOOL_ERROR_CHARS = 500;
/** Most validation issues reported: enough to fix a contract, bounded against a payload made of errors. */
const MAX_ISSUES = 20;
/** Longest continuation token passed to the model; longer is not a cursor. */
const MAX_CONTINUATION_CHARS = 1024;
/** The issue reported for a value nested deeper than the contract's `maxDepth`. */
const TOO_DEEP_ISSUE: ValidationIssue = Object.freeze({
  instancePath: "",
  schemaPath: "x-toolgate/receive/maxDepth",
  keyword: "maxDepth",
});

/** String bounds tried in turn for a spill preview: the plan's own, then shorter excerpts. */
const PREVIEW_STRING_STEPS: ReadonlyArray<number | undefined> = [undefined, 1000, 250, 60];

/** Summaries kept per adapter and summarize hook. */
const SUMMARY_CACHE_SIZE = 256;

const encoder = new TextEncoder();

/**
 * Location text for diagnostics and messages: paths hold key names chosen by the tool, so they are bounded, and
 * every control or invisible character in them is escaped (see `diagnosticText`).
 */
function locationText(text: string, max?: number): string {
  return diagnosticText(text, max);
}

/** Validator errors as issues: location and keyword only, never `params` or values. */
function toIssues(errors: ValidateFunction<unknown>["errors"]): ValidationIssue[] {
  return (errors ?? []).slice(0, MAX_ISSUES).map((error) => ({
    instancePath: locationText(String(error.instancePath)),
    schemaPath: locationText(String(error.schemaPath)),
    keyword: locationText(String(error.keyword), 64),
  }));
}

/** Issues found by someone else's code (field rules, hooks) with their locations made safe the same way. */
function safeIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.slice(0, MAX_ISSUES).map((issue) => ({
    instancePath: locationText(String(issue.instancePath)),
    schemaPath: locationText(String(issue.schemaPath)),
    keyword: locationText(String(issue.keyword), 64),
  }));
}

/** A semantic hook's verdict as issues. */
function verdictIssues(verdict: SemanticVerdict | undefined, hook: number): ValidationIssue[] {
  if (verdict === undefined || verdict === true) return [];
  const violations =
    verdict === false ? [{ path: "", rule: "semantic" }] : Array.isArray(verdict) ? verdict : [verdict];
  return (violations as SemanticViolation[]).slice(0, MAX_ISSUES).map((violation) => ({
    instancePath: locationText(String(violation.path)),
    schemaPath: `hooks/semantic/${hook}`,
    keyword:
      String(violation.rule)
        .replace(/[^A-Za-z0-9_.:-]/g, "_")
        .slice(0, 64) || "semantic",
  }));
}

/** The largest array in a view, by an iterative walk; its path is made of plan-declared keys and indices only. */
function largestArray(view: unknown): { path: string; items: number } | undefined {
  let best: { path: string; items: number } | undefined;
  const stack: Array<{ value: unknown; path: string }> = [{ value: view, path: "" }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (Array.isArray(value)) {
      if (best === undefined || value.length > best.items) best = { path: path || "/", items: value.length };
      for (const [index, entry] of value.entries()) stack.push({ value: entry, path: `${path}/${index}` });
    } else if (value !== null && typeof value === "object") {
      for (const key of Object.keys(value)) {
        stack.push({ value: (value as Record<string, unknown>)[key], path: `${path}/${pointerSegment(key)}` });
      }
    }
  }
  return best;
}

/**
 * A copy of a view plan whose arrays keep at most `take` items and, when `maxChars` is given, whose strings keep at
 * most `maxChars` characters (a marked excerpt; a string the contract says to omit when long stays omitted): the
 * preview of a spilled or summarized result. Plans of recursive schemas may be cyclic, so nodes are copied once
 * each through a map, without recursion.
 */
export function previewPlan(plan: ViewPlan, take: number, maxChars?: number): ViewPlan {
  const copies = new Map<ViewPlan, ViewPlan>();
  const queue: ViewPlan[] = [];
  const copyOf = (node: ViewPlan): ViewPlan => {
    let copy = copies.get(node);
    if (copy === undefined) {
      copy = { ...node };
      copies.set(node, copy);
      queue.push(node);
    }
    return copy;
  };
  const root = copyOf(plan);
  for (let node = queue.pop(); node !== undefined; node = queue.pop()) {
    const copy = copies.get(node) as ViewPlan;
    if (node.kind === "object" && copy.kind === "object") {
      copy.properties = Object.fromEntries(Object.entries(node.properties).map(([key, child]) => [key, copyOf(child)]));
    } else if (node.kind === "array" && copy.kind === "array") {
      copy.items = copyOf(node.items);
      copy.take = Math.min(node.take ?? take, take);
    } else if (node.kind === "tuple" && copy.kind === "tuple") {
      copy.items = node.items.map(copyOf);
      copy.rest = node.rest === undefined ? undefined : copyOf(node.rest);
    } else if (node.kind === "union" && copy.kind === "union") {
      copy.options = node.options.map(copyOf);
    } else if (maxChars !== undefined && node.kind === "string" && copy.kind === "string") {
      copy.max = Math.min(node.max, maxChars);
    } else if (maxChars !== undefined && node.kind === "value" && copy.kind === "value") {
      copy.max = Math.min(node.max ?? maxChars, maxChars);
    }
  }
  return root;
}

/**
 * The continuation token at the contract's pointer, exactly as the tool wrote it. A cursor is an opaque token by
 * nature, so one with a character outside the opaque set (a URL, a path, a command, invisible text) is not passed to
 * the model (nor one that is missing, not a scalar, or longer than any cursor needs to be).
 */
function continuationOf(data: unknown, pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const value = locate(data, pointer)[0]?.value;
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const token = String(value);
  if (token === "" || codePointLength(token) > MAX_CONTINUATION_CHARS) return undefined;
  return opaqueTokenProblem(token) === undefined ? token : undefined;
}

/** Per-adapter state shared by its `with` copies. */
interface GateState<T, V, I> {
  spec: ToolSpec<T, V, I>;
  /** Summaries by raw sha256, per summarize hook: another hook would write another summary. */
  summaries: WeakMap<SummarizeHook<T, V>, Map<string, string>>;
}

/** What a finished admission reports to the event sink besides the outcome. */
interface EventFacts {
  stage: GateStage;
  rawKind: RawKind;
  viewSize?: number | undefined;
  policy?: PolicyMix | undefined;
  flags?: GateFlag[] | undefined;
}

/**
 * Admits one raw payload. `recallDepth` > 0 for payloads fetched by `recall`: their outcome becomes the outcome of
 * the original admit, which emits the one event for both. `turn` is never undefined here (a call without one gets a
 * private turn so the re-call limit still holds).
 */
async function admitPayload<T, V, I>(
  gate: GateState<T, V, I>,
  raw: unknown,
  ctx: AdmitContext<T, V, I> & { turn: Turn },
  recallDepth: number,
): Promise<Outcome<T, V>> {
  const { spec } = gate;
  const { limits, context: budget } = spec;
  // Receive: classify and read under the ceiling. The payload counts as received once it is all read (or refused).
  const received = await receive(raw, {
    maxBytes: limits.maxBytes,
    maxDepth: limits.maxDepth,
    structured: spec.mcp.structured,
    signal: ctx.signal,
    timeoutMs: limits.timeoutMs,
  });
  const receivedAt = (ctx.now?.() ?? new Date()).toISOString();
  const argumentsHash = ctx.args === undefined ? undefined : await hashArguments(ctx.args);
  if (argumentsHash !== undefined) ctx.turn.noteArguments(spec.name, argumentsHash);
  const provenance: Provenance = {
    tool: spec.name,
    contractVersion: spec.contract.version,
    contractHash: spec.contract.sha256,
    correlationId: ctx.correlationId,
    rawBytes: 0,
    argumentsHash,
    receivedAt,
  };

  const finish = (outcome: Outcome<T, V>, facts: EventFacts): Outcome<T, V> => {
    // A re-call's outcome becomes the original admit's, which reports the one event for both: nothing to build here.
    if (recallDepth > 0) return outcome;
    const event: GateEvent = {
      tool: spec.name,
      contractVersion: spec.contract.version,
      code: outcome.ok ? "ok" : outcome.error.code,
      stage: facts.stage,
      rawKind: facts.rawKind,
      sizes: {
        rawBytes: outcome.provenance.rawBytes,
        maxBytes: limits.maxBytes,
        ...(facts.viewSize === undefined ? {} : { viewSize: facts.viewSize, budget: budget.max, unit: budget.unit }),
      },
      correlationId: ctx.correlationId,
      receivedAt,
      ...(facts.policy === undefined ? {} : { policy: facts.policy }),
      ...(facts.flags === undefined || facts.flags.length === 0 ? {} : { flags: facts.flags }),
      ...(facts.policy === "recall" ? { recall: true } : {}),
    };
    gateCounters.emit(event);
    deliver(ctx.sink ?? getDefaultSink(), event);
    return outcome;
  };

  const fail = (
    code: FailureCode,
    diagnostics: Diagnostics,
    facts: EventFacts,
    message: string = FAILURE_MESSAGES[code],
  ): Outcome<T, V> => {
    const failure: Failure = {
      ok: false,
      error: { code, retryable: spec.retry[code] ?? RETRY_DEFAULTS[code], message },
      diagnostics,
      provenance,
    };
    return finish(failure, facts);
  };

  if (!received.ok) {
    provenance.rawBytes = received.bytesRead;
    if (received.bytes !== undefined) provenance.rawSha256 = await sha256Hex(received.bytes);
    const diagnostics: Diagnostics = {
      stage: received.stage,
      sizes: { rawBytes: received.bytesRead, maxBytes: limits.maxBytes },
      ...(Object.keys(received.detail).length > 0 ? { detail: received.detail } : {}),
      ...(received.detail.reason === "too_deep" ? { issues: [TOO_DEEP_ISSUE] } : {}),
    };
    const facts = { stage: received.stage, rawKind: received.kind };
    if (received.code === "tool_error") {
      const toolMessage = boundText(
        received.toolMessage ?? "",
        spec.toolErrorMaxChars ?? DEFAULT_TOOL_ERROR_CHARS,
      ).text;
      diagnostics.toolMessage = toolMessage;
      const outcome = fail("tool_error", diagnostics, facts) as Failure;
      if (spec.exposeToolError) outcome.modelMessage = toolMessage;
      return outcome;
    }
    return fail(received.code, diagnostics, facts, received.callerMessage ?? FAILURE_MESSAGES[received.code]);
  }
  const rawKind = received.kind;
  const flags: GateFlag[] = [...received.flags];
  // Provenance: the sha256 and size of the payload's bytes. Text received as a string was hashed as it was received
  // where the host can do it synchronously, else it is encoded here; bytes are hashed before they are decoded, so a
  // payload refused as invalid UTF-8 still has its hash.
  let text: string | undefined;
  if (received.text !== undefined) {
    text = received.text;
    const { hashed } = received;
    if (hashed !== undefined) {
      provenance.rawBytes = hashed.byteLength;
      provenance.rawSha256 = hashed.sha256;
    } else {
      const bytes = encoder.encode(text);
      provenance.rawBytes = bytes.byteLength;
      provenance.rawSha256 = await sha256HexWebCrypto(bytes);
    }
  } else {
    const { bytes } = received;
    provenance.rawBytes = bytes.byteLength;
    provenance.rawSha256 = received.sha256 ?? sha256HexNow(bytes) ?? (await sha256HexWebCrypto(bytes));
    // Decode: strict UTF-8; a BOM is kept so that parse refuses it by name.
    text = decodeUtf8(bytes);
  }
  const sizes = { rawBytes: provenance.rawBytes, maxBytes: limits.maxBytes };
  if (text === undefined) {
    return fail(
      "invalid_encoding",
      { stage: "decode", sizes, detail: { reason: "invalid_utf8" } },
      { stage: "decode", rawKind },
    );
  }

  // Parse, refusing nesting past the contract's depth, integers JSON.parse would round, and escaped lone surrogates.
  const parsed = parseJsonText(text, limits.maxDepth);
  if (!parsed.ok && parsed.reason === "too_deep") {
    return fail(
      "schema_mismatch",
      {
        stage: "parse",
        sizes,
        issues: [TOO_DEEP_ISSUE],
        detail: { reason: "too_deep", depth: parsed.depth, maxDepth: limits.maxDepth },
      },
      { stage: "parse", rawKind },
    );
  }
  if (!parsed.ok && parsed.reason === "lone_surrogate") {
    // Half a surrogate pair written as an escape is the same text as the character sent raw: not UTF-8.
    return fail(
      "invalid_encoding",
      { stage: "decode", sizes, detail: { reason: "lone_surrogate" } },
      { stage: "decode", rawKind },
    );
  }
  if (!parsed.ok) {
    return fail(
      "invalid_json",
      { stage: "parse", sizes, detail: { reason: parsed.reason } },
      { stage: "parse", rawKind },
    );
  }

  // Validate the whole value, before any view or shortening.
  let valid: boolean;
  try {
    valid = spec.validateResult(parsed.value);
  } catch {
    return fail(
      "schema_mismatch",
      { stage: "validate", sizes, detail: { reason: "validator_threw" } },
      { stage: "validate", rawKind, flags },
    );
  }
  if (!valid) {
    const issues = toIssues(spec.validateResult.errors);
    return fail("schema_mismatch", { stage: "validate", sizes, issues }, { stage: "validate", rawKind, flags });
  }
  const data = parsed.value as T;

  // Semantic: the contract's field rules, then the caller's hooks. A hook that throws fails closed.
  const fieldFindings = checkFieldRules(data, spec.fields);
  if (fieldFindings.instructionLike) flags.push("instruction_like_text");
  const semanticIssues = safeIssues(fieldFindings.violations);
  const hookList = ctx.hooks?.semantic;
  const semanticHooks = hookList === undefined ? [] : typeof hookList === "function" ? [hookList] : [...hookList];
  const info: SemanticInfo<I> = {
    tool: spec.name,
    tenant: ctx.tenant,
    args: ctx.args,
    correlationId: ctx.correlationId,
  };
  for (const [index, hook] of semanticHooks.entries()) {
    if (semanticIssues.length > 0) break;
    try {
      semanticIssues.push(...verdictIssues(await hook(data, info), index));
    } catch {
      return fail(
        "semantic_violation",
        { stage: "semantic", sizes, detail: { reason: "hook_threw", hook: index } },
        { stage: "semantic", rawKind, flags },
      );
    }
  }
  if (semanticIssues.length > 0) {
    return fail(
      "semantic_violation",
      { stage: "semantic", sizes, issues: semanticIssues.slice(0, MAX_ISSUES), ...(flags.length ? { flags } : {}) },
      { stage: "semantic", rawKind, flags },
    );
  }

  // View: the generated projection, then the continuation token when something was left out.
  const projection = spec.buildView(data);
  const success: Success<T, V> = {
    ok: true,
    data,
    view: projection.view,
    complete: projection.complete,
    omissions: projection.omissions,
    continuation: projection.complete ? undefined : continuationOf(data, spec.view.continuation),
    provenance,
    contextUsed: { unit: budget.unit, value: 0, budget: budget.max },
    ...(flags.length > 0 ? { flags } : {}),
  };

  // Measure what the model would actually read.
  const measured = await measureText(toModelContent(success as Outcome<unknown, unknown>), budget);
  if (measured.within) {
    success.contextUsed.value = measured.value;
    return finish(success, { stage: "done", rawKind, viewSize: measured.value, policy: "direct", flags });
  }

  // Over budget: the contract's policy chain, in order.
  const budgetInfo = { unit: budget.unit, max: budget.max };
  const largest = largestArray(projection.view);
  const passed: Record<string, string> = {};
  const preview = (maxChars?: number): { view: V; omissions: Omission[] } => {
    const shown = project(data, previewPlan(spec.view.plan, spec.spillPreview, maxChars), {
      maxStringChars: spec.view.maxStringChars,
    });
    return { view: shown.view as V, omissions: shown.omissions };
  };

  for (const policy of spec.oversize) {
    if (policy === "drop") break;

    if (policy === "summarize") {
      const hook = ctx.hooks?.summarize;
      if (hook === undefined) {
        passed.summarize = "no_hook";
        continue;
      }
      const rawSha256 = provenance.rawSha256 as string;
      let cache = gate.summaries.get(hook);
      if (cache === undefined) {
        cache = new Map();
        gate.summaries.set(hook, cache);
      }
      let summary = cache.get(rawSha256);
      const cached = summary !== undefined;
      if (summary === undefined) {
        try {
          summary = await hook(data, {
            tool: spec.name,
            rawSha256,
            budget: { unit: budget.unit, max: spec.summaryMax },
            view: projection.view,
          });
        } catch {
          passed.summarize = "hook_threw";
          continue;
        }
        if (typeof summary !== "string") {
          passed.summarize = "declined";
          continue;
        }
        summary = cleanText(summary);
        // Oldest first out: a Map iterates in insertion order.
        if (cache.size >= SUMMARY_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(rawSha256, summary);
      }
      const own = await measureText(summary, { ...budget, max: spec.summaryMax });
      const shown = preview();
      const candidate: Success<T, V> = {
        ...success,
        view: shown.view,
        complete: false,
        omissions: shown.omissions,
        continuation: continuationOf(data, spec.view.continuation),
        summary,
        policy: "summarize",
        flags: cached ? [...flags, "summary_cached"] : flags,
      };
      const size = await measureText(toModelContent(candidate as Outcome<unknown, unknown>), budget);
      if (!own.within || !size.within) {
        passed.summarize = "summary_over_budget";
        continue;
      }
      candidate.contextUsed = { unit: budget.unit, value: size.value, budget: budget.max };
      return finish(candidate, {
        stage: "policy",
        rawKind,
        viewSize: size.value,
        policy: "summarize",
        flags: candidate.flags,
      });
    }

    if (policy === "spill") {
      // The preview keeps `spillPreview` items per array; when long text still does not fit, strings are cut to
      // shorter marked excerpts, step by step, until it fits or the excerpts would say nothing.
      let fitted: { candidate: Success<T, V>; size: Measured } | undefined;
      for (const maxChars of PREVIEW_STRING_STEPS) {
        const shown = preview(maxChars);
        const candidate: Success<T, V> = {
          ...success,
          view: shown.view,
          complete: false,
          omissions: shown.omissions,
          continuation: continuationOf(data, spec.view.continuation),
          // A placeholder of the real handle's length, so the preview is measured as the model will read it.
          spill: { handle: `spill_${"0".repeat(32)}`, bytes: 0 },
          policy: "spill",
        };
        const size = await measureText(toModelContent(candidate as Outcome<unknown, unknown>), budget);
        if (size.within) {
          fitted = { candidate, size };
          break;
        }
      }
      if (fitted === undefined) {
        passed.spill = "preview_over_budget";
        continue;
      }
      const { candidate } = fitted;
      const json = JSON.stringify(data);
      try {
        const store = ctx.spillStore ?? getDefaultSpillStore();
        candidate.spill = await store.put({
          tool: spec.name,
          json,
          sha256: await sha256Hex(new TextEncoder().encode(json)),
        });
      } catch {
        passed.spill = "store_failed";
        continue;
      }
      // Measured again with the real handle: the placeholder has its length, not its token count (32 zeros are
      // about 13 tokens of o200k_base, 32 hex digits about 30), so a preview that fitted by a few tokens may not.
      const size = await measureText(toModelContent(candidate as Outcome<unknown, unknown>), budget);
      if (!size.within) {
        passed.spill = "preview_over_budget";
        continue;
      }
      candidate.contextUsed = { unit: budget.unit, value: size.value, budget: budget.max };
      return finish(candidate, { stage: "policy", rawKind, viewSize: size.value, policy: "spill", flags });
    }

    if (policy === "recall") {
      const hook = ctx.hooks?.recall;
      const call = ctx.call;
      if (hook === undefined || call === undefined) {
        passed.recall = "no_hook";
        continue;
      }
      const attempt = ctx.turn.recallsOf(spec.name);
      if (attempt >= ctx.turn.recallLimitFor(spec.name, spec.recallLimit)) {
        passed.recall = "limit_reached";
        continue;
      }
      let narrowed: I | undefined;
      try {
        narrowed = await hook(ctx.args, {
          tool: spec.name,
          attempt,
          budget: budgetInfo,
          viewSize: measured.value,
          largest,
          view: projection.view,
        });
      } catch {
        passed.recall = "hook_threw";
        continue;
      }
      if (narrowed === undefined) {
        passed.recall = "declined";
        continue;
      }
      const narrowedHash = await hashArguments(narrowed);
      if (narrowedHash === undefined) {
        // Arguments nested too deeply to serialise cannot be compared with earlier ones, so they are not used.
        passed.recall = "unhashable_arguments";
        continue;
      }
      if (ctx.turn.hasSeenArguments(spec.name, narrowedHash)) {
        return fail(
          "oversize",
          {
            stage: "policy",
            sizes: { ...sizes, viewSize: measured.value, budget: budget.max, unit: budget.unit },
            detail: { recall: "repeated_arguments" },
          },
          { stage: "policy", rawKind, viewSize: measured.value, policy: "recall", flags },
          "The recall hook asked for arguments already used in this turn; the same call would return the same result.",
        );
      }
      ctx.turn.countRecall(spec.name);
      let nextRaw: unknown;
      try {
        nextRaw = await call(narrowed);
      } catch (error) {
        nextRaw = transportFailure(codeForThrown(error), "The re-call with narrowed arguments failed.");
      }
      const again = await admitPayload(gate, nextRaw, { ...ctx, args: narrowed }, recallDepth + 1);
      if (!again.ok) {
        return finish(again, { stage: again.diagnostics.stage, rawKind, policy: "recall", flags });
      }
      const recalled: Success<T, V> = {
        ...again,
        policy: again.policy ?? "recall",
        flags: [...(again.flags ?? []), "recalled"],
      };
      return finish(recalled, {
        stage: "policy",
        rawKind,
        viewSize: recalled.contextUsed.value,
        policy: "recall",
        flags: recalled.flags,
      });
    }
  }

  // Drop, or nothing left in the chain: a typed failure that says what would narrow the call.
  const unit = budget.unit;
  const over = measured.exact ? `${measured.value} ${unit}` : `more than ${budget.max} ${unit}`;
  // The path is made of view keys, which under a `value` node may be the tool's own: shown bounded and escaped.
  const largestPath = largest === undefined ? undefined : locationText(largest.path);
  const narrowHint =
    largest !== undefined && largest.items > 1
      ? ` The largest part is ${largestPath} with ${largest.items} items: ask for fewer (a page size, a filter, a cursor).`
      : " Ask for less: a narrower filter, fewer fields or a smaller page.";
  return fail(
    "oversize",
    {
      stage: "policy",
      sizes: { ...sizes, viewSize: measured.value, budget: budget.max, unit },
      detail: {
        viewSizeIsFloor: !measured.exact,
        ...(largest ? { narrowPath: largestPath as string, narrowItems: largest.items } : {}),
        ...passed,
      },
    },
    { stage: "policy", rawKind, viewSize: measured.value, policy: "drop", flags },
    `The view needs ${over}, over the budget of ${budget.max} ${unit}.${narrowHint}`,
  );
}

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
  const semantic = [...semanticList(defaults?.semantic), ...semanticList(call?.semantic)];
  return {
    ...defaults,
    ...call,
    semantic: semantic.length === 0 ? undefined : semantic,
  };
}

/**
 * The outcome of an admit that threw where nothing should: a `transport_error` with the gate's fixed message and
 * `detail.reason = "unexpected_throw"`, and its one event. Reads of the caller's context are guarded too.
 */
function unexpectedFailure<T, V, I>(spec: ToolSpec<T, V, I>, ctx: AdmitContext<T, V, I>): Outcome<T, V> {
  let correlationId: string | undefined;
  let sink: EventSink | undefined;
  let receivedAt: string;
  try {
    correlationId = typeof ctx.correlationId === "string" ? ctx.correlationId : undefined;
    sink = ctx.sink;
    receivedAt = (ctx.now?.() ?? new Date()).toISOString();
  } catch {
    receivedAt = new Date().toISOString();
  }
  const code = "transport_error";
  const failure: Failure = {
    ok: false,
    error: { code, retryable: spec.retry[code] ?? RETRY_DEFAULTS[code], message: FAILURE_MESSAGES[code] },
    diagnostics: { stage: "transport", detail: { reason: "unexpected_throw" } },
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
    tool: spec.name,
    contractVersion: spec.contract.version,
    code,
    stage: "transport",
    rawKind: "unsupported",
    sizes: { rawBytes: 0, maxBytes: spec.limits.maxBytes },
    correlationId,
    receivedAt,
  };
  gateCounters.emit(event);
  deliver(sink ?? getDefaultSink(), event);
  return failure;
}

function adapterFor<T, V, I>(gate: GateState<T, V, I>, defaults: AdmitContext<T, V, I>): ToolAdapter<T, V, I> {
  const { spec } = gate;
  return {
    name: spec.name,
    spec,
    async admit(raw, ctx = {}) {
      let merged: AdmitContext<T, V, I> = defaults;
      let outcome: Outcome<T, V>;
      try {
        merged = { ...defaults, ...ctx, hooks: mergeHooks(defaults.hooks, ctx.hooks) };
        outcome = await admitPayload(gate, raw, { ...merged, turn: merged.turn ?? new Turn() }, 0);
      } catch {
        // The outermost net: every stage guards what it touches, so nothing should get here; if anything does, the
        // call still ends in one typed outcome with one event, and the error (whoever's it was) is dropped.
        return unexpectedFailure(spec, merged);
      }
      if (merged.turn !== undefined) {
        // A failure's note is short, but it is in the context too: measure it the way the contract counts.
        const note = outcome.ok ? undefined : await measureText(toModelContent(outcome), spec.context);
        merged.turn.record(outcome as Outcome<unknown, unknown>, note && { unit: note.unit, value: note.value });
      }
      return outcome;
    },
    checkInput(args) {
      const validate = spec.validateInput;
      if (validate === undefined) return { ok: true, value: args as I };
      try {
        if (validate(args)) return { ok: true, value: args };
        return { ok: false, issues: toIssues(validate.errors) };
      } catch {
        // A validator recursing through hostile nesting overflows the stack; the arguments are refused, not thrown.
        return { ok: false, issues: [{ instancePath: "", schemaPath: "", keyword: "maxDepth" }] };
      }
    },
    with(more) {
      return adapterFor(gate, { ...defaults, ...more, hooks: mergeHooks(defaults.hooks, more.hooks) });
    },
  };
}
