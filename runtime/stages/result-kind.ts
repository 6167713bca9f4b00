/** A tool's result kind as the gate applies it: the contract's `result` block, with the defaults it leaves out. */
import type { ContentRules, MediaRule, ResultKind, ToolSpec } from "../contract/types.js";

/** What the gate knows of a tool's result: its kind, the blocks allowed beside it, and the text bounds. */
export interface ResolvedResult {
  kind: ResultKind;
  content: ContentRules;
  /** The line bound and the head's share of the text view (text kind; defaults elsewhere, unused). */
  text: { maxLines: number; headShare: number };
}

/** The images a `content` result may hold when its contract names no rule. */
export const DEFAULT_IMAGE_RULE: MediaRule = Object.freeze({
  mimeTypes: Object.freeze(["image/png", "image/jpeg", "image/webp", "image/gif"]),
  maxBytes: 5_242_880,
  maxCount: 4,
});

/**
 * The blocks each kind allows when its contract names none: JSON kinds allow text blocks and resource links beside
 * the primary, no media; `text` allows text blocks only; `content` allows images and resource links.
 */
export const DEFAULT_CONTENT_RULES: Readonly<Record<ResultKind, ContentRules>> = Object.freeze({
  structured: Object.freeze({ maxBlocks: 16, text: { maxCount: 16 }, resourceLink: { maxCount: 32 } }),
  json_text: Object.freeze({ maxBlocks: 16, text: { maxCount: 16 }, resourceLink: { maxCount: 32 } }),
  text: Object.freeze({ maxBlocks: 16, text: { maxCount: 16 } }),
  content: Object.freeze({ maxBlocks: 16, image: DEFAULT_IMAGE_RULE, resourceLink: { maxCount: 32 } }),
});

/** The text bounds when the contract names none. */
export const DEFAULT_TEXT_RULE = Object.freeze({ maxLines: 100_000, headShare: 0.67 });

/** Whether a kind's primary value is JSON (parsed and validated) rather than text or blocks. */
export function isJsonKind(kind: ResultKind): boolean {
  return kind === "structured" || kind === "json_text";
}

/** The result as the gate applies it: `spec.result`, the text bounds defaulted where the kind has none. */
export function resolveResult(spec: Pick<ToolSpec<unknown, unknown>, "result">): ResolvedResult {
  const { kind, content, text } = spec.result;
  return { kind, content, text: text ?? DEFAULT_TEXT_RULE };
}

/** How `receive` reads an MCP result when its caller names no kind: the first text block as JSON, default rules. */
export const DEFAULT_RESULT: ResolvedResult = Object.freeze({
  kind: "json_text",
  content: DEFAULT_CONTENT_RULES.json_text,
  text: DEFAULT_TEXT_RULE,
});
