/**
 * The read-back tool: the model reads a spilled result back page by page, each page through a gate with its own
 * budget, instead of the whole result entering its context (the pointer pattern: the value stays outside, the model
 * gets a handle and a bounded reader).
 *
 * ```ts
 * const reader = readBack(store);                 // store: a FileSpillStore, RedisSpillStore, MemorySpillStore…
 * tools.push(reader.definition);                  // `read_tool_result`, with input and output JSON Schemas
 * const adapter = readGraph.with(reader.context); // spills go to `store`, and their content names the tool
 * // when the model calls read_tool_result:
 * const page = await reader.handle(args, { tenant });
 * send(page.content);                             // or page.toolResult, an MCP CallToolResult
 * ```
 *
 * A page of a structured value is a slice of one array's items (`pointer: "/entities"`, `offset`, `limit`) or of the
 * values a pattern with `*` matches (`/entities/*\/name`); a page of a text (a spilled JSON string) is a run of
 * lines (`offset`, `limit`, `fromEnd`), or of the lines holding a literal `pattern`. Each page is never larger than
 * the budget: it holds as many of the asked-for items as fit, says where it is (`items 41–80 of 402 at /entities`)
 * and gives the exact arguments of the next page. Every read checks that the handle is well-formed, known, intact
 * (sha256, by the store), not expired, and spilled for the reader's tenant and session, each a typed failure.
 */

import type { ContextBudget } from "../contract/types.js";
import type { SpillStore } from "../policies/spill-store.js";
import { DEFAULT_TOKENIZER, measureText } from "../stages/measure.js";
import { checkArgs, inputSchema, outputSchema, type ReadBackArgs } from "./arguments.js";
import type { LoadedCache } from "./open.js";
import type { PageSettings } from "./pages.js";
import type { PageBody, ReadBackContext, ReadBackErrorCode } from "./types.js";

export type { ReadBackArgs } from "./arguments.js";
export type { PageBody, ReadBackContext, ReadBackErrorCode } from "./types.js";

/** An MCP `CallToolResult` for the page, to answer a `tools/call` with. */
export interface ReadBackToolResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: PageBody;
  isError?: boolean;
}

/** What one read-back call gives the application: the model's content, and the typed outcome. */
export type ReadBackOutcome = (
  | { ok: true; page: PageBody }
  | { ok: false; error: { code: ReadBackErrorCode; retryable: boolean; message: string } }
) & {
  /** What the model reads: the page (or the failure's code and message) inside the `tool_result` delimiter. */
  content: string;
  /** The size of `content` in the budget's unit. */
  contextUsed: { unit: "bytes" | "tokens"; value: number; budget: number };
  toolResult: ReadBackToolResult;
};

/** Options of {@link readBack}. */
export interface ReadBackOptions {
  /** The tool's name; default `read_tool_result`. Letters, digits, `_` and `-`, at most 64. */
  name?: string | undefined;
  /** Each page's budget; default 16,000 bytes. A token budget needs `gpt-tokenizer`. */
  budget?: ContextBudget | undefined;
  /** Items or lines a page asks for when the model names no `limit`; default 50 items, 200 lines. */
  defaultItems?: number | undefined;
  defaultLines?: number | undefined;
  /** The largest `limit` the model may ask for; default 1,000. */
  maxLimit?: number | undefined;
  /** Spilled values kept loaded between pages (verified once each), at most this many; default 16. */
  cacheEntries?: number | undefined;
  /** …and at most this many characters of JSON text in all; default 64 Mi. */
  cacheChars?: number | undefined;
}

/** The MCP tool definition of the read-back tool. */
export interface ReadBackDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: true; idempotentHint: true; openWorldHint: false };
}

/** A read-back tool over one store. */
export interface ReadBack {
  definition: ReadBackDefinition;
  /** The context to give the adapters whose results may spill: the store, and this tool's name. */
  context: { spillStore: SpillStore; readTool: string };
  /** Answers one call of the tool. Never rejects for anything the arguments or the store hold. */
  handle(args: unknown, ctx?: ReadBackContext): Promise<ReadBackOutcome>;
}

/** The read-back tool's default name. */
export const READ_TOOL_RESULT = "read_tool_result";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The default page budget: about 4,000 tokens of JSON. */
const DEFAULT_BUDGET: ContextBudget = { unit: "bytes", max: 16_000 };

/** The smallest budget a page can be built in: the delimiter, where it is and the next page's arguments. */
const MIN_BUDGET = { bytes: 600, tokens: 200 };

const RETRYABLE: Record<ReadBackErrorCode, boolean> = {
  invalid_arguments: false,
  invalid_handle: false,
  unknown_handle: false,
  expired: false,
  tampered: false,
  store_failed: true,
  page_over_budget: false,
};

/** What answers a read: opening the spill, building the page, rendering a failure. */
interface Reader {
  openRecord: typeof import("./open.js").openRecord;
  jsonPage: typeof import("./pages.js").jsonPage;
  textPage: typeof import("./pages.js").textPage;
  renderFailure: typeof import("./render.js").renderFailure;
}

/**
 * The modules that answer a read, loaded at the first read rather than with the runtime: every process that imports
 * `@toolgate/runtime` would otherwise load them, and most never spill, let alone read a spill back.
 */
let reader: Promise<Reader> | undefined;

function loadReader(): Promise<Reader> {
  reader ??= Promise.all([import("./open.js"), import("./pages.js"), import("./render.js")]).then(
    ([open, pages, render]) => ({
      openRecord: open.openRecord,
      jsonPage: pages.jsonPage,
      textPage: pages.textPage,
      renderFailure: render.renderFailure,
    }),
  );
  return reader;
}

/** The read-back tool over `store` (which must be able to `read`, as every store of this package can). */
export function readBack(store: SpillStore, options: ReadBackOptions = {}): ReadBack {
  const name = options.name ?? READ_TOOL_RESULT;
  if (!NAME.test(name)) throw new TypeError("readBack: the name must be 1 to 64 letters, digits, _ or -");
  if (typeof store?.read !== "function") {
    throw new TypeError("readBack: the store cannot read entries back (it has no read method)");
  }
  const given = options.budget ?? DEFAULT_BUDGET;
  const budget: ContextBudget =
    given.unit === "tokens" ? { ...given, tokenizer: given.tokenizer ?? DEFAULT_TOKENIZER } : { ...given };
  if (!(Number.isSafeInteger(budget.max) && budget.max >= MIN_BUDGET[budget.unit])) {
    throw new TypeError(`readBack: the page budget must be at least ${MIN_BUDGET[budget.unit]} ${budget.unit}`);
  }
  const maxLimit = options.maxLimit ?? 1000;
  const settings: PageSettings = {
    name,
    budget,
    defaultItems: Math.min(options.defaultItems ?? 50, maxLimit),
    defaultLines: Math.min(options.defaultLines ?? 200, maxLimit),
  };
  const cache: LoadedCache = {
    entries: new Map(),
    maxEntries: options.cacheEntries ?? 16,
    maxChars: options.cacheChars ?? 64 * 1024 * 1024,
  };
  const definition: ReadBackDefinition = {
    name,
    title: "Read a spilled tool result",
    description:
      "Reads a tool result that was too large to show, page by page, by the handle its <spilled handle=…/> line gives. Structured results: a JSON pointer (with * for every item of an array), offset and limit. Text results: offset and limit in lines, fromEnd, and a literal pattern. Each page says where it is and gives the exact arguments of the next page.",
    inputSchema: inputSchema(maxLimit),
    outputSchema: outputSchema(),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };

  const fail = async (code: ReadBackErrorCode, message: string): Promise<ReadBackOutcome> => {
    const { renderFailure } = await loadReader();
    const content = renderFailure(name, code, RETRYABLE[code], message);
    const size = await measureText(content, budget, Number.MAX_SAFE_INTEGER);
    return {
      ok: false,
      error: { code, retryable: RETRYABLE[code], message },
      content,
      contextUsed: { unit: budget.unit, value: size.value, budget: budget.max },
      toolResult: { content: [{ type: "text", text: content }], isError: true },
    };
  };

  const handle = async (given: unknown, givenCtx: ReadBackContext = {}): Promise<ReadBackOutcome> => {
    // Both are the caller's and the model's values: read once, as plain data, so no getter or proxy trap runs later.
    let raw: unknown;
    let ctx: ReadBackContext;
    try {
      raw = plainArguments(given);
      ctx = plainContext(givenCtx);
    } catch {
      return fail("invalid_arguments", "the arguments could not be read as plain values");
    }
    const checked = checkArgs(raw, maxLimit);
    if (!checked.ok) return fail(checked.handleProblem ? "invalid_handle" : "invalid_arguments", checked.message);
    const args: ReadBackArgs = checked.args;
    const { openRecord, jsonPage, textPage } = await loadReader();
    const opened = await openRecord(store, cache, args.handle, ctx);
    if (!opened.ok) return fail(opened.code, opened.message);
    const loaded = opened.loaded;
    const built =
      loaded.record.meta.kind === "text"
        ? await textPage(loaded, args, settings)
        : await jsonPage(loaded, args, settings);
    if ("problem" in built) return fail(built.code, built.problem);
    const { content } = built;
    const last = settings.last;
    settings.last = undefined;
    const size = last?.content === content ? last : await measureText(content, budget, Number.MAX_SAFE_INTEGER);
    return {
      ok: true,
      page: built.body,
      content,
      contextUsed: { unit: budget.unit, value: size.value, budget: budget.max },
      toolResult: { content: [{ type: "text", text: content }], structuredContent: built.body },
    };
  };

  return { definition, context: { spillStore: store, readTool: name }, handle };
}

/**
 * The arguments as plain data: an object's own enumerable properties copied by their descriptors, so reading them
 * runs no getter (an accessor property is refused) and a proxy's traps run here, inside the caller's `try`, once.
 * Anything that is not an object is handed on as it is, for the argument check to refuse.
 */
function plainArguments(raw: unknown): unknown {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const copy: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(raw)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(raw, key);
    if (descriptor === undefined || !descriptor.enumerable) continue;
    if (typeof key !== "string" || !("value" in descriptor)) throw new TypeError("not a plain argument");
    Object.defineProperty(copy, key, { value: descriptor.value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The reader's context as plain data: its tenant and session when strings, and its clock when a function. */
function plainContext(ctx: ReadBackContext): ReadBackContext {
  if (ctx === null || typeof ctx !== "object") return {};
  const { tenant, session, now } = ctx;
  return {
    tenant: typeof tenant === "string" ? tenant : undefined,
    session: typeof session === "string" ? session : undefined,
    ...(typeof now === "function" ? { now } : {}),
  };
}
