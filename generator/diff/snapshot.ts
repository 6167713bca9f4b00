/**
 * One side of a review: every contract in a folder, read the way `generate` reads it (load, dialect, resolve, view
 * plan), reduced to what a comparison needs. Nothing here depends on generated code.
 */

import { dialectMisuse, dialectOf } from "../dialect.js";
import { ContractError, ContractErrors, collectContractErrors, duplicateToolError } from "../errors.js";
import { compareText, displayPath, findContracts, type LoadedContract, loadContract } from "../load.js";
import { type ResolveOptions, resolveSchema } from "../resolve.js";
import { viewFields } from "../schema/view-fields.js";
import type { Dialect, JsonSchema } from "../schema.js";
import { planView } from "../view-plan.js";
import { DEFAULTS } from "../x-toolgate.js";

/** One tool as a review sees it. */
export interface ToolSnapshot {
  name: string;
  /** The contract file, relative to its contracts folder. */
  file: string;
  sha256: string;
  /** The contract document as written (for its description and MCP metadata). */
  document: Record<string, unknown>;
  result: { dialect: Dialect; bundled: JsonSchema };
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
  let files: string[] = [];
  try {
    files = await findContracts(schemas);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const collect = (error: unknown): void => collectContractErrors(errors, error);
  // A contract nested deeper than the loader serialises is refused there with a RangeError: report it as the
  // contract's error, so one hostile file does not stop the review of the others.
  const refuseTooDeep = (error: unknown, file: string): never => {
    if (error instanceof RangeError) throw new ContractError(file, "", `cannot be compared: ${error.message}`);
    throw error;
  };
  for (const file of files) {
    let contract: LoadedContract;
    try {
      contract = await loadContract(file, schemas, [options.projectRoot, ...(options.roots ?? [])]).catch(
        (error: unknown) => refuseTooDeep(error, displayPath(file)),
      );
    } catch (error) {
      collect(error);
      continue;
    }
    const other = tools.get(contract.name);
    if (other !== undefined) {
      errors.push(duplicateToolError(contract.file, contract.name, other.file));
      continue;
    }
    try {
      tools.set(
        contract.name,
        await snapshotTool(contract, options).catch((error: unknown) => refuseTooDeep(error, contract.file)),
      );
    } catch (error) {
      collect(error);
    }
  }
  return { tools: new Map([...tools].sort(([a], [b]) => compareText(a, b))), errors };
}

/** Resolve one contract's schemas and plan its view. Throws {@link ContractError}s as `generate` would. */
async function snapshotTool(contract: LoadedContract, options: ResolveOptions): Promise<ToolSnapshot> {
  const resolve = async (schema: JsonSchema, pointer: string) => {
    const dialect = dialectOf(schema, contract.file, pointer);
    const misuse = dialectMisuse(schema, dialect, contract.file, pointer);
    if (misuse.length > 0) throw new ContractErrors(misuse);
    const resolved = await resolveSchema(schema, dialect, contract.path, pointer, options);
    return { dialect, bundled: resolved.bundled };
  };
  const result = await resolve(contract.outputSchema, "/outputSchema");
  const input = contract.inputSchema === undefined ? undefined : await resolve(contract.inputSchema, "/inputSchema");
  const settings = contract.settings;
  const view = settings.view ?? {};
  const extraPaths: Array<readonly [string, string]> = Object.keys(settings.fields ?? {}).map((path) => [
    path,
    `/x-toolgate/fields/${path.replaceAll("~", "~0").replaceAll("/", "~1")}`,
  ]);
  if (view.continuation !== undefined) extraPaths.push([view.continuation, "/x-toolgate/view/continuation"]);
  const plan = planView(
    result.bundled,
    view,
    view.maxStringChars ?? DEFAULTS.maxStringChars,
    contract.file,
    extraPaths,
  );
  return {
    name: contract.name,
    file: contract.relativePath,
    sha256: contract.sha256,
    document: contract.document,
    result,
    input,
    settings: effectiveSettings(contract.settings),
    formatsAsserted: (settings.formats ?? DEFAULTS.formats) === "assert",
    viewFields: viewFields(plan),
  };
}

/**
 * The `x-toolgate` block with the defaults the generator applies, so that writing a default out is no change. A
 * receive bound or summary budget that the generator derives is shown as the word `"derived"`: its value follows
 * from the schema's bounds or the context budget, whose own changes are reported.
 */
export function effectiveSettings(settings: LoadedContract["settings"]): Record<string, unknown> {
  const unit = settings.context?.unit ?? DEFAULTS.context.unit;
  const view = settings.view ?? {};
  return {
    version: settings.version ?? DEFAULTS.version,
    formats: settings.formats ?? DEFAULTS.formats,
    receive: {
      maxBytes: settings.receive?.maxBytes ?? "derived",
      maxDepth: settings.receive?.maxDepth ?? "derived",
      timeoutMs: settings.receive?.timeoutMs ?? DEFAULTS.timeoutMs,
    },
    context: {
      unit,
      max: settings.context?.max ?? DEFAULTS.context.max,
      tokenizer: unit === "tokens" ? (settings.context?.tokenizer ?? DEFAULTS.context.tokenizer) : null,
    },
    view: {
      omit: [...(view.omit ?? [])].sort(compareText),
      arrays: view.arrays ?? {},
      strings: view.strings ?? {},
      maxStringChars: view.maxStringChars ?? DEFAULTS.maxStringChars,
      continuation: view.continuation ?? null,
    },
    oversize: settings.oversize ?? [...DEFAULTS.oversize],
    summarize: { max: settings.summarize?.max ?? "derived" },
    spill: { preview: settings.spill?.preview ?? DEFAULTS.spillPreview },
    recall: { max: settings.recall?.max ?? DEFAULTS.recallMax },
    retry: settings.retry ?? {},
    fields: settings.fields ?? {},
    toolError: {
      expose: settings.toolError?.expose ?? false,
      maxChars: settings.toolError?.maxChars ?? DEFAULTS.toolErrorChars,
    },
  };
}
