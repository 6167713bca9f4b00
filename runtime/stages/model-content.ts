/**
 * What enters the model's context for one tool call: the view (or a failure's code) inside a delimiter that names
 * the tool and the source hash and says whether the result is complete.
 *
 * Everything inside the delimiter is JSON in which `<`, `>` and `&` are written as `\u003c`, `\u003e` and `\u0026`,
 * and so is every character that reads as one of them once text is normalised (see {@link MARKUP_LIKE}), with
 * U+2028/U+2029 escaped too. That is still valid JSON with the same value, but no text from a tool can form a tag,
 * not even `＜/tool_result＞` in fullwidth forms, so nothing inside can close the delimiter or open a new one.
 */
import type { ContentPart, Outcome } from "../contract/types.js";

/** The delimiter's tag name. */
export const RESULT_TAG = "tool_result";

/**
 * Every character whose compatibility form (NFKC) holds `<`, `>` or `&`: those three, the small forms U+FE60 (﹠),
 * U+FE64 (﹤), U+FE65 (﹥) and the fullwidth forms U+FF06 (＆), U+FF1C (＜), U+FF1E (＞). A reader that normalises
 * text, and a model that reads these as what they look like, sees a tag in them. A literal list, since six
 * characters need no table; a test computes the set with `String.prototype.normalize` over all of Unicode and holds
 * it equal to this one.
 */
export const MARKUP_LIKE = "&<>\uFE60\uFE64\uFE65\uFF06\uFF1C\uFF1E";

/** What {@link markupSafeJson} escapes: {@link MARKUP_LIKE} and the two separators JavaScript once took for line ends. */
const MARKUP_UNSAFE = /[&<>\uFE60\uFE64\uFE65\uFF06\uFF1C\uFF1E\u2028\u2029]/g;
/**
 * The characters of {@link MARKUP_UNSAFE} one by one: whether a text holds any is asked of each with `indexOf`,
 * which the engine answers several times faster than the character class over the same text.
 */
const MARKUP_UNSAFE_CHARS: readonly string[] = [...MARKUP_LIKE, "\u2028", "\u2029"];

/** Whether `json` holds any character of {@link MARKUP_UNSAFE}. */
function hasMarkupUnsafe(json: string): boolean {
  for (let i = 0; i < MARKUP_UNSAFE_CHARS.length; i++) {
    if (json.indexOf(MARKUP_UNSAFE_CHARS[i] as string) >= 0) return true;
  }
  return false;
}

/** JSON with every character that could start or end markup escaped (see the module comment). */
export function markupSafeJson(value: unknown): string {
  return markupSafeText(JSON.stringify(value) ?? "null");
}

/** JSON text already written, with every character that could start or end markup escaped, as {@link markupSafeJson}. */
export function markupSafeText(json: string): string {
  // Most text holds none: one test, and the text is returned as it is, with no replacement pass.
  if (!hasMarkupUnsafe(json)) return json;
  return json.replace(MARKUP_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * What an attribute value may not hold: markup, quotes, controls (C0 and C1), the lookalikes of {@link MARKUP_LIKE},
 * and every character that steers or hides what is read: bidi controls and marks, zero-width and invisible
 * formatting characters, the byte order mark, and tag characters (U+E0000–U+E007F, which hide ASCII text).
 */
const ATTRIBUTE_UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters must not reach an attribute.
  /[&<>"'\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF\uFE60\uFE64\uFE65\uFF06\uFF1C\uFF1E\u{E0000}-\u{E007F}]|[\uD800-\uDFFF]/gu;

/**
 * An attribute value: tool names come from the contract (or, through a proxy, from a server), and are escaped
 * anyway, each unsafe character as its numeric reference, so the model reads the name as written and nothing hidden.
 */
function attribute(value: string): string {
  return value.replace(ATTRIBUTE_UNSAFE, (char) => `&#${char.codePointAt(0)};`);
}

/** The last tool name {@link toolAttribute} escaped, and its escaped form: a process admits for few tools. */
let lastTool = "";
let lastToolAttribute = "";

/** A tool's name as the delimiter's attribute: escaped once, and again only when another tool's result is rendered. */
function toolAttribute(tool: string): string {
  if (tool !== lastTool) {
    lastToolAttribute = attribute(tool);
    lastTool = tool;
  }
  return lastToolAttribute;
}

/** The short source hash shown to the model: enough to tell results apart and to find them in logs. */
function sourceOf(rawSha256: string | undefined): string {
  return rawSha256 === undefined ? "none" : `sha256:${rawSha256.slice(0, 16)}`;
}

/**
 * The line that tells the model where a spilled result is: the handle and, when the call names a read-back tool,
 * the value's size and the tool to page through it with.
 */
function spilledLine(spill: { handle: string; bytes: number; readTool?: string | undefined }): string {
  const handle = `handle="${attribute(spill.handle)}"`;
  if (spill.readTool === undefined) return `<spilled ${handle}/>`;
  return `<spilled ${handle} bytes="${spill.bytes}" read_with="${attribute(spill.readTool.slice(0, 64))}"/>`;
}

/**
 * An `oversize` failure's line that says what a narrower call asks less of: the largest array's path (bounded and
 * escaped already) and length, and the argument that pages it when the contract names one.
 */
function narrowLine(outcome: Outcome<unknown, unknown>): string | undefined {
  if (outcome.ok || outcome.error.code !== "oversize") return undefined;
  const detail = outcome.diagnostics.detail;
  if (detail === undefined || typeof detail.narrowPath !== "string") return undefined;
  const narrow: Record<string, string | number> = { path: detail.narrowPath };
  if (typeof detail.narrowItems === "number") narrow.items = detail.narrowItems;
  if (typeof detail.narrowArgument === "string") narrow.argument = detail.narrowArgument;
  return `<narrow>${markupSafeJson(narrow)}</narrow>`;
}

/**
 * Renders an outcome for the model.
 *
 * A success:
 * ```text
 * <tool_result tool="list_items" source="sha256:0123456789abcdef" complete="false">
 * {"items":[…]}
 * <omitted>[{"path":"/items","kind":"items","count":40}]</omitted>
 * <continuation>"c-2"</continuation>
 * </tool_result>
 * ```
 * Under `summarize` the body is `<summary>"…"</summary>` instead of the view; under `spill` the body is the
 * preview followed by `<spilled handle="spill_…"/>`, which names the read-back tool when the call has one
 * (`<spilled handle="spill_…" bytes="412345" read_with="read_tool_result"/>`). Each image or audio block admitted
 * with the result is a line `<media type="image/png" bytes="1234"/>` after the body: described, never its data
 * (see {@link toModelParts}).
 *
 * A failure shows the code and whether a retry may help, nothing else (the raw body never appears):
 * `<tool_result tool="get_record" source="…" complete="false" error="schema_mismatch" retryable="false"/>`. An
 * `oversize` failure adds what to narrow: `<narrow>{"path":"/items","items":400,"argument":"limit"}</narrow>`.
 * A `tool_error` adds the tool's own message, cleaned and bounded, as `<tool_message>"…"</tool_message>` (JSON,
 * markup escaped like every body), which the MCP spec asks for so a model can correct its call; a contract that opts
 * out (`toolError.expose: false`, `exposeToolError`) shows the code alone.
 *
 * In observe mode (`outcome.observed`), the original's text as it came, neither delimited nor cleaned, whenever the
 * gate holds it whole (see `Observation.text`); only for a stream the gate stopped reading at its ceiling, whose
 * bytes are the caller's to read from `observed.original`, is it the rendering above.
 */
export function toModelContent(outcome: Outcome<unknown, unknown>): string {
  const pieces = modelContentPieces(outcome);
  // Piece by piece onto one string: the content is rendered on every admit, and an array joined at the end cost
  // more than the pieces' own few concatenations.
  let text = pieces[0] as string;
  for (let i = 1; i < pieces.length; i++) text += pieces[i];
  return text;
}

/**
 * {@link toModelContent}'s text in the pieces it is written from, in order: the text is their concatenation. Every
 * piece starts and ends with an ASCII character (a tag's bracket, a line feed, JSON's own delimiters) or is the
 * whole text, so no surrogate pair straddles two pieces and the text's UTF-8 length is the sum of theirs. The
 * measure stage counts them so: the JSON of a view is already one flat string, and the concatenation of the pieces
 * would be copied flat once more only to be counted. `viewJson` and `omissionsJson`, when given, stand in for the
 * view's JSON and the omissions': the size of the content is counted so, their shares apart (`content-size.ts`).
 */
export function modelContentPieces(
  outcome: Outcome<unknown, unknown>,
  viewJson?: string,
  omissionsJson?: string,
): string[] {
  // Observe mode lets the original through as it came: the gate's decision is in the event, not in the context.
  const observed = outcome.observed?.text;
  if (observed !== undefined) return [observed];
  const { tool, rawSha256 } = outcome.provenance;
  const open = `<${RESULT_TAG} tool="${toolAttribute(tool)}" source="${sourceOf(rawSha256)}"`;
  if (!outcome.ok) {
    const failure = `${open} complete="false" error="${outcome.error.code}" retryable="${outcome.error.retryable}"`;
    const narrow = narrowLine(outcome);
    if (outcome.modelMessage === undefined && narrow === undefined) return [`${failure}/>`];
    const body = [`${failure}>`];
    if (outcome.modelMessage !== undefined) {
      body.push(`<tool_message>${markupSafeJson(outcome.modelMessage)}</tool_message>`);
    }
    if (narrow !== undefined) body.push(narrow);
    body.push(`</${RESULT_TAG}>`);
    return [body.join("\n")];
  }
  const pieces = [
    `${open} complete="${outcome.complete}"${outcome.policy ? ` policy="${outcome.policy}"` : ""}>\n`,
    outcome.summary !== undefined
      ? `<summary>${markupSafeJson(outcome.summary)}</summary>`
      : (viewJson ?? markupSafeJson(outcome.view)),
  ];
  if (outcome.parts !== undefined) for (const line of mediaLines(outcome.parts)) pieces.push(`\n${line}`);
  if (outcome.spill !== undefined) pieces.push(`\n${spilledLine(outcome.spill)}`);
  // A summary stands for the whole value; the preview's omissions describe a view the model does not see.
  if (outcome.summary === undefined && outcome.omissions.length > 0)
    pieces.push(`\n<omitted>${omissionsJson ?? markupSafeJson(outcome.omissions)}</omitted>`);
  if (outcome.continuation !== undefined) {
    pieces.push(`\n<continuation>${markupSafeJson(outcome.continuation)}</continuation>`);
  }
  pieces.push(`\n</${RESULT_TAG}>`);
  return pieces;
}

/**
 * What the model reads for a call the gate refused before any tool ran: a tool the catalog has no contract for
 * (`no_contract`), or one the application does not offer (`unknown_tool`). The name is the model's choice, so it is
 * bounded and kept to letters, digits and `_ . : -`, anything else written as `&#…;`:
 * `<tool_result tool="send_email" source="none" complete="false" error="no_contract" retryable="false"/>`.
 */
export function toModelRefusal(tool: string, code: "no_contract" | "unknown_tool"): string {
  const name = String(tool)
    .slice(0, 64)
    .replace(/[^A-Za-z0-9_.:-]/g, (char) => `&#${char.codePointAt(0)};`);
  return `<${RESULT_TAG} tool="${name}" source="none" complete="false" error="${code}" retryable="false"/>`;
}

/** One line per image or audio block: its media type and size, never its data. */
function mediaLines(parts: readonly ContentPart[]): string[] {
  const lines: string[] = [];
  for (const part of parts) {
    if (part.type === "image" || part.type === "audio") {
      lines.push(`<media type="${attribute(part.mimeType)}" bytes="${part.bytes}"/>`);
    }
  }
  return lines;
}

/** One part of a tool result for a model API: the delimited text, or a media block in the MCP content shape. */
export type ModelPart = { type: "text"; text: string } | { type: "image" | "audio"; data: string; mimeType: string };

/**
 * An outcome as content parts for a model API that takes media (the AI SDK, OpenAI and Anthropic SDKs map this MCP
 * shape directly): first {@link toModelContent}'s text, then each image or audio block admitted with the result,
 * with its base64 data, in the order received (in observe mode, each image or audio block of the original MCP
 * result, unchecked). A failure is its text alone. The context budget counts the text part
 * only: media were bounded by the contract's own rules (types, bytes, count) when they were received.
 */
export function toModelParts(outcome: Outcome<unknown, unknown>): ModelPart[] {
  const parts: ModelPart[] = [{ type: "text", text: toModelContent(outcome) }];
  if (outcome.observed?.text !== undefined) return [...parts, ...originalMedia(outcome.observed.original)];
  if (!outcome.ok || outcome.parts === undefined) return parts;
  for (const part of outcome.parts) {
    if (part.type === "image" || part.type === "audio") {
      parts.push({ type: part.type, data: part.data, mimeType: part.mimeType });
    }
  }
  return parts;
}

/** The image and audio blocks of an original MCP result, as they came; reading a hostile one never throws. */
function originalMedia(original: unknown): ModelPart[] {
  const media: ModelPart[] = [];
  try {
    const content = (original as { content?: unknown } | null | undefined)?.content;
    if (!Array.isArray(content)) return media;
    for (const block of content) {
      const { type, data, mimeType } = (block ?? {}) as { type?: unknown; data?: unknown; mimeType?: unknown };
      if ((type === "image" || type === "audio") && typeof data === "string" && typeof mimeType === "string") {
        media.push({ type, data, mimeType });
      }
    }
  } catch {
    // A block whose reads throw is not handed on.
  }
  return media;
}
