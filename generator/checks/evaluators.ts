/**
 * The subschemas that may evaluate a value's items or properties in place: what `unevaluatedItems` and
 * `unevaluatedProperties` see. An item or a key that one of them may evaluate meets that subschema instead of the
 * `unevaluated*` schema, so the walker bounds it by either.
 */

import { isSchema, isSchemaObject } from "../schema/guards.js";
import { pointerOf } from "../schema/pointer.js";
import type { SchemaObject } from "../schema/shapes.js";
import { type Located, type LocatedSchema, patternEntries } from "./schema-reading.js";

/** The subschemas that may evaluate items or properties in place (annotations seen by `unevaluated*`). */
export interface Evaluators {
  /** Property name → schemas that declare it. */
  names: Map<string, LocatedSchema[]>;
  /** patternProperties anywhere in the tree. */
  patterns: Array<{ pattern: string; schema: LocatedSchema }>;
  /** Schemas that may evaluate any key or any item (`additionalProperties`, `items`, `unevaluated*`, `contains`…). */
  any: LocatedSchema[];
}

/** Where a `#/…` reference leads inside the schema being checked, or undefined when it leads nowhere. */
export type Resolve = (ref: string) => LocatedSchema | undefined;

/**
 * Every in-place subschema below conjunct `c` (through `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
 * `dependentSchemas` and `$ref`) that may evaluate its properties or its items, iteratively and each once.
 */
export function collectEvaluators(c: Located, of: "properties" | "items", resolve: Resolve): Evaluators {
  const out: Evaluators = { names: new Map(), patterns: [], any: [] };
  const seen = new Set<string>([c.pointer]);
  const todo: LocatedSchema[] = inPlaceChildren(c.pointer, c.node, resolve, out);
  while (todo.length > 0) {
    const next = todo.pop() as LocatedSchema;
    if (seen.has(next.pointer) || !isSchemaObject(next.node)) continue;
    seen.add(next.pointer);
    const here = { pointer: next.pointer, node: next.node };
    if (of === "properties") addPropertyEvaluators(here, out);
    else addItemEvaluators(here, out);
    todo.push(...inPlaceChildren(next.pointer, next.node, resolve, out));
  }
  return out;
}

/** The keywords of one in-place schema that may evaluate properties: named, by pattern, or any key. */
function addPropertyEvaluators({ pointer, node }: Located, out: Evaluators): void {
  if (isSchemaObject(node.properties)) {
    for (const [name, sub] of Object.entries(node.properties)) {
      if (!isSchema(sub)) continue;
      const list = out.names.get(name) ?? [];
      list.push({ pointer: pointerOf(pointer, "properties", name), node: sub });
      out.names.set(name, list);
    }
  }
  out.patterns.push(...patternEntries({ pointer, node }));
  for (const keyword of ["additionalProperties", "unevaluatedProperties"]) {
    const sub = node[keyword];
    if (isSchema(sub) && sub !== false) out.any.push({ pointer: pointerOf(pointer, keyword), node: sub });
  }
}

/** The keywords of one in-place schema that may evaluate items: every tuple position and every rest schema. */
function addItemEvaluators({ pointer, node }: Located, out: Evaluators): void {
  for (const keyword of ["prefixItems", "items"]) {
    const list = node[keyword];
    if (Array.isArray(list)) {
      list.forEach((sub, i) => {
        if (isSchema(sub)) out.any.push({ pointer: pointerOf(pointer, keyword, i), node: sub });
      });
    }
  }
  for (const keyword of ["items", "additionalItems", "contains", "unevaluatedItems"]) {
    const sub = node[keyword];
    if (isSchema(sub) && sub !== false) out.any.push({ pointer: pointerOf(pointer, keyword), node: sub });
  }
}

/** The subschemas applied in place to the same value, whose annotations `unevaluated*` sees. */
function inPlaceChildren(pointer: string, node: SchemaObject, resolve: Resolve, out: Evaluators): LocatedSchema[] {
  const children: LocatedSchema[] = [];
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = node[keyword];
    if (Array.isArray(list)) {
      list.forEach((sub, i) => {
        if (isSchema(sub)) children.push({ pointer: pointerOf(pointer, keyword, i), node: sub });
      });
    }
  }
  for (const keyword of ["if", "then", "else"]) {
    const sub = node[keyword];
    if (isSchema(sub)) children.push({ pointer: pointerOf(pointer, keyword), node: sub });
  }
  for (const keyword of ["dependentSchemas", "dependencies"]) {
    const map = node[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [name, sub] of Object.entries(map)) {
      if (isSchema(sub)) children.push({ pointer: pointerOf(pointer, keyword, name), node: sub });
    }
  }
  if (typeof node.$ref === "string") {
    const target = resolve(node.$ref);
    // An unreadable target may evaluate anything: count it as evaluating every key and item.
    if (target === undefined) out.any.push({ pointer: pointerOf(pointer, "$ref"), node: true });
    else children.push(target);
  }
  for (const keyword of ["$dynamicRef", "$recursiveRef"]) {
    if (node[keyword] !== undefined) out.any.push({ pointer: pointerOf(pointer, keyword), node: true });
  }
  return children;
}
