/**
 * Composition: `anyOf`/`oneOf` branch by branch (matched by content, so reordering is no change), the `allOf`
 * branches that could not be merged into the schema, and `not` (with the direction turned round).
 */

import { isSchemaObject } from "../../../schema/guards.js";
import type { JsonSchema } from "../../../schema/shapes.js";
import { canonical, covers, type Flat, JSON_TYPES, type Located, typeSet, valueSet } from "../flat.js";
import { type KeywordRule, optional } from "../rule.js";

function branchesOf(flat: Flat, keyword: string): Located[] {
  const found = flat.keys.get(keyword);
  if (found === undefined || !Array.isArray(found.value)) return [];
  return found.value.map((schema, i) => ({ schema: schema as JsonSchema, at: `${found.at}/${keyword}/${i}` }));
}

/**
 * Match the branches of two versions of `anyOf`/`oneOf`: identical branches first (reordering is no change), then
 * branches of the same type or constant, then by position.
 */
function matchBranches(
  before: Located[],
  after: Located[],
): { pairs: Array<[Located, Located]>; removed: Located[]; added: Located[] } {
  const left = [...before];
  const right = [...after];
  const pairs: Array<[Located, Located]> = [];
  const take = (key: (l: Located) => string) => {
    for (let i = 0; i < left.length; ) {
      const k = key(left[i] as Located);
      const j = right.findIndex((r) => key(r) === k);
      if (j >= 0) {
        pairs.push([left[i] as Located, right[j] as Located]);
        left.splice(i, 1);
        right.splice(j, 1);
      } else i++;
    }
  };
  take((l) => canonical(l.schema));
  take((l) =>
    isSchemaObject(l.schema)
      ? canonical([l.schema.type ?? null, l.schema.const ?? null, l.schema.$ref ?? null])
      : String(l.schema),
  );
  while (left.length > 0 && right.length > 0) pairs.push([left.shift() as Located, right.shift() as Located]);
  return { pairs, removed: left, added: right };
}

/**
 * Whether no value can match two of these `oneOf` branches, as far as their types, constants or a required
 * discriminating property with constant values tell. Then `oneOf` behaves as `anyOf`: more in a branch is more in all.
 */
function disjoint(branches: Flat[]): boolean {
  const pairwise = <T>(items: T[], overlap: (x: T, y: T) => boolean) =>
    items.every((x, i) => items.every((y, j) => j <= i || !overlap(x, y)));
  const types = branches.map(typeSet);
  if (
    types.every((t) => t !== undefined) &&
    pairwise(types, (x, y) => JSON_TYPES.some((t) => covers(x, t) && covers(y, t)))
  ) {
    return true;
  }
  const shared = (x: Map<string, unknown>, y: Map<string, unknown>) => [...x.keys()].some((k) => y.has(k));
  const values = branches.map(valueSet);
  if (values.every((v) => v !== undefined) && pairwise(values as Array<Map<string, unknown>>, shared)) return true;
  const first = branches[0];
  if (first === undefined) return true;
  for (const name of first.required.keys()) {
    const tags = branches.map((flat) => {
      const property = flat.properties.get(name);
      if (!flat.required.has(name) || property === undefined || !isSchemaObject(property.schema)) return undefined;
      const { const: constant, enum: listed } = property.schema;
      if (constant !== undefined) return new Map([[canonical(constant), constant]]);
      return Array.isArray(listed) ? new Map(listed.map((v) => [canonical(v), v])) : undefined;
    });
    if (tags.every((t) => t !== undefined) && pairwise(tags as Array<Map<string, unknown>>, shared)) return true;
  }
  return false;
}

/**
 * `anyOf`/`oneOf`: added (narrower), removed (wider), or branch by branch. A branch added lets more through, one
 * removed less; inside a `oneOf` whose branches may overlap, a value matching two branches is refused, so there
 * every change goes both ways.
 */
export const branches: KeywordRule = {
  keywords: ["anyOf", "oneOf"],
  compare(c) {
    const { before: b, after: a, add } = c;
    // Adding or removing a branch (or the keyword) changes what an enclosing `unevaluated*` sees.
    const effect = "evaluation";
    for (const keyword of ["anyOf", "oneOf"]) {
      const [was, is] = [branchesOf(b, keyword), branchesOf(a, keyword)];
      if (was.length === 0 && is.length === 0) continue;
      if (was.length === 0) {
        const after = a.keys.get(keyword)?.value;
        add({ kind: `${keyword}-added`, direction: "narrower", summary: `${keyword} added`, effect, keyword, after });
        continue;
      }
      if (is.length === 0) {
        const before = b.keys.get(keyword)?.value;
        add({ kind: `${keyword}-removed`, direction: "wider", summary: `${keyword} removed`, effect, keyword, before });
        continue;
      }
      const matched = matchBranches(was, is);
      const exclusive =
        keyword === "oneOf" &&
        !(disjoint(was.map((x) => c.flatten(x, "before"))) && disjoint(is.map((y) => c.flatten(y, "after"))));
      const [narrower, wider] = exclusive ? (["different", "different"] as const) : (["narrower", "wider"] as const);
      for (const [x, y] of matched.pairs) c.child(x, y, c.path, { exclusive });
      for (const x of matched.removed) {
        const summary = `${keyword} branch removed`;
        add({
          kind: `${keyword}-branch-removed`,
          direction: narrower,
          summary,
          effect,
          pointer: x.at,
          before: x.schema,
        });
      }
      for (const y of matched.added) {
        const summary = `${keyword} branch added`;
        add({ kind: `${keyword}-branch-added`, direction: wider, summary, effect, pointer: y.at, after: y.schema });
      }
    }
  },
};

/** `allOf` branches that could not be merged: every one must hold, so one more is narrower. */
export const allOf: KeywordRule = {
  keywords: [],
  compare({ before: b, after: a, path, add, child }) {
    const [rb, ra] = [b.rest, a.rest];
    const effect = "evaluation";
    for (let i = 0; i < Math.max(rb.length, ra.length); i++) {
      const [x, y] = [rb[i], ra[i]];
      if (x !== undefined && y !== undefined) child(x, y, path);
      else if (y !== undefined) {
        const summary = "allOf branch added";
        add({ kind: "allOf-branch-added", direction: "narrower", summary, effect, pointer: y.at, after: y.schema });
      } else if (x !== undefined) {
        const summary = "allOf branch removed";
        add({ kind: "allOf-branch-removed", direction: "wider", summary, effect, pointer: x.at, before: x.schema });
      }
    }
  },
};

/** `not`: a wider subschema makes the whole narrower. */
export const not: KeywordRule = {
  keywords: ["not"],
  compare(c) {
    optional(c, "not", c.path, { flipped: !c.flipped });
  },
};
