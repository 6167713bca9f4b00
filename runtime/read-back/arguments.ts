/**
 * The read-back tool's arguments: their JSON Schemas (what the model is shown) and the checks that hold them (the
 * runtime compiles no schema, so they are checked here by hand, with a clear message for each rule).
 */

/** What the model may ask of a spilled result. */
export interface ReadBackArgs {
  /** The handle from the spilled result's `<spilled handle="…"/>`. */
  handle: string;
  /** Structured results: a JSON pointer, `*` standing for every item of an array (`/entities`, `/hits/*\/title`). */
  pointer?: string | undefined;
  /** The first item or line to show, counted from 0 (from the end with `fromEnd`). */
  offset?: number | undefined;
  /** How many items or lines at most (the page may hold fewer, to stay within its budget). */
  limit?: number | undefined;
  /** Text results: count lines from the end, so `offset: 0` shows the last lines. */
  fromEnd?: boolean | undefined;
  /** Text results: only lines that hold this literal text (a plain substring, never a regular expression). */
  pattern?: string | undefined;
}

/** The longest pointer and pattern accepted, in UTF-16 code units. */
export const MAX_POINTER = 1024;
export const MAX_PATTERN = 256;

/** The input schema of the read-back tool. */
export function inputSchema(maxLimit: number): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      handle: {
        type: "string",
        pattern: "^spill_[0-9a-f]{32}$",
        description: "The handle of a spilled tool result, as shown in its <spilled handle=…/> line.",
      },
      pointer: {
        type: "string",
        maxLength: MAX_POINTER,
        description:
          "Structured results: a JSON pointer to read, '*' for every item of an array (e.g. /entities or /entities/*/name). Default: the whole value.",
      },
      offset: {
        type: "integer",
        minimum: 0,
        description: "The first item or line to show, counted from 0 (from the end when fromEnd is true).",
      },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: maxLimit,
        description: "How many items or lines at most; a page may show fewer to stay within its budget.",
      },
      fromEnd: { type: "boolean", description: "Text results: count lines from the end." },
      pattern: {
        type: "string",
        minLength: 1,
        maxLength: MAX_PATTERN,
        description: "Text results: only lines containing this literal text (not a regular expression).",
      },
    },
    required: ["handle"],
    additionalProperties: false,
  };
}

/** The output schema: the page as structured content. */
export function outputSchema(): Record<string, unknown> {
  const count = { type: "integer", minimum: 0 };
  return {
    type: "object",
    properties: {
      handle: { type: "string" },
      kind: { enum: ["json", "text"] },
      pointer: { type: "string" },
      range: {
        type: "object",
        properties: { from: count, to: count, total: count },
        required: ["from", "to", "total"],
        additionalProperties: false,
        description: "1-based and inclusive: items or lines from–to of total (from > to on an empty page).",
      },
      items: { type: "array", description: "The items, when the pointer names one array." },
      matches: {
        type: "array",
        items: {
          type: "object",
          properties: { at: { type: "string" }, line: count, value: {}, text: { type: "string" } },
        },
        description: "The matched values with their pointers, or the matched lines with their numbers.",
      },
      lines: { type: "array", items: { type: "string" } },
      cut: { type: "boolean", description: "True when the one item or line shown is larger than a page." },
      parts: { type: "array", description: "For an item larger than a page: the pointers to read instead." },
      note: { type: "string", description: "Where the page is, e.g. 'items 41–80 of 402 at /entities'." },
      next: { type: "object", description: "The exact arguments of the next page; absent on the last one." },
      complete: { type: "boolean", description: "True when this page ends the selection and nothing was cut." },
    },
    required: ["handle", "kind", "range", "note", "complete"],
    additionalProperties: false,
  };
}

/** Why arguments were refused, or the arguments. */
export type ArgsCheck = { ok: true; args: ReadBackArgs } | { ok: false; message: string; handleProblem?: boolean };

const KEYS = new Set(["handle", "pointer", "offset", "limit", "fromEnd", "pattern"]);
const HANDLE = /^spill_[0-9a-f]{32}$/;

/** Checks the model's arguments against the input schema's rules, by hand; messages name only the rule broken. */
export function checkArgs(raw: unknown, maxLimit: number): ArgsCheck {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, message: "the arguments must be an object" };
  }
  const args = raw as Record<string, unknown>;
  for (const key of Object.keys(args)) {
    if (!KEYS.has(key))
      return { ok: false, message: "an argument is not one of handle, pointer, offset, limit, fromEnd, pattern" };
  }
  const { handle, pointer, offset, limit, fromEnd, pattern } = args;
  if (typeof handle !== "string") return { ok: false, message: "handle must be a string" };
  if (!HANDLE.test(handle)) {
    return {
      ok: false,
      handleProblem: true,
      message: "handle must be spill_ and 32 hex digits, as shown: never a path",
    };
  }
  if (pointer !== undefined) {
    if (typeof pointer !== "string" || pointer.length > MAX_POINTER) {
      return { ok: false, message: `pointer must be a string of at most ${MAX_POINTER} characters` };
    }
    if (pointer !== "" && !pointer.startsWith("/"))
      return { ok: false, message: "pointer must be empty or start with /" };
    if (/~(?![01])/.test(pointer)) return { ok: false, message: "pointer has a ~ that is not ~0 or ~1" };
  }
  if (offset !== undefined && !(Number.isSafeInteger(offset) && (offset as number) >= 0)) {
    return { ok: false, message: "offset must be an integer of 0 or more" };
  }
  if (
    limit !== undefined &&
    !(Number.isSafeInteger(limit) && (limit as number) >= 1 && (limit as number) <= maxLimit)
  ) {
    return { ok: false, message: `limit must be an integer from 1 to ${maxLimit}` };
  }
  if (fromEnd !== undefined && typeof fromEnd !== "boolean") return { ok: false, message: "fromEnd must be a boolean" };
  if (pattern !== undefined && (typeof pattern !== "string" || pattern.length === 0 || pattern.length > MAX_PATTERN)) {
    return { ok: false, message: `pattern must be a string of 1 to ${MAX_PATTERN} characters` };
  }
  return {
    ok: true,
    args: {
      handle,
      pointer: pointer as string | undefined,
      offset: offset as number | undefined,
      limit: limit as number | undefined,
      fromEnd: fromEnd as boolean | undefined,
      pattern: pattern as string | undefined,
    },
  };
}
