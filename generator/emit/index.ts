/**
 * The emit stage: run every template over the tool models and collect the files, by path under the output folder.
 * It owns all of its output: the tools' files, the catalog's, and the lock with the record of the run, written once.
 * Every file it writes shows every character it holds: hidden ones are written as escapes (`schema/visible.ts`).
 * Nothing but this stage imports `templates/`.
 */
import { adapterModule } from "../../templates/adapter.js";
import { catalogModule } from "../../templates/catalog.js";
import type { Code } from "../../templates/code.js";
import { header } from "../../templates/header.js";
import { lockFile } from "../../templates/lock.js";
import { typesModule } from "../../templates/types.js";
import {
  catalogValidatorsDeclarations,
  catalogValidatorsModule,
  validateDeclarations,
  validateModule,
} from "../../templates/validate.js";
import { viewModule } from "../../templates/view.js";
import { ContractError } from "../contract/errors.js";
import { compareText } from "../contract/load.js";
import { LOCK_FILE, type RecordContext, recordRun } from "../lock/record.js";
import type { ToolModel } from "../model/index.js";
import { spellHidden } from "../schema/visible.js";
import { emitTypes } from "../types/index.js";
import { assembleModule, compileValidators, type ValidatorRequest } from "../validator/index.js";

/** Generated files by path (relative to the output folder, `/`-separated), in a stable order. */
export type EmittedFiles = Map<string, string>;

/** Emit the files of one tool. Throws {@link ContractError}s when the validator stage refuses the schema. */
export async function emitTool(tool: ToolModel, version: string): Promise<EmittedFiles> {
  const top = header(version, tool.contract.file);
  const requests: ValidatorRequest[] = [];
  if (tool.result !== undefined)
    requests.push({ exportName: "validateResult", schema: tool.result, formats: tool.formats });
  if (tool.advertised !== undefined)
    requests.push({ exportName: "validateAdvertised", schema: tool.advertised, formats: tool.formats });
  if (tool.input !== undefined)
    requests.push({ exportName: "validateInput", schema: tool.input, formats: tool.formats });
  const validators = compileValidators(requests);
  if ("refusals" in validators) {
    throw validators.refusals.map(
      (refusal) => new ContractError(tool.contract.file, refusal.pointer, `refused: ${refusal.reason}`),
    );
  }
  const typeRequests = tool.result === undefined ? [] : [{ name: tool.names.result, schema: tool.result.bundled }];
  if (tool.input !== undefined && tool.names.input !== undefined) {
    typeRequests.push({ name: tool.names.input, schema: tool.input.bundled });
  }
  const declarations = typeRequests.length === 0 ? "" : await emitTypes(typeRequests);

  const files: EmittedFiles = new Map();
  const add = (name: string, code: Code | string) =>
    files.set(`${tool.folder}/${name}`, spellHidden(top + String(code)));
  add("adapter.ts", adapterModule(tool));
  add("types.ts", typesModule(tool, declarations));
  // The result validator is placed in the catalog's validators.js (see templates/validate.ts); this compile finds
  // its refusals, and the catalog reuses the code. A text or content result has none, and without an input schema
  // such a tool has no validate module at all.
  const input = validators.validators.filter((v) => v.exportName === "validateInput");
  if (tool.result !== undefined || input.length > 0) {
    add("validate.d.ts", validateDeclarations(tool));
    add("validate.js", validateModule(tool, input.length === 0 ? undefined : assembleModule(input)));
  }
  add("view.ts", viewModule(tool));
  return files;
}

/** What the lock's record keeps of the run: where it ran, and every file it read with the hash of what it parsed. */
export interface RunInputs {
  context: RecordContext;
  /** Absolute path → hash of the content parsed (`inputsRead` in `record.ts`). */
  read: ReadonlyMap<string, string>;
}

/**
 * The whole output of a run, sorted by path: every tool's files, the files that describe the catalog (`index.ts`,
 * `validators.js` with every result validator, its `validators.d.ts`), and `toolgate.lock.json`, whose record
 * covers every other file and the lock itself without its record.
 */
export function emitCatalog(
  tools: readonly ToolModel[],
  version: string,
  source: string,
  toolFiles: EmittedFiles,
  run: RunInputs,
): EmittedFiles {
  // Every result validator, and beside a refined one the validator of the schema as advertised (for the MCP client).
  const results = compileValidators(
    tools.flatMap((tool) => {
      const { result, advertised, formats, names } = tool;
      if (result === undefined) return [];
      const refined = { exportName: names.resultValidator, schema: result, formats };
      if (advertised === undefined || names.advertisedValidator === undefined) return [refined];
      return [refined, { exportName: names.advertisedValidator, schema: advertised, formats }];
    }),
  );
  if ("refusals" in results) throw new Error("a result validator the tool's own module compiled was refused");
  const top = header(version, source);
  const files: EmittedFiles = new Map([
    ...toolFiles,
    ["index.ts", spellHidden(top + String(catalogModule(tools)))],
    ["validators.d.ts", spellHidden(top + String(catalogValidatorsDeclarations(tools)))],
    ["validators.js", spellHidden(top + catalogValidatorsModule(tools, assembleModule(results.validators)))],
  ]);
  // The record hashes the lock as it reads without one, so a later `--check` can answer from the committed files.
  const bare = new Map([...files, [LOCK_FILE, lockFile(tools, version, source)]]);
  files.set(LOCK_FILE, lockFile(tools, version, source, recordRun(run.context, run.read, bare)));
  return new Map([...files].sort(([a], [b]) => compareText(a, b)));
}
