/**
 * The `x-toolgate` block of a contract, as written (every key optional) and with its defaults applied
 * ({@link applyDefaults}: the one place defaults are applied, for generate and diff alike).
 * Its published JSON Schema is `schemas/x-toolgate.schema.json`; the load stage validates every block against it.
 */
import { DEFAULT_CONTENT_RULES, type FailureCode, type OversizePolicy, type StringOverflow } from "@toolgate/runtime";

/** The `x-toolgate` block as a contract may write it. */
export interface XToolgate {
  version?: string;
  formats?: "annotate" | "assert";
  receive?: { maxBytes?: number; maxDepth?: number; timeoutMs?: number };
  context?: { unit?: "bytes" | "tokens"; max?: number; tokenizer?: "o200k_base" | "cl100k_base" };
  view?: {
    omit?: string[];
    arrays?: Record<string, { take: number }>;
    strings?: Record<string, { max?: number; overflow?: StringOverflow }>;
    maxStringChars?: number;
    continuation?: string;
  };
  oversize?: OversizePolicy[];
  summarize?: { max?: number };
  spill?: { preview?: number };
  recall?: { max?: number };
  retry?: Partial<Record<FailureCode, boolean>>;
  fields?: Record<string, { kind: "opaque" | "text"; onInstruction?: "flag" | "reject" }>;
  toolError?: { expose?: boolean; maxChars?: number };
  /** How the tool answers (see {@link ResultKind}) and which content blocks may come with the answer. */
  result?: { kind?: ResultKind; text?: { maxLines?: number; headShare?: number }; content?: ContentSettings };
  /** Bounds as an overlay: JSON pointer into the output schema → narrowing keywords merged there (`refine.ts`). */
  refine?: Record<string, Record<string, unknown>>;
  /** The same overlay for the input schema: what the generated `validateInput` checks (`refine.ts`). */
  refineInput?: Record<string, Record<string, unknown>>;
  /** The name the MCP server knows the tool by, when the contract's `name` differs (`import --prefix`). */
  mcp?: { name?: string };
  /**
   * `observe`: the gate runs every stage and records what it would have done, and the caller gets the original
   * result untouched (it protects nothing); `enforce`, the default, gates. A call's `mode` overrides it.
   */
  mode?: "enforce" | "observe";
}

/**
 * How a tool answers:
 * - `structured`: MCP `structuredContent`, checked against the output schema (whose root may be any JSON type);
 * - `json_text`: the first text block parsed as JSON and checked against the output schema, which the client owns
 *   (the server advertises none);
 * - `text`: the text blocks, joined with a line break, as untrusted prose the model reads; no output schema;
 * - `content`: only the non-text blocks matter (a screenshot tool); the data is the list of admitted parts.
 */
export type ResultKind = "structured" | "json_text" | "text" | "content";

/** What a contract may write of one media kind's rule; what it leaves out comes from {@link CONTENT_DEFAULTS}. */
export interface MediaSettings {
  mimeTypes?: string[];
  maxBytes?: number;
  maxCount?: number;
}

/** The `result.content` block as a contract may write it. */
export interface ContentSettings {
  maxBlocks?: number;
  text?: { maxCount?: number };
  image?: MediaSettings;
  audio?: MediaSettings;
  resourceLink?: { maxCount?: number };
  resource?: MediaSettings;
}

/** One media kind's rule, complete: the runtime's `MediaRule`. */
export interface MediaRules {
  mimeTypes: string[];
  maxBytes: number;
  maxCount: number;
}

/** The content rules with every default applied: the runtime's `ContentRules` (`stages/receive/content-blocks.ts`). */
export interface ContentRules {
  maxBlocks: number;
  text?: { maxCount: number };
  image?: MediaRules;
  audio?: MediaRules;
  resourceLink?: { maxCount: number };
  resource?: MediaRules;
}

/** Each kind of content block's rule when a contract names the kind without saying everything. */
export const CONTENT_DEFAULTS = {
  maxBlocks: 16,
  text: { maxCount: 16 },
  image: { mimeTypes: ["image/png", "image/jpeg", "image/webp", "image/gif"], maxBytes: 5 * 1024 * 1024, maxCount: 4 },
  audio: { mimeTypes: ["audio/*"], maxBytes: 10 * 1024 * 1024, maxCount: 1 },
  resourceLink: { maxCount: 32 },
  resource: { mimeTypes: ["text/*", "application/json"], maxBytes: 1024 * 1024, maxCount: 4 },
} as const;

/** The defaults of every `x-toolgate` key, in one place so the docs and the code cannot drift apart. */
export const DEFAULTS = {
  version: "1",
  formats: "annotate",
  maxDepthCeiling: 64,
  /** How long `admit` waits for the transport (a promise, a stream) before the call ends as `timeout`. */
  timeoutMs: 30_000,
  context: { unit: "tokens", max: 8000, tokenizer: "o200k_base" },
  maxStringChars: 2000,
  /** Shortened by structure, never refused while a part fits: `drop` only where a contract names it. */
  oversize: ["shorten"],
  summaryShare: 0.25,
  spillPreview: 3,
  recallMax: 1,
  toolErrorChars: 500,
  /** Whether the model reads a tool error's own text (cleaned, bounded, inside the typed failure). */
  toolErrorExpose: true,
  /** The text kind's line bound at receive, and the share of its view's budget for the first lines. */
  text: { maxLines: 100_000, headShare: 0.67 },
} as const;

/**
 * The `x-toolgate` block with every default applied. A value the generator derives from the schema's bounds or from
 * the context budget (`receive.maxBytes`, `receive.maxDepth`, `summarize.max`) stays absent when not declared.
 */
export interface AppliedSettings {
  version: string;
  formats: "annotate" | "assert";
  receive: { maxBytes?: number | undefined; maxDepth?: number | undefined; timeoutMs: number };
  /** `tokenizer` is set only when the unit is tokens. */
  context: { unit: "bytes" | "tokens"; max: number; tokenizer: "o200k_base" | "cl100k_base" | undefined };
  view: {
    omit: string[];
    arrays: Record<string, { take: number }>;
    strings: Record<string, { max?: number; overflow?: StringOverflow }>;
    maxStringChars: number;
    continuation: string | undefined;
  };
  oversize: OversizePolicy[];
  summarize: { max?: number | undefined };
  spill: { preview: number };
  recall: { max: number };
  retry: Partial<Record<FailureCode, boolean>>;
  fields: NonNullable<XToolgate["fields"]>;
  toolError: { expose: boolean; maxChars: number };
  /** `text` is set for the text kind only. */
  result: { kind: ResultKind; text: { maxLines: number; headShare: number } | undefined; content: ContentRules };
  refine: Record<string, Record<string, unknown>>;
  refineInput: Record<string, Record<string, unknown>>;
  /** `name` stays absent when not declared: the server's name is then the contract's. */
  mcp: { name: string | undefined };
  mode: "enforce" | "observe";
}

/**
 * A contract's settings with the {@link DEFAULTS} applied. Pure: the block as written is not changed.
 * @param hasOutputSchema whether the contract declares an output schema: the result kind's default follows from it
 */
export function applyDefaults(settings: XToolgate, hasOutputSchema = true): AppliedSettings {
  const unit = settings.context?.unit ?? DEFAULTS.context.unit;
  const view = settings.view ?? {};
  return {
    version: settings.version ?? DEFAULTS.version,
    formats: settings.formats ?? DEFAULTS.formats,
    receive: {
      maxBytes: settings.receive?.maxBytes,
      maxDepth: settings.receive?.maxDepth,
      timeoutMs: settings.receive?.timeoutMs ?? DEFAULTS.timeoutMs,
    },
    context: {
      unit,
      max: settings.context?.max ?? DEFAULTS.context.max,
      tokenizer: unit === "tokens" ? (settings.context?.tokenizer ?? DEFAULTS.context.tokenizer) : undefined,
    },
    view: {
      omit: view.omit ?? [],
      arrays: view.arrays ?? {},
      strings: view.strings ?? {},
      maxStringChars: view.maxStringChars ?? DEFAULTS.maxStringChars,
      continuation: view.continuation,
    },
    oversize: settings.oversize ?? [...DEFAULTS.oversize],
    summarize: { max: settings.summarize?.max },
    spill: { preview: settings.spill?.preview ?? DEFAULTS.spillPreview },
    recall: { max: settings.recall?.max ?? DEFAULTS.recallMax },
    retry: settings.retry ?? {},
    fields: settings.fields ?? {},
    toolError: {
      // On unless a contract opts out: MCP asks that tool execution errors reach the model so it can correct its
      // call, and the words stay inside the typed failure, cleaned and bounded (`runtime/stages/receive/refusal.ts`).
      expose: settings.toolError?.expose ?? DEFAULTS.toolErrorExpose,
      maxChars: settings.toolError?.maxChars ?? DEFAULTS.toolErrorChars,
    },
    result: resultDefaults(settings.result, hasOutputSchema),
    refine: settings.refine ?? {},
    refineInput: settings.refineInput ?? {},
    mcp: { name: settings.mcp?.name },
    // Enforcement unless a contract says otherwise: observe mode lets every result through.
    mode: settings.mode ?? "enforce",
  };
}

/** The `result` block with its defaults: the kind from the output schema's presence, the content rules by kind. */
function resultDefaults(result: XToolgate["result"], hasOutputSchema: boolean): AppliedSettings["result"] {
  const kind = result?.kind ?? (hasOutputSchema ? "structured" : "text");
  const text =
    kind === "text"
      ? {
          maxLines: result?.text?.maxLines ?? DEFAULTS.text.maxLines,
          headShare: result?.text?.headShare ?? DEFAULTS.text.headShare,
        }
      : undefined;
  return { kind, text, content: contentRules(result?.content, kind) };
}

/**
 * The content rules of a kind. Absent, the kind's defaults: text blocks (and resource links beside a structured or
 * JSON result), or images and resource links for `content`. Written, each named kind of block gets the rest of its
 * rule from {@link CONTENT_DEFAULTS}, and a text or JSON-text result always allows the text blocks it is read from.
 */
export function contentRules(written: ContentSettings | undefined, kind: ResultKind): ContentRules {
  const d = CONTENT_DEFAULTS;
  const copy = (rule: { readonly maxCount: number }) => ({ maxCount: rule.maxCount });
  const media = (rule: {
    readonly mimeTypes: readonly string[];
    readonly maxBytes: number;
    readonly maxCount: number;
  }) => ({
    mimeTypes: [...rule.mimeTypes],
    maxBytes: rule.maxBytes,
    maxCount: rule.maxCount,
  });
  if (written === undefined) {
    // The runtime's table of each kind's rules, so a contract that names none gets exactly what the gate assumes.
    const { maxBlocks, text, image, resourceLink } = DEFAULT_CONTENT_RULES[kind];
    return {
      maxBlocks,
      ...(text === undefined ? {} : { text: copy(text) }),
      ...(image === undefined ? {} : { image: media(image) }),
      ...(resourceLink === undefined ? {} : { resourceLink: copy(resourceLink) }),
    };
  }
  const rules: ContentRules = { maxBlocks: written.maxBlocks ?? d.maxBlocks };
  if (written.text !== undefined) rules.text = { maxCount: written.text.maxCount ?? d.text.maxCount };
  else if (kind === "text" || kind === "json_text") rules.text = copy(d.text);
  for (const key of ["image", "audio", "resource"] as const) {
    const given = written[key];
    if (given === undefined) continue;
    rules[key] = {
      mimeTypes: [...(given.mimeTypes ?? d[key].mimeTypes)],
      maxBytes: given.maxBytes ?? d[key].maxBytes,
      maxCount: given.maxCount ?? d[key].maxCount,
    };
  }
  if (written.resourceLink !== undefined) {
    rules.resourceLink = { maxCount: written.resourceLink.maxCount ?? d.resourceLink.maxCount };
  }
  return rules;
}
