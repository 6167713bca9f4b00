/**
 * `index.ts`: the catalog of every generated tool, its adapter, contract version and hash.
 */
import type { ToolModel } from "../generator/model/index.js";
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
  const adapters = tools.map((tool) => ident(tool.names.adapter));
  return ts`${join(imports)}

${join(typeExports)}

export { ${join(adapters, ", ")} };

/** Every tool toolgate generated, by its name: its adapter and the contract version and hash it was built from. */
export const catalog = {
${join(entries)}
} as const;

// The validators an MCP client needs live in validators.js, which loads no adapter and no gate.
export { outputValidators } from "./validators.js";
`;
}
