/**
 * Stage `view`: the generated projection of a valid value (the contract's view plan, with text hygiene), and the
 * continuation token when something was left out: the success the model would read, before it is measured.
 */

import type { ContentPart, ContentRules, LiftedMedia, Omission, Success } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { codePointLength } from "../text/hygiene.js";
import { locate } from "./field-paths.js";
import { opaqueTokenProblem } from "./fields.js";
import { tallyOf } from "./projector.js";
import { mediaAllowed } from "./receive/content-blocks.js";

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
  const { spec, flags } = admission;
  const budget = spec.context;
  const projection = spec.buildView(data);
  admission.tally = tallyOf(projection);
  let { parts } = admission;
  let { complete, omissions } = projection;
  if (projection.media !== undefined) {
    const merged = withLiftedMedia(parts ?? [], projection.media, spec.result.content);
    parts = merged.parts;
    if (merged.omissions.length > 0) {
      omissions = [...omissions, ...merged.omissions];
      complete = false;
    }
  }
  const success: Success<T, V> = {
    ok: true,
    data,
    view: projection.view,
    complete,
    omissions,
    continuation: complete ? undefined : continuationOf(data, spec.view.continuation),
    provenance: admission.provenance,
    contextUsed: { unit: budget.unit, value: 0, budget: budget.max },
  };
  // Set after the others, in this order, only when there are some: the keys of every success stay in one order.
  if (flags.length > 0) success.flags = flags;
  if (parts !== undefined && parts.length > 0) success.parts = parts;
  return success;
}

/**
 * The parts with the media lifted out of a structured result added, under the contract's media rules: a media type
 * on the kind's list, within its bytes and its count (the blocks admitted beside the result counted first). One
 * already among the parts (the same type, media type and data: a server that sends an image both as a block and in
 * its structured content) is not added twice. Media a rule refuses stays described in the view and is reported as an
 * `omitted` omission: the call still answers, the model is told something was not shown.
 */
function withLiftedMedia(
  parts: ContentPart[],
  lifted: readonly LiftedMedia[],
  rules: ContentRules,
): { parts: ContentPart[]; omissions: Omission[] } {
  const out = [...parts];
  const omissions: Omission[] = [];
  const count = { image: 0, audio: 0 };
  for (const part of parts) if (part.type === "image" || part.type === "audio") count[part.type]++;
  for (const { path, part } of lifted) {
    const same = out.some(
      (p) => p.type === part.type && p.mimeType === part.mimeType && (p as { data: string }).data === part.data,
    );
    if (same) continue;
    const rule = rules[part.type];
    const allowed =
      rule !== undefined &&
      mediaAllowed(part.mimeType, part.data, rule.mimeTypes) &&
      part.bytes <= rule.maxBytes &&
      count[part.type] < rule.maxCount;
    if (!allowed) {
      omissions.push({ path, kind: "omitted", count: 1 });
      continue;
    }
    count[part.type]++;
    out.push(part);
  }
  return { parts: out, omissions };
}
