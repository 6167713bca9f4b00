/**
 * `index.ts`: the catalog of every generated tool, its adapter, contract version and hash.
 */
import type { ToolModel } from "../generator/model.js";
import { type Code, ident, join, literal, propertyKey, quote, ts } from "./code.js";

/** The `index.ts` module: one import per tool, the adapters and types re-exported, and the catalog. */
export function catalogModule(tools: readonly ToolModel[]): Code {
  const imports = tools.map(
    (tool) => ts`import { ${ident(tool.names.adapter)} } from ${quote(`./${tool.folder}/adapter.js`)};`,
  );
  const typeExports = tools.map((tool) => {
    const types = [
      tool.names.result,
      tool.names.outcome,
      ...(tool.names.input === undefined ? [] : [tool.names.input]),
    ].sort();
    return join([
      ts`export type { ${join(types.map(ident), ", ")} } from ${quote(`./${tool.folder}/types.js`)};`,
      ts`export type { ${ident(tool.names.view)} } from ${quote(`./${tool.folder}/view.js`)};`,
    ]);
  });
  const entries = tools.map(
    (tool) =>
      ts`  ${propertyKey(tool.name)}: { adapter: ${ident(tool.names.adapter)}, version: ${literal(tool.version)}, sha256: ${literal(tool.contract.sha256)}, outputSchemaSha256: ${literal(tool.contract.outputSchemaSha256)} },`,
  );
  // Tools that share one output schema share one key; the first in name order answers for it.
  const byHash = new Map<string, ToolModel>();
  for (const tool of tools)
    if (!byHash.has(tool.contract.outputSchemaSha256)) byHash.set(tool.contract.outputSchemaSha256, tool);
  const validatorImports = [...byHash.values()].map(
    (tool) =>
      ts`import { validateResult as ${ident(tool.names.resultValidator)} } from ${quote(`./${tool.folder}/validate.js`)};`,
  );
  const validatorEntries = [...byHash]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([hash, tool]) => ts`  ${quote(hash)}: ${ident(tool.names.resultValidator)},`);
  const adapters = tools.map((tool) => ident(tool.names.adapter));
  return ts`${join(imports)}
${join(validatorImports)}

${join(typeExports)}

export { ${join(adapters, ", ")} };

/** Every tool toolgate generated, by its name: its adapter and the contract version and hash it was built from. */
export const catalog = {
${join(entries)}
} as const;

/**
 * Each output validator by the sha256 of its output schema in canonical JSON: what \`mcpValidatorProvider\` from
 * \`toolgate/runtime\` needs to answer an MCP client from precompiled validators.
 */
export const outputValidators = {
${join(validatorEntries)}
} as const;
`;
}
