/**
 * LangChain.js shapes, typed structurally, and the conversions between them and the gate: what a tool call
 * delivered (a `ToolMessage`, a plain value, a throw) as the raw result `admit` takes, an outcome as a
 * `ToolMessage`'s content, and the marks by which a gated message is known again.
 *
 * Nothing here imports LangChain: `langchain.ts` constructs the framework's own objects.
 */
import { errorProperty } from "../contract/failure.js";
import type { Outcome } from "../contract/types.js";
import { type ModelPart, toModelRefusal } from "../stages/model-content.js";
import { parsedResult } from "../stages/receive/parsed-value.js";

/** One block of a LangChain message's content (`{ type: "text", text }`, an image block…). */
export type LangChainBlock = { type: string } & Record<string, unknown>;

/** The parts of a LangChain `ToolMessage` the adapter reads. */
export interface ToolMessageLike {
  content: unknown;
  artifact?: unknown;
  status?: unknown;
}

/** A tool's own error, with none of its text: what `admit` makes a `tool_error` of. */
const TOOL_ERROR = Object.freeze({ content: Object.freeze([]), isError: true });

/**
 * How `@langchain/mcp-adapters` opens the `ToolException` it throws for an MCP result with `isError`, before the
 * result's text blocks joined with line breaks. Tool names are MCP names and server names the app's keys, so
 * neither holds a quote; anchored and without nested repetition, so a long message costs one pass.
 */
const MCP_ERROR_PREFIX = /^MCP tool '[^']*' on server '[^']*' returned an error: /;

/**
 * The MCP tool error an adapters' throw carries: the `CallToolResult` again, its text the server's own error text,
 * which the gate shows the model cleaned and bounded inside the typed failure (unless the contract opts out).
 * `undefined` for any other throw, which stays an in-process tool's error with none of its text
 * (`thrownByTool`). Reading a hostile error never throws.
 */
export function mcpToolErrorOf(error: unknown): unknown {
  if (errorProperty(error, "name") !== "ToolException") return undefined;
  const message = errorProperty(error, "message");
  if (typeof message !== "string") return undefined;
  const prefix = MCP_ERROR_PREFIX.exec(message);
  if (prefix === null) return undefined;
  return { content: [{ type: "text", text: message.slice(prefix[0].length) }], isError: true };
}

/** An MCP content block, from a LangChain content block (text, and base64 image or audio in any of its shapes). */
function mcpBlock(block: unknown): unknown {
  if (typeof block === "string") return { type: "text", text: block };
  if (typeof block !== "object" || block === null) return block;
  const b = block as Record<string, unknown>;
  if (b.type === "text" && typeof b.text === "string") return { type: "text", text: b.text };
  if (b.type === "image_url") {
    const url = typeof b.image_url === "string" ? b.image_url : (b.image_url as { url?: unknown } | undefined)?.url;
    const match = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
    return match ? { type: "image", mimeType: match[1], data: match[2] } : block;
  }
  if ((b.type === "image" || b.type === "audio") && typeof b.data === "string") {
    return { type: b.type, mimeType: b.mimeType ?? b.mime_type, data: b.data };
  }
  return block; // any other kind goes to the gate as it came, and the contract's content rules decide
}

/** The MCP content of a LangChain content: a string is one text block, an array its blocks converted. */
export function mcpContent(content: unknown): unknown[] {
  if (Array.isArray(content)) return content.map(mcpBlock);
  return typeof content === "string" ? [{ type: "text", text: content }] : [];
}

/** The structured content `@langchain/mcp-adapters` keeps in a tool's artifacts (`mcp_structured_content`). */
function mcpStructured(artifact: unknown): { found: boolean; value?: unknown } {
  if (!Array.isArray(artifact)) return { found: false };
  for (const item of artifact) {
    if (typeof item === "object" && item !== null && (item as { type?: unknown }).type === "mcp_structured_content") {
      return { found: true, value: (item as { data?: unknown }).data };
    }
  }
  return { found: false };
}

/**
 * The raw result `admit` takes from a `ToolMessage` a tool produced:
 * - an MCP tool of `@langchain/mcp-adapters` (its artifacts hold `mcp_structured_content`): the `CallToolResult`
 *   again, its structured content and its content blocks (the adapters write a lone text block beside structured
 *   content as that block's JSON, a copy of the same value, so a string content is left out);
 * - a message marked `status: "error"` (an inner middleware's answer to a throw): the tool's error, none of its text;
 * - otherwise the content the model would have read: a string (an in-process tool's value, JSON-encoded by
 *   LangChain) as text, an array of blocks as a `CallToolResult` of them. An in-process tool's own artifact is not
 *   read: the contract is checked against what the model would be shown.
 */
export function rawOfToolMessage(message: ToolMessageLike): unknown {
  if (message.status === "error") return TOOL_ERROR;
  const structured = mcpStructured(message.artifact);
  if (structured.found) {
    const content = Array.isArray(message.content) ? mcpContent(message.content) : [];
    return { content, structuredContent: structured.value };
  }
  if (typeof message.content === "string") return message.content;
  return { content: mcpContent(message.content) };
}

/**
 * The raw result of a value a tool call gave that is no message (an inner middleware's): a string is text, an
 * object with a `content` array an MCP `CallToolResult`, anything else an in-process value (`parsedResult`).
 */
export function rawOfValue(value: unknown): unknown {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content)) {
    return value;
  }
  return parsedResult(value);
}

/** Errors LangGraph throws through a tool to pause or redirect the graph (`interrupt()`, a parent `Command`). */
export function isGraphBubbleUp(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, is_bubble_up } = error as { name?: unknown; is_bubble_up?: unknown };
  return is_bubble_up === true || name === "GraphInterrupt" || name === "NodeInterrupt";
}

/** A gated call's model parts as LangChain content: the text alone as a string, else blocks (v1 image and audio). */
export function langChainContent(parts: readonly ModelPart[]): string | LangChainBlock[] {
  if (parts.length === 1 && parts[0]?.type === "text") return parts[0].text;
  return parts.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: part.type, mimeType: part.mimeType, data: part.data },
  );
}

/**
 * What a gated `ToolMessage` carries as its `artifact`: the verdict, none of the result. LangChain sends no artifact
 * to a model, but an agent's messages travel further (a LangGraph stream to a browser, a checkpointer's store), so
 * the artifact holds nothing the view would not show; the outcome itself, `data` included, stays in the process
 * beside it, for {@link outcomeOf}.
 */
export interface GatedArtifact {
  readonly gated: "toolgate";
  readonly ok: boolean;
  /** The failure's code, when the call failed. */
  readonly code?: string;
  /** Whether the model read the whole view, when the call succeeded. */
  readonly complete?: boolean;
  /** How the view was brought within budget, when it had to be. */
  readonly policy?: string;
}

/** The outcome behind each artifact this adapter made, and behind the content blocks it wrote for the model. */
const OUTCOMES = new WeakMap<object, Outcome<unknown, unknown>>();
const GATED_BLOCKS = new WeakMap<object, Outcome<unknown, unknown>>();

/** The artifact of a message gated to `outcome`, the outcome kept beside it for {@link outcomeOf}. */
export function gatedArtifact(outcome: Outcome<unknown, unknown>): GatedArtifact {
  const verdict: GatedArtifact = outcome.ok
    ? {
        gated: "toolgate",
        ok: true,
        complete: outcome.complete,
        ...(outcome.policy === undefined ? {} : { policy: outcome.policy }),
      }
    : { gated: "toolgate", ok: false, code: outcome.error.code };
  const artifact = Object.freeze(verdict);
  OUTCOMES.set(artifact, outcome);
  return artifact;
}

/** Marks the first block of `content` as gated content for `outcome` (content a hook wrote for the model). */
export function markGated(content: LangChainBlock[], outcome: Outcome<unknown, unknown>): LangChainBlock[] {
  const first = content[0];
  if (first !== undefined) GATED_BLOCKS.set(first, outcome);
  return content;
}

/**
 * The outcome of the tool call a `ToolMessage` answers, `data` included, when the adapter gated it: the outcome
 * behind its artifact (from the middleware), or behind the content blocks an MCP hook wrote. Never an artifact the
 * tool itself wrote, and `undefined` for a message parsed back from a store or a stream.
 */
export function outcomeOf(message: ToolMessageLike | undefined): Outcome<unknown, unknown> | undefined {
  if (message === undefined) return undefined;
  const { artifact, content } = message;
  const gated = typeof artifact === "object" && artifact !== null ? OUTCOMES.get(artifact) : undefined;
  if (gated !== undefined) return gated;
  const first = Array.isArray(content) ? content[0] : undefined;
  return typeof first === "object" && first !== null ? GATED_BLOCKS.get(first) : undefined;
}

/** What the model reads for a call of a tool the catalog has no contract for: a typed refusal, never its result. */
export function refusalContent(tool: string): string {
  return toModelRefusal(tool, "no_contract");
}
