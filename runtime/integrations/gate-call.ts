/**
 * What every framework adapter shares: find the tool's adapter by the name the framework calls it, admit the raw
 * result in the call's context, and hand back the one outcome with what the model reads of it. The framework
 * adapters (`@toolgate/runtime/ai-sdk`, `…/openai-agents`, `…/langchain`, `…/claude-agent-sdk`, `…/mastra`,
 * `…/mcp-client`) differ only in where they take the raw result from and where they put the model's content.
 *
 * Nothing here imports a framework: each adapter types the framework's shapes structurally, so an app's bundle
 * carries the adapter and the runtime it already uses, and one adapter serves the framework's nearby versions.
 */
import { errorProperty } from "../contract/failure.js";
import type { Outcome } from "../contract/types.js";
import type { AdmitContext, ToolAdapter, ToolCatalog } from "../gate/context.js";
import type { ReadBack, ReadBackOutcome } from "../read-back/index.js";
import { type ModelPart, toModelContent, toModelParts } from "../stages/model-content.js";

/** Any tool's adapter, as an integration holds it: the catalog's types are the application's, not the framework's. */
// biome-ignore lint/suspicious/noExplicitAny: an adapter of any tool of any catalog; each outcome is the caller's to narrow.
export type AnyToolAdapter = ToolAdapter<any, any, any>;

/** A context for every call of every tool: the turn, sink, tenant, session, spill store, hooks… */
// biome-ignore lint/suspicious/noExplicitAny: hooks typed by each tool's own result, view and input.
export type AnyAdmitContext = AdmitContext<any, any, any>;

/** One tool call as the framework reports it. */
export interface ToolCallInfo {
  /** The name the framework calls the tool by (the MCP server's name for an imported tool). */
  tool: string;
  /** The arguments the model chose. */
  args?: unknown;
  /** The framework's id of the call, carried into provenance and events as `correlationId`. */
  callId?: string | undefined;
  /** Stops the wait for the tool's result (`AbortSignal`), when the framework gives one. */
  signal?: AbortSignal | undefined;
}

/** What every framework adapter takes besides the catalog. */
export interface GateOptions {
  /**
   * The context every gated call starts from (a `Turn`, a sink, the tenant, the session, hooks, a spill store), or
   * a function of the call that returns it, e.g. the turn of the agent run the call belongs to.
   */
  context?: AnyAdmitContext | ((call: ToolCallInfo) => AnyAdmitContext | undefined) | undefined;
  /**
   * The read-back tool over the store spilled results go to (`readBack(store)`): the adapter offers it to the
   * model beside the gated tools, and each spilled result names it with its handle.
   */
  readBack?: ReadBack | undefined;
  /**
   * What to do with a tool the catalog has no contract for: `"refuse"` (the default) is an error naming it when the
   * tools are wrapped, or a refusal of its result when they are known only at call time; `"hide"` takes it away
   * from the model; `"pass"` leaves it as it was, ungated.
   */
  ungated?: "refuse" | "hide" | "pass" | undefined;
  /**
   * The server the tools come from, as `toolgate import --prefix` named it (`docs` for `docs_read_file`), when the
   * framework does not say it itself: a tool the server calls `read_file` is then gated by `docs_read_file`'s
   * contract. Without it (and without the framework's word) a server-side name finds no prefixed contract.
   */
  server?: string | undefined;
}

/** Thrown when tools are wrapped and some have no contract in the catalog (and `ungated` is `"refuse"`). */
export class UngatedToolError extends TypeError {
  readonly tools: readonly string[];
  constructor(tools: readonly string[]) {
    super(
      `toolgate: no contract for ${tools.map((t) => JSON.stringify(t)).join(", ")} in the catalog; ` +
        'import or write one, or pass ungated: "hide" or "pass"',
    );
    this.name = "UngatedToolError";
    this.tools = tools;
  }
}

/**
 * The adapters of the tools named `names` (a framework's tool set), by name; a name without one is refused (throws
 * {@link UngatedToolError} listing all of them), or left out of the map, as `options.ungated` says.
 */
export function adaptersFor(
  catalog: ToolCatalog,
  names: readonly string[],
  options: GateOptions = {},
): Map<string, AnyToolAdapter> {
  const found = new Map<string, AnyToolAdapter>();
  const missing: string[] = [];
  for (const name of names) {
    const adapter = findAdapter(catalog, name, options.server);
    if (adapter === undefined) missing.push(name);
    else found.set(name, adapter);
  }
  if (missing.length > 0 && (options.ungated ?? "refuse") === "refuse") throw new UngatedToolError(missing);
  return found;
}

/** One gated call: the outcome (for the application) and what the model reads of it. */
export interface GatedCall {
  outcome: Outcome<unknown, unknown>;
  /** `toModelContent(outcome)`: the delimited view, or the typed failure (in observe mode, the original's text). */
  content: string;
  /** `toModelParts(outcome)`: the same text, then each admitted image or audio block. */
  parts: ModelPart[];
}

/**
 * The adapter of the tool the framework calls `name`: the catalog's own key first (own keys only, as `lookupTool`),
 * else the tool whose MCP server name (`spec.mcp.name`, set by `toolgate import --prefix`) it is, and only when the
 * call says which server it came from (`server`) and that server is the contract's: the prefix it was imported
 * under (`docs` for `docs_read_file`, see {@link contractServer}). A server-side name with no server, or another
 * server's, finds nothing, so another server's `read_file` is refused as ungated rather than gated under
 * `docs_read_file`'s contract.
 */
export function findAdapter(
  catalog: ToolCatalog,
  name: string,
  server?: string | undefined,
): AnyToolAdapter | undefined {
  const key = catalogKey(catalog, name, server);
  return key === undefined ? undefined : (catalog[key]?.adapter as AnyToolAdapter | undefined);
}

/** The catalog key of the tool {@link findAdapter} finds, or undefined. */
export function catalogKey(catalog: ToolCatalog, name: string, server?: string | undefined): string | undefined {
  if (typeof name !== "string") return undefined;
  if (Object.hasOwn(catalog, name)) return catalog[name]?.adapter === undefined ? undefined : name;
  if (typeof server !== "string" || server === "") return undefined;
  let found: string | undefined;
  for (const key of Object.keys(catalog)) {
    const adapter = catalog[key]?.adapter as AnyToolAdapter | undefined;
    if (adapter?.spec?.mcp?.name !== name || contractServer(key, name) !== server) continue;
    if (found !== undefined) return undefined; // two contracts claim the one server's tool: neither is sure
    found = key;
  }
  return found;
}

/**
 * The server a prefixed contract belongs to: the prefix `toolgate import --prefix` gave its name
 * (`<prefix>_<the server's name>`), or undefined for a contract named as its server names the tool.
 */
export function contractServer(key: string, serverName: string): string | undefined {
  const suffix = `_${serverName}`;
  return key.length > suffix.length && key.endsWith(suffix) ? key.slice(0, -suffix.length) : undefined;
}

/**
 * What the gate admits for an in-process tool's throw (or rejection). A tool reports its own failure by throwing,
 * so a throw is the tool's error, `tool_error`, with no text: the thrown message was written for the tool's
 * developer (a stack's worth of paths, a driver's connection string) and is not the tool's answer to the model, so
 * it never reaches the model, although contracts show the words of an MCP tool's `isError` result by default. A
 * tool that wants the model to read why it failed returns an MCP `isError` result with that text instead. A timeout
 * or an abort (`TimeoutError`, `AbortError`) is the wait's failure, not the tool's: the rejection itself, which the
 * gate reads as `timeout` or `transport_error`. Reading a hostile error never throws.
 */
export function thrownByTool(error: unknown): unknown {
  const name = errorProperty(error, "name");
  if (name === "TimeoutError" || name === "AbortError") return Promise.reject(error);
  return TOOL_THREW;
}

const TOOL_THREW = Object.freeze({ content: Object.freeze([]), isError: true });

/** The context of one call: the options' context for it, with the framework's call id, arguments and signal. */
export function callContext(call: ToolCallInfo, options: GateOptions): AnyAdmitContext {
  const given = typeof options.context === "function" ? options.context(call) : options.context;
  const ctx: AnyAdmitContext = { ...given };
  if (options.readBack !== undefined) {
    ctx.spillStore ??= options.readBack.context.spillStore;
    ctx.readTool ??= options.readBack.context.readTool;
  }
  if (call.callId !== undefined) ctx.correlationId ??= call.callId;
  if (call.args !== undefined) ctx.args ??= call.args;
  if (call.signal !== undefined) ctx.signal ??= call.signal;
  return ctx;
}

/**
 * Admits `raw` (what the tool or the MCP client returned: a value, text, a `CallToolResult`, a promise of one, a
 * rejection) with `adapter`, and renders the outcome for the model. Never rejects for anything `raw` does: the
 * adapter's `admit` turns it into a typed failure.
 */
export async function gateCall(
  adapter: AnyToolAdapter,
  raw: unknown,
  call: ToolCallInfo,
  options: GateOptions = {},
): Promise<GatedCall> {
  const outcome = await adapter.admit(raw, callContext(call, options));
  return { outcome, content: toModelContent(outcome), parts: toModelParts(outcome) };
}

/**
 * Whether the framework is told the call failed: the outcome failed; or, in observe mode, where the model reads the
 * original result, the original is an MCP result marked `isError` (a tool that threw is one, see
 * {@link thrownByTool}). Reading a hostile original never throws.
 */
export function reportsFailure(outcome: Outcome<unknown, unknown>): boolean {
  const observed = outcome.observed;
  if (observed === undefined) return !outcome.ok;
  try {
    const original = observed.original as { isError?: unknown } | null | undefined;
    return typeof original === "object" && original !== null && original.isError === true;
  } catch {
    return false;
  }
}

/**
 * Answers a call of the read-back tool in the context the options give the call (its tenant and session), so a
 * spilled result is read back only where it was spilled.
 */
export function readBackCall(
  reader: ReadBack,
  call: ToolCallInfo,
  options: GateOptions = {},
): Promise<ReadBackOutcome> {
  const ctx = typeof options.context === "function" ? options.context(call) : options.context;
  return reader.handle(call.args, { tenant: ctx?.tenant, session: ctx?.session });
}
