/**
 * What each result kind runs between decode and the semantic stage, and for its view: the one place the gate's flow
 * branches on the kind (`admitPayload` calls `KIND_STAGES[kind]`).
 *
 * | kind | primary | view |
 * | --- | --- | --- |
 * | `structured`, `json_text` | parse (depth, safe integers; a value copied at receive is not parsed again), then the output schema's validator on the whole value | the plan's projection |
 * | `text` | the text itself, bounded by `result.text.maxLines` (`result_too_large`, `too_many_lines`) | the text view |
 * | `content` | the admitted blocks (`schema_mismatch`, `no_content_blocks`, when the payload had none) | the text view |
 */

import type { Failure, ResultKind, Success } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { countLines } from "./line-excerpt.js";
import { parse, parseAccepted } from "./parse.js";
import { validate } from "./validate.js";
import { view } from "./view.js";

/** The primary value of a payload, ready for the semantic stage. */
export interface Primary {
  ok: true;
  value: unknown;
}

/** A kind's stages. */
export interface KindStages {
  /** The payload's primary value from its decoded text, or the failure that ends the admit. */
  primary<T, V, I>(admission: Admission<T, V, I>, text: string): Primary | Failure;
  /** The success the model would read, before it is measured. */
  view<T, V, I>(admission: Admission<T, V, I>, data: T): Success<T, V> | Promise<Success<T, V>>;
  /**
   * Whether the view renders the model's content to fit it (the text view does): that content names the payload's
   * hash, so the hash is settled before the view, not only before measure.
   */
  rendersContent: boolean;
}

/**
 * JSON: parsed, then validated whole, before any view or shortening. A value that arrived parsed and that receive
 * copied and checked itself is taken as it is: the text was written from it, so parsing the text would give it back.
 */
function jsonPrimary<T, V, I>(admission: Admission<T, V, I>, text: string): Primary | Failure {
  const copied = admission.parsed;
  if (copied === undefined) {
    // A value a validator that bounds depth and numbers accepts needs no pass of the parse stage's (`parse.ts`).
    const accepted = parseAccepted(admission, text);
    if (accepted !== undefined) return accepted;
  }
  const parsed = copied === undefined ? parse(admission, text) : { ok: true as const, value: copied.value };
  if (!parsed.ok) return parsed;
  const invalid = validate(admission, parsed.value);
  return invalid ?? parsed;
}

/** Text: the result is the text, within its line bound; it is not JSON, so nothing parses or validates it. */
function textPrimary<T, V, I>(admission: Admission<T, V, I>, text: string): Primary | Failure {
  const { maxLines } = admission.result.text;
  const lines = countLines(text, maxLines);
  if (lines <= maxLines) {
    // Within the bound the count is exact: the text view reads it instead of counting again.
    admission.counted = { text, lines };
    return { ok: true, value: text };
  }
  return admission.fail(
    "result_too_large",
    { stage: "receive", sizes: admission.sizes, detail: { reason: "too_many_lines", maxLines } },
    { stage: "receive", rawKind: admission.rawKind, flags: admission.flags },
  );
}

/** Content: the admitted blocks are the result; a payload that was no MCP result has none. */
function contentPrimary<T, V, I>(admission: Admission<T, V, I>): Primary | Failure {
  const { parts } = admission;
  if (parts !== undefined) return { ok: true, value: parts };
  return admission.fail(
    "schema_mismatch",
    { stage: "validate", sizes: admission.sizes, detail: { reason: "no_content_blocks" } },
    { stage: "validate", rawKind: admission.rawKind, flags: admission.flags },
  );
}

const JSON_STAGES: KindStages = { primary: jsonPrimary, view, rendersContent: false };

/** The text view's module, once a `text` or `content` result has loaded it. */
let textViews: typeof import("./text-view.js") | undefined;

/**
 * The text view, loaded with the first `text` or `content` result rather than with the runtime: a process whose tools
 * all answer in JSON never runs it. Once loaded, its promise is handed on as it is.
 */
function textViewOnDemand<T, V, I>(admission: Admission<T, V, I>, data: T): Promise<Success<T, V>> {
  if (textViews !== undefined) return textViews.textView(admission, data);
  return import("./text-view.js").then((loaded) => {
    textViews = loaded;
    return loaded.textView(admission, data);
  });
}

/** Every kind's stages. */
export const KIND_STAGES: Readonly<Record<ResultKind, KindStages>> = {
  structured: JSON_STAGES,
  json_text: JSON_STAGES,
  text: { primary: textPrimary, view: textViewOnDemand, rendersContent: true },
  content: { primary: contentPrimary, view: textViewOnDemand, rendersContent: true },
};
