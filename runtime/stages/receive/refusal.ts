/**
 * What a payload that was not received ends as: its typed failure, with the bytes hashed when they were all read,
 * and for a tool error the tool's own text, cleaned and bounded, kept in diagnostics and shown to the model inside
 * the typed failure unless the contract opts out (`toolError.expose: false`). MCP asks that tool execution errors
 * reach the model so it can correct its call ("relation userz does not exist"); the code stays `tool_error`, so the
 * words are never the only sign that the call failed. Events never carry the text (`record/events.ts`).
 */

import type { Diagnostics, Failure } from "../../contract/types.js";
import type { Admission } from "../../gate/admission.js";
import { sha256Hex } from "../../record/provenance.js";
import { boundText } from "../../text/hygiene.js";
import { TOO_DEEP_ISSUE } from "../issues.js";
import type { NotReceived } from "./received.js";

/** Longest tool error text kept when the contract does not say. */
const DEFAULT_TOOL_ERROR_CHARS = 500;

/** The failure for a payload receive refused. */
export async function refusalOutcome<T, V, I>(admission: Admission<T, V, I>, received: NotReceived): Promise<Failure> {
  const { spec, provenance } = admission;
  provenance.rawBytes = received.bytesRead;
  if (received.bytes !== undefined) provenance.rawSha256 = await sha256Hex(received.bytes);
  const diagnostics: Diagnostics = {
    stage: received.stage,
    sizes: { rawBytes: received.bytesRead, maxBytes: spec.limits.maxBytes },
    ...(Object.keys(received.detail).length > 0 ? { detail: received.detail } : {}),
    ...(received.detail.reason === "too_deep" ? { issues: [TOO_DEEP_ISSUE] } : {}),
  };
  const facts = { stage: received.stage, rawKind: received.kind };
  if (received.code === "tool_error") {
    const toolMessage = boundText(received.toolMessage ?? "", spec.toolErrorMaxChars ?? DEFAULT_TOOL_ERROR_CHARS).text;
    diagnostics.toolMessage = toolMessage;
    const outcome = admission.fail("tool_error", diagnostics, facts);
    // An error with no words (an in-process tool's throw) is the typed failure alone.
    if (spec.exposeToolError && toolMessage.trim() !== "") outcome.modelMessage = toolMessage;
    return outcome;
  }
  return admission.fail(received.code, diagnostics, facts, received.callerMessage, received.retryable);
}
