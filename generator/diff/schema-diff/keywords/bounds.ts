/**
 * Bounds: `minimum`/`maximum` and their exclusive forms (the tightest bound on each side counts), the count bounds
 * (`minLength` … `maxContains`), `multipleOf` and `uniqueItems`.
 */
import type { Flat } from "../flat.js";
import type { ChangeEffect } from "../rows.js";
import type { KeywordRule } from "../rule.js";

/** A numeric bound: its value, whether it is exclusive, and the keyword that set it. */
interface NumericBound {
  value: number;
  exclusive: boolean;
  keyword: string;
}

type Side = "lower" | "upper";

/** The tightest lower (or upper) numeric bound of a schema. */
function numericBound(flat: Flat, side: Side): NumericBound | undefined {
  const [inclusive, exclusive] = side === "lower" ? ["minimum", "exclusiveMinimum"] : ["maximum", "exclusiveMaximum"];
  const candidates: NumericBound[] = [];
  const inc = flat.keys.get(inclusive)?.value;
  if (typeof inc === "number") candidates.push({ value: inc, exclusive: false, keyword: inclusive });
  const exc = flat.keys.get(exclusive)?.value;
  if (typeof exc === "number") candidates.push({ value: exc, exclusive: true, keyword: exclusive });
  let best: NumericBound | undefined;
  for (const candidate of candidates) if (best === undefined || tightness(candidate, best, side) > 0) best = candidate;
  return best;
}

/** > 0 when bound `x` admits fewer values than `y`. */
function tightness(x: NumericBound, y: NumericBound, side: Side): number {
  if (x.value !== y.value) return side === "lower" ? x.value - y.value : y.value - x.value;
  return Number(x.exclusive) - Number(y.exclusive);
}

/** The lowest and highest number: added, removed, raised or lowered (`minimum-raised` is narrower). */
export const numericBounds: KeywordRule = {
  keywords: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  compare({ before: b, after: a, add }) {
    for (const side of ["lower", "upper"] as const) {
      const before = numericBound(b, side);
      const after = numericBound(a, side);
      const shown = (bound: NumericBound | undefined) =>
        bound === undefined ? undefined : { [bound.keyword]: bound.value };
      const name = side === "lower" ? "minimum" : "maximum";
      const keyword = after?.keyword ?? before?.keyword ?? name;
      const values = { keyword, before: shown(before), after: shown(after) };
      if (before === undefined && after === undefined) continue;
      if (before === undefined)
        add({ kind: `${name}-added`, direction: "narrower", summary: `${name} added`, ...values });
      else if (after === undefined)
        add({ kind: `${name}-removed`, direction: "wider", summary: `${name} removed`, ...values });
      else {
        const order = tightness(after, before, side);
        const [tighter, looser] = side === "lower" ? ["raised", "lowered"] : ["lowered", "raised"];
        if (order > 0)
          add({ kind: `${name}-${tighter}`, direction: "narrower", summary: `${name} tightened`, ...values });
        if (order < 0) add({ kind: `${name}-${looser}`, direction: "wider", summary: `${name} loosened`, ...values });
      }
    }
  },
};

/** A count bound pair: its keywords, and the lower bound's value when absent. */
interface CountBound {
  lower: string;
  upper: string;
  absentLower: number;
}

const COUNT_BOUNDS: readonly CountBound[] = [
  { lower: "minLength", upper: "maxLength", absentLower: 0 },
  { lower: "minItems", upper: "maxItems", absentLower: 0 },
  { lower: "minProperties", upper: "maxProperties", absentLower: 0 },
  { lower: "minContains", upper: "maxContains", absentLower: 1 },
];

/** A count bound's value, when it is a number. */
function count(flat: Flat, keyword: string): number | undefined {
  const value = flat.keys.get(keyword)?.value;
  return typeof value === "number" ? value : undefined;
}

/** Lengths and counts: a lower bound raised or lowered (absent is its default); an upper one added, removed, moved. */
export const countBounds: KeywordRule = {
  keywords: COUNT_BOUNDS.flatMap((bound) => [bound.lower, bound.upper]),
  compare({ before: b, after: a, add }) {
    for (const { lower, upper, absentLower } of COUNT_BOUNDS) {
      // The `contains` counts decide (in Ajv) whether `contains` evaluates the items it matches.
      const effect: ChangeEffect = lower === "minContains" ? "evaluation" : "values";
      const [lb, la] = [count(b, lower), count(a, lower)];
      const [before, after] = [lb ?? absentLower, la ?? absentLower];
      const low = { effect, keyword: lower, before: lb, after: la };
      if (after > before) add({ kind: `${lower}-raised`, direction: "narrower", summary: `${lower} raised`, ...low });
      if (after < before) add({ kind: `${lower}-lowered`, direction: "wider", summary: `${lower} lowered`, ...low });

      const [ub, ua] = [count(b, upper), count(a, upper)];
      const high = { effect, keyword: upper, before: ub, after: ua };
      if (ub === undefined && ua !== undefined)
        add({ kind: `${upper}-added`, direction: "narrower", summary: `${upper} added`, ...high });
      else if (ub !== undefined && ua === undefined)
        add({ kind: `${upper}-removed`, direction: "wider", summary: `${upper} removed`, ...high });
      else if (ub !== undefined && ua !== undefined && ua !== ub) {
        if (ua < ub) add({ kind: `${upper}-lowered`, direction: "narrower", summary: `${upper} lowered`, ...high });
        else add({ kind: `${upper}-raised`, direction: "wider", summary: `${upper} raised`, ...high });
      }
    }
  },
};

/** Whether `x` is a whole multiple of `y` (within floating-point error). */
function isMultiple(x: number, y: number): boolean {
  const ratio = x / y;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

/** `multipleOf`: a coarser step accepts fewer numbers, a finer one (that divides the old) more. */
export const multipleOf: KeywordRule = {
  keywords: ["multipleOf"],
  compare({ before: b, after: a, add }) {
    const mb = b.keys.get("multipleOf")?.value;
    const ma = a.keys.get("multipleOf")?.value;
    const step = (value: unknown) => (typeof value === "number" && value > 0 ? value : undefined);
    const [sb, sa] = [step(mb), step(ma)];
    if (sb === sa) return;
    const keyword = "multipleOf";
    const values = { keyword, before: mb, after: ma };
    if (sb === undefined)
      add({ kind: "multipleOf-added", direction: "narrower", summary: "multipleOf added", keyword, after: ma });
    else if (sa === undefined)
      add({ kind: "multipleOf-removed", direction: "wider", summary: "multipleOf removed", keyword, before: mb });
    else if (isMultiple(sa, sb))
      add({ kind: "multipleOf-narrowed", direction: "narrower", summary: "multipleOf made coarser", ...values });
    else if (isMultiple(sb, sa))
      add({ kind: "multipleOf-widened", direction: "wider", summary: "multipleOf made finer", ...values });
    else add({ kind: "multipleOf-changed", direction: "different", summary: "multipleOf changed", ...values });
  },
};

/** `uniqueItems: true` added or taken away. */
export const uniqueItems: KeywordRule = {
  keywords: ["uniqueItems"],
  compare({ before: b, after: a, add }) {
    const [vb, va] = [b.keys.get("uniqueItems")?.value, a.keys.get("uniqueItems")?.value];
    const keyword = "uniqueItems";
    if (vb !== true && va === true)
      add({
        kind: "uniqueItems-added",
        direction: "narrower",
        summary: "items must be unique",
        keyword,
        before: vb,
        after: true,
      });
    if (vb === true && va !== true)
      add({
        kind: "uniqueItems-removed",
        direction: "wider",
        summary: "items may repeat",
        keyword,
        before: true,
        after: va,
      });
  },
};
