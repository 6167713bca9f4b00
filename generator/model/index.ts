/**
 * The model stage: everything the templates need to know about one tool, with every default applied and every
 * cross-check between the schema and the `x-toolgate` settings done.
 */
import type { ContextBudget, ToolSpec } from "@toolgate/runtime";
import type { BoundsReport } from "../checks/index.js";
import { validatorBoundsValues } from "../checks/safe-numbers.js";
import type { PreparedContract } from "../contract/index.js";
import type { LoadedContract } from "../contract/load.js";
import { DEFAULTS } from "../contract/x-toolgate.js";
import type { ResolvedSchema } from "../schema/shapes.js";
import { camelCase, folderName, NameScope } from "./names.js";
import { pageArgumentOf } from "./page-argument.js";
import { type ResultModel, receiveLimits, resultModel } from "./result-kind.js";
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
  | "pageArgument"
  | "mode"
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
    /**
     * The catalog's local name for the validator of the output schema as the server advertises it: set only when
     * `x-toolgate.refine` changed the schema (the gate runs the refined one, the MCP client's provider this one).
     */
    advertisedValidator?: string | undefined;
    result: string;
    input?: string | undefined;
    view: string;
    outcome: string;
  };
  /** The output schema the gate enforces (refined); absent for the text and content kinds. */
  result: ResolvedSchema | undefined;
  /** The output schema as written and advertised, when `x-toolgate.refine` changed it. */
  advertised?: ResolvedSchema | undefined;
  input?: ResolvedSchema | undefined;
  /** How the tool answers: the spec's `result` entry. */
  resultKind: ResultModel;
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

/** Build the model of one tool. Throws a `ContractError` when settings and schema disagree. */
export function modelTool(
  prepared: PreparedContract,
  bounds: BoundsReport,
  scopes: ReturnType<typeof nameScopes>,
): ToolModel {
  const { contract, result, advertised, input, settings } = prepared;
  const file = contract.file;

  const resultKind = resultModel(prepared);
  const { maxBytes, maxDepth } = receiveLimits(prepared, bounds);
  const context: ContextBudget = { ...settings.context };
  const fieldEntries = Object.entries(settings.fields).sort(([a], [b]) => (a < b ? -1 : 1));
  // A text or content result is one string (or list of parts) for the plan: the runtime's text view shows it.
  const plan = planContractView(
    result?.bundled ?? { type: "string" },
    settings,
    file,
    fieldEntries.map(([path]) => path),
  );

  const adapter = scopes.identifiers.claim(camelCase(contract.name));
  const typeBase = adapter.charAt(0).toUpperCase() + adapter.slice(1);
  const names = {
    adapter,
    resultValidator: scopes.identifiers.claim(`${adapter}Validator`),
    advertisedValidator:
      advertised === undefined ? undefined : scopes.identifiers.claim(`${adapter}AdvertisedValidator`),
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
    advertised,
    input,
    resultKind,
    bounds,
    version: settings.version,
    formats: settings.formats,
    limits: {
      maxBytes,
      maxDepth,
      timeoutMs: settings.receive.timeoutMs,
      // Only where it holds: the generated spec of every other tool is unchanged.
      ...(result !== undefined && validatorBoundsValues(result.bundled, result.dialect, bounds.maxDepth, maxDepth)
        ? { validatorBounds: true as const }
        : {}),
    },
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
    pageArgument: pageArgumentOf(input),
    toolErrorChars: settings.toolError.maxChars,
    view: { plan, continuation: settings.view.continuation, maxStringChars: settings.view.maxStringChars },
    serverName: settings.mcp.name === contract.name ? undefined : settings.mcp.name,
    mode: settings.mode,
  };
}
