/**
 * Recursive schemas whose validation time doubles with every level of nesting in the value.
 *
 * A validator checks a value against every subschema that applies to it, and a recursive schema applies itself
 * again to the value's children. When two different routes through the schema lead back to the same recursive
 * subschema for the same child (two `oneOf` branches that both describe the children, `items` beside `contains`,
 * an `allOf` of two schemas that both declare the `children` property), each level of nesting doubles the work:
 * a 40-byte array nested 18 deep took a quarter of a second, and every further level doubles it. The gate bounds
 * nesting (at most 64 levels), but 2^64 is no bound, and `checkInput` validates arguments before any gate runs.
 *
 * The check reads the schema as an automaton: its states are subschemas; a step goes from a subschema, through
 * in-place applicators (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `$ref`), over
 * one keyword that descends into a child (`properties/name`, `patternProperties`, `additionalProperties`,
 * `unevaluatedProperties`, `prefixItems/i`, `items`, `contains`, `unevaluatedItems`), to the child's subschema, and
 * is labelled with which children it applies to (a property name, an array index, or any other). The work spent on
 * one value nested n deep is the number of runs of n steps with the same labels, so it grows exponentially exactly
 * when the automaton is exponentially ambiguous: when some subschema has two different runs back to itself with the
 * same labels (Weber and Seidl's criterion, checked on the product of the automaton with itself). Such a schema is
 * refused.
 *
 * Only what a value can be made to take is counted: a route into a branch (`anyOf`, `oneOf`, `if`/`then`/`else`,
 * `not`) that meets a guard (`required`, `const`, `additionalProperties: false`, …) is left out, since two guarded
 * branches may exclude each other (SchemaStore's enonic schemas discriminate that way, and stay accepted). The
 * reading is conservative in two places, both rare in tool schemas: `then` and `else` count as if both applied, and
 * `unevaluatedProperties`/`unevaluatedItems` as if they applied to every child their own node does not name.
 */

import { isSchemaObject } from "../schema/guards.js";
import { escapePointerToken } from "../schema/pointer.js";
import type { JsonSchema, SchemaObject } from "../schema/shapes.js";
import type { SchemaIndex, SchemaNode, UnsupportedFeature } from "./schema-index.js";

/** Subschemas of one strongly connected part that the product check examines; past it only multi-edges are. */
const PRODUCT_LIMIT = 400;

/** Which children of a value one descending keyword applies to. */
type Descent =
  | { kind: "property"; name: string }
  | { kind: "pattern"; pattern: RegExp | undefined }
  | { kind: "otherProperties"; named: ReadonlySet<string>; patterns: readonly (RegExp | undefined)[] }
  | { kind: "index"; index: number }
  | { kind: "items"; from: number };

/** An in-place applicator of a subschema: the subschema it applies, and whether it is a branch. */
interface InPlaceEdge {
  target: number;
  conditional: boolean;
}

/** In-place applicators whose subschema may fail without failing the schema: alternatives and conditions. */
const CONDITIONAL: ReadonlySet<string> = new Set(["anyOf", "oneOf", "if", "then", "else", "not"]);

/**
 * Keywords that can make a branch fail before it descends, and that two branches can hold in ways no value meets
 * at once (`required: ["name"]` in one, `additionalProperties: false` without `name` in the other). `type` is not
 * one: two routes to the same child of a value need the same type.
 */
const GUARDS = [
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "dependentRequired",
  "propertyNames",
  "const",
  "enum",
  "minProperties",
  "maxProperties",
  "minItems",
  "maxItems",
  "not",
] as const;

/** Whether a subschema holds a guard; `additionalProperties` and `unevaluatedProperties` only as `false`. */
function hasGuard(schema: SchemaObject, keyword: (typeof GUARDS)[number]): boolean {
  if (!(keyword in schema)) return false;
  if (keyword === "additionalProperties" || keyword === "unevaluatedProperties") return schema[keyword] === false;
  return true;
}

/** A descending keyword of a subschema and the subschema it applies to the children. */
interface DescendEdge {
  descent: Descent;
  target: number;
  /** The keyword tokens from the subschema, for the message. */
  tokens: string[];
}

/** A child a step applies to: a property name, an array index, or any other property / item. */
type Label = string;
const OTHER_PROPERTY = "p*";
const OTHER_ITEM = "i*";

/** Recursive schemas where two routes lead back to the same subschema for the same child. */
export function* exponentialRecursion(index: SchemaIndex): Generator<UnsupportedFeature> {
  const ids = new Map<SchemaNode, number>(index.nodes.map((node, i) => [node, i]));
  const idOf = (schema: JsonSchema, parent: SchemaNode, tokens: string[]): number | undefined => {
    const pointer = parent.pointer + tokens.map((t) => `/${escapePointerToken(t)}`).join("");
    const node = index.nodeAt(parent.document, pointer);
    return node !== undefined && node.schema === schema ? ids.get(node) : undefined;
  };
  const inPlace: InPlaceEdge[][] = index.nodes.map(() => []);
  const descend: DescendEdge[][] = index.nodes.map(() => []);
  for (const [i, node] of index.nodes.entries()) {
    if (!isSchemaObject(node.schema)) continue;
    const edges = edgesOf(node, index, idOf, ids);
    inPlace[i] = edges.inPlace;
    descend[i] = edges.descend;
  }
  // Runs of in-place applicators from each subschema: where each ends, counted up to 2 (two is already ambiguous).
  const guarded = index.nodes.map(
    (node) => isSchemaObject(node.schema) && GUARDS.some((k) => hasGuard(node.schema as SchemaObject, k)),
  );
  const closure = index.nodes.map((_, i) => inPlaceClosure(i, inPlace, guarded));
  const stepsOf = index.nodes.map((_, from) => {
    const found: Array<{ edge: DescendEdge; count: number }> = [];
    for (const [via, count] of closure[from] as Map<number, number>)
      for (const edge of descend[via] as DescendEdge[]) found.push({ edge, count });
    return found;
  });
  const steps = (from: number) => stepsOf[from] as Array<{ edge: DescendEdge; count: number }>;

  const successors = index.nodes.map((_, i) => [...new Set(steps(i).map(({ edge }) => edge.target))]);
  for (const component of stronglyConnected(successors)) {
    const members = new Set(component);
    if (component.length === 1 && !(successors[component[0] as number] as number[]).includes(component[0] as number))
      continue;
    const labels = labelsOf(component, steps);
    const transitions = new Map<number, Map<Label, Map<number, number>>>();
    for (const from of component) {
      const byLabel = new Map<Label, Map<number, number>>();
      for (const { edge, count } of steps(from)) {
        if (!members.has(edge.target)) continue;
        for (const label of labels) {
          if (!applies(edge.descent, label)) continue;
          const targets = byLabel.get(label) ?? new Map<number, number>();
          targets.set(edge.target, Math.min(2, (targets.get(edge.target) ?? 0) + count));
          byLabel.set(label, targets);
        }
      }
      transitions.set(from, byLabel);
    }
    const ambiguous = ambiguousState(component, transitions);
    if (ambiguous === undefined) continue;
    const node = index.nodes[ambiguous] as SchemaNode;
    yield {
      node,
      tokens: [],
      reason:
        "this subschema is applied more than once to the same part of a value at every level of nesting (two routes through " +
        "allOf/anyOf/oneOf/$ref, or items beside contains, lead back to it for the same child), so the time to " +
        "validate doubles with each level: a small value nested a few dozen levels deep would take hours; let one " +
        "route describe the children, and make the others not descend into them",
    };
  }
}

/** The in-place and descending edges of one subschema. */
function edgesOf(
  node: SchemaNode,
  index: SchemaIndex,
  idOf: (schema: JsonSchema, parent: SchemaNode, tokens: string[]) => number | undefined,
  ids: ReadonlyMap<SchemaNode, number>,
): { inPlace: InPlaceEdge[]; descend: DescendEdge[] } {
  const schema = node.schema as SchemaObject;
  const inPlace: InPlaceEdge[] = [];
  const descend: DescendEdge[] = [];
  const child = (tokens: string[]): number | undefined => {
    let value: unknown = schema;
    for (const token of tokens) value = (value as Record<string, unknown> | undefined)?.[token];
    return typeof value === "boolean" || isSchemaObject(value) ? idOf(value, node, tokens) : undefined;
  };
  const addInPlace = (tokens: string[]) => {
    const id = child(tokens);
    if (id !== undefined) inPlace.push({ target: id, conditional: CONDITIONAL.has(tokens[0] as string) });
  };
  const addDescend = (tokens: string[], descent: Descent) => {
    const id = child(tokens);
    if (id !== undefined) descend.push({ descent, target: id, tokens });
  };
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const i of list.keys()) addInPlace([keyword, String(i)]);
  }
  for (const keyword of ["not", "if", "then", "else"]) addInPlace([keyword]);
  const dependents = index.dialect === "draft-07" ? "dependencies" : "dependentSchemas";
  if (isSchemaObject(schema[dependents]))
    for (const name of Object.keys(schema[dependents])) addInPlace([dependents, name]);
  for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    const reference = schema[keyword];
    if (typeof reference !== "string") continue;
    const target = index.resolveReference(keyword === "$recursiveRef" ? "#" : reference, node);
    const id = target === undefined ? undefined : ids.get(target);
    if (id !== undefined) inPlace.push({ target: id, conditional: false });
  }

  const named = new Set<string>();
  if (isSchemaObject(schema.properties)) {
    for (const name of Object.keys(schema.properties)) {
      named.add(name);
      addDescend(["properties", name], { kind: "property", name });
    }
  }
  const patterns: Array<RegExp | undefined> = [];
  if (isSchemaObject(schema.patternProperties)) {
    for (const source of Object.keys(schema.patternProperties)) {
      const pattern = compiled(source);
      patterns.push(pattern);
      addDescend(["patternProperties", source], { kind: "pattern", pattern });
    }
  }
  addDescend(["additionalProperties"], { kind: "otherProperties", named, patterns });
  addDescend(["unevaluatedProperties"], { kind: "otherProperties", named, patterns: [] });

  const tuple =
    index.dialect === "2020-12" ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  const tupleKeyword = index.dialect === "2020-12" ? "prefixItems" : "items";
  const prefix = Array.isArray(tuple) ? tuple.length : 0;
  if (Array.isArray(tuple))
    for (const i of tuple.keys()) addDescend([tupleKeyword, String(i)], { kind: "index", index: i });
  if (index.dialect === "2020-12" || !Array.isArray(schema.items))
    addDescend(["items"], { kind: "items", from: prefix });
  // Before 2020-12, additionalItems applies only beside a tuple of items.
  if (index.dialect !== "2020-12" && Array.isArray(tuple))
    addDescend(["additionalItems"], { kind: "items", from: prefix });
  addDescend(["contains"], { kind: "items", from: 0 });
  addDescend(["unevaluatedItems"], { kind: "items", from: 0 });
  return { inPlace, descend };
}

/** A patternProperties key as a regular expression (`undefined`: it may match anything, for all this check knows). */
function compiled(source: string): RegExp | undefined {
  try {
    return new RegExp(source, "u");
  } catch {
    return undefined;
  }
}

/**
 * Where runs of in-place applicators from one subschema end, with how many runs (capped at 2). A run that enters a
 * branch (`anyOf`, `oneOf`, `if`, `then`, `else`, `not`) and meets a guard there is left out: two such branches may
 * exclude each other (one requires a property the other forbids), and the check counts only runs it can prove a
 * value takes together. In-place cycles are skipped: they are infinite recursion on one value, which Ajv's code ends
 * with a stack overflow, not a cost that grows with nesting.
 */
function inPlaceClosure(
  start: number,
  inPlace: readonly (readonly InPlaceEdge[])[],
  guarded: readonly boolean[],
): Map<number, number> {
  const counts = new Map<number, number>([[start, 1]]);
  const route = new Set<number>([start]);
  const stack: Array<{ at: number; next: number; conditional: boolean }> = [{ at: start, next: 0, conditional: false }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as { at: number; next: number; conditional: boolean };
    const edges = inPlace[frame.at] as readonly InPlaceEdge[];
    if (frame.next >= edges.length) {
      route.delete(frame.at);
      stack.pop();
      continue;
    }
    const edge = edges[frame.next++] as InPlaceEdge;
    const conditional = frame.conditional || edge.conditional;
    if (route.has(edge.target) || (conditional && guarded[edge.target])) continue;
    const seen = counts.get(edge.target) ?? 0;
    counts.set(edge.target, Math.min(2, seen + 1));
    // Each arrival walks on, so what lies beyond counts every route; a third arrival adds nothing past the cap.
    if (seen >= 2 || stack.length > 10_000) continue;
    route.add(edge.target);
    stack.push({ at: edge.target, next: 0, conditional });
  }
  return counts;
}

/** The labels worth telling apart in one component: every property name and array index its steps name, and "other". */
function labelsOf(
  component: readonly number[],
  steps: (from: number) => Array<{ edge: DescendEdge; count: number }>,
): Label[] {
  const labels = new Set<Label>([OTHER_PROPERTY, OTHER_ITEM]);
  for (const from of component) {
    for (const { edge } of steps(from)) {
      if (edge.descent.kind === "property") labels.add(`p:${edge.descent.name}`);
      if (edge.descent.kind === "index") labels.add(`i:${edge.descent.index}`);
      if (edge.descent.kind === "items") labels.add(`i:${edge.descent.from}`);
    }
  }
  return [...labels].sort();
}

/** Whether a descending keyword applies to the children a label stands for. */
function applies(descent: Descent, label: Label): boolean {
  const property = label === OTHER_PROPERTY ? undefined : label.startsWith("p:") ? label.slice(2) : null;
  const index =
    label === OTHER_ITEM ? Number.POSITIVE_INFINITY : label.startsWith("i:") ? Number(label.slice(2)) : null;
  switch (descent.kind) {
    case "property":
      return property === descent.name;
    case "pattern":
      // Any other name may match any pattern.
      return (
        property !== null && (property === undefined || descent.pattern === undefined || descent.pattern.test(property))
      );
    case "otherProperties":
      if (property === null) return false;
      if (property === undefined) return true;
      return !descent.named.has(property) && !descent.patterns.some((p) => p === undefined || p.test(property));
    case "index":
      return index === descent.index;
    case "items":
      return index !== null && index >= descent.from;
  }
}

/**
 * A state of the component with two different runs back to itself over the same labels, if there is one: either a
 * step that reaches the same target twice (two routes), or, in the product automaton, a diagonal pair (q, q) in
 * the same strongly connected part as a pair (p, r) with p ≠ r.
 */
function ambiguousState(
  component: readonly number[],
  transitions: ReadonlyMap<number, ReadonlyMap<Label, ReadonlyMap<number, number>>>,
): number | undefined {
  for (const from of component) {
    for (const targets of (transitions.get(from) as ReadonlyMap<Label, ReadonlyMap<number, number>>).values())
      for (const count of targets.values()) if (count >= 2) return from;
  }
  if (component.length > PRODUCT_LIMIT) return undefined;
  const position = new Map(component.map((state, i) => [state, i]));
  const size = component.length;
  const pairSuccessors: number[][] = Array.from({ length: size * size }, () => []);
  for (const a of component) {
    for (const b of component) {
      const pair = (position.get(a) as number) * size + (position.get(b) as number);
      const fromA = transitions.get(a) as ReadonlyMap<Label, ReadonlyMap<number, number>>;
      const fromB = transitions.get(b) as ReadonlyMap<Label, ReadonlyMap<number, number>>;
      const next = new Set<number>();
      for (const [label, targetsA] of fromA) {
        const targetsB = fromB.get(label);
        if (targetsB === undefined) continue;
        for (const ta of targetsA.keys())
          for (const tb of targetsB.keys())
            next.add((position.get(ta) as number) * size + (position.get(tb) as number));
      }
      (pairSuccessors[pair] as number[]).push(...next);
    }
  }
  for (const part of stronglyConnected(pairSuccessors)) {
    if (part.length < 2) continue;
    const diagonal = part.find((pair) => Math.floor(pair / size) === pair % size);
    if (diagonal !== undefined && part.some((pair) => Math.floor(pair / size) !== pair % size)) {
      return component[diagonal % size];
    }
  }
  return undefined;
}

/** Strongly connected components of a graph given by successor lists (Tarjan's algorithm, iteratively). */
export function stronglyConnected(successors: readonly (readonly number[])[]): number[][] {
  const order = new Array<number>(successors.length).fill(-1);
  const low = new Array<number>(successors.length).fill(0);
  const onStack = new Array<boolean>(successors.length).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < successors.length; root++) {
    if (order[root] !== -1) continue;
    const frames: Array<{ at: number; next: number }> = [{ at: root, next: 0 }];
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = true;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as { at: number; next: number };
      const list = successors[frame.at] as readonly number[];
      if (frame.next < list.length) {
        const target = list[frame.next++] as number;
        if (order[target] === -1) {
          order[target] = low[target] = counter++;
          stack.push(target);
          onStack[target] = true;
          frames.push({ at: target, next: 0 });
        } else if (onStack[target]) {
          low[frame.at] = Math.min(low[frame.at] as number, order[target] as number);
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent !== undefined) low[parent.at] = Math.min(low[parent.at] as number, low[frame.at] as number);
      if (low[frame.at] === order[frame.at]) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop() as number;
          onStack[member] = false;
          component.push(member);
        } while (member !== frame.at);
        components.push(component);
      }
    }
  }
  return components;
}
