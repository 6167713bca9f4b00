/**
 * `validate.js` and `validate.d.ts`: the standalone validators, precompiled, and their type guards.
 */
import type { ToolModel } from "../generator/model.js";
import { type Code, ident, own, ts } from "./code.js";

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
  return ts`import type { ValidateFunction } from "toolgate/runtime";
import type { ${own(types.join(", "))} } from "./types.js";

/** Check a result against the output schema, as a whole. */
export declare const validateResult: ValidateFunction<${ident(names.result)}>;
${input}`;
}
