/**
 * The model stage: everything the templates need to know about one tool, with every default applied and every
 * cross-check between the schema and the `x-toolgate` settings done.
 */
import type { ContextBudget, ToolSpec } from "@toolgate/runtime";
import type { BoundsReport } from "../checks/index.js";
import { ContractError } from "../contract/errors.js";
import type { PreparedContract } from "../contract/index.js";
import type { LoadedContract } from "../contract/load.js";
import { DEFAULTS } from "../contract/x-toolgate.js";
import type { ResolvedSchema } from "../schema/shapes.js";
import { camelCase, folderName, NameScope } from "./names.js";
import { planContractView, type TypedPlan } from "./view-plan.js";

/** The gate's settings of a tool, as its generated `ToolSpec` carries them. */
type SpecSettings = Pick<
  ToolSpec<unknown, unknown>,
  | "limits"
  | "context"
  | "oversize"
  | "recallLimit"
  | "summaryMax"
  | "spillPreview"
  | "retry"
  | "fields"
  | "exposeToolError"
>;

/** One tool, ready for the templates. */
export interface ToolModel extends SpecSettings {
  contract: LoadedContract;
  /** The tool's name as the contract gives it (hostile text: only ever written as a literal). */
  name: string;
  /** The folder under `generated/` holding this tool's files. */
  folder: string;
  /** Identifiers, unique across the catalog. */
  names: {
    adapter: string;
    /** The catalog's local name for the output validator, in the same scope as the adapters. */
    resultValidator: string;
    result: string;
    input?: string | undefined;
    view: string;
    outcome: string;
  };
  result: ResolvedSchema;
  input?: ResolvedSchema | undefined;
  /** The checker's report on the output schema (pointers relative to the output schema). */
  bounds: BoundsReport;
  version: string;
  formats: "annotate" | "assert";
  toolErrorChars: number;
  view: { plan: TypedPlan; continuation?: string | undefined; maxStringChars: number };
  /** The name the MCP server knows the tool by, when it is not {@link name} (a contract imported with a prefix). */
  serverName?: string | undefined;
}

/** Names claimed in the catalog's scope. Tools are modelled in a sorted order, so suffixes are stable. */
export function nameScopes(): { folders: NameScope; identifiers: NameScope } {
  return {
    folders: new NameScope(["index", "node_modules"]),
    identifiers: new NameScope(["catalog", "outputValidators"]),
  };
}

/** Build the model of one tool. Throws {@link ContractError} when settings and schema disagree. */
export function modelTool(
  prepared: PreparedContract,
  bounds: BoundsReport,
  scopes: ReturnType<typeof nameScopes>,
): ToolModel {
  const { contract, result, input, settings } = prepared;
  const file = contract.file;

  const declaredBytes = settings.receive.maxBytes;
  if (declaredBytes === undefined && bounds.maxBytes === null) {
    throw new ContractError(
      file,
      "/x-toolgate/receive/maxBytes",
      "the output schema is not fully bounded (see the findings above), so the receive ceiling must be declared",
    );
  }
  if (declaredBytes !== undefined && bounds.maxBytes !== null && declaredBytes < bounds.maxBytes) {
    throw new ContractError(
      file,
      "/x-toolgate/receive/maxBytes",
      `the receive ceiling ${declaredBytes} is below the largest legitimate result, ${bounds.maxBytes} bytes as the ` +
        "schema's bounds allow: raise it, or tighten the bounds",
    );
  }
  const maxBytes = declaredBytes ?? (bounds.maxBytes as number);
  const maxDepth =
    settings.receive.maxDepth ?? Math.min(bounds.maxDepth ?? DEFAULTS.maxDepthCeiling, DEFAULTS.maxDepthCeiling);
  const context: ContextBudget = { ...settings.context };
  const fieldEntries = Object.entries(settings.fields).sort(([a], [b]) => (a < b ? -1 : 1));
  const plan = planContractView(
    result.bundled,
    settings,
    file,
    fieldEntries.map(([path]) => path),
  );

  const adapter = scopes.identifiers.claim(camelCase(contract.name));
  const typeBase = adapter.charAt(0).toUpperCase() + adapter.slice(1);
  const names = {
    adapter,
    resultValidator: scopes.identifiers.claim(`${adapter}Validator`),
    result: `${typeBase}Result`,
    input: input === undefined ? undefined : `${typeBase}Input`,
    view: `${typeBase}View`,
    outcome: `${typeBase}Outcome`,
  };

  return {
    contract,
    name: contract.name,
    folder: scopes.folders.claim(folderName(contract.name)),
    names,
    result,
    input,
    bounds,
    version: settings.version,
    formats: settings.formats,
    limits: { maxBytes, maxDepth, timeoutMs: settings.receive.timeoutMs },
    context,
    oversize: settings.oversize,
    recallLimit: settings.recall.max,
    summaryMax: settings.summarize.max ?? Math.max(1, Math.floor(context.max * DEFAULTS.summaryShare)),
    spillPreview: settings.spill.preview,
    retry: settings.retry,
    fields: fieldEntries.map(([path, rule]) =>
      rule.kind === "text"
        ? { path, kind: "text", onInstruction: rule.onInstruction ?? "flag" }
        : { path, kind: "opaque" },
    ),
    exposeToolError: settings.toolError.expose,
    toolErrorChars: settings.toolError.maxChars,
    view: { plan, continuation: settings.view.continuation, maxStringChars: settings.view.maxStringChars },
    serverName: settings.mcp.name === contract.name ? undefined : settings.mcp.name,
  };
}
