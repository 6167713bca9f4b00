/**
 * The emit stage: run every template over the tool models and collect the files, by path under the output folder.
 */
import { adapterModule } from "../templates/adapter.js";
import { catalogModule } from "../templates/catalog.js";
import type { Code } from "../templates/code.js";
import { header } from "../templates/header.js";
import { lockFile } from "../templates/lock.js";
import { typesModule } from "../templates/types.js";
import { validateDeclarations } from "../templates/validate.js";
import { viewModule } from "../templates/view.js";
import { ContractError } from "./errors.js";
import type { ToolModel } from "./model.js";
import { emitTypes } from "./types/index.js";
import { emitValidators, type ValidatorRequest } from "./validator/index.js";

/** Generated files by path (relative to the output folder, `/`-separated), in a stable order. */
export type EmittedFiles = Map<string, string>;

/** Emit the files of one tool. Throws {@link ContractError}s when the validator stage refuses the schema. */
export async function emitTool(tool: ToolModel, version: string): Promise<EmittedFiles> {
  const top = header(version, tool.contract.file);
  const requests: ValidatorRequest[] = [{ exportName: "validateResult", schema: tool.result, formats: tool.formats }];
  if (tool.input !== undefined)
    requests.push({ exportName: "validateInput", schema: tool.input, formats: tool.formats });
  const validators = emitValidators(requests);
  if ("refusals" in validators) {
    throw validators.refusals.map(
      (refusal) => new ContractError(tool.contract.file, refusal.pointer, `refused: ${refusal.reason}`),
    );
  }
  const typeRequests = [{ name: tool.names.result, schema: tool.result.bundled }];
  if (tool.input !== undefined && tool.names.input !== undefined) {
    typeRequests.push({ name: tool.names.input, schema: tool.input.bundled });
  }
  const declarations = await emitTypes(typeRequests);

  const files: EmittedFiles = new Map();
  const add = (name: string, code: Code | string) => files.set(`${tool.folder}/${name}`, top + String(code));
  add("adapter.ts", adapterModule(tool));
  add("types.ts", typesModule(tool, declarations));
  add("validate.d.ts", validateDeclarations(tool));
  add("validate.js", `${validators.code.trimEnd()}\n`);
  add("view.ts", viewModule(tool));
  return files;
}

/** The files that describe the whole catalog: `index.ts` and `toolgate.lock.json`. */
export function emitCatalog(tools: readonly ToolModel[], version: string, source: string): EmittedFiles {
  return new Map([
    ["index.ts", header(version, source) + String(catalogModule(tools))],
    ["toolgate.lock.json", lockFile(tools, version, source)],
  ]);
}
