/**
 * The `x-toolgate` block of a contract, as written (every key optional) and with its defaults applied.
 * Its published JSON Schema is `schemas/x-toolgate.schema.json`; the load stage validates every block against it.
 */
import type { FailureCode, OversizePolicy } from "../runtime/types.js";

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
