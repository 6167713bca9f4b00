/**
 * The types shared by the runtime gate and the code toolgate generates.
 *
 * Generated adapters describe their tool with a {@link ToolSpec}; the runtime turns whatever a transport delivers
 * into exactly one {@link Outcome}. This file is the whole contract between the two: generated code imports these
 * names from `@toolgate/runtime` and nothing else.
 */
import type { ContentPart, ContentRules } from "../stages/receive/content-blocks.js";

export type { ContentPart, ContentRules, MediaRule } from "../stages/receive/content-blocks.js";

/** Why a tool call did not produce a usable result. One code per stage of the gate that can refuse. */
export type FailureCode =
  | "timeout"
  | "transport_error"
  | "tool_error"
  | "result_too_large"
  | "invalid_encoding"
  | "invalid_json"
  | "schema_mismatch"
  | "semantic_violation"
  | "oversize";

/** The stage of the gate that decided an outcome. */
export type GateStage =
  | "transport"
  | "receive"
  | "decode"
  | "parse"
  | "validate"
  | "semantic"
  | "view"
  | "measure"
  | "policy"
  | "done";

/** Where a result came from and exactly which bytes it was. Never holds the raw value itself. */
export interface Provenance {
  tool: string;
  contractVersion: string;
  /** sha256 (hex) of the canonical contract file. */
  contractHash: string;
  correlationId?: string | undefined;
  /** sha256 (hex) of the raw payload bytes as received; absent when no payload arrived. */
  rawSha256?: string | undefined;
  /** Size of the raw payload in bytes (bytes read so far when the ceiling stopped the read). */
  rawBytes: number;
  /** sha256 (hex) of the call's arguments, serialised with sorted keys. */
  argumentsHash?: string | undefined;
  /** ISO 8601 time the payload was received. */
  receivedAt: string;
}

/** One validation error, by location only: no instance values. */
export interface ValidationIssue {
  /** JSON pointer into the result. */
  instancePath: string;
  /** JSON pointer into the contract's output schema. */
  schemaPath: string;
  keyword: string;
}

/**
 * One reason `checkInput` refused a call's arguments: where, which rule, and a short message a person, or the model
 * that chose the arguments, can act on. Written by the gate from the rule, bounded and cleaned like every diagnostic:
 * the only text of the arguments it may hold is a property name.
 */
export interface InputIssue extends ValidationIssue {
  /** E.g. `missing required property "recordId"`, `must be <= 100`: at most 200 characters, no location. */
  message: string;
  /**
   * The property the rule is about, cleaned and bounded: the missing one for `required` (and `dependentRequired`),
   * the one not allowed for `additionalProperties` (and `unevaluatedProperties`, `propertyNames`).
   */
  property?: string;
}

/** What went wrong and where, without any of the raw payload. */
export interface Diagnostics {
  stage: GateStage;
  /** Validation errors (for `schema_mismatch`) or the location of a semantic violation. */
  issues?: ValidationIssue[];
  /** Sizes seen: raw bytes, the ceiling, the rendered view, the budget. */
  sizes?: { rawBytes?: number; maxBytes?: number; viewSize?: number; budget?: number; unit?: "bytes" | "tokens" };
  /** Extra structured facts (depth reached, hook name, …). Values are numbers, booleans or codes, never raw text. */
  detail?: Record<string, string | number | boolean>;
  /** The tool's own error text for `tool_error`, cleaned and bounded; shown to the model unless the contract opts out. */
  toolMessage?: string;
  /** Things noticed along the way that did not decide the outcome. */
  flags?: GateFlag[];
}

/** A failed call. */
export interface Failure {
  ok: false;
  error: { code: FailureCode; retryable: boolean; message: string };
  diagnostics: Diagnostics;
  provenance: Provenance;
  /** The cleaned, bounded tool error text the model reads: set only for `tool_error`, unless the contract opts out. */
  modelMessage?: string;
  /** In observe mode: the original result the caller hands on instead; this failure is what enforcement would give. */
  observed?: Observation | undefined;
}

/** A complete, valid result with its bounded model-facing view. */
export interface Success<T, V> {
  ok: true;
  /** The tool's value exactly as received and validated. */
  data: T;
  /**
   * What the model may see: declared, approved fields only, within the context budget. Under `spill` it is the
   * bounded preview shown with the handle; under `summarize` the same kind of preview, for the caller, while the
   * model reads `summary`.
   */
  view: V;
  /** False when the view left something out (a cut array, an excerpt, a spill, a summary). */
  complete: boolean;
  /** What the view left out, by path: the model is told, so nothing is cut silently. */
  omissions: Omission[];
  /** The tool's continuation token (cursor) when the contract names one and the view is incomplete. */
  continuation?: string | undefined;
  provenance: Provenance;
  /** How the view was brought within budget, when it had to be. */
  policy?: "summarize" | "spill" | "recall" | "shorten";
  /**
   * The size of what `toModelContent` renders for this outcome (delimiter included), in the contract's unit.
   * `exact: false` (present only then) says `value` is an upper bound on the tokens, not their count: a view whose
   * UTF-8 length is within a token budget is not tokenized (a token is at least one byte, so the verdict is the
   * same), and `value` is that length; or a run of one kind of character longer than 256 code units counted one
   * token per byte. Tokens are counted, and `exact` absent, when the count could change the outcome; a byte budget
   * is always exact.
   */
  contextUsed: { unit: "bytes" | "tokens"; value: number; budget: number; exact?: false };
  /** Under `summarize`: the user hook's cleaned summary, which the model sees instead of the view. */
  summary?: string;
  /** Under `spill`: where the whole view went (never the validated value: that is `data`); `view` is the preview. */
  spill?: SpillReference;
  /** Things noticed that did not fail the call (e.g. MCP text disagreeing with structured content). */
  flags?: GateFlag[];
  /**
   * The content blocks admitted beside the primary value, in the order received (for kind `content`, every admitted
   * block): media with their base64 data, links with their URI as data, never resolved. `toModelParts` passes the
   * media on; the view describes them.
   */
  parts?: ContentPart[];
  /** In observe mode: the original result the caller hands on instead; this success is what enforcement would give. */
  observed?: Observation | undefined;
}

/**
 * How the gate acts on its decision: `enforce` (the default) hands the caller the outcome, `observe` runs every stage
 * the same way, records the outcome enforcement would give, and hands the caller the original result untouched.
 * Observe mode protects nothing: it is for measuring a contract on real traffic before enforcing it.
 */
export type GateMode = "enforce" | "observe";

/**
 * What observe mode lets through: the result as the transport delivered it (what a promise settled to), for the
 * caller to hand on as if no gate ran. By what was delivered:
 * - a string, bytes (any typed array, `ArrayBuffer`, `DataView`), a `parsedResult(value)`, an MCP `CallToolResult`,
 *   or anything the gate refuses to classify: the very value, the same object (the gate reads it and changes nothing);
 * - a fetch `Response`: the same object with its body unread, when it has `clone()` (the gate reads a clone);
 * - a web `ReadableStream`: one branch of its `tee()`, which yields every byte of the stream (the gate reads the
 *   other branch, and stops reading it at the ceiling without cancelling the caller's);
 * - an async iterable (a Node `Readable`, an async generator): an async iterable of the same chunks, in order: those
 *   the gate read are kept and replayed, the rest are pulled from the source as the caller reads them.
 * A stream, a response body or an iterable can be read once: what the gate read of it is held in memory (at most the
 * receive ceiling and a chunk) until the caller reads it. A transport that failed (a rejection, an `Error`, a
 * `transportFailure`) delivered no result: there is nothing to let through, and the outcome is its failure.
 */
export interface Observation {
  mode: "observe";
  /** The original result, as listed above. */
  original: unknown;
  /**
   * The original's text, whole, when the gate holds it (a string; bytes as UTF-8; a parsed value as JSON; an MCP
   * result's text blocks joined by newlines; a stream or response the gate read to its end): what
   * `toModelContent` and `toModelParts` render for the model in place of the gate's view.
   */
  text?: string | undefined;
}

/** Where a spilled result can be read back. The handle is opaque: never a path, URL or command. */
export interface SpillReference {
  /** The store's name for the result, e.g. `spill_1f3a…`. */
  handle: string;
  /** The serialised size of the spilled value in bytes. */
  bytes: number;
  /** The read-back tool the model may call with the handle (`AdmitContext.readTool`), when it has one. */
  readTool?: string | undefined;
}

/**
 * Notes about a call that did not decide its outcome. Codes only: never text from the payload.
 * - `mcp_text_mismatch`: a text block beside an MCP result's structured content parses as JSON and is another
 *   value (prose beside it is normal and not flagged).
 * - `instruction_like_text`: a `text` field looks like instructions to the model (contract says `flag`).
 * - `recalled`: the result came from a re-call with narrowed arguments.
 * - `summary_cached`: the summary came from the cache for the same raw bytes.
 */
export type GateFlag = "mcp_text_mismatch" | "instruction_like_text" | "recalled" | "summary_cached";

/** Every call through the gate ends in exactly one of these. */
export type Outcome<T, V> = Success<T, V> | Failure;

/** A standalone validator as generated: a type guard that leaves its errors on `.errors`. */
export interface ValidateFunction<T> {
  (data: unknown): data is T;
  errors?: Array<{ instancePath: string; schemaPath: string; keyword: string; params?: unknown }> | null;
}

/** The JSON pointer syntax used in `x-toolgate`: instance paths, with `*` for every item of an array. */
export type FieldPath = string;

/**
 * A node of the view plan: how to project a validated value into its model-facing view.
 * Generated from the schema and the contract's `view` settings; data, not code, so it is easy to review.
 */
export type ViewPlan =
  | { kind: "value"; max?: number | undefined }
  | { kind: "string"; max: number; overflow: StringOverflow }
  | { kind: "object"; properties: Record<string, ViewPlan> }
  | { kind: "array"; items: ViewPlan; take?: number | undefined }
  | { kind: "tuple"; items: ViewPlan[]; rest?: ViewPlan | undefined }
  | { kind: "union"; options: ViewPlan[] }
  /**
   * A value the schema does not constrain (`{}`, `true`): shown whole, as JSON, its strings (and keys) cleaned and
   * bounded by `max` or the contract's `maxStringChars`, and, in a preview, every array in it cut to `take` items.
   */
  | { kind: "any"; max?: number | undefined; take?: number | undefined }
  /**
   * Media the schema declares inside the result: an object shaped as an MCP image or audio content block
   * (`form: "block"`: `type`, base64 `data`, `mimeType`; an object of another shape is projected with `otherwise`),
   * or a base64 string (`form: "base64"`: `contentEncoding: "base64"`, its `contentMediaType` as `mimeType`). The
   * view holds its description (`{ type, mimeType, bytes }`), never its data, and the media is handed on as a part.
   */
  | { kind: "media"; form: "block"; otherwise?: ViewPlan | undefined }
  | { kind: "media"; form: "base64"; mimeType?: string | undefined };

/** What the view holds in place of media lifted out of a structured result: its kind, media type and size. */
export interface MediaDescription {
  /** `image` or `audio` for media handed on as a part; `blob` for base64 of another type, described only. */
  type: "image" | "audio" | "blob";
  mimeType: string;
  /** Decoded bytes. */
  bytes: number;
}

/** An image or audio part lifted out of a structured result, at the instance path it was found. */
export interface LiftedMedia {
  path: string;
  part: Extract<ContentPart, { type: "image" | "audio" }>;
}

/**
 * What the view does with a string longer than its `max`: a code-point excerpt marked at its end (`excerpt`), whole
 * lines from its head and tail with one marked gap (`lines`: file contents, logs, page snapshots), or nothing
 * (`omit`). Each is reported as an {@link Omission}.
 */
export type StringOverflow = "excerpt" | "omit" | "lines";

/** Something the view left out of a valid result. */
export interface Omission {
  /** Instance path of the array or string. */
  path: string;
  /**
   * `items`: array items past `take`; `excerpt`: a string shown in part; `omitted`: a string left out whole;
   * `lines`: whole lines left out of a text result (the text view's gap) or of a string under overflow `lines`.
   */
  kind: "items" | "excerpt" | "omitted" | "lines";
  /** How many items, characters or lines were left out. */
  count: number;
  /** For `lines` of a string (overflow `lines`): the first and last line left out, 1-based and inclusive. */
  from?: number | undefined;
  to?: number | undefined;
}

/** What a view function returns. */
export interface Projection<V> {
  view: V;
  complete: boolean;
  omissions: Omission[];
  /** Images and audio lifted out of the value (plan nodes of kind `media`), for the outcome's parts. */
  media?: LiftedMedia[] | undefined;
}

/** Where the contract's bounds put a tool's result size, as derived by the generator. */
export interface ToolLimits {
  /** The receive ceiling: raw payloads larger than this are refused while reading. */
  maxBytes: number;
  /** Deepest nesting of arrays and objects accepted before validation. */
  maxDepth: number;
  /**
   * How long `admit` waits for the transport (a promise, a stream, an iterable), in milliseconds, before the call
   * ends as `timeout`, with or without the caller's signal (`x-toolgate.receive.timeoutMs`); 30,000 when absent.
   */
  timeoutMs?: number | undefined;
  /**
   * Set by the generator when the output schema bounds nesting within `maxDepth` and every number within
   * ±(2^53 − 1), and has no recursion: its validator then descends no deeper than the schema, and a value it accepts
   * needs no depth and number pass. The parse stage runs that pass only on a value the validator refuses, which
   * gives every payload the same outcome as running it first.
   */
  validatorBounds?: true | undefined;
}

/** The context budget for the rendered view. */
export interface ContextBudget {
  unit: "bytes" | "tokens";
  max: number;
  /** The tokenizer's name when `unit` is `tokens`. */
  tokenizer?: "o200k_base" | "cl100k_base" | undefined;
}

/**
 * A policy of the oversize chain: `shorten` (the default end of a chain) cuts the view by its structure until it
 * fits, `drop` refuses the result as `oversize`, `summarize`, `spill` and `recall` hand it to the caller's hook, a
 * store or a narrower re-call.
 */
export type OversizePolicy = "drop" | "summarize" | "spill" | "recall" | "shorten";

/** An `x-toolgate` field kind that the schema alone cannot express. */
export interface FieldRule {
  path: FieldPath;
  kind: "opaque" | "text";
  /** For `text`: what to do with instruction-like content. */
  onInstruction?: "flag" | "reject";
}

/**
 * How a tool answers (`x-toolgate.result.kind`):
 * - `structured`: MCP `structuredContent`, validated against the output schema (its root may be any JSON type);
 * - `json_text`: the first text block, parsed as JSON and validated against the contract's own output schema (the
 *   server advertises none);
 * - `text`: the text blocks joined with `"\n"`, untrusted prose for the model: `data` is a `string`;
 * - `content`: only the other blocks matter (a screenshot): `data` is the list of admitted parts.
 */
export type ResultKind = "structured" | "json_text" | "text" | "content";

/** How a tool's result is received (`x-toolgate.result`), as the runtime reads it. */
export interface ResultSpec {
  kind: ResultKind;
  /** Text kind only: the line bound at receive, and the head's share of the text view. */
  text?: { maxLines: number; headShare: number } | undefined;
  /** The blocks allowed beside (for `content`, instead of) the primary value. A kind with no rule may not appear. */
  content: ContentRules;
}

/**
 * The view of a `text` or `content` result: whole lines from the head and tail of the cleaned text, with the gap
 * they leave (1-based, inclusive), what media came with it (never their data), and its links, cleaned and bounded.
 */
export interface TextView {
  text: string;
  /** Lines in the whole text. */
  lines: number;
  gap?: { from: number; to: number };
  media: Array<{ type: "image" | "audio"; mimeType: string; bytes: number }>;
  links: Array<{ uri: string; name: string }>;
}

/** Everything the runtime needs to know about one tool, emitted by the generator into `adapter.ts`. */
export interface ToolSpec<T, V, I = unknown> {
  name: string;
  contract: { version: string; sha256: string; file: string };
  /** The output schema's validator; absent for kinds `text` and `content`, which have none. */
  validateResult?: ValidateFunction<T> | undefined;
  validateInput?: ValidateFunction<I> | undefined;
  view: { plan: ViewPlan; continuation?: FieldPath | undefined; maxStringChars: number };
  /** Turns validated data into the view type; generated in `view.ts`. */
  buildView: (data: T) => Projection<V>;
  limits: ToolLimits;
  context: ContextBudget;
  oversize: OversizePolicy[];
  /** Recall at most this many times per tool per turn. */
  recallLimit: number;
  /** Budget for a summary produced by the `summarize` hook, in the context unit. */
  summaryMax: number;
  /** How many items or characters a spilled result's preview keeps. */
  spillPreview: number;
  /**
   * The input's argument that bounds how many items the call returns (`limit`, `pageSize`, …), when the input schema
   * has one: an `oversize` failure names it as what to narrow.
   */
  pageArgument?: string | undefined;
  /** Per-code overrides of the default `retryable` flag. */
  retry: Partial<Record<FailureCode, boolean>>;
  fields: FieldRule[];
  /** Show the model a bounded, cleaned tool error message (`x-toolgate.toolError.expose`, on by default). */
  exposeToolError: boolean;
  /** Longest tool error message kept, in characters (`x-toolgate.toolError.maxChars`); 500 when absent. */
  toolErrorMaxChars?: number | undefined;
  /** How the tool answers: its result kind and the content blocks allowed beside it (`x-toolgate.result`). */
  result: ResultSpec;
  /**
   * `name`: the name to call the MCP server with, present when it is not {@link ToolSpec.name} (a contract imported
   * with `toolgate import --prefix`, model-facing name `<prefix>_<tool>`): call `spec.mcp.name ?? spec.name`.
   */
  mcp: { name?: string | undefined };
  /**
   * `observe` when the contract says so (`x-toolgate.mode`); absent, the gate enforces. A call's `mode` (and the
   * proxy's `--observe`) overrides it.
   */
  mode?: GateMode | undefined;
}
