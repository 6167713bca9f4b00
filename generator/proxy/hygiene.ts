/**
 * What the proxy passes of the server outside a gated tool result: resources, prompts, completions, log messages,
 * progress messages and the server's instructions. None of it has a contract, so each is cleaned (bidi controls,
 * zero-width, tag and other invisible characters removed: the runtime's `cleanText`), bounded (a cut marked with
 * `…`) and markup-escaped (`<`, `>`, `&` and their lookalikes written as `\u003c`…, as in a gated result's JSON),
 * so a server cannot forge a `</tool_result>`, hide instructions, or send megabytes the host hands to its model.
 * Binary data (a resource's `blob`, an image or audio block of a prompt) is left out and counted: the proxy cannot
 * vouch for bytes no contract describes. Every read of the server's answer is defensive: a hostile shape is left
 * out, never thrown on.
 */
import { boundText, cleanText, markupSafeText } from "@toolgate/runtime";

/** Most characters of the text one answer carries: a resource read's contents or a prompt's messages, together. */
export const PASSTHROUGH_MAX_CHARS = 100_000;

/** Most characters of one name, title, description or MIME type in a list, or of one completion value. */
export const LABEL_MAX_CHARS = 1_000;

/** Most characters of the server's instructions (they sit in the host's system prompt, every turn). */
export const INSTRUCTIONS_MAX_CHARS = 4_000;

/** Most characters of one log message's data, and of one progress message. */
export const LOG_MAX_CHARS = 4_000;

/** Most characters of a URI the proxy passes on; a longer one, or one with characters to clean, is left out. */
export const URI_MAX_CHARS = 2_048;

/** Most entries of one list page (resources, templates, prompts, completion values) the host receives. */
export const MAX_LISTED = 1_000;

/** Text cleaned, bounded to `max` characters and markup-escaped; what is not a string is undefined. */
export function hostText(value: unknown, max: number): string | undefined {
  if (typeof value !== "string") return undefined;
  return markupSafeText(boundText(value, max).text);
}

/** A URI passed on only as it is: a string with nothing to clean, within {@link URI_MAX_CHARS}. */
export function hostUri(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > URI_MAX_CHARS) return undefined;
  return cleanText(value) === value && markupSafeText(value) === value ? value : undefined;
}

/** The server's instructions, cleaned and bounded; undefined when it sent none. */
export function hostInstructions(instructions: unknown): string | undefined {
  const text = hostText(instructions, INSTRUCTIONS_MAX_CHARS);
  return text === "" ? undefined : text;
}

/** A budget of characters shared by the texts of one answer. */
class TextBudget {
  dropped = 0;
  constructor(private left: number) {}
  /** The text within what is left (at least one character, so a cut is always marked). */
  take(value: unknown): string | undefined {
    if (typeof value !== "string") return undefined;
    const text = hostText(value, Math.max(1, this.left)) as string;
    this.left = Math.max(0, this.left - text.length);
    return text;
  }
}

/** A field of a hostile object, or undefined when reading it throws. */
function field(value: unknown, key: string): unknown {
  try {
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

/** The entries of a hostile array, at most {@link MAX_LISTED}; none when it is not one. */
function entries(value: unknown): unknown[] {
  try {
    return Array.isArray(value) ? value.slice(0, MAX_LISTED) : [];
  } catch {
    return [];
  }
}

/** The fields named that are strings, each as {@link hostText} writes it within {@link LABEL_MAX_CHARS}. */
function labels(value: unknown, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const text = hostText(field(value, key), LABEL_MAX_CHARS);
    if (text !== undefined) out[key] = text;
  }
  return out;
}

/** `resources/read`: each text content cleaned and bounded (all of them together), each blob left out and counted. */
export function hostResourceRead(result: unknown): { contents: Array<Record<string, string>>; _meta?: object } {
  const budget = new TextBudget(PASSTHROUGH_MAX_CHARS);
  const contents: Array<Record<string, string>> = [];
  for (const content of entries(field(result, "contents"))) {
    const uri = hostUri(field(content, "uri"));
    const text = budget.take(field(content, "text"));
    if (uri === undefined || text === undefined) {
      budget.dropped++;
      continue;
    }
    contents.push({ uri, ...labels(content, ["mimeType"]), text });
  }
  return { contents, ...dropped(budget) };
}

/** How many parts an answer left out, as its `_meta` (absent when none was). */
function dropped(budget: TextBudget): { _meta?: object } {
  return budget.dropped === 0 ? {} : { _meta: { "toolgate/dropped": budget.dropped } };
}

/** `resources/list`: each resource's URI as it is, its labels cleaned; one whose URI is not clean is left out. */
export function hostResourceList(result: unknown): { resources: object[]; nextCursor?: string } {
  const resources: object[] = [];
  for (const resource of entries(field(result, "resources"))) {
    const uri = hostUri(field(resource, "uri"));
    const name = hostText(field(resource, "name"), LABEL_MAX_CHARS);
    if (uri !== undefined && name !== undefined) {
      resources.push({ ...labels(resource, ["title", "description", "mimeType"]), uri, name, ...size(resource) });
    }
  }
  return { resources, ...cursor(result) };
}

/** A resource's `size`, when it is a number. */
function size(resource: unknown): { size?: number } {
  const value = field(resource, "size");
  return typeof value === "number" && Number.isFinite(value) ? { size: value } : {};
}

/** `resources/templates/list`: as {@link hostResourceList}, by `uriTemplate`. */
export function hostTemplateList(result: unknown): { resourceTemplates: object[]; nextCursor?: string } {
  const resourceTemplates: object[] = [];
  for (const template of entries(field(result, "resourceTemplates"))) {
    const uriTemplate = hostUri(field(template, "uriTemplate"));
    const name = hostText(field(template, "name"), LABEL_MAX_CHARS);
    if (uriTemplate !== undefined && name !== undefined) {
      resourceTemplates.push({ ...labels(template, ["title", "description", "mimeType"]), uriTemplate, name });
    }
  }
  return { resourceTemplates, ...cursor(result) };
}

/** `prompts/list`: each prompt's name and labels cleaned, its arguments' too. */
export function hostPromptList(result: unknown): { prompts: object[]; nextCursor?: string } {
  const prompts: object[] = [];
  for (const prompt of entries(field(result, "prompts"))) {
    const name = hostText(field(prompt, "name"), LABEL_MAX_CHARS);
    if (name === undefined) continue;
    const args = entries(field(prompt, "arguments")).flatMap((argument) => {
      const argName = hostText(field(argument, "name"), LABEL_MAX_CHARS);
      if (argName === undefined) return [];
      const required = field(argument, "required") === true ? { required: true } : {};
      return [{ ...labels(argument, ["title", "description"]), name: argName, ...required }];
    });
    prompts.push({ ...labels(prompt, ["title", "description"]), name, arguments: args });
  }
  return { prompts, ...cursor(result) };
}

/**
 * `prompts/get`: each message's text (and an embedded resource's text) cleaned and bounded, all of them together;
 * images, audio, links, blobs and messages of another role left out and counted.
 */
export function hostPrompt(result: unknown): { description?: string; messages: object[]; _meta?: object } {
  const budget = new TextBudget(PASSTHROUGH_MAX_CHARS);
  const messages: object[] = [];
  for (const message of entries(field(result, "messages"))) {
    const role = field(message, "role");
    const content = field(message, "content");
    const type = field(content, "type");
    let kept: object | undefined;
    if (role !== "user" && role !== "assistant") kept = undefined;
    else if (type === "text") {
      const text = budget.take(field(content, "text"));
      kept = text === undefined ? undefined : { type: "text", text };
    } else if (type === "resource") {
      const resource = hostResourceRead({ contents: [field(content, "resource")] }).contents[0];
      const text = resource === undefined ? undefined : budget.take(field(field(content, "resource"), "text"));
      kept =
        resource === undefined || text === undefined
          ? undefined
          : { type: "resource", resource: { ...resource, text } };
    }
    if (kept === undefined) budget.dropped++;
    else messages.push({ role, content: kept });
  }
  const description = hostText(field(result, "description"), LABEL_MAX_CHARS);
  return { ...(description === undefined ? {} : { description }), messages, ...dropped(budget) };
}

/** `completion/complete`: each value cleaned and bounded, at most 100 (the protocol's own bound). */
export function hostCompletion(result: unknown): {
  completion: { values: string[]; total?: number; hasMore?: boolean };
} {
  const completion = field(result, "completion");
  const values = entries(field(completion, "values"))
    .slice(0, 100)
    .flatMap((value) => hostText(value, LABEL_MAX_CHARS) ?? []);
  const total = field(completion, "total");
  const hasMore = field(completion, "hasMore");
  return {
    completion: {
      values,
      ...(typeof total === "number" && Number.isFinite(total) ? { total } : {}),
      ...(typeof hasMore === "boolean" ? { hasMore } : {}),
    },
  };
}

/** The log levels of the protocol (RFC 5424's), the only ones a message may carry. */
const LOG_LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

/**
 * `notifications/message`: its data as one text (a string as it is, anything else as its JSON) cleaned and bounded
 * to {@link LOG_MAX_CHARS}, its logger's name cleaned; one with no known level is left out (undefined).
 */
export function hostLogMessage(params: unknown): { level: string; logger?: string; data: string } | undefined {
  const level = field(params, "level");
  if (typeof level !== "string" || !LOG_LEVELS.has(level)) return undefined;
  const data = field(params, "data");
  let text: string;
  try {
    text = typeof data === "string" ? data : (JSON.stringify(data) ?? "");
  } catch {
    return undefined;
  }
  const logger = hostText(field(params, "logger"), LABEL_MAX_CHARS);
  return { level, ...(logger === undefined ? {} : { logger }), data: hostText(text, LOG_MAX_CHARS) as string };
}

/** A page's `nextCursor`, when it is a string of a sane length. */
function cursor(result: unknown): { nextCursor?: string } {
  const next = field(result, "nextCursor");
  return typeof next === "string" && next.length <= URI_MAX_CHARS ? { nextCursor: next } : {};
}
