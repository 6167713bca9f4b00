/**
 * The walker: bounds one schema by walking it, iteratively where schemas chain and with memo and path tables where
 * they recurse.
 *
 * For the value at hand it gathers every schema object that applies to it (the node, its `allOf`, its `$ref`
 * targets), merges them keyword by keyword into one {@link Bound} per JSON type, and descends into items and
 * properties through {@link BoundsWalker.child}, which records the path: a `$ref` back into a schema on it is
 * recursion, reported instead of followed. Every combination goes through the size algebra (`size.ts`), so the
 * walker adds no arithmetic of its own to the soundness argument.
 */

import { isSchema, isSchemaObject } from "../schema/guards.js";
import { pointerOf } from "../schema/pointer.js";
import type { Dialect, JsonSchema } from "../schema/shapes.js";
import { collectEvaluators, type Evaluators } from "./evaluators.js";
import {
  anyValueFinding,
  arrayFinding,
  dynamic,
  itemsFinding,
  MAX_SCHEMA_NESTING,
  objectFinding,
  recursion,
  stringFinding,
  tooDeep,
  unresolved,
} from "./findings.js";
import { patternMaxBytes } from "./pattern-bounds.js";
import {
  anchorFor,
  closesByUnevaluated,
  constrainsAnything,
  containsPointer,
  isCount,
  type Located,
  type LocatedSchema,
  patternEntries,
  resolvePointer,
  tupleOf,
  typeAdmits,
} from "./schema-reading.js";
import {
  anyValue,
  type Bound,
  collapse,
  type Extent,
  FIXED_SIZE_FORMATS,
  fixed,
  intersect,
  JSON_TYPES,
  knownStringBytes,
  larger,
  literalBound,
  MAX_BYTES_PER_CODE_POINT,
  MAX_BYTES_PER_CODE_UNIT,
  plus,
  SCALARS,
  type Size,
  smaller,
  times,
  unbounded,
  union,
  ZERO,
} from "./size.js";

/** What must hold for one item position or one property, contributed by one conjunct. */
type Requirement =
  /** The conjunct says nothing about it. */
  | { kind: "free" }
  /** The conjunct forbids it. */
  | { kind: "forbidden" }
  /** The value satisfies every one of these schemas. */
  | { kind: "all"; schemas: LocatedSchema[] }
  /** The value satisfies at least one of these schemas (an `unevaluated*` slot and the schemas that may evaluate it). */
  | { kind: "some"; schemas: LocatedSchema[] };

/** A requirement that the value meets every schema given. */
function all(...schemas: LocatedSchema[]): Requirement {
  return { kind: "all", schemas };
}

/**
 * The bytes of an object's entries: its braces and commas and its largest `maxProperties` entries, or all of them,
 * since any valid object holds at most that many. `unknown` is the entry of every key no conjunct declares, when
 * such keys are allowed: as many of them as `maxProperties` could be present, so they fill whatever room the
 * declared entries larger than theirs leave. They are counted, never listed: a `maxProperties` of a million was a
 * million entries sorted and summed one by one, minutes of `generate` for one contract.
 *
 * Entries are taken largest first, ties in order with the declared ones before the unknown keys' (the order a
 * stable sort of the declared entries followed by the unknown ones gives), so an unbounded result names its causes
 * in the same order whichever way the entries are held.
 */
function largestEntries(declared: Size[], maxProperties: number, unknown?: Size): Size {
  const entries = [...declared].sort((a, b) => b.n - a.n);
  const count = unknown === undefined ? Math.min(entries.length, maxProperties) : maxProperties;
  let bytes: Size = fixed(2 + Math.max(0, count - 1));
  let taken = 0;
  // Declared entries at least as large as an unknown key's come first (Infinity ties Infinity: a stable sort puts
  // the declared ones first); with no unknown keys, every declared entry is a candidate.
  for (const entry of entries) {
    if (taken === count) break;
    if (unknown !== undefined && entry.n < unknown.n) break;
    bytes = plus(bytes, entry);
    taken++;
  }
  if (unknown !== undefined && taken < count) bytes = plus(bytes, times(count - taken, unknown));
  return bytes;
}

/** Bounds the schemas of one bundled document; one walker per `checkBounds` call, its tables shared. */
export class BoundsWalker {
  private readonly memo = new Map<string, Bound>();
  /** In-place evaluator trees by conjunct, and compiled patterns: both asked for once per property name. */
  private readonly evaluatorCache = new Map<string, Evaluators>();
  private readonly patterns = new Map<string, RegExp | null>();
  /**
   * The schemas on the path from the root to the value being bounded (with how many levels hold each): a `$ref`
   * back to one of them is recursion. Each level contributes its own pointer and, for the child it descends into,
   * the schemas it applied that contain that child.
   */
  private readonly path = new Map<string, number>();
  /** The evaluations in progress, innermost last: where each started and every schema it applied. */
  private readonly levels: Array<{ start: string; applied: string[] }> = [];
  /** Before 2019-09, `$ref` replaces its schema object: siblings are ignored. */
  private readonly refReplaces: boolean;

  constructor(
    private readonly root: JsonSchema,
    dialect: Dialect,
    private readonly formats: "annotate" | "assert",
  ) {
    this.refReplaces = dialect === "draft-07";
  }

  /** The bound of the schema at `pointer`. */
  evaluate(pointer: string, node: JsonSchema): Bound {
    const known = this.memo.get(pointer);
    if (known !== undefined) return known;
    if (this.path.has(pointer)) return anyValue(recursion(pointer));
    if (this.levels.length >= MAX_SCHEMA_NESTING) return anyValue(tooDeep(pointer));
    const gathered = this.gather(pointer, node);
    this.levels.push({ start: pointer, applied: gathered.pointers });
    let result: Bound | undefined;
    try {
      // undefined: nothing here constrains the value (yet).
      result = gathered.never ? {} : this.merge(pointer, gathered.conjuncts);
      for (const bound of gathered.extra) result = result === undefined ? bound : intersect(result, bound);
      for (const disjunction of gathered.disjunctions) {
        let either: Bound = {};
        for (const branch of disjunction) either = union(either, this.child(branch));
        result = result === undefined ? either : intersect(result, either);
      }
    } finally {
      this.levels.pop();
    }
    const bound = result ?? anyValue(anyValueFinding(pointer));
    this.memo.set(pointer, bound);
    return bound;
  }

  /** Bound a subschema applied to a part of the current value (an item, a property, a branch). */
  private child(sub: LocatedSchema): Bound {
    const level = this.levels[this.levels.length - 1];
    const entered: string[] = [];
    if (level !== undefined) {
      entered.push(level.start);
      for (const p of level.applied) if (p !== level.start && containsPointer(p, sub.pointer)) entered.push(p);
    }
    for (const p of entered) this.path.set(p, (this.path.get(p) ?? 0) + 1);
    try {
      return this.evaluate(sub.pointer, sub.node);
    } finally {
      for (const p of entered) {
        const n = (this.path.get(p) ?? 1) - 1;
        if (n === 0) this.path.delete(p);
        else this.path.set(p, n);
      }
    }
  }

  /** Every schema object that applies to the same value: the node, its `allOf`, its `$ref` targets, recursively. */
  private gather(
    pointer: string,
    node: JsonSchema,
  ): {
    conjuncts: Located[];
    pointers: string[];
    never: boolean;
    extra: Bound[];
    disjunctions: LocatedSchema[][];
  } {
    const conjuncts: Located[] = [];
    const pointers: string[] = [];
    const extra: Bound[] = [];
    const disjunctions: LocatedSchema[][] = [];
    const seen = new Set<string>();
    let never = false;
    const todo: LocatedSchema[] = [{ pointer, node }];
    while (todo.length > 0) {
      const next = todo.pop() as LocatedSchema;
      // A schema applied twice to the same value adds nothing: conjunction is idempotent.
      if (seen.has(next.pointer)) continue;
      seen.add(next.pointer);
      pointers.push(next.pointer);
      if (next.node === false) {
        never = true;
        continue;
      }
      if (!isSchemaObject(next.node)) continue;
      const here = next.node;
      const children: LocatedSchema[] = [];
      if (typeof here.$ref === "string") {
        const target = this.resolve(here.$ref);
        if (target === undefined) {
          extra.push(anyValue(unresolved(next.pointer, here.$ref)));
        } else if (this.path.has(target.pointer)) {
          extra.push(anyValue(recursion(next.pointer, here.$ref)));
        } else {
          children.push(target);
        }
        if (this.refReplaces) {
          todo.push(...children);
          continue;
        }
      }
      conjuncts.push({ pointer: next.pointer, node: here });
      for (const keyword of ["$dynamicRef", "$recursiveRef"]) {
        if (here[keyword] !== undefined) extra.push(anyValue(dynamic(next.pointer, keyword)));
      }
      if (Array.isArray(here.allOf)) {
        here.allOf.forEach((sub, i) => {
          if (isSchema(sub)) children.push({ pointer: pointerOf(next.pointer, "allOf", i), node: sub });
        });
      }
      for (const keyword of ["anyOf", "oneOf"]) {
        const list = here[keyword];
        if (!Array.isArray(list)) continue;
        const branches: LocatedSchema[] = [];
        list.forEach((sub, i) => {
          if (isSchema(sub)) branches.push({ pointer: pointerOf(next.pointer, keyword, i), node: sub });
        });
        disjunctions.push(branches);
      }
      // Depth-first, in document order.
      todo.push(...children.reverse());
    }
    return { conjuncts, pointers, never, extra, disjunctions };
  }

  /** The bound of a value that meets every conjunct. */
  private merge(pointer: string, conjuncts: Located[]): Bound | undefined {
    if (conjuncts.every((c) => !constrainsAnything(c.node))) return undefined;
    let result: Bound = {};
    for (const t of JSON_TYPES) {
      if (!conjuncts.every((c) => typeAdmits(c.node.type, t))) continue;
      const anchor = anchorFor(t, conjuncts) ?? { pointer, node: {} };
      switch (t) {
        case "string":
          result.string = { bytes: this.stringBytes(conjuncts, anchor), depth: ZERO };
          break;
        case "array":
          result.array = this.arrayExtent(conjuncts, anchor);
          break;
        case "object":
          result.object = this.objectExtent(conjuncts, anchor);
          break;
        default:
          result[t] = SCALARS[t] as Extent;
      }
    }
    for (const c of conjuncts) {
      if (Array.isArray(c.node.enum)) {
        let options: Bound = {};
        c.node.enum.forEach((value, i) => {
          options = union(options, literalBound(value, pointerOf(c.pointer, "enum", i)));
        });
        result = intersect(result, options);
      }
      if (Object.hasOwn(c.node, "const")) {
        result = intersect(result, literalBound(c.node.const, pointerOf(c.pointer, "const")));
      }
    }
    return result;
  }

  private stringBytes(conjuncts: Located[], anchor: Located): Size {
    let best: Size = unbounded(stringFinding(anchor));
    for (const { node } of conjuncts) {
      if (isCount(node.maxLength)) best = smaller(fixed(2 + MAX_BYTES_PER_CODE_POINT * node.maxLength), best);
      if (typeof node.pattern === "string") {
        const chars = patternMaxBytes(node.pattern);
        if (chars !== null) best = smaller(fixed(2 + chars), best);
      }
      if (
        this.formats === "assert" &&
        typeof node.format === "string" &&
        Object.hasOwn(FIXED_SIZE_FORMATS, node.format)
      ) {
        best = smaller(fixed(2 + MAX_BYTES_PER_CODE_UNIT * (FIXED_SIZE_FORMATS[node.format] as number)), best);
      }
    }
    return best;
  }

  // ----- arrays

  private arrayExtent(conjuncts: Located[], anchor: Located): Extent {
    let maxItems = Number.POSITIVE_INFINITY;
    let positions = 0;
    for (const { node } of conjuncts) {
      if (isCount(node.maxItems)) maxItems = Math.min(maxItems, node.maxItems);
      positions = Math.max(positions, tupleOf(node)?.list.length ?? 0);
    }
    const items: Extent[] = [];
    // A position no value can fill ends the array there: a closed tuple (`items: false`) is bounded this way.
    for (let i = 0; i < positions && i < maxItems; i++) {
      const item = collapse(this.itemBound(conjuncts, anchor, i));
      if (item === undefined) {
        maxItems = i;
        break;
      }
      items.push(item);
    }
    const rest = maxItems > positions ? collapse(this.itemBound(conjuncts, anchor, "rest")) : undefined;
    if (rest === undefined) maxItems = Math.min(maxItems, items.length);
    let depth: Size = ZERO;
    for (const item of items) depth = larger(depth, item.depth);
    if (rest !== undefined) depth = larger(depth, rest.depth);
    depth = plus(depth, fixed(1));
    if (!Number.isFinite(maxItems)) {
      // A maxItems leaves the items as open as they are: name them too, so one pass lists every field to bound.
      let bytes = unbounded(arrayFinding(anchor));
      for (const item of items) bytes = plus(bytes, item.bytes);
      if (rest !== undefined) bytes = plus(bytes, rest.bytes);
      return { bytes, depth };
    }
    let bytes: Size = fixed(2 + Math.max(0, maxItems - 1));
    for (const item of items) bytes = plus(bytes, item.bytes);
    if (rest !== undefined) bytes = plus(bytes, times(maxItems - items.length, rest.bytes));
    return { bytes, depth };
  }

  /** The bound of the item at `index` (or of every item past the tuples), from every conjunct. */
  private itemBound(conjuncts: Located[], anchor: Located, index: number | "rest"): Bound {
    const requirements = conjuncts.map((c) => this.itemRequirement(c, index));
    return this.meet(requirements, () => anyValue(itemsFinding(anchor)));
  }

  private itemRequirement(c: Located, index: number | "rest"): Requirement {
    const tuple = tupleOf(c.node);
    if (tuple !== undefined && index !== "rest" && index < tuple.list.length) {
      const sub = tuple.list[index];
      return isSchema(sub) ? all({ pointer: pointerOf(c.pointer, tuple.keyword, index), node: sub }) : { kind: "free" };
    }
    // Past a tuple the rest keyword is `items` (2020-12, beside prefixItems) or `additionalItems` (array-form items).
    const restKeyword = tuple?.keyword === "items" ? "additionalItems" : "items";
    const restSchema = c.node[restKeyword];
    if (isSchema(restSchema)) return all({ pointer: pointerOf(c.pointer, restKeyword), node: restSchema });
    const unevaluated = c.node.unevaluatedItems;
    if (!isSchema(unevaluated)) return { kind: "free" };
    // An item no keyword here evaluates must meet `unevaluatedItems`; one that some in-place subschema (or
    // `contains`) evaluates meets that subschema's item schema instead. Either way it meets one of these.
    const evaluators = this.evaluators(c, "items");
    const options = [...evaluators.any];
    if (isSchema(c.node.contains)) options.push({ pointer: pointerOf(c.pointer, "contains"), node: c.node.contains });
    if (unevaluated !== false) options.push({ pointer: pointerOf(c.pointer, "unevaluatedItems"), node: unevaluated });
    return options.length === 0 ? { kind: "forbidden" } : { kind: "some", schemas: options };
  }

  // ----- objects

  private objectExtent(conjuncts: Located[], anchor: Located): Extent {
    let maxProperties = Number.POSITIVE_INFINITY;
    let noKeys = false;
    let nameBytes: Size = unbounded(objectFinding(anchor, "names"));
    const names: string[] = [];
    const listed = new Set<string>();
    const addName = (name: string) => {
      if (!listed.has(name)) {
        listed.add(name);
        names.push(name);
      }
    };
    for (const c of conjuncts) {
      if (isCount(c.node.maxProperties)) maxProperties = Math.min(maxProperties, c.node.maxProperties);
      if (isSchemaObject(c.node.properties)) for (const name of Object.keys(c.node.properties)) addName(name);
      if (closesByUnevaluated(c.node)) {
        for (const name of this.evaluators(c, "properties").names.keys()) addName(name);
      }
      const propertyNames = c.node.propertyNames;
      if (propertyNames === false) noKeys = true;
      else if (isSchema(propertyNames)) {
        const keys = this.child({ pointer: pointerOf(c.pointer, "propertyNames"), node: propertyNames }).string;
        if (keys === undefined) noKeys = true;
        else nameBytes = smaller(keys.bytes, nameBytes);
      }
    }
    if (noKeys) maxProperties = 0;

    const entries: Size[] = [];
    let depth: Size = ZERO;
    for (const name of names) {
      const value = collapse(
        this.meet(
          conjuncts.map((c) => this.propertyRequirement(c, name)),
          () => anyValue(objectFinding(anchor, "values")),
        ),
      );
      if (value === undefined) continue;
      entries.push(plus(fixed(knownStringBytes(name) + 1), value.bytes));
      depth = larger(depth, value.depth);
    }

    // Keys no conjunct declares: allowed only when every conjunct allows them.
    const unknown = conjuncts.map((c) => this.unknownKeyRequirement(c));
    const unconstrained = unknown.every((u) => u.requirement.kind === "free");
    let rest: Extent | undefined;
    if (unknown.every((u) => u.requirement.kind !== "forbidden")) {
      rest = collapse(
        this.meet(
          unknown.map((u) => u.requirement),
          () => anyValue(objectFinding(anchor, "open")),
        ),
      );
      for (const u of unknown) if (u.nameBytes !== undefined) nameBytes = smaller(u.nameBytes, nameBytes);
    }
    if (maxProperties === 0) return { bytes: fixed(2), depth: fixed(1) };
    if (rest !== undefined) {
      depth = larger(depth, rest.depth);
      if (!Number.isFinite(maxProperties)) {
        // Bounding the count leaves the values (declared and unknown) and the names as open as they are: name
        // them too. A finding at this object's pointer is listed once, with this first message.
        let bytes = unbounded(objectFinding(anchor, unconstrained ? "open" : "count"));
        for (const entry of entries) bytes = plus(bytes, entry);
        bytes = plus(bytes, plus(nameBytes, rest.bytes));
        return { bytes, depth: plus(depth, fixed(1)) };
      }
      const unknownEntry = plus(plus(nameBytes, fixed(1)), rest.bytes);
      return { bytes: largestEntries(entries, maxProperties, unknownEntry), depth: plus(depth, fixed(1)) };
    }
    return { bytes: largestEntries(entries, maxProperties), depth: plus(depth, fixed(1)) };
  }

  /** What one conjunct requires of the value of the declared key `name`. */
  private propertyRequirement(c: Located, name: string): Requirement {
    const node = c.node;
    const direct: LocatedSchema[] = [];
    const properties = node.properties;
    if (isSchemaObject(properties) && Object.hasOwn(properties, name) && isSchema(properties[name])) {
      direct.push({ pointer: pointerOf(c.pointer, "properties", name), node: properties[name] });
    }
    let mayMatchPattern = false;
    for (const { pattern, schema } of patternEntries(c)) {
      const match = this.patternMatches(pattern, name);
      // Only a sure match adds a constraint; an unreadable pattern may still let the key in (never tighter).
      if (match === true) direct.push(schema);
      if (match !== false) mayMatchPattern = true;
    }
    if (direct.length > 0) return all(...direct);
    const additional = node.additionalProperties;
    if (additional === false) return mayMatchPattern ? { kind: "free" } : { kind: "forbidden" };
    if (isSchema(additional)) return all({ pointer: pointerOf(c.pointer, "additionalProperties"), node: additional });
    if (!closesByUnevaluated(node) && !isSchema(node.unevaluatedProperties)) return { kind: "free" };
    const evaluators = this.evaluators(c, "properties");
    const options = [...(evaluators.names.get(name) ?? []), ...evaluators.any];
    for (const { pattern, schema } of evaluators.patterns) {
      if (this.patternMatches(pattern, name) !== false) options.push(schema);
    }
    const unevaluated = node.unevaluatedProperties;
    if (isSchema(unevaluated) && unevaluated !== false) {
      options.push({ pointer: pointerOf(c.pointer, "unevaluatedProperties"), node: unevaluated });
    }
    if (options.length === 0) return mayMatchPattern ? { kind: "free" } : { kind: "forbidden" };
    return { kind: "some", schemas: options };
  }

  /** What one conjunct requires of a key it does not declare, and how long such a key's name can be. */
  private unknownKeyRequirement(c: Located): { requirement: Requirement; nameBytes?: Size } {
    const node = c.node;
    const patterns = patternEntries(c);
    const additional = node.additionalProperties;
    if (isSchema(additional) && additional !== false) {
      const schemas = [{ pointer: pointerOf(c.pointer, "additionalProperties"), node: additional }];
      return { requirement: { kind: "some", schemas: [...schemas, ...patterns.map((p) => p.schema)] } };
    }
    let candidates: Array<{ pattern?: string; schema: LocatedSchema }>;
    if (additional === false) {
      candidates = patterns;
    } else if (node.unevaluatedProperties !== undefined) {
      const evaluators = this.evaluators(c, "properties");
      candidates = [...patterns, ...evaluators.patterns, ...evaluators.any.map((schema) => ({ schema }))];
      const unevaluated = node.unevaluatedProperties;
      if (isSchema(unevaluated) && unevaluated !== false) {
        candidates.push({ schema: { pointer: pointerOf(c.pointer, "unevaluatedProperties"), node: unevaluated } });
      }
    } else {
      return { requirement: { kind: "free" } };
    }
    if (candidates.length === 0) return { requirement: { kind: "forbidden" } };
    // When only patterns let unknown keys in, every such key matches one: anchored bounded patterns bound names.
    let nameBytes: Size | undefined = fixed(0);
    for (const candidate of candidates) {
      const chars = candidate.pattern === undefined ? null : patternMaxBytes(candidate.pattern);
      if (chars === null) {
        nameBytes = undefined;
        break;
      }
      nameBytes = larger(nameBytes, fixed(2 + chars));
    }
    const requirement: Requirement = { kind: "some", schemas: candidates.map((x) => x.schema) };
    return nameBytes === undefined ? { requirement } : { requirement, nameBytes };
  }

  /** The in-place subschemas of a conjunct that may evaluate properties or items (for `unevaluated*`). */
  private evaluators(c: Located, of: "properties" | "items"): Evaluators {
    const key = `${of} ${c.pointer}`;
    const known = this.evaluatorCache.get(key);
    if (known !== undefined) return known;
    const out = collectEvaluators(c, of, (ref) => this.resolve(ref));
    this.evaluatorCache.set(key, out);
    return out;
  }

  /** The bound of a value meeting every requirement; `free` everywhere means any value, for the reason given. */
  private meet(requirements: Requirement[], whenFree: () => Bound): Bound {
    let result: Bound | undefined;
    for (const r of requirements) {
      let bound: Bound;
      if (r.kind === "free") continue;
      if (r.kind === "forbidden") return {};
      if (r.kind === "all") {
        bound = {};
        r.schemas.forEach((s, i) => {
          bound = i === 0 ? this.child(s) : intersect(bound, this.child(s));
        });
      } else {
        bound = {};
        for (const s of r.schemas) bound = union(bound, this.child(s));
      }
      result = result === undefined ? bound : intersect(result, bound);
    }
    return result ?? whenFree();
  }

  /** Whether a key matches a `patternProperties` pattern (as Ajv compiles it); undefined when it does not compile. */
  private patternMatches(pattern: string, key: string): boolean | undefined {
    let re = this.patterns.get(pattern);
    if (re === undefined) {
      try {
        re = new RegExp(pattern, "u");
      } catch {
        re = null;
      }
      this.patterns.set(pattern, re);
    }
    return re === null ? undefined : re.test(key);
  }

  private resolve(ref: string): LocatedSchema | undefined {
    return resolvePointer(this.root, ref);
  }
}
