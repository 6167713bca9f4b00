/**
 * The `x-toolgate` block of a contract, as written (every key optional) and with its defaults applied
 * ({@link applyDefaults}: the one place defaults are applied, for generate and diff alike).
 * Its published JSON Schema is `schemas/x-toolgate.schema.json`; the load stage validates every block against it.
 */
import type { FailureCode, OversizePolicy } from "@toolgate/runtime";

/** The `x-toolgate` block as a contract may write it. */
export interface XToolgate {
  version?: string;
  formats?: "annotate" | "assert";
  receive?: { maxBytes?: number; maxDepth?: number; timeoutMs?: number };
  context?: { unit?: "bytes" | "tokens"; max?: number; tokenizer?: "o200k_base" | "cl100k_base" };
  view?: {
    omit?: string[];
    arrays?: Record<string, { take: number }>;
    strings?: Record<string, { max?: number; overflow?: "excerpt" | "omit" }>;
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
  /** The name the MCP server knows the tool by, when the contract's `name` differs (`import --prefix`). */
  mcp?: { name?: string };
}

/** The defaults of every `x-toolgate` key, in one place so the README and the code cannot drift apart. */
export const DEFAULTS = {
  version: "1",
  formats: "annotate",
  maxDepthCeiling: 64,
  /** How long `admit` waits for the transport (a promise, a stream) before the call ends as `timeout`. */
  timeoutMs: 30_000,
  context: { unit: "tokens", max: 4000, tokenizer: "o200k_base" },
  maxStringChars: 2000,
  oversize: ["drop"],
  summaryShare: 0.25,
  spillPreview: 3,
  recallMax: 1,
  toolErrorChars: 500,
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
    strings: Record<string, { max?: number; overflow?: "excerpt" | "omit" }>;
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
  /** `name` stays absent when not declared: the server's name is then the contract's. */
  mcp: { name: string | undefined };
}

/** A contract's settings with the {@link DEFAULTS} applied. Pure: the block as written is not changed. */
export function applyDefaults(settings: XToolgate): AppliedSettings {
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
      expose: settings.toolError?.expose ?? false,
      maxChars: settings.toolError?.maxChars ?? DEFAULTS.toolErrorChars,
    },
    mcp: { name: settings.mcp?.name },
  };
}
