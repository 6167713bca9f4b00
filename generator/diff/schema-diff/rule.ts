/**
 * What a keyword rule is: one function that compares one keyword (or a few that work together) of two flattened
 * versions of a schema, records the changes it finds and hands the subschemas below it back to the walk. The rules
 * are listed, in the order their changes are reported, in `compare.ts`.
 */

import type { Direction } from "../classes.js";
import type { Flat, Located } from "./flat.js";
import { acceptsAnything, subschema } from "./flat.js";
import type { Row } from "./rows.js";

/** How a subschema pair is reached, where it differs from its parent's. */
export interface ChildOptions {
  /** Under `not`: the direction turns round. The parent's by default. */
  flipped?: boolean;
  /** Every change inside goes both ways (a `oneOf` whose branches may overlap, a counted `contains`). */
  exclusive?: boolean;
}

/** Two flattened versions of one subschema, and what a rule may do with them. */
export interface Comparison {
  readonly before: Flat;
  readonly after: Flat;
  /** The instance location of the schema compared. */
  readonly path: string;
  /** Under `not`: see {@link ChildOptions.flipped}. */
  readonly flipped: boolean;
  /**
   * This schema applies in place under an enclosing `unevaluatedProperties`/`unevaluatedItems` (a branch, a
   * dependent schema): what it evaluates is part of its meaning.
   */
  readonly unevaluated: boolean;
  /** This schema sits under an enclosing (or has its own) `unevaluated*`: a property it declares is "evaluated". */
  readonly inPlace: boolean;
  /** Whether `format` is asserted, in the old and in the new version. */
  readonly formatsAsserted: { readonly before: boolean; readonly after: boolean };
  /** Record a change of this schema. */
  add(row: Row): void;
  /** Compare two subschemas below this one, after this schema's own keywords. */
  child(before: Located, after: Located, path: string, options?: ChildOptions): void;
  /** Flatten a subschema of the old or the new version. */
  flatten(schema: Located, side: "before" | "after"): Flat;
}

/** One keyword rule. */
export interface KeywordRule {
  /**
   * The keywords the rule compares by meaning. Every keyword no rule names is compared as an annotation: a change of
   * its value is reported, but changes no validation result.
   */
  readonly keywords: readonly string[];
  /** Record the changes of these keywords, and queue the subschemas below them. */
  compare(c: Comparison): void;
}

/**
 * A keyword whose absence means "no constraint" (`propertyNames`, `contains`, `not`, `then`, `else`): added is
 * narrower, removed is wider, present in both is compared inside.
 */
export function optional(c: Comparison, keyword: string, path: string, options?: ChildOptions): void {
  const { before: b, after: a } = c;
  const was = b.keys.get(keyword);
  const is = a.keys.get(keyword);
  if (was === undefined && is === undefined) return;
  const [lb, la] = [subschema(b, keyword), subschema(a, keyword)];
  // `not: X` refuses more as X accepts more: adding `not: {}` refuses everything, adding `not: false` nothing.
  // `contains: true` still asks for one item (unless `minContains` is 0), and `maxContains` counts its matches.
  const constrains = (flat: Flat, schema: Located["schema"]) =>
    keyword === "not"
      ? schema !== false
      : keyword === "contains"
        ? flat.keys.get("minContains")?.value !== 0 || flat.keys.has("maxContains")
        : !acceptsAnything(schema);
  // Adding or removing one of the applicators among these changes what an enclosing `unevaluated*` sees.
  const effect = IN_PLACE_OPTIONAL.has(keyword) ? "evaluation" : "values";
  if (was !== undefined && is !== undefined) {
    c.child(lb, la, path, options);
    return;
  }
  const added = was === undefined;
  const [flat, schema] = added ? [a, la.schema] : [b, lb.schema];
  if (!constrains(flat, schema)) return;
  const verb = added ? "added" : "removed";
  c.add({
    kind: `${keyword}-${verb}`,
    direction: added ? "narrower" : "wider",
    summary: `${keyword} ${verb}`,
    effect,
    keyword,
    ...(added ? { after: schema } : { before: schema }),
  });
}

/**
 * A keyword compared as a whole whose value changed: `{keyword}-changed`, with both values. `different` for a
 * keyword whose meaning cannot be compared (a reference left as written), `annotation` for one that only describes.
 */
export function keywordChanged(c: Comparison, keyword: string, direction: Direction): void {
  const [before, after] = [c.before.keys.get(keyword)?.value, c.after.keys.get(keyword)?.value];
  c.add({ kind: `${keyword}-changed`, direction, summary: `${keyword} changed`, keyword, before, after });
}

/** The optional keywords that apply in place (`not` applies in place too, but evaluates nothing). */
const IN_PLACE_OPTIONAL = new Set(["contains", "then", "else"]);
