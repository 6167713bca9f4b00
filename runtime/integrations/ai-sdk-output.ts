/**
 * What the AI SDK adapter hands the AI SDK: a tool's output for the model (`ToolResultOutput`) made from an outcome,
 * and a JSON Schema as a Standard Schema, which the AI SDK accepts. Both typed structurally: nothing of `ai` is
 * imported.
 */
import type { ModelPart } from "../stages/model-content.js";
import { toModelContent, toModelParts } from "../stages/model-content.js";
import type { Failure, Outcome } from "../types.js";

/** One part of a `content` output: the text, or a file part (the AI SDK's shape for images and audio). */
export type AiContentPart =
  | { type: "text"; text: string }
  | { type: "file"; mediaType: string; data: { type: "data"; data: string } };

/** The AI SDK's `ToolResultOutput` forms the gate gives the model. */
export type AiToolOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "content"; value: AiContentPart[] };

/**
 * A JSON Schema as a Standard Schema (`~standard`, version 1) with its JSON Schema converter, which the AI SDK takes
 * as a tool's `inputSchema`: the model is given `schema`, and every input passes to `execute`, which checks it.
 */
export interface AiInputSchema {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { readonly value: unknown };
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** `schema` as an {@link AiInputSchema}. */
export function aiSchema(schema: Record<string, unknown>): AiInputSchema {
  const given = () => schema;
  return {
    "~standard": {
      version: 1,
      vendor: "toolgate",
      validate: (value) => ({ value }),
      jsonSchema: { input: given, output: given },
    },
  };
}

/**
 * What the model reads of a gated tool's output: the outcome's view as text (with its media as file parts), or its
 * failure as `error-text`. Anything else (an output that did not come through the gate, e.g. edited in a client's
 * message history) is never shown: the model reads a `transport_error` failure instead.
 */
export function gatedOutput(output: unknown, tool: string): AiToolOutput {
  let parts: ModelPart[];
  try {
    parts = isOutcome(output) ? toModelParts(output) : [];
  } catch {
    parts = []; // an outcome-like object missing what the renderer reads
  }
  const [first, ...media] = parts;
  if (first === undefined || first.type !== "text") return failureOutput(tool);
  if ((output as Outcome<unknown, unknown>).ok === false) return { type: "error-text", value: first.text };
  if (media.length === 0) return { type: "text", value: first.text };
  return { type: "content", value: parts.map(contentPart) };
}

/** What the model reads of a read-back call: the page, or why the read failed, as `error-text`. */
export function readBackOutput(output: unknown, tool: string): AiToolOutput {
  const page = output as { ok?: unknown; content?: unknown } | null | undefined;
  if (typeof page?.ok !== "boolean" || typeof page.content !== "string") return failureOutput(tool);
  return { type: page.ok ? "text" : "error-text", value: page.content };
}

/** A text or media part in the AI SDK's content shape (`file` with tagged base64 data, since `ai` 7.0). */
function contentPart(part: ModelPart): AiContentPart {
  if (part.type === "text") return part;
  return { type: "file", mediaType: part.mimeType, data: { type: "data", data: part.data } };
}

/** Whether `value` has an outcome's shape: `ok`, and the provenance naming the tool. */
function isOutcome(value: unknown): value is Outcome<unknown, unknown> {
  const outcome = value as { ok?: unknown; provenance?: { tool?: unknown } | null } | null | undefined;
  return typeof outcome?.ok === "boolean" && typeof outcome.provenance?.tool === "string";
}

/** A `transport_error` failure of `tool` as the model reads one, for an output that is not an outcome. */
function failureOutput(tool: string): AiToolOutput {
  const failure: Failure = {
    ok: false,
    error: { code: "transport_error", retryable: false, message: "the output did not come through the gate" },
    diagnostics: { stage: "transport", detail: { reason: "not_an_outcome" } },
    provenance: { tool, contractVersion: "", contractHash: "", rawBytes: 0, receivedAt: new Date(0).toISOString() },
  };
  return { type: "error-text", value: toModelContent(failure) };
}
