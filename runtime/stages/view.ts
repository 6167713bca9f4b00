/**
 * Stage `view`: the generated projection of a valid value (the contract's view plan, with text hygiene), and the
 * continuation token when something was left out: the success the model would read, before it is measured.
 */
import type { Admission } from "../gate/admission.js";
import { codePointLength } from "../text.js";
import type { Success } from "../types.js";
import { locate, opaqueTokenProblem } from "./fields.js";

/** Longest continuation token passed to the model; longer is not a cursor. */
const MAX_CONTINUATION_CHARS = 1024;

/**
 * The continuation token at the contract's pointer, exactly as the tool wrote it. A cursor is an opaque token by
 * nature, so one with a character outside the opaque set (a URL, a path, a command, invisible text) is not passed to
 * the model (nor one that is missing, not a scalar, or longer than any cursor needs to be).
 */
export function continuationOf(data: unknown, pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const value = locate(data, pointer)[0]?.value;
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const token = String(value);
  if (token === "" || codePointLength(token) > MAX_CONTINUATION_CHARS) return undefined;
  return opaqueTokenProblem(token) === undefined ? token : undefined;
}

/**
 * The success for a valid value: its view, what was left out, the blocks admitted beside it, and its context use
 * still to be measured.
 */
export function view<T, V, I>(admission: Admission<T, V, I>, data: T): Success<T, V> {
  const { spec, flags, parts } = admission;
  const budget = spec.context;
  const projection = spec.buildView(data);
  return {
    ok: true,
    data,
    view: projection.view,
    complete: projection.complete,
    omissions: projection.omissions,
    continuation: projection.complete ? undefined : continuationOf(data, spec.view.continuation),
    provenance: admission.provenance,
    contextUsed: { unit: budget.unit, value: 0, budget: budget.max },
    ...(flags.length > 0 ? { flags } : {}),
    ...(parts !== undefined && parts.length > 0 ? { parts } : {}),
  };
}
