/** An MCP `CallToolResult`: a tool error, structured content checked against its text block, or a text block. */
import { canonicalJson, parseJsonText } from "../../json-text.js";
import { utf8Length } from "../../text.js";
import { receiveParsedValue } from "./parsed-value.js";
import { type NotReceived, type Received, type ReceiveLimits, refused } from "./received.js";
import { receiveString } from "./string.js";

const encoder = new TextEncoder();

/** The parts of an MCP `CallToolResult` the gate reads (2025-06-18 revision of the spec). */
export interface McpCallToolResult {
  content: Array<{ type?: unknown; text?: unknown }>;
  structuredContent?: unknown;
  isError?: unknown;
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

/** Whether an MCP result's text block carries the same JSON value as its structured content. */
function textAgreesWithStructure(text: string, structuredJson: string, limits: ReceiveLimits): boolean {
  // Cheapest first: servers usually send `JSON.stringify` of the same value, sometimes indented; only text with
  // keys in another order needs the canonical (sorted) comparison.
  if (text === structuredJson) return true;
  if (utf8Length(text) > limits.maxBytes) return false;
  const parsed = parseJsonText(text, limits.maxDepth);
  if (!parsed.ok) return false;
  if (JSON.stringify(parsed.value) === structuredJson) return true;
  try {
    return (
      canonicalJson(parsed.value, limits.maxDepth + 1) ===
      canonicalJson(JSON.parse(structuredJson), limits.maxDepth + 1)
    );
  } catch {
    return false;
  }
}

/**
 * Reads an MCP `CallToolResult` (its `content` already read, once, and found an array).
 * - `isError: true` → `tool_error`; the text blocks, read up to the receive ceiling, become the tool message (the
 *   gate cleans and bounds it), kept in diagnostics only.
 * - With an output schema (`structured`): `structuredContent` is the result; absent, the call fails as
 *   `schema_mismatch` (the MCP spec requires structured results that conform to the declared schema). It is
 *   written as JSON text by the gate (see {@link receiveParsedValue}) and from then on goes through the same parse
 *   as any text payload, so `data` is a fresh JSON copy. A text block that is not the same JSON is flagged
 *   `mcp_text_mismatch` (reported, not a failure).
 * - Without one: the first text block is the JSON text of the result.
 */
export function receiveCallToolResult(
  result: object,
  content: readonly unknown[],
  limits: ReceiveLimits,
): Received | NotReceived {
  const { isError } = result as { isError?: unknown };
  if (isError === true) {
    const { text, over } = textOf(content, limits.maxBytes);
    const length = utf8Length(text);
    const bytes = !over && length <= limits.maxBytes ? encoder.encode(text) : undefined;
    return {
      ...refused("mcp_error", "tool_error", "transport", length, {
        reason: "is_error",
        ...(over ? { over: true } : {}),
      }),
      ...(bytes ? { bytes } : {}),
      toolMessage: text,
    };
  }
  if (limits.structured) {
    const structured =
      "structuredContent" in result ? (result as { structuredContent?: unknown }).structuredContent : undefined;
    if (structured === undefined) {
      return refused("mcp_structured", "schema_mismatch", "validate", 0, { reason: "no_structured_content" });
    }
    const serialised = receiveParsedValue("mcp_structured", structured, limits);
    if (!serialised.ok) return serialised;
    const { text, over } = textOf(content, limits.maxBytes);
    if (text !== "" && (over || !textAgreesWithStructure(text, serialised.text, limits))) {
      serialised.flags.push("mcp_text_mismatch");
    }
    return serialised;
  }
  for (let i = 0; i < content.length; i++) {
    const text = blockText(content[i]);
    if (text !== undefined) return receiveString("mcp_text", text, limits.maxBytes);
  }
  return refused("mcp_text", "invalid_json", "parse", 0, { reason: "no_text_content" });
}
