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

/**
 * The `validate.d.ts` module of one tool: each validator is a type guard for its type. A text or content result has
 * no output schema, so no result validator.
 */
export function validateDeclarations(tool: ToolModel): Code {
  const { names } = tool;
  const hasResult = tool.result !== undefined;
  const types = [...(hasResult ? [names.result] : []), ...(names.input === undefined ? [] : [names.input])].sort();
  const input =
    names.input === undefined
      ? own("")
      : ts`
/** Check a call's arguments against the input schema. */
export declare const validateInput: ValidateFunction<${ident(names.input)}>;
`;
  const result = hasResult
    ? ts`
/** Check a result against the output schema, as a whole. */
export declare const validateResult: ValidateFunction<${ident(names.result)}>;
`
    : own("");
  return ts`import type { ValidateFunction } from "@toolgate/runtime";
import type { ${own(types.join(", "))} } from "./types.js";
${result}${input}`;
}

/**
 * The `validate.js` module of one tool: its result validator, re-exported from the catalog module, and the module
 * body of its input validator (exported as `validateInput`) where it has one.
 */
export function validateModule(tool: ToolModel, inputModule: string | undefined): string {
  const reexport =
    tool.result === undefined
      ? ""
      : String(ts`export { ${ident(tool.names.resultValidator)} as validateResult } from "../validators.js";\n`);
  return inputModule === undefined ? reexport : `${reexport}${inputModule.trimEnd()}\n`;
}

/**
 * The MCP client's validators by the hash of the output schema as written (as the server advertises it): each tool's
 * result validator, or, where `x-toolgate.refine` narrowed the schema, the validator of the advertised schema.
 * Tools that share one output schema share one entry; the first in name order answers for it. A text or content
 * result has no schema and no entry.
 */
function byOutputSchema(tools: readonly ToolModel[]): Array<[string, { tool: ToolModel; validator: string }]> {
  const byHash = new Map<string, { tool: ToolModel; validator: string }>();
  for (const tool of tools) {
    const hash = tool.contract.outputSchemaSha256;
    if (hash === undefined || tool.result === undefined || byHash.has(hash)) continue;
    byHash.set(hash, { tool, validator: tool.names.advertisedValidator ?? tool.names.resultValidator });
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
  const entries = byOutputSchema(tools).map(([hash, entry]) => ts`  ${quote(hash)}: ${ident(entry.validator)},`);
  return `${resultValidators.trimEnd()}\n\n${String(ts`${own(OUTPUT_VALIDATORS_DOC)}
export const outputValidators = Object.freeze({
${join(entries)}
});
`)}`;
}

/** The catalog's `validators.d.ts`: each result validator a type guard for its tool's result type. */
export function catalogValidatorsDeclarations(all: readonly ToolModel[]): Code {
  const tools = all.filter((tool) => tool.result !== undefined);
  const imports = tools.map(
    (tool) => ts`import type { ${ident(tool.names.result)} } from ${quote(`./${tool.folder}/types.js`)};`,
  );
  const validators = tools.flatMap((tool) => {
    const { names } = tool;
    const refined = ts`${jsdoc(`Check a result of ${tool.name} against its output schema, as a whole.`)}export declare const ${ident(names.resultValidator)}: ValidateFunction<${ident(names.result)}>;`;
    if (names.advertisedValidator === undefined) return [refined];
    const advertised = ts`${jsdoc(`Check a result of ${tool.name} against its output schema as the server advertises it, without the contract's refinements (for the MCP client; the gate runs the refined one).`)}export declare const ${ident(names.advertisedValidator)}: ValidateFunction<unknown>;`;
    return [refined, advertised];
  });
  const entries = byOutputSchema(tools).map(([hash, { tool }]) =>
    tool.names.advertisedValidator === undefined
      ? ts`  readonly ${quote(hash)}: ValidateFunction<${ident(tool.names.result)}>;`
      : ts`  readonly ${quote(hash)}: ValidateFunction<unknown>;`,
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
