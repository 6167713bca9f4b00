/**
 * `types.ts`: the tool's result type, its input type where it has an input schema, and its typed outcome.
 */
import type { ToolModel } from "../generator/model/index.js";
import { type Code, ident, own, ts } from "./code.js";

/** The `types.ts` module of one tool, around the declarations the types stage produced. */
export function typesModule(tool: ToolModel, declarations: string): Code {
  const { names } = tool;
  return ts`import type { Outcome } from "@toolgate/runtime";
import type { ${ident(names.view)} } from "./view.js";

${own(declarations.trim())}

/** Every call of this tool ends in exactly one of these: a valid result with its view, or a typed failure. */
export type ${ident(names.outcome)} = Outcome<${ident(names.result)}, ${ident(names.view)}>;
`;
}
