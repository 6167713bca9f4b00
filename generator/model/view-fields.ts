/**
 * The instance paths of a result that reach the model view: what the lock records and what a review compares.
 */

import { pointerOf } from "../schema/pointer.js";
import type { TypedPlan } from "./view-plan.js";

/** The instance paths that reach the model view (`*` for every item of an array). */
export function viewFields(plan: TypedPlan, path = ""): string[] {
  switch (plan.kind) {
    case "object":
      return Object.keys(plan.properties)
        .sort()
        .flatMap((name) => {
          const child = pointerOf(path, name);
          return [
            child,
            ...viewFields((plan.properties[name] as { plan: TypedPlan }).plan, child).filter((p) => p !== child),
          ];
        });
    case "array":
      return viewFields(plan.items, `${path}/*`);
    case "tuple":
      return [
        ...new Set([...plan.items, ...(plan.rest ? [plan.rest] : [])].flatMap((p) => viewFields(p, `${path}/*`))),
      ].sort();
    case "union":
      return [...new Set(plan.options.flatMap((p) => viewFields(p, path)))].sort();
    case "media":
      // The media itself reaches the model (as a part), and so do the fields of an object of another shape.
      return plan.form === "block" && plan.otherwise !== undefined
        ? [...new Set([...(path === "" ? [] : [path]), ...viewFields(plan.otherwise, path)])].sort()
        : path === ""
          ? []
          : [path];
    default:
      return path === "" ? [] : [path];
  }
}
