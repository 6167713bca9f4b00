/**
 * `adapter.ts`: the typed adapter users call on every tool result, `<tool>.admit(raw, ctx?)`, and on every call's
 * arguments, `<tool>.checkInput(args)`. All behaviour lives in `@toolgate/runtime`; this file only describes the tool.
 */
import type { ToolModel } from "../generator/model/index.js";
import { type Code, ident, jsdoc, type Literal, literalBlock, own, ts } from "./code.js";

/** The tool's spec as data: everything but the functions, which are imported from the sibling modules. */
function specData(tool: ToolModel): Record<string, Literal> {
  return {
    name: tool.name,
    contract: { version: tool.version, sha256: tool.contract.sha256, file: tool.contract.relativePath },
    view: { continuation: tool.view.continuation, maxStringChars: tool.view.maxStringChars },
    limits: { ...tool.limits },
    context:
      tool.context.tokenizer === undefined ? { unit: tool.context.unit, max: tool.context.max } : { ...tool.context },
    oversize: [...tool.oversize],
    recallLimit: tool.recallLimit,
    summaryMax: tool.summaryMax,
    spillPreview: tool.spillPreview,
    retry: { ...tool.retry },
    fields: tool.fields.map((field) => ({ ...field })),
    exposeToolError: tool.exposeToolError,
    toolErrorMaxChars: tool.toolErrorChars,
    // What an oversize failure names as the argument to narrow; only where the input has one.
    ...(tool.pageArgument === undefined ? {} : { pageArgument: tool.pageArgument }),
    // How the tool answers.
    result: resultData(tool),
    // The server's own name only where it is not the tool's.
    mcp: tool.serverName === undefined ? {} : { name: tool.serverName },
    // Written only for a contract in observe mode: enforcement is the runtime's default.
    ...(tool.mode === "observe" ? { mode: tool.mode } : {}),
  };
}

/** The spec's `result` entry (the runtime's `ResultSpec`): the kind, the text bounds, the content rules. */
function resultData(tool: ToolModel): Literal {
  const { kind, text, content } = tool.resultKind;
  const rules: Record<string, Literal> = { maxBlocks: content.maxBlocks };
  for (const key of ["text", "image", "audio", "resourceLink", "resource"] as const) {
    const rule = content[key];
    if (rule !== undefined) rules[key] = { ...rule };
  }
  return text === undefined ? { kind, content: rules } : { kind, text: { ...text }, content: rules };
}

/** The spec's `view` entry: its settings, and the plan that view.ts declares. */
function viewEntry(tool: ToolModel): Code {
  const continuation = tool.view.continuation === undefined ? own("") : ts` continuation: ${tool.view.continuation},`;
  return ts`  view: {${continuation} maxStringChars: ${tool.view.maxStringChars}, plan: viewPlan },`;
}

/** The `adapter.ts` module of one tool. */
export function adapterModule(tool: ToolModel): Code {
  const { names } = tool;
  const data = specData(tool);
  const hasResult = tool.result !== undefined;
  const inputType = names.input === undefined ? own("never") : ident(names.input);
  const typeImports = [names.result, ...(names.input === undefined ? [] : [names.input])].sort();
  // A text or content result has no validator (and, without an input schema, no validate module).
  const imported = [...(names.input === undefined ? [] : ["validateInput"]), ...(hasResult ? ["validateResult"] : [])];
  const validators =
    imported.length === 0 ? own("") : ts`import { ${own(imported.join(", "))} } from "./validate.js";\n`;
  // The view plan is declared once, in view.ts; the spec refers to it.
  const entries = Object.keys(data)
    .sort()
    .map((key) =>
      key === "view" ? viewEntry(tool) : own(`  ${key}: ${literalBlock(data[key] as Literal, "  ").text},`),
    );
  return ts`import { defineTool } from "@toolgate/runtime";
import type { ${own(typeImports.join(", "))} } from "./types.js";
${validators}import { buildView, type ${ident(names.view)}, viewPlan } from "./view.js";

${jsdoc(tool.contract.description)}export const ${ident(names.adapter)} = defineTool<${ident(names.result)}, ${ident(names.view)}, ${inputType}>({
${own(entries.map((e) => e.text).join("\n"))}
  buildView,${own(hasResult ? "\n  validateResult," : "")}${own(names.input === undefined ? "" : "\n  validateInput,")}
});
`;
}
