/**
 * An MCP `CallToolResult`: a tool error, or its content blocks read under the contract's rules and its primary
 * value taken by the result kind (structured content, the JSON in the first text block, the text, or the blocks).
 */

import type { ContentPart } from "../../contract/types.js";
import { hashTextNow } from "../../record/provenance.js";
import { utf8Length } from "../../text/hygiene.js";
import { canonicalJson, parseJsonText } from "../../text/json.js";
import { DEFAULT_RESULT } from "../result-kind.js";
import { type BlockProblem, firstLoneSurrogate, readContentBlocks } from "./content-blocks.js";
import { receiveParsedValue } from "./parsed-value.js";
import { type NotReceived, type Received, type ReceiveLimits, refused } from "./received.js";
import { receiveString } from "./string.js";
import { receiveTextBlock } from "./text-block.js";

const encoder = new TextEncoder();

/** The parts of an MCP `CallToolResult` the gate reads (2025-06-18 revision of the spec). */
export interface McpCallToolResult {
  content: Array<{ type?: unknown; text?: unknown }>;
  structuredContent?: unknown;
  isError?: unknown;
}

/** What a result that is not yet the tool's answer stands for, as an event names it (never the server's text). */
export type IncompleteResultType = "input_required" | "task" | "other";

/**
 * Whether an MCP result is something other than the tool's complete answer, and which: the 2026-07-28 revision
 * marks every result with `resultType`, and only `"complete"` is the tool's answer (`"input_required"` asks the
 * caller for input and the call is to be retried; `"task"` says the answer comes later, from `tasks/get`); a
 * 2025-11-25 task-augmented call answers `{ task }` with no `content`. A result without `resultType` is the 2025
 * shape of a complete one. `content` is the result's, read once by the caller; each other property is read once.
 */
export function incompleteResultType(result: object, content: unknown): IncompleteResultType | undefined {
  const { resultType } = result as { resultType?: unknown };
  if (resultType === undefined) {
    if (content !== undefined) return undefined;
    const { task } = result as { task?: unknown };
    return typeof task === "object" && task !== null ? "task" : undefined;
  }
  if (resultType === "complete") return undefined;
  return resultType === "input_required" || resultType === "task" ? resultType : "other";
}

/**
 * The refusal of a result that is not the tool's complete answer: only a complete result is gated as the tool's
 * result, so a request for input or a task handed to the gate (a caller that skipped the step that routes them) is
 * a `transport_error`, named by `detail.resultType`, and never read as an empty answer.
 */
export function incompleteRefusal(type: IncompleteResultType): NotReceived {
  return refused("unsupported", "transport_error", "transport", 0, { reason: "not_complete", resultType: type });
}

/** Text read from an MCP result's blocks, at most a bound: `over` when there was more. */
interface BlockText {
  text: string;
  over: boolean;
}

/** The text of a content block when it is a text block, else `undefined`; each property is read once. */
function blockText(block: unknown): string | undefined {
  if (block === null || typeof block !== "object") return undefined;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === "text" && typeof text === "string" ? text : undefined;
}

/**
 * The text of every text block, joined by newlines, reading at most `maxUnits` UTF-16 units (each at least one
 * UTF-8 byte, so a bound in bytes is one in units): a tool's 60 MB of error text is never joined, cleaned or
 * encoded whole.
 */
function textOf(content: readonly unknown[], maxUnits: number): BlockText {
  const parts: string[] = [];
  let units = 0;
  const count = content.length;
  for (let i = 0; i < count; i++) {
    const text = blockText(content[i]);
    if (text === undefined) continue;
    if (parts.length > 0) units++;
    if (units + text.length > maxUnits) {
      parts.push(text.slice(0, Math.max(0, maxUnits - units)));
      return { text: parts.join("\n"), over: true };
    }
    units += text.length;
    parts.push(text);
  }
  return { text: parts.join("\n"), over: false };
}

/**
 * Whether a text block beside structured content says something else: only a text that parses as JSON (within the
 * ceiling) and is not the same value does. Prose beside structured content is what servers are asked to send (a
 * summary for clients that read no structure) and is not flagged; neither is a text over the ceiling, which the gate
 * does not parse. `structured` is the structured content's JSON text, or, for a large copy whose text was not kept,
 * the copy and whether the text block is exactly its text.
 */
function textContradicts(
  text: string,
  structured: string | { value: unknown; same: boolean },
  limits: ReceiveLimits,
  known?: boolean,
): boolean {
  // Cheapest first: servers usually send `JSON.stringify` of the same value, sometimes indented; only text with
  // keys in another order needs the canonical (sorted) comparison. `known` is the comparison, when already made.
  const same = known ?? (typeof structured === "string" ? text === structured : structured.same);
  if (same || text.length > limits.maxBytes) return false;
  const parsed = parseJsonText(text, limits.maxDepth);
  if (!parsed.ok) return false;
  if (typeof structured === "string" && JSON.stringify(parsed.value) === structured) return false;
  try {
    const value = typeof structured === "string" ? JSON.parse(structured) : structured.value;
    return canonicalJson(parsed.value, limits.maxDepth + 1) !== canonicalJson(value, limits.maxDepth + 1);
  } catch {
    return true;
  }
}

/** The refusal for a block problem: its code by what it means, the problem and the block's index in `detail`. */
function blockRefusal(kind: Received["kind"], problem: BlockProblem, index: number): NotReceived {
  const detail = { reason: problem, block: index };
  if (problem === "lone_surrogate") return refused(kind, "invalid_encoding", "decode", 0, detail);
  if (problem === "block_too_large") return refused(kind, "result_too_large", "receive", 0, detail);
  return refused(kind, "schema_mismatch", "validate", 0, detail);
}

/** A tool error: its text blocks, read up to the receive ceiling, become the tool message (kept in diagnostics). */
function toolError(content: readonly unknown[], limits: ReceiveLimits): NotReceived {
  const { text, over } = textOf(content, limits.maxBytes);
  const length = utf8Length(text);
  const bytes = !over && length <= limits.maxBytes ? encoder.encode(text) : undefined;
  return {
    ...refused("mcp_error", "tool_error", "transport", length, { reason: "is_error", ...(over ? { over: true } : {}) }),
    ...(bytes ? { bytes } : {}),
    toolMessage: text,
  };
}

/** The text parts and the others, each in the order received. */
function splitParts(parts: readonly ContentPart[]): { texts: string[]; others: ContentPart[] } {
  const texts: string[] = [];
  const others: ContentPart[] = [];
  for (const part of parts) {
    if (part.type === "text") texts.push(part.text);
    else others.push(part);
  }
  return { texts, others };
}

/** The received payload with the parts admitted beside it. */
function withParts(received: Received | NotReceived, parts: ContentPart[]): Received | NotReceived {
  if (received.ok) received.parts = parts;
  return received;
}

/**
 * The structured content of a result whose blocks were read with their text blocks `unchecked` (see
 * `readContentBlocks`): a text block is refused for a lone surrogate before anything about the content is, and one
 * equal to the JSON text the gate wrote (which holds none: the copy and the writer both refuse a value that would
 * need one) is not scanned for it.
 */
function receiveStructured(
  result: object,
  rawKind: Received["kind"],
  parts: ContentPart[],
  unchecked: ReadonlyArray<{ part: number; block: number }>,
  limits: ReceiveLimits,
): Received | NotReceived {
  const structured =
    "structuredContent" in result ? (result as { structuredContent?: unknown }).structuredContent : undefined;
  if (structured === undefined) {
    const surrogate = firstLoneSurrogate(parts, unchecked);
    if (surrogate !== undefined) return blockRefusal(rawKind, surrogate.problem, surrogate.index);
    return refused(rawKind, "schema_mismatch", "validate", 0, { reason: "no_structured_content" });
  }
  const texts = splitParts(parts).texts;
  // One text block of the same value (what servers send): the payload is that text (`text-block.ts`).
  const only = unchecked[0];
  if (texts.length === 1 && unchecked.length === 1 && only !== undefined) {
    const fromText = receiveTextBlock(rawKind, texts[0] as string, only.block, structured, limits);
    if (fromText !== undefined) return withParts(fromText, parts);
  }
  const serialised = receiveParsedValue(rawKind, structured, limits, texts);
  // Which text blocks are exactly the gate's JSON text (compared once, for both questions below).
  const same = texts.map((candidate, i) =>
    !serialised.ok
      ? false
      : serialised.parsed?.pieces === undefined
        ? candidate === serialised.text
        : serialised.parsed.pieces.same[i] === true,
  );
  const surrogate = firstLoneSurrogate(parts, unchecked, (_, ordinal) => same[ordinal] === true);
  if (surrogate !== undefined) return blockRefusal(rawKind, surrogate.problem, surrogate.index);
  if (!serialised.ok) return serialised;
  const { text, parsed } = serialised;
  for (let i = 0; i < texts.length; i++) {
    const reference =
      parsed?.pieces === undefined ? text : { value: parsed.value, same: parsed.pieces.same[i] === true };
    if (textContradicts(texts[i] as string, reference, limits, same[i])) {
      serialised.flags.push("mcp_text_mismatch");
      break;
    }
  }
  return withParts(serialised, parts);
}

/**
 * Reads an MCP `CallToolResult` (its `content` already read, once, and found an array).
 * - `isError: true` → `tool_error`; the text blocks, read up to the receive ceiling, become the tool message (the
 *   gate cleans and bounds it), kept in diagnostics only.
 * - Otherwise every block is read under the contract's rules (`readContentBlocks`): a kind without a rule, too many
 *   blocks, a media type off the list or malformed base64 is `schema_mismatch` (`detail.reason` the problem,
 *   `detail.block` its index), a block over its byte bound `result_too_large`, a lone surrogate `invalid_encoding`.
 * - `structured`: `structuredContent` is the result; absent, the call fails as `schema_mismatch` (the MCP spec
 *   requires structured results that conform to the declared schema). The gate copies it once and writes its JSON
 *   text itself (see {@link receiveParsedValue}), so `data` is a private copy equal to `JSON.parse` of the text that
 *   is hashed, and the caller's object is never read twice. A text block that parses as JSON and is not the same
 *   value is flagged `mcp_text_mismatch`.
 * - `json_text`: the first text block is the JSON text of the result; the other blocks are its parts.
 * - `text`: the text blocks joined with `"\n"` are the result, under the receive ceiling; the others are its parts.
 * - `content`: every admitted block is the result (`data`); the gate hashes its own JSON of them.
 */
export function receiveCallToolResult(
  result: object,
  content: readonly unknown[],
  limits: ReceiveLimits,
): Received | NotReceived {
  const { isError } = result as { isError?: unknown };
  if (isError === true) return toolError(content, limits);
  const { kind, content: rules } = limits.result ?? DEFAULT_RESULT;
  const rawKind = kind === "structured" ? "mcp_structured" : kind === "content" ? "mcp_content" : "mcp_text";
  // Beside structured content, a text block is usually the content's own JSON text: equal to the text the gate
  // writes, which is well-formed, it needs no scan of its own (see `readContentBlocks`).
  const blocks = readContentBlocks(content, rules, kind === "structured");
  if (!blocks.ok) return blockRefusal(rawKind, blocks.problem, blocks.index);
  const { parts } = blocks;
  switch (kind) {
    case "structured": {
      const unchecked = blocks.unchecked ?? [];
      try {
        return receiveStructured(result, rawKind, parts, unchecked, limits);
      } catch (thrown) {
        // A value whose reading throws is still refused for its blocks first, as when every block was scanned
        // before the structured content was read.
        const surrogate = firstLoneSurrogate(parts, unchecked);
        if (surrogate !== undefined) return blockRefusal(rawKind, surrogate.problem, surrogate.index);
        throw thrown;
      }
    }
    case "json_text": {
      const first = parts.findIndex((part) => part.type === "text");
      const primary = parts[first];
      if (primary?.type !== "text") return refused(rawKind, "invalid_json", "parse", 0, { reason: "no_text_content" });
      return withParts(
        receiveString(rawKind, primary.text, limits.maxBytes, limits.screen),
        parts.filter((_, index) => index !== first),
      );
    }
    case "text": {
      const { texts, others } = splitParts(parts);
      return withParts(receiveString(rawKind, texts.join("\n"), limits.maxBytes), others);
    }
    case "content": {
      const json = JSON.stringify(parts);
      return { ok: true, kind: rawKind, text: json, hashed: hashTextNow(json), flags: [], parts };
    }
  }
}
