/**
 * Stage `parse`: `JSON.parse`, then one iterative pass for depth and numbers (see `parseJsonText`), refusing
 * nesting past the contract's depth (`schema_mismatch`: the bound is the contract's), integers JSON.parse would
 * round (`invalid_json`), and escaped lone surrogates (`invalid_encoding`).
 *
 * Where the validator bounds what it accepts as that pass would (`limits.validatorBounds`), a value it accepts is
 * taken without the pass ({@link parseAccepted}); anything else goes through the stage in order, as before.
 */

import type { Failure } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { type JsonParse, parseJsonText } from "../text/json.js";
import { TOO_DEEP_ISSUE } from "./issues.js";

/** A parsed value. */
export type Parsed = Extract<JsonParse, { ok: true }>;

/** The payload's value, or its failure. */
export function parse<T, V, I>(admission: Admission<T, V, I>, text: string): Parsed | Failure {
  const { maxDepth } = admission.spec.limits;
  const parsed = parseJsonText(text, maxDepth);
  if (parsed.ok) return parsed;
  const { sizes, rawKind } = admission;
  if (parsed.reason === "too_deep") {
    return admission.fail(
      "schema_mismatch",
      {
        stage: "parse",
        sizes,
        issues: [TOO_DEEP_ISSUE],
        detail: { reason: "too_deep", depth: parsed.depth, maxDepth },
      },
      { stage: "parse", rawKind },
    );
  }
  if (parsed.reason === "lone_surrogate") return admission.escapedSurrogate();
  return admission.fail(
    "invalid_json",
    { stage: "parse", sizes, detail: { reason: parsed.reason } },
    { stage: "parse", rawKind },
  );
}

/**
 * The payload's value when the contract's validator bounds depth and numbers (`limits.validatorBounds`) and accepts
 * it, found without the parse stage's pass: the validator's code descends no deeper than the schema, and every value
 * it accepts is within the contract's depth, with only safe numbers, so the pass would have found nothing. An
 * escaped lone surrogate in a payload the helper thread hashes is found when its hash settles, and refused as this
 * stage refuses it, before anything leaves the gate (no hook sees the value first). Nothing
 * is reported here: `undefined` (the text does not parse, holds a lone surrogate, or the value is refused, or the
 * validator throws) sends the payload through {@link parse} and then the validate stage, which give every payload
 * the outcome they give it without this step. A refused payload is so parsed twice; a valid one once, with no pass.
 */
export function parseAccepted<T, V, I>(admission: Admission<T, V, I>, text: string): Parsed | undefined {
  const { limits, validateResult } = admission.spec;
  if (limits.validatorBounds !== true || validateResult === undefined) return undefined;
  // A payload the helper thread is hashing is read there anyway, and the thread tells whether it holds a `\u`
  // escape: the search for an escaped lone surrogate waits for its answer (`Admission.settle`, before any outcome).
  const later = admission.pending !== undefined;
  const parsed = parseJsonText(text, limits.maxDepth, true, later);
  if (!parsed.ok) return undefined;
  try {
    if (!validateResult(parsed.value)) return undefined;
  } catch {
    return undefined;
  }
  if (later) admission.surrogatesOf = { text, value: parsed.value };
  return parsed;
}
