/**
 * The front door for contracts: every command reads a contract the same way. `generate` (the pipeline), `diff`
 * (its snapshots) and `import` (a server's definitions, before they are written) all go through here:
 *
 *   load (`load.ts`: parse, shape, `x-toolgate`) → dialect → dialect misuse → resolve → defaults applied → refine
 *
 * What each command does next (the safety check and the model for `generate`, the view plan for `diff`, the size
 * bound for `import`) is its own.
 */

import type { JsonSchema, ResolvedSchema } from "../schema/shapes.js";
import { dialectMisuse, readDialect } from "./dialect.js";
import { ContractError, ContractErrors, collectContractErrors, duplicateToolError } from "./errors.js";
import { findContracts, type LoadedContract, loadContract } from "./load.js";
import { refineSchema, refines, replacementsOf } from "./refine.js";
import { type ResolveOptions, resolveSchema } from "./resolve.js";
import { type AppliedSettings, applyDefaults } from "./x-toolgate.js";

/**
 * A contract through the front stages: its schemas resolved, its settings with every default applied, and its
 * output schema refined by `x-toolgate.refine`.
 */
export interface PreparedContract {
  contract: LoadedContract;
  /**
   * The output schema the gate enforces: as written, with `x-toolgate.refine` merged in. Absent for a result of
   * the text or content kind, which has no schema.
   */
  result: ResolvedSchema | undefined;
  /** The output schema as written (as the MCP server advertises it), when `refine` changed it; else absent. */
  advertised?: ResolvedSchema | undefined;
  /** Absent when the contract declares no input schema. */
  input: ResolvedSchema | undefined;
  settings: AppliedSettings;
}

/** One contract file as loaded: the contract, or the errors that kept it out. */
export interface LoadedFile {
  file: string;
  contract?: LoadedContract | undefined;
  errors: ContractError[];
  /** The file that defines the same tool before this one (in file order), if any. */
  duplicateOf?: string | undefined;
}

/**
 * Load every contract file under a folder, in file order. A file that does not load is kept with its errors, so
 * one broken contract never hides the others.
 * @param roots folders a linked contract may point into, besides the contracts folder
 * @param guard sees what loading one file threw before it is sorted into contract errors (and may translate it)
 */
export async function loadContracts(
  schemas: string,
  roots: readonly string[],
  guard: (error: unknown, file: string) => never = rethrow,
): Promise<LoadedFile[]> {
  const loaded: LoadedFile[] = [];
  const byName = new Map<string, string>();
  for (const file of await findContracts(schemas)) {
    const entry: LoadedFile = { file, errors: [] };
    loaded.push(entry);
    try {
      entry.contract = await loadContract(file, schemas, roots).catch((error: unknown) => guard(error, file));
    } catch (error) {
      collectContractErrors(entry.errors, error);
      continue;
    }
    const { name, file: shown } = entry.contract;
    entry.duplicateOf = byName.get(name);
    byName.set(name, shown);
  }
  return loaded;
}

/** The error for a loaded file whose tool an earlier file already defines, if it is one. */
export function duplicateError(entry: LoadedFile): ContractError | undefined {
  const { contract, duplicateOf } = entry;
  return contract === undefined || duplicateOf === undefined
    ? undefined
    : duplicateToolError(contract.file, contract.name, duplicateOf);
}

/**
 * Resolve a loaded contract's schemas (the output schema first), apply its settings' defaults and merge its
 * refinements into the output schema (`refine`) and the input schema (`refineInput`, `refine.ts`). Throws the {@link ContractError}s of the first schema that fails.
 */
export async function prepareContract(contract: LoadedContract, options: ResolveOptions): Promise<PreparedContract> {
  const settings = applyDefaults(contract.settings, contract.outputSchema !== undefined);
  const written =
    contract.outputSchema === undefined
      ? undefined
      : await prepareSchema(contract.outputSchema, contract.file, contract.path, "/outputSchema", options);
  const writtenInput =
    contract.inputSchema === undefined
      ? undefined
      : await prepareSchema(contract.inputSchema, contract.file, contract.path, "/inputSchema", options);
  const context = { file: contract.file, formats: settings.formats };
  const input =
    writtenInput === undefined
      ? undefined
      : refineSchema(writtenInput, settings.refineInput, { ...context, overlay: "refineInput" });
  if (written === undefined) {
    if (refines(settings.refine)) {
      throw new ContractError(
        contract.file,
        "/x-toolgate/refine",
        `a ${settings.result.kind} result has no output schema to refine: bound it with receive.maxBytes and result.content`,
      );
    }
    return { contract, result: undefined, input, settings };
  }
  const result = refineSchema(written, settings.refine, context);
  // The advertised schema's validator takes the pattern replacements, never the narrowing: see refine.ts.
  const advertised = refineSchema(written, replacementsOf(settings.refine), context);
  return { contract, result, advertised: result === written ? undefined : advertised, input, settings };
}

/**
 * One schema of a contract through dialect, dialect misuse and references. A schema read in a dialect it does not
 * declare carries the warning that says so (`warnings`).
 * @param file the contract as shown to the user; `path` its absolute path, which references are resolved from
 * @param pointer where the schema sits in the contract (`/outputSchema`, `/inputSchema`)
 */
export async function prepareSchema(
  schema: JsonSchema,
  file: string,
  path: string,
  pointer: string,
  options: ResolveOptions,
): Promise<ResolvedSchema> {
  const { dialect, warning } = readDialect(schema, file, pointer);
  const misuse = dialectMisuse(schema, dialect, file, pointer);
  if (misuse.length > 0) throw new ContractErrors(misuse);
  const resolved = await resolveSchema(schema, dialect, path, pointer, options);
  return warning === undefined ? resolved : { ...resolved, warnings: [warning] };
}

function rethrow(error: unknown): never {
  throw error;
}
