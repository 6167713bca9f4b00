/**
 * The `unevaluatedItems` / `unevaluatedProperties` checks of `unsupported.ts`: where Ajv's record of evaluated
 * locations gives a wrong verdict (it ignores `contains` and dynamic references, keeps or loses what conditional
 * branches evaluated, compares a count that may be `true` or unset), and where `patternProperties` after a run-time
 * record makes its code throw. Each names the keyword and the structural condition, never a particular schema.
 */

import { isSchemaObject } from "../schema/guards.js";
import { pointerOf } from "../schema/pointer.js";
import type { SchemaObject } from "../schema/shapes.js";
import { readsEvaluatedLocations } from "./compiler.js";
import type { SchemaIndex, SchemaNode, UnsupportedFeature } from "./schema-index.js";

/** The property name Ajv drops from `properties` (and the like): such an entry evaluates nothing in Ajv. */
export const PROTOTYPE_NAME = "__proto__";

/** Which evaluated locations an `unevaluated*` keyword reads. */
type Location = "items" | "properties";

const CONTRIBUTORS: Record<Location, readonly string[]> = {
  items: ["prefixItems", "items", "additionalItems", "unevaluatedItems", "contains"],
  properties: ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"],
};

/** Keywords that evaluate every item: after them the evaluated-items record is `true`, not a count. */
const EVALUATES_ALL_ITEMS = ["additionalItems", "unevaluatedItems"];

/**
 * The keywords that add to the record of evaluated locations, in the order Ajv generates their code (core, then
 * untyped applicators, then the object and array groups, `unevaluated*` last), and whether Ajv merges what each
 * evaluated only on some paths (`conditional`). `if` merges unconditionally, before `then` and `else`.
 */
const EVALUATION_ORDER: ReadonlyArray<{ keyword: string; conditional: boolean; direct: boolean }> = [
  { keyword: "$ref", conditional: false, direct: false },
  { keyword: "$dynamicRef", conditional: false, direct: false },
  { keyword: "$recursiveRef", conditional: false, direct: false },
  { keyword: "anyOf", conditional: true, direct: false },
  { keyword: "oneOf", conditional: true, direct: false },
  { keyword: "allOf", conditional: false, direct: false },
  { keyword: "if", conditional: false, direct: false },
  { keyword: "then", conditional: true, direct: false },
  { keyword: "else", conditional: true, direct: false },
  { keyword: "additionalProperties", conditional: false, direct: true },
  { keyword: "properties", conditional: false, direct: true },
  { keyword: "patternProperties", conditional: false, direct: true },
  { keyword: "dependentSchemas", conditional: true, direct: false },
  { keyword: "prefixItems", conditional: false, direct: true },
  { keyword: "items", conditional: false, direct: true },
  { keyword: "additionalItems", conditional: false, direct: true },
  { keyword: "unevaluatedProperties", conditional: false, direct: true },
  { keyword: "unevaluatedItems", conditional: false, direct: true },
];

/**
 * The subschemas applied to the same instance location as a node whose evaluation can count for it, with the
 * keyword that applies each.
 */
function* inPlaceChildren(index: SchemaIndex, node: SchemaNode): Generator<{ keyword: string; child: SchemaNode }> {
  const schema = node.schema;
  if (!isSchemaObject(schema)) return;
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const child = index.nodeAt(node.document, pointerOf(node.pointer, keyword, i));
      if (child !== undefined) yield { keyword, child };
    }
  }
  // "not" is left out: what its subschema evaluates never counts (it passes only when that subschema fails).
  for (const keyword of ["if", "then", "else"]) {
    // Without "if", "then" and "else" apply to nothing (2020-12 core, section 10.2.2).
    if ((keyword === "then" || keyword === "else") && !("if" in schema)) continue;
    const child = index.nodeAt(node.document, pointerOf(node.pointer, keyword));
    if (child !== undefined) yield { keyword, child };
  }
  const dependents = schema.dependentSchemas;
  if (isSchemaObject(dependents)) {
    for (const name of Object.keys(dependents)) {
      const child = index.nodeAt(node.document, pointerOf(node.pointer, "dependentSchemas", name));
      if (child !== undefined) yield { keyword: "dependentSchemas", child };
    }
  }
  for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    const reference = schema[keyword];
    if (typeof reference !== "string") continue;
    const child = index.resolveReference(keyword === "$recursiveRef" ? "#" : reference, node);
    if (child !== undefined) yield { keyword, child };
  }
}

/** Every node applied in place from a start node (itself included), following references, each once. */
function inPlaceClosure(index: SchemaIndex, start: SchemaNode): SchemaNode[] {
  const seen = new Set<SchemaNode>([start]);
  const stack = [start];
  while (stack.length > 0) {
    const node = stack.pop() as SchemaNode;
    for (const { child } of inPlaceChildren(index, node)) {
      if (seen.has(child)) continue;
      seen.add(child);
      stack.push(child);
    }
  }
  return [...seen];
}

/**
 * Whether one schema object's own keywords record evaluated locations, as Ajv's code generators decide it: an empty
 * `properties`, `patternProperties` or `prefixItems` records nothing.
 */
function hasDirectContributor(schema: SchemaObject, location: Location, index: SchemaIndex): boolean {
  return CONTRIBUTORS[location].some((k) => {
    if (!(k in schema)) return false;
    if (k === "contains") return index.dialect === "2020-12";
    const value = schema[k];
    if (k === "properties" || k === "patternProperties") {
      return isSchemaObject(value) && Object.keys(value).some((name) => name !== PROTOTYPE_NAME);
    }
    if (Array.isArray(value)) return value.length > 0;
    return true;
  });
}

/** Whether a subschema, with everything applied in place from it, evaluates every location of a kind. */
function evaluatesAll(index: SchemaIndex, node: SchemaNode, location: Location): boolean {
  return inPlaceClosure(index, node).some((n) => {
    if (!isSchemaObject(n.schema)) return false;
    if (location === "items") return evaluatesAllItems(n.schema, index, false);
    return "additionalProperties" in n.schema || "unevaluatedProperties" in n.schema;
  });
}

/**
 * Whether Ajv keeps the record of a subschema in a variable set at run time (rather than in its generated code):
 * so it is when a conditional applicator somewhere in place below it evaluates locations of the kind, or, for
 * properties, when `patternProperties` records the names it matched.
 */
function recordIsDynamic(index: SchemaIndex, node: SchemaNode, location: Location): boolean {
  return inPlaceClosure(index, node).some(
    (n) =>
      (location === "properties" &&
        isSchemaObject(n.schema) &&
        hasDirectContributor({ patternProperties: n.schema.patternProperties }, "properties", index)) ||
      [...inPlaceChildren(index, n)].some(
        ({ keyword, child }) => CONDITIONAL_KEYWORDS.has(keyword) && contributes(index, child, location),
      ),
  );
}

const CONDITIONAL_KEYWORDS = new Set(
  EVALUATION_ORDER.filter((entry) => entry.conditional).map((entry) => entry.keyword),
);

/** Answers of {@link contributes}, per node: large schemas ask about the same subschemas many times. */
const contributionCache = new WeakMap<SchemaNode, Partial<Record<Location, boolean>>>();

/** Whether a subschema, with everything applied in place from it, records evaluated locations of a kind. */
function contributes(index: SchemaIndex, node: SchemaNode, location: Location): boolean {
  const cached = contributionCache.get(node) ?? {};
  let answer = cached[location];
  if (answer === undefined) {
    answer = inPlaceClosure(index, node).some(
      (n) => isSchemaObject(n.schema) && hasDirectContributor(n.schema, location, index),
    );
    cached[location] = answer;
    contributionCache.set(node, cached);
  }
  return answer;
}

function evaluatesAllItems(schema: SchemaObject, index: SchemaIndex, isHolder: boolean): boolean {
  // The holder's own `unevaluatedItems` reads the record; it does not add to it before being read.
  if (EVALUATES_ALL_ITEMS.some((k) => k in schema && !(isHolder && k === "unevaluatedItems"))) return true;
  // 2020-12 `items` takes every item after `prefixItems`; before 2020-12 its schema form takes all items.
  return "items" in schema && (index.dialect === "2020-12" || !Array.isArray(schema.items));
}

export function* unevaluatedLocations(index: SchemaIndex): Generator<UnsupportedFeature> {
  if (index.dialect === "draft-07") return;
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    for (const [keyword, location] of [
      ["unevaluatedItems", "items"],
      ["unevaluatedProperties", "properties"],
    ] as const) {
      if (!(keyword in node.schema) || node.schema[keyword] === true) continue;
      const why = unevaluatedProblem(index, node, location);
      if (why !== undefined) {
        yield { node, tokens: [keyword], reason: `"${keyword}" ${why}; Ajv would report wrong verdicts` };
      }
    }
  }
}

/** The keywords of one schema object that record evaluated locations of a kind, in Ajv's order. */
function contributions(index: SchemaIndex, node: SchemaNode, location: Location, holder: SchemaNode) {
  const schema = node.schema as SchemaObject;
  const children = [...inPlaceChildren(index, node)];
  return EVALUATION_ORDER.filter(({ keyword, direct }) => {
    if (!(keyword in schema)) return false;
    if (direct) {
      // The holder's own `unevaluated*` reads the record; it does not add to it before being read.
      if (node === holder && keyword.startsWith("unevaluated")) return false;
      return CONTRIBUTORS[location].includes(keyword);
    }
    return children.some((c) => c.keyword === keyword && contributes(index, c.child, location));
  });
}

/**
 * Whether what `properties` evaluated is lost only on paths where it does not matter: Ajv records it inside the
 * branch of the first `dependentSchemas` trigger that evaluates anything, so the loss is harmless when every name
 * `properties` declares is that trigger (absent trigger, absent property).
 */
function onlyWithTrigger(index: SchemaIndex, node: SchemaNode, lost: string, conditional: string): boolean {
  const schema = node.schema as SchemaObject;
  if (lost !== "properties" || conditional !== "dependentSchemas") return false;
  if (!isSchemaObject(schema.properties) || !isSchemaObject(schema.dependentSchemas)) return false;
  const trigger = Object.keys(schema.dependentSchemas).find((name) => {
    const child = index.nodeAt(node.document, pointerOf(node.pointer, "dependentSchemas", name));
    return child !== undefined && contributes(index, child, "properties");
  });
  return Object.keys(schema.properties).every((name) => name === trigger);
}

/** Why Ajv's record of evaluated locations is wrong for the `unevaluated*` keyword at a node, if it is. */
function unevaluatedProblem(index: SchemaIndex, holder: SchemaNode, location: Location): string | undefined {
  const scope = inPlaceClosure(index, holder);
  let conditionalItems = false;
  for (const node of scope) {
    const schema = node.schema;
    if (!isSchemaObject(schema)) continue;
    if ("$dynamicRef" in schema || "$recursiveRef" in schema) {
      return "depends on locations evaluated through a dynamic reference, which Ajv does not track";
    }
    if (location === "items" && index.dialect === "2020-12" && "contains" in schema) {
      return `depends on items matched by "contains", which Ajv does not count as evaluated`;
    }
    const merged = contributions(index, node, location, holder);
    const keywords = merged.map((m) => m.keyword);
    if (keywords.includes("if")) {
      const ifNode = index.nodeAt(node.document, pointerOf(node.pointer, "if")) as SchemaNode;
      if (!keywords.includes("then")) {
        return `depends on locations evaluated by an "if" whose "then" evaluates none; Ajv keeps the "if" annotations when it fails`;
      }
      if (evaluatesAll(index, ifNode, location) || recordIsDynamic(index, ifNode, location)) {
        return `depends on locations evaluated by an "if" that evaluates every location or branches itself; Ajv keeps those annotations when the "if" fails`;
      }
    }
    const firstConditional = merged.findIndex((m) => m.conditional);
    if (firstConditional < 0) continue;
    const conditional = merged[firstConditional]?.keyword as string;
    const lost = merged
      .slice(0, firstConditional)
      .find(
        (m) => !(m.keyword === "if" && conditional === "then") && !onlyWithTrigger(index, node, m.keyword, conditional),
      );
    if (lost !== undefined) {
      return `depends on locations evaluated by "${lost.keyword}" and by the conditional "${conditional}" after it; Ajv records the first only on the paths where the second applies`;
    }
    // Ajv makes the first branch's record its own: a branch that fails after a nested branch evaluated leaks.
    if (conditional === "anyOf" || conditional === "oneOf") {
      const first = [...inPlaceChildren(index, node)].find(
        ({ keyword, child }) => keyword === conditional && contributes(index, child, location),
      );
      if (first !== undefined && recordIsDynamic(index, first.child, location)) {
        return `depends on locations evaluated inside the first branch of "${conditional}" that evaluates any, which Ajv records at run time and keeps when that branch fails`;
      }
    }
    if (location === "items") conditionalItems = true;
  }
  if (conditionalItems) {
    const holderSchema = holder.schema as SchemaObject;
    const allItems = scope.some((n) => isSchemaObject(n.schema) && evaluatesAllItems(n.schema, index, n === holder));
    const countsPrefix =
      index.dialect === "2020-12" ? "prefixItems" in holderSchema : Array.isArray(holderSchema.items);
    if (allItems || !countsPrefix) {
      return `depends on items evaluated by a conditional subschema; Ajv compares that count wrongly when it is unset or covers every item`;
    }
  }
  return undefined;
}

/**
 * `patternProperties` after a keyword that leaves the record of evaluated properties in a run-time variable (a
 * conditional branch, or a subschema holding one): Ajv's code writes `record[name] = true` into it unguarded, and
 * throws a TypeError when no branch applied. Only compiled code that records evaluation has it (see
 * `createCompiler`).
 */
export function* patternPropertiesAfterBranches(index: SchemaIndex): Generator<UnsupportedFeature> {
  if (!readsEvaluatedLocations(index)) return;
  for (const node of index.nodes) {
    if (
      !isSchemaObject(node.schema) ||
      !hasDirectContributor({ patternProperties: node.schema.patternProperties }, "properties", index)
    )
      continue;
    const before = [...inPlaceChildren(index, node)].find(({ keyword, child }) =>
      ["anyOf", "oneOf", "then", "else"].includes(keyword)
        ? contributes(index, child, "properties")
        : keyword !== "dependentSchemas" && recordIsDynamic(index, child, "properties"),
    );
    if (before === undefined) continue;
    yield {
      node,
      tokens: ["patternProperties"],
      reason: `"patternProperties" beside "${before.keyword}", whose evaluated properties Ajv records at run time: the generated code would throw a TypeError when no branch applies`,
    };
  }
}
