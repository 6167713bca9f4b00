/**
 * What the AI SDK adapter hands the AI SDK: a tool's output for the model (`ToolResultOutput`) made from an outcome,
 * which is what a gated `execute` resolves to (the outcome itself stays in the process, for `outcomeOf`), and a JSON
 * Schema as a Standard Schema, which the AI SDK accepts. Both typed structurally: nothing of `ai` is imported.
 */

import type { Failure, Outcome } from "../contract/types.js";
import type { ReadBackOutcome } from "../read-back/index.js";
import type { ModelPart } from "../stages/model-content.js";
import { RESULT_TAG, toModelContent, toModelParts } from "../stages/model-content.js";
import { reportsFailure } from "./gate-call.js";

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
  if (reportsFailure(output as Outcome<unknown, unknown>)) return { type: "error-text", value: first.text };
  if (media.length === 0) return { type: "text", value: first.text };
  return { type: "content", value: parts.map(contentPart) };
}

/** What the model reads of a read-back call: the page, or why the read failed, as `error-text`. */
export function readBackOutput(output: unknown, tool: string): AiToolOutput {
  const page = output as { ok?: unknown; content?: unknown } | null | undefined;
  if (typeof page?.ok !== "boolean" || typeof page.content !== "string") return failureOutput(tool);
  return { type: page.ok ? "text" : "error-text", value: page.content };
}

/**
 * The outcome behind each output a gated `execute` resolved to. Keyed by the output object, so an outcome lives as
 * long as the AI SDK (or the application) holds its output, and never travels with it.
 */
const outcomes = new WeakMap<object, Outcome<unknown, unknown> | ReadBackOutcome>();

/**
 * What a gated `execute` resolves to: the model's rendering of `outcome` ({@link gatedOutput}, or for a read-back
 * call {@link readBackOutput}), which the AI SDK may send anywhere as it is (to the model as JSON when a history is
 * converted without the tools, to a browser in a UI message stream), with the outcome kept beside it for
 * {@link outcomeOf}.
 */
export function renderedOutput(
  outcome: Outcome<unknown, unknown> | ReadBackOutcome,
  tool: string,
  page = false,
): AiToolOutput {
  const output = page ? readBackOutput(outcome, tool) : gatedOutput(outcome, tool);
  outcomes.set(output, outcome);
  return output;
}

/**
 * The outcome a gated tool's output stands for, `data` included (a read-back call's: its `ReadBackOutcome`), while
 * the output is the very object `execute` resolved to (`result.steps[i].toolResults[j].output`, `onStepFinish`'s
 * `toolResults`); `undefined` for anything else, such as an output parsed back from a stored or streamed history.
 */
export function outcomeOf(output: unknown): Outcome<unknown, unknown> | ReadBackOutcome | undefined {
  return typeof output === "object" && output !== null ? outcomes.get(output) : undefined;
}

/**
 * What the model reads of a gated tool's output (its `toModelOutput`): the output itself when `execute` made it, or
 * when it has the shape of one (a history parsed back from storage or a client) and its text is a delimited result;
 * anything else is never shown, and the model reads a `transport_error` failure instead.
 */
export function shownOutput(output: unknown, tool: string): AiToolOutput {
  if (outcomeOf(output) !== undefined) return output as AiToolOutput;
  return isRendered(output) ? output : failureOutput(tool);
}

/** Whether `value` has the shape of a rendering {@link renderedOutput} makes, its text opening a delimited result. */
function isRendered(value: unknown): value is AiToolOutput {
  const output = value as { type?: unknown; value?: unknown } | null | undefined;
  const delimited = (text: unknown) => typeof text === "string" && text.startsWith(`<${RESULT_TAG} `);
  if (output?.type === "text" || output?.type === "error-text") return delimited(output.value);
  if (output?.type !== "content" || !Array.isArray(output.value)) return false;
  const [first, ...rest] = output.value as Array<{ type?: unknown; text?: unknown; data?: unknown }>;
  return (
    first?.type === "text" &&
    delimited(first.text) &&
    rest.every((part) => part?.type === "file" && typeof (part.data as { data?: unknown })?.data === "string")
  );
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
