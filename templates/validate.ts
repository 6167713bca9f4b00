/**
 * The validator modules: `<tool>/validate.js` and `.d.ts` per tool, and the catalog's `validators.js` and `.d.ts`.
 *
 * Every tool's result validator lives in the one catalog module, `validators.js`: a cold start that loads every
 * tool's validators pays for one module instead of one per tool (with 45 corpus schemas under plain Node ESM the
 * module count, not the code, was most of the time). Each tool's `validate.js` stays its entry: it re-exports the
 * result validator from there and holds its own input validator. `validators.js` also exports `outputValidators`,
 * what an MCP client needs, so that client loads no adapter and no gate.
 */
import type { ToolModel } from "../generator/model/index.js";
import { type Code, ident, join, jsdoc, own, quote, ts } from "./code.js";

/** The `validate.d.ts` module of one tool: each validator is a type guard for its type. */
export function validateDeclarations(tool: ToolModel): Code {
  const { names } = tool;
  const types = [names.result, ...(names.input === undefined ? [] : [names.input])].sort();
  const input =
    names.input === undefined
      ? own("")
      : ts`
/** Check a call's arguments against the input schema. */
export declare const validateInput: ValidateFunction<${ident(names.input)}>;
`;
  return ts`import type { ValidateFunction } from "@toolgate/runtime";
import type { ${own(types.join(", "))} } from "./types.js";

/** Check a result against the output schema, as a whole. */
export declare const validateResult: ValidateFunction<${ident(names.result)}>;
${input}`;
}

/**
 * The `validate.js` module of one tool: its result validator, re-exported from the catalog module, and the module
 * body of its input validator (exported as `validateInput`) where it has one.
 */
export function validateModule(tool: ToolModel, inputModule: string | undefined): string {
  const reexport = ts`export { ${ident(tool.names.resultValidator)} as validateResult } from "../validators.js";\n`;
  return inputModule === undefined ? String(reexport) : `${String(reexport)}${inputModule.trimEnd()}\n`;
}

/** Tools that share one output schema share one entry; the first in name order answers for it. */
function byOutputSchema(tools: readonly ToolModel[]): Array<[string, ToolModel]> {
  const byHash = new Map<string, ToolModel>();
  for (const tool of tools) {
    if (!byHash.has(tool.contract.outputSchemaSha256)) byHash.set(tool.contract.outputSchemaSha256, tool);
  }
  return [...byHash].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const OUTPUT_VALIDATORS_DOC = `/**
 * Each output validator by the sha256 of its output schema in canonical JSON: what \`mcpValidatorProvider\` from
 * \`@toolgate/runtime\` needs to answer an MCP client from precompiled validators.
 */`;

/**
 * The catalog's `validators.js`: the module body holding every tool's result validator (exported under the tool's
 * `resultValidator` name, as the validator stage assembled it), then `outputValidators`.
 */
export function catalogValidatorsModule(tools: readonly ToolModel[], resultValidators: string): string {
  const entries = byOutputSchema(tools).map(
    ([hash, tool]) => ts`  ${quote(hash)}: ${ident(tool.names.resultValidator)},`,
  );
  return `${resultValidators.trimEnd()}\n\n${String(ts`${own(OUTPUT_VALIDATORS_DOC)}
export const outputValidators = Object.freeze({
${join(entries)}
});
`)}`;
}

/** The catalog's `validators.d.ts`: each result validator a type guard for its tool's result type. */
export function catalogValidatorsDeclarations(tools: readonly ToolModel[]): Code {
  const imports = tools.map(
    (tool) => ts`import type { ${ident(tool.names.result)} } from ${quote(`./${tool.folder}/types.js`)};`,
  );
  const validators = tools.map(
    (tool) =>
      ts`${jsdoc(`Check a result of ${tool.name} against its output schema, as a whole.`)}export declare const ${ident(tool.names.resultValidator)}: ValidateFunction<${ident(tool.names.result)}>;`,
  );
  const entries = byOutputSchema(tools).map(
    ([hash, tool]) => ts`  readonly ${quote(hash)}: ValidateFunction<${ident(tool.names.result)}>;`,
  );
  return ts`import type { ValidateFunction } from "@toolgate/runtime";
${join(imports)}

${join(validators, "\n\n")}

${own(OUTPUT_VALIDATORS_DOC)}
export declare const outputValidators: {
${join(entries)}
};
`;
}
