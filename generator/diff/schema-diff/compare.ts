/**
 * Semantic comparison of two versions of one schema: which values does the new version accept that the old one did
 * not (`wider`), which does it refuse that the old one accepted (`narrower`)?
 *
 * Both bundled schemas (every `$ref` a `#/…` pointer) are walked in parallel: properties by name, `prefixItems` by
 * position, `items`, `additionalProperties`, `anyOf`/`oneOf` branches matched by content, `not` with the direction
 * turned round. Each schema is first flattened (`flatten.ts`): what a `$ref` points at and the branches of `allOf`
 * are merged into one set of keywords, so a definition moved behind a `$ref`, keys reordered or a file reformatted
 * is no change at all, while a change inside a referenced definition is found wherever it is used. Keywords are
 * compared as sets and bounds (`type`, `enum`/`const`, `required`, numeric and length bounds, open or closed
 * objects), never as text: one rule per keyword family, in `keywords/`, listed below.
 *
 * The walk is iterative (a hostile contract may nest deeper than the call stack allows) and stops at a `$ref` cycle.
 */
import type { JsonSchema } from "../../schema/shapes.js";
import { canonical, type Flat, hasUnevaluated, type Located } from "./flat.js";
import { flatten } from "./flatten.js";
import { compareAnnotations } from "./keywords/annotations.js";
import { contains, items } from "./keywords/arrays.js";
import { countBounds, multipleOf, numericBounds, uniqueItems } from "./keywords/bounds.js";
import { allOf, branches, not } from "./keywords/composition.js";
import { conditional } from "./keywords/conditionals.js";
import { dependencies } from "./keywords/dependencies.js";
import { values } from "./keywords/enum-const.js";
import { additionalProperties, patternProperties, properties, propertyNames, required } from "./keywords/objects.js";
import { references } from "./keywords/refs.js";
import { format, pattern } from "./keywords/strings.js";
import { types } from "./keywords/types.js";
import { evaluation } from "./keywords/unevaluated.js";
import { Rows, type SchemaChange } from "./rows.js";
import type { ChildOptions, Comparison, KeywordRule } from "./rule.js";

export type { SchemaChange } from "./rows.js";

/** One version of a schema, as the comparison reads it. */
export interface SchemaVersion {
  /** The bundled schema: every `$ref` is a `#/…` pointer into it. */
  schema: JsonSchema;
  /** Whether `format` is asserted by the validator (`x-toolgate.formats: "assert"`) or only an annotation. */
  formatsAsserted: boolean;
}

/**
 * The keyword rules, in the order their changes are reported for one schema (its children come after all of them).
 * A keyword no rule names is compared as an annotation, last.
 */
const KEYWORD_RULES: readonly KeywordRule[] = [
  evaluation,
  types,
  values,
  numericBounds,
  countBounds,
  multipleOf,
  uniqueItems,
  pattern,
  format,
  required,
  properties,
  additionalProperties,
  patternProperties,
  propertyNames,
  dependencies,
  items,
  contains,
  branches,
  allOf,
  not,
  conditional,
  references,
];

/** Keywords some rule compares by meaning. */
const COMPARED: ReadonlySet<string> = new Set(KEYWORD_RULES.flatMap((rule) => rule.keywords));

/** Schema nesting followed before the rest of a branch is compared as text. */
const MAX_DEPTH = 1000;
/** Schema pairs compared before repeated pairs (a definition used in many places) are compared only once. */
const MAX_PAIRS = 20_000;

/** Two versions of one subschema to compare, and how they were reached. */
interface Pair {
  before: Located;
  after: Located;
  path: string;
  /** Under `not`: a wider subschema makes the whole narrower. */
  flipped: boolean;
  /**
   * Inside a `oneOf` whose branches may overlap: accepting more in here may make the whole accept less, so every
   * change in here is `different`.
   */
  exclusive: boolean;
  depth: number;
  /**
   * An enclosing schema has `unevaluatedProperties`/`unevaluatedItems` and this one applies in place (a branch, a
   * dependent schema): a property or item it declares is "evaluated" there, so declaring or dropping one may change
   * what the enclosing keyword refuses, in either direction.
   */
  unevaluated: boolean;
  /** The identities compared on the way here, to stop at a `$ref` cycle. */
  ancestors: Ancestry | undefined;
}

interface Ancestry {
  key: string;
  parent: Ancestry | undefined;
}

/** Compare two versions of a schema. Changes come in document order: a schema's own keywords, then its children. */
export function compareSchemas(before: SchemaVersion, after: SchemaVersion): SchemaChange[] {
  return new SchemaComparison(before, after).run();
}

class SchemaComparison {
  readonly changes: SchemaChange[] = [];
  readonly #stack: Pair[] = [];
  readonly #compared = new Set<string>();

  constructor(
    readonly before: SchemaVersion,
    readonly after: SchemaVersion,
  ) {}

  run(): SchemaChange[] {
    this.#stack.push({
      before: { schema: this.before.schema, at: "" },
      after: { schema: this.after.schema, at: "" },
      path: "",
      flipped: false,
      exclusive: false,
      depth: 0,
      unevaluated: false,
      ancestors: undefined,
    });
    while (this.#stack.length > 0) {
      const pair = this.#stack.pop() as Pair;
      const children: Pair[] = [];
      this.#comparePair(pair, children);
      for (let i = children.length - 1; i >= 0; i--) this.#stack.push(children[i] as Pair);
    }
    return this.changes;
  }

  /** Compare one pair: its own keywords, rule by rule, queueing the subschema pairs below it in `children`. */
  #comparePair(pair: Pair, children: Pair[]): void {
    const b = flatten(pair.before, this.before.schema);
    const a = flatten(pair.after, this.after.schema);
    const key = `${b.identity}\n${a.identity}\n${pair.flipped}`;
    for (let up = pair.ancestors; up !== undefined; up = up.parent) if (up.key === key) return;
    if (this.#compared.size >= MAX_PAIRS && this.#compared.has(key)) return;
    this.#compared.add(key);

    if (pair.depth > MAX_DEPTH || b.never || a.never) {
      this.#compareWhole(pair, b, a);
      return;
    }
    const inPlace = pair.unevaluated || hasUnevaluated(b) || hasUnevaluated(a);
    const rows = this.#rows(pair, b, a, inPlace);
    const comparison: Comparison = {
      before: b,
      after: a,
      path: pair.path,
      flipped: pair.flipped,
      unevaluated: pair.unevaluated,
      inPlace,
      formatsAsserted: { before: this.before.formatsAsserted, after: this.after.formatsAsserted },
      add: (row) => rows.add(row),
      child: (before, after, path, options) =>
        children.push(childPair(pair, { key, inPlace }, { before, after, path, ...options })),
      flatten: (schema, side) => flatten(schema, this[side].schema),
    };
    for (const rule of KEYWORD_RULES) rule.compare(comparison);
    compareAnnotations(comparison, COMPARED);
  }

  /** The recorder of one pair's changes, which turns each for where the pair sits. */
  #rows(pair: Pair, b: Flat, a: Flat, inPlace: boolean): Rows {
    return new Rows(this.changes, { path: pair.path, flipped: pair.flipped, exclusive: pair.exclusive, inPlace }, b, a);
  }

  /** A pair compared as a whole: nested too deep to follow, or one side accepts no value at all. */
  #compareWhole(pair: Pair, b: Flat, a: Flat): void {
    const rows = this.#rows(pair, b, a, false);
    if (pair.depth > MAX_DEPTH) {
      if (canonical(pair.before.schema) !== canonical(pair.after.schema)) {
        const summary = "schema nested too deeply to compare: changed";
        rows.add({ kind: "too-deep-to-compare", direction: "different", summary });
      }
      return;
    }
    if (b.never && !a.never) {
      const summary = "accepts values where it accepted none";
      rows.add({ kind: "values-allowed", direction: "wider", summary, before: false, after: pair.after.schema });
    }
    if (a.never && !b.never) {
      const summary = "accepts no value at all";
      rows.add({ kind: "values-refused", direction: "narrower", summary, before: pair.before.schema, after: false });
    }
  }
}

/** Two subschemas below a pair, where a rule found them. */
interface Child extends ChildOptions {
  before: Located;
  after: Located;
  /** Their instance location. */
  path: string;
}

/**
 * The pair of two subschemas below `parent`.
 * @param via the parent's key (for the cycle check) and whether it sits under an `unevaluated*` keyword
 */
function childPair(parent: Pair, via: { key: string; inPlace: boolean }, child: Child): Pair {
  // Only an applicator in place (same instance location) is seen by the enclosing `unevaluated*`.
  const unevaluated = child.path === parent.path && via.inPlace;
  return {
    before: child.before,
    after: child.after,
    path: child.path,
    flipped: child.flipped ?? parent.flipped,
    // An in-place applicator under `unevaluated*` counts only while it passes: narrowing it can drop what it
    // evaluated and so refuse more, or (in Ajv) accept more. Every change in it goes both ways.
    exclusive: parent.exclusive || child.exclusive === true || unevaluated,
    depth: parent.depth + 1,
    unevaluated,
    ancestors: { key: via.key, parent: parent.ancestors },
  };
}
