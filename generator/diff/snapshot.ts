/**
 * One side of a review: every contract in a folder, read the way `generate` reads it (load, dialect, resolve, view
 * plan), reduced to what a comparison needs. Nothing here depends on generated code.
 */

import { ContractError, collectContractErrors, duplicateToolError } from "../contract/errors.js";
import { type LoadedFile, loadContracts, type PreparedContract, prepareContract } from "../contract/index.js";
import { compareText, displayPath, type LoadedContract } from "../contract/load.js";
import type { ResolveOptions } from "../contract/resolve.js";
import { applyDefaults } from "../contract/x-toolgate.js";
import { viewFields } from "../model/view-fields.js";
import { planContractView } from "../model/view-plan.js";
import type { Dialect, JsonSchema } from "../schema/shapes.js";

/** One tool as a review sees it. */
export interface ToolSnapshot {
  name: string;
  /** The contract file, relative to its contracts folder. */
  file: string;
  sha256: string;
  /** The contract document as written (for its description and MCP metadata). */
  document: Record<string, unknown>;
  /**
   * The output schema the gate enforces (with `x-toolgate.refine` merged in); absent for a text or content result.
   */
  result?: { dialect: Dialect; bundled: JsonSchema } | undefined;
  /** `x-toolgate.refine` as written: `diff` names an overlay's change by its place there. */
  refine?: Record<string, Record<string, unknown>> | undefined;
  /** Absent when the contract declares no input schema. */
  input?: { dialect: Dialect; bundled: JsonSchema } | undefined;
  /** The `x-toolgate` settings with every default applied (see {@link effectiveSettings}). */
  settings: Record<string, unknown>;
  /** Whether `format` is asserted. */
  formatsAsserted: boolean;
  /** Instance paths of the result that reach the model view (`*` for every item of an array), sorted. */
  viewFields: string[];
}

/** Every tool of a folder, and the contract errors that kept some out. */
export interface Snapshot {
  tools: Map<string, ToolSnapshot>;
  errors: ContractError[];
}

/** Read every contract under `schemas` (a folder that may not exist: then there are no tools). */
export async function snapshotFolder(schemas: string, given: ResolveOptions): Promise<Snapshot> {
  // As in `generate`: the contracts folder is a root of its own, beside the project root and the configured roots.
  const options: ResolveOptions = { ...given, roots: [schemas, ...(given.roots ?? [])] };
  const tools = new Map<string, ToolSnapshot>();
  const errors: ContractError[] = [];
  let loaded: LoadedFile[] = [];
  try {
    loaded = await loadContracts(schemas, [options.projectRoot, ...(options.roots ?? [])], (error, file) => {
      throw tooDeep(error, displayPath(file));
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  for (const { contract, errors: loadErrors } of loaded) {
    errors.push(...loadErrors);
    if (contract === undefined) continue;
    // A tool is a duplicate of one already in the review (a contract that failed to resolve is not in it).
    const other = tools.get(contract.name);
    if (other !== undefined) {
      errors.push(duplicateToolError(contract.file, contract.name, other.file));
      continue;
    }
    try {
      const prepared = await prepareContract(contract, options);
      tools.set(contract.name, snapshotTool(prepared));
    } catch (error) {
      collectContractErrors(errors, tooDeep(error, contract.file));
    }
  }
  return { tools: new Map([...tools].sort(([a], [b]) => compareText(a, b))), errors };
}

/**
 * A contract nested deeper than the stages serialise is refused there with a RangeError: it becomes the contract's
 * error, so one hostile file does not stop the review of the others.
 */
function tooDeep(error: unknown, file: string): unknown {
  return error instanceof RangeError ? new ContractError(file, "", `cannot be compared: ${error.message}`) : error;
}

/** Plan one prepared contract's view and keep what a comparison needs. Throws {@link ContractError}s as `generate` would. */
function snapshotTool(prepared: PreparedContract): ToolSnapshot {
  const { contract, result, input, settings } = prepared;
  // As in the model stage: a result without a schema is one string for the plan.
  const plan = planContractView(
    result?.bundled ?? { type: "string" },
    settings,
    contract.file,
    Object.keys(settings.fields),
  );
  return {
    name: contract.name,
    file: contract.relativePath,
    sha256: contract.sha256,
    document: contract.document,
    result: result === undefined ? undefined : { dialect: result.dialect, bundled: result.bundled },
    refine: settings.refine,
    input: input === undefined ? undefined : { dialect: input.dialect, bundled: input.bundled },
    settings: effectiveSettings(contract.settings, contract.outputSchema !== undefined),
    formatsAsserted: settings.formats === "assert",
    viewFields: viewFields(plan),
  };
}

/**
 * The `x-toolgate` block with the defaults the generator applies ({@link applyDefaults}), so that writing a default
 * out is no change. A receive bound or summary budget that the generator derives is shown as the word `"derived"`:
 * its value follows from the schema's bounds or the context budget, whose own changes are reported. `refine` is not
 * here: its changes are changes of the schema the gate enforces, compared as such (`contract-diff.ts`).
 */
export function effectiveSettings(
  written: LoadedContract["settings"],
  hasOutputSchema = true,
): Record<string, unknown> {
  const settings = applyDefaults(written, hasOutputSchema);
  const { receive, context, view } = settings;
  return {
    version: settings.version,
    formats: settings.formats,
    receive: {
      maxBytes: receive.maxBytes ?? "derived",
      maxDepth: receive.maxDepth ?? "derived",
      timeoutMs: receive.timeoutMs,
    },
    context: { unit: context.unit, max: context.max, tokenizer: context.tokenizer ?? null },
    view: {
      omit: [...view.omit].sort(compareText),
      arrays: view.arrays,
      strings: view.strings,
      maxStringChars: view.maxStringChars,
      continuation: view.continuation ?? null,
    },
    oversize: settings.oversize,
    summarize: { max: settings.summarize.max ?? "derived" },
    spill: settings.spill,
    recall: settings.recall,
    retry: settings.retry,
    fields: settings.fields,
    toolError: settings.toolError,
    mode: settings.mode,
    result: {
      kind: settings.result.kind,
      text: settings.result.text ?? null,
      content: settings.result.content,
    },
  };
}
