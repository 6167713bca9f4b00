/**
 * `view.ts`: the bounded, model-facing type of a tool's result, the plan that makes it, and the function that builds it.
 */

import type { ToolModel } from "../generator/model/index.js";
import { runtimePlan, type TypedPlan } from "../generator/model/view-plan.js";
import { type Code, ident, join, literalBlock, own, quote, ts, typeKey } from "./code.js";
import { projector } from "./projector.js";

/** The TypeScript type of a view made by `plan`. */
export function viewType(plan: TypedPlan, indent = ""): Code {
  switch (plan.kind) {
    case "value":
      return join(plan.types.map(own), " | ");
    case "string":
      return plan.literals === undefined
        ? ts`string`
        : join(
            plan.literals.map((text) => quote(text)),
            " | ",
          );
    case "array":
      return ts`Array<${viewType(plan.items, indent)}>`;
    case "tuple": {
      const members = [...plan.items, ...(plan.rest === undefined ? [] : [plan.rest])].map((p) => viewType(p, indent));
      return members.length === 0 ? ts`never[]` : ts`Array<${join(members, " | ")}>`;
    }
    case "union":
      return join(
        plan.options.map((option) => viewType(option, indent)),
        " | ",
      );
    case "any":
      return ts`unknown`;
    case "media": {
      const description = ts`{ readonly type: "image" | "audio" | "blob"; readonly mimeType: string; readonly bytes: number }`;
      return plan.form === "block" && plan.otherwise !== undefined
        ? ts`${description} | ${viewType(plan.otherwise, indent)}`
        : description;
    }
    case "object": {
      const inner = `${indent}  `;
      const names = Object.keys(plan.properties).sort();
      if (names.length === 0) return ts`{ readonly [key: string]: never }`;
      const lines = names.map((name) => {
        const property = plan.properties[name] as { plan: TypedPlan; required: boolean };
        const optional = property.required ? "" : "?";
        return ts`${own(inner)}readonly ${typeKey(name)}${own(optional)}: ${viewType(property.plan, inner)};`;
      });
      return ts`{\n${join(lines)}\n${own(indent)}}`;
    }
  }
}

/**
 * TypeScript gives no contextual type to an object literal under a key that names an `Object.prototype` member
 * (`constructor`, `toString`, …), so `kind: "string"` there would widen to `string`: such a plan node gets an
 * explicit ` satisfies ViewPlan`.
 */
function prototypeMemberPlan(key: string, value: unknown): Code | undefined {
  return key in Object.prototype && typeof value === "object" && value !== null
    ? own(" satisfies ViewPlan")
    : undefined;
}

/**
 * The `view.ts` module of a text or content result: the runtime's `TextView` as the view type. The gate builds that
 * view in its own view stage (whole lines from the head and tail within the context budget, the gap marked, media
 * and links described) and never calls `buildView`, which the spec still declares: called directly, with no budget
 * to fit, it shows nothing and says what it left out.
 */
function textViewModule(tool: ToolModel): Code {
  const { names } = tool;
  const plan = runtimePlan(tool.view.plan);
  const content = tool.resultKind.kind === "content";
  const omission = content
    ? own(`{ path: "", kind: "items", count: data.length }`)
    : own(`{ path: "", kind: "omitted", count: data.length }`);
  return ts`import type { Projection, TextView, ViewPlan } from "@toolgate/runtime";
import type { ${ident(names.result)} } from "./types.js";

/** What the model may see of a ${own(content ? "content" : "text")} result: whole lines within the context budget, media and links described. */
export type ${ident(names.view)} = TextView;

/** A result without a schema has no fields to plan: the gate's text view shows it. */
export const viewPlan: ViewPlan = ${literalBlock(plan as never, "")};

/**
 * The gate makes this result's view itself, within the context budget (read \`outcome.view\`), and never calls this
 * function: called directly, it shows nothing of the result and says what it left out.
 */
export function buildView(data: ${ident(names.result)}): Projection<${ident(names.view)}> {
  const empty = data.length === 0;
  return {
    view: { text: "", lines: 0, media: [], links: [] },
    complete: empty,
    omissions: empty ? [] : [${omission}],
  };
}
`;
}

/** The `view.ts` module of one tool. */
export function viewModule(tool: ToolModel): Code {
  if (tool.result === undefined) return textViewModule(tool);
  const { names } = tool;
  const plan = runtimePlan(tool.view.plan);
  const projection = projector(plan, tool.view.maxStringChars, ident(names.view).text);
  return ts`import {
  finishView,
  LEFT_OUT,
  type Projection,
  project,
  startView,
  type ViewBuild,
  type ViewPlan,
  viewDefine,
  viewKeysFree,
  viewNode,
  viewPlanAt,
  viewText,
  viewValue,
} from "@toolgate/runtime";
import type { ${ident(names.result)} } from "./types.js";

/** What the model may see of a valid ${ident(names.result)}: declared, approved fields only, each bounded. */
export type ${ident(names.view)} = ${viewType(tool.view.plan)};

/** How the view is made: which fields, how many items, how long a string. Reviewed as part of the contract. */
export const viewPlan: ViewPlan = ${literalBlock(plan as never, "", prototypeMemberPlan)};

/**
 * Build the view of a validated result: the projection \`project(data, viewPlan)\` makes, as code over the plan's
 * own keys. Leaves \`data\` untouched. What it places is counted as it goes (\`b.size\`, the bytes of the view's JSON
 * in the model's content): each key by its cost with its colon and a comma, each container's brackets once made.
 */
export function buildView(data: ${ident(names.result)}): Projection<${ident(names.view)}> {
${projection.buildBody}
}

${projection.declarations}
`;
}
