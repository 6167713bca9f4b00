/**
 * What the model reads of a page: the page's items (or lines) inside the same `tool_result` delimiter as every tool
 * result, JSON with markup escaped (`markupSafeJson`), then where the page is and the exact arguments of the next.
 *
 * ```text
 * <tool_result tool="read_tool_result" source="sha256:0123456789abcdef" complete="false">
 * {"items":[…]}
 * <page>"items 41–80 of 402 at /entities"</page>
 * <next>{"handle":"spill_…","pointer":"/entities","offset":80,"limit":40}</next>
 * </tool_result>
 * ```
 */
import { markupSafeJson, RESULT_TAG } from "../stages/model-content.js";
import type { PageBody, ReadBackErrorCode } from "./types.js";

/**
 * The page's content for the model: `shown`, the page's items as model-facing JSON text (escaped already), then
 * where the page is and the next page's arguments. `tool` is a checked name (letters, digits, `_`, `-`).
 */
export function renderPage(tool: string, sha256: string, body: PageBody, shown: string): string {
  const lines = [
    `<${RESULT_TAG} tool="${tool}" source="sha256:${sha256.slice(0, 16)}" complete="${body.complete}">`,
    shown,
    `<page>${markupSafeJson(body.note)}</page>`,
  ];
  if (body.next !== undefined) lines.push(`<next>${markupSafeJson(body.next)}</next>`);
  lines.push(`</${RESULT_TAG}>`);
  return lines.join("\n");
}

/** A failure's content: its code, whether a retry may help, and the gate's own message (never stored text). */
export function renderFailure(tool: string, code: ReadBackErrorCode, retryable: boolean, message: string): string {
  return [
    `<${RESULT_TAG} tool="${tool}" source="none" complete="false" error="${code}" retryable="${retryable}">`,
    `<message>${markupSafeJson(message)}</message>`,
    `</${RESULT_TAG}>`,
  ].join("\n");
}
