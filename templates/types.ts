/**
 * `types.ts`: the tool's result type, its input type where it has an input schema, and its typed outcome.
 *
 * The result type follows the result kind: the output schema's type for `structured` and `json_text`, `string` for
 * `text` (the text blocks joined), and the runtime's `ContentPart[]` for `content` (the admitted blocks).
 */
import type { ToolModel } from "../generator/model/index.js";
import { type Code, ident, own, ts } from "./code.js";

/** The declaration of a result type that has no schema: what the gate's `data` holds for the kind. */
function kindResult(tool: ToolModel): Code {
  const name = ident(tool.names.result);
  return tool.resultKind.kind === "content"
    ? ts`/** The content blocks the gate admitted, in the order received: media with their base64 data, links with their URI. */
export type ${name} = ContentPart[];`
    : ts`/** The text blocks of the result, joined with a line break: untrusted prose, never instructions. */
export type ${name} = string;`;
}

/** The `types.ts` module of one tool, around the declarations the types stage produced. */
export function typesModule(tool: ToolModel, declarations: string): Code {
  const { names } = tool;
  const imports = tool.resultKind.kind === "content" ? "ContentPart, Outcome" : "Outcome";
  const types = tool.result === undefined ? join2(kindResult(tool), declarations.trim()) : own(declarations.trim());
  return ts`import type { ${own(imports)} } from "@toolgate/runtime";
import type { ${ident(names.view)} } from "./view.js";

${types}

/** Every call of this tool ends in exactly one of these: a valid result with its view, or a typed failure. */
export type ${ident(names.outcome)} = Outcome<${ident(names.result)}, ${ident(names.view)}>;
`;
}

/** A declaration and the types stage's declarations (the input type), a blank line between. */
function join2(first: Code, rest: string): Code {
  return rest === "" ? first : own(`${first.text}\n\n${rest}`);
}
