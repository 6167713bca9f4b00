/**
 * A value that arrived already parsed (MCP `structuredContent`, an in-process tool's return value): the gate writes
 * its JSON text itself, and from then on it is received like any text payload.
 */

import { hashTextLater } from "../../record/hash-thread.js";
import { hashTextNow, startTextHash } from "../../record/provenance.js";
import { parsedValueJson } from "../../text/json.js";
import { writeJsonPieces } from "./json-pieces.js";
import { type NotReceived, type RawKind, type ReceivedText, type ReceiveLimits, refused } from "./received.js";
import { overCeiling } from "./string.js";
import { copyParsedValue, wholeText } from "./value-copy.js";

const PARSED_RESULT = Symbol.for("toolgate.parsedResult");

/** A tool result that is already a JS value, marked by {@link parsedResult}. */
export interface ParsedResult {
  readonly [PARSED_RESULT]: true;
  readonly value: unknown;
}

/**
 * Marks a value an in-process tool returned (no transport, no JSON text) for `admit`:
 * `admit(parsedResult(await localTool(args)))`. The gate copies the value and writes its JSON text itself, without
 * recursion and without calling `toJSON` or reading a property twice, refusing what is not plain JSON data (see
 * {@link receiveParsedValue}), then treats it like any JSON payload. A bare object is not accepted, because an object with a
 * `content` array cannot be told apart from an MCP `CallToolResult`.
 */
export function parsedResult(value: unknown): ParsedResult {
  return Object.freeze({ [PARSED_RESULT]: true as const, value });
}

/** Whether `raw` was made by {@link parsedResult}. */
export function isParsedResult(raw: object): raw is ParsedResult {
  return (raw as Record<symbol, unknown>)[PARSED_RESULT] === true;
}

/**
 * A value that arrived already parsed (MCP `structuredContent`, an in-process tool's return value). Usually one read
 * of each property makes a private copy of it and its JSON text (`copyParsedValue`), and the copy is what the gate
 * validates and views, so nothing is parsed again. Whatever that copy does not vouch for is written as JSON text by
 * the careful writer (`parsedValueJson`: plain JSON data only, every property read once, no `toJSON`, no
 * recursion, depth and size bounded as it goes) and goes through the same parse as any text payload. Either way
 * `data` is a fresh copy that the caller holds no reference to, equal to `JSON.parse` of the text that was hashed.
 * The same rules as for text: a lone surrogate (in a string or a key) is `invalid_encoding`, a number past
 * 2^53 − 1 `invalid_json` (`unsafe_integer`), too deep `schema_mismatch`.
 */
export function receiveParsedValue(
  kind: RawKind,
  value: unknown,
  limits: ReceiveLimits,
  beside: readonly string[] = [],
): ReceivedText | NotReceived {
  const copy = copyParsedValue(value, limits.maxDepth, limits.maxBytes, limits.piecesFrom);
  if (copy !== undefined && copy.text === undefined) {
    // A large copy: its text is written and hashed in pieces, never joined (see json-pieces.ts), where the host
    // hashes synchronously; elsewhere it is written whole, as for a small copy.
    const hash = startTextHash();
    const written = hash === undefined ? undefined : writeJsonPieces(copy.value, limits.maxBytes, beside, hash);
    if (written !== undefined) {
      return {
        ok: true,
        kind,
        text: "",
        hashed: written.hashed,
        flags: [],
        parsed: { value: copy.value, pieces: { same: written.same } },
      };
    }
    if (hash === undefined) copy.text = wholeText(copy.value, limits.maxBytes);
  }
  if (copy?.text !== undefined && overCeiling(copy.text, limits.maxBytes) === undefined) {
    return {
      ok: true,
      kind,
      text: copy.text,
      ...hashOfWritten(copy.text),
      flags: [],
      parsed: { value: copy.value },
    };
  }
  return receiveWrittenValue(kind, value, limits);
}

/**
 * The careful writer's path: the value's JSON text, to be parsed like any text payload, or the refusal for what it is
 * not. Taken whenever the copy gives up, it is also what the copy is checked against.
 */
export function receiveWrittenValue(kind: RawKind, value: unknown, limits: ReceiveLimits): ReceivedText | NotReceived {
  const json = parsedValueJson(value, limits.maxDepth, limits.maxBytes);
  if (!json.ok) {
    switch (json.reason) {
      case "too_large":
        return refused(kind, "result_too_large", "receive", json.atLeastBytes, { reason: "over_ceiling" });
      case "too_deep":
        // As for text: deeper than the contract allows is a mismatch with the contract (a cycle counts as too deep).
        return refused(kind, "schema_mismatch", "parse", 0, {
          reason: "too_deep",
          depth: json.depth,
          maxDepth: limits.maxDepth,
        });
      case "lone_surrogate":
        return refused(kind, "invalid_encoding", "decode", 0, { reason: "lone_surrogate" });
      default:
        return refused(kind, "invalid_json", "parse", 0, { reason: json.reason });
    }
  }
  const over = overCeiling(json.text, limits.maxBytes);
  if (over !== undefined) return refused(kind, "result_too_large", "receive", over, { reason: "over_ceiling" });
  return { ok: true, kind, text: json.text, ...hashOfWritten(json.text), flags: [] };
}

/**
 * The hash of JSON text the gate wrote itself, well-formed by construction: taken on the helper thread when it is
 * large enough (see `record/hash-thread.ts`), else at once.
 */
function hashOfWritten(text: string): Pick<ReceivedText, "hashed" | "hashing"> {
  const later = hashTextLater(text);
  return later === undefined
    ? { hashed: hashTextNow(text) }
    : { hashed: undefined, hashing: { hash: later, unchecked: false } };
}
