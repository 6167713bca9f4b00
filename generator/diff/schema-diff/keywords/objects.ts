/**
 * Objects: `required`, `properties` by name (a property declared on one side only is compared with what the other
 * side says of an undeclared one), the schema of other properties (`additionalProperties`, else
 * `unevaluatedProperties`), `patternProperties` by pattern, and `propertyNames`.
 */

import { compareText } from "../../../contract/load.js";
import { isSchemaObject } from "../../../schema/guards.js";
import { escapePointerToken } from "../../../schema/pointer.js";
import type { JsonSchema } from "../../../schema/shapes.js";
import type { Direction } from "../../classes.js";
import { acceptsAnything, appliesInPlace, type Flat, type Located, subschema } from "../flat.js";
import type { Row } from "../rows.js";
import { type Comparison, type KeywordRule, optional } from "../rule.js";
import { compareUnevaluated } from "./unevaluated.js";

/** Whether a property name matches a pattern; a pattern the `u` flag refuses matches nothing. */
function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, "u").test(name);
  } catch {
    return false;
  }
}

/** The schema for a property a version does not declare by name: a matching pattern, else the additional schema. */
function undeclared(flat: Flat, name: string): Located {
  const patterns = flat.keys.get("patternProperties");
  if (patterns !== undefined && isSchemaObject(patterns.value)) {
    for (const pattern of Object.keys(patterns.value).sort(compareText)) {
      if (matches(pattern, name)) {
        return {
          schema: patterns.value[pattern] as JsonSchema,
          at: `${patterns.at}/patternProperties/${escapePointerToken(pattern)}`,
        };
      }
    }
  }
  return additional(flat);
}

/** The schema of properties declared nowhere: `additionalProperties`, else `unevaluatedProperties`, else `true`. */
function additional(flat: Flat): Located {
  if (flat.keys.has("additionalProperties")) return subschema(flat, "additionalProperties");
  if (flat.keys.has("unevaluatedProperties") && !appliesInPlace(flat)) return subschema(flat, "unevaluatedProperties");
  return { schema: true, at: `${flat.at}/additionalProperties` };
}

/** The names of two maps together, in text order. */
function names(x: Iterable<string>, y: Iterable<string>): string[] {
  return [...new Set([...x, ...y])].sort(compareText);
}

/** A name required, or no longer required. */
export const required: KeywordRule = {
  keywords: [],
  compare({ before: b, after: a, path, add }) {
    for (const name of names(a.required.keys(), b.required.keys())) {
      const fieldPath = `${path}/${escapePointerToken(name)}`;
      const [was, is] = [b.required.get(name), a.required.get(name)];
      if (was === undefined && is !== undefined)
        add({
          kind: "required-added",
          direction: "narrower",
          summary: "now required",
          pointer: `${is}/required`,
          before: false,
          after: true,
          path: fieldPath,
        });
      if (was !== undefined && is === undefined)
        add({
          kind: "required-removed",
          direction: "wider",
          summary: "no longer required",
          pointer: `${[...a.required.values()][0] ?? was}/required`,
          before: true,
          after: false,
          path: fieldPath,
        });
    }
  },
};

/** Properties declared by name: compared where both declare one, else against the other side's undeclared schema. */
export const properties: KeywordRule = {
  keywords: [],
  compare(c) {
    const { before: b, after: a } = c;
    for (const name of names(b.properties.keys(), a.properties.keys())) {
      const fieldPath = `${c.path}/${escapePointerToken(name)}`;
      const was = b.properties.get(name);
      const is = a.properties.get(name);
      if (was !== undefined && is !== undefined) c.child(was, is, fieldPath);
      else if (is !== undefined) fieldOnOneSide(c, "after", is, undeclared(b, name), fieldPath);
      else if (was !== undefined) fieldOnOneSide(c, "before", was, undeclared(a, name), fieldPath);
    }
  },
};

/** Which version has the declaration (or pattern) the other lacks. */
type Side = "before" | "after";

/** What a change of one kind says: its kind, direction and summary. */
type Words = Pick<Row, "kind" | "direction" | "summary">;

/**
 * A property declared on one side only, by where the other side puts it: on a closed object, beside an enclosing
 * `unevaluated*` (which sees the declaration), or on an open one. The side that declares it decides the direction.
 */
const FIELD_WORDS: Record<Side, Record<"closed" | "inPlace" | "open", Words>> = {
  after: {
    closed: { kind: "field-added", direction: "wider", summary: "field added on a closed object" },
    inPlace: {
      kind: "field-declared",
      direction: "different",
      summary: "field declared where an enclosing unevaluated keyword sees it",
    },
    open: { kind: "field-declared", direction: "narrower", summary: "field declared on an open object" },
  },
  before: {
    closed: { kind: "field-removed", direction: "narrower", summary: "field removed from a closed object" },
    inPlace: {
      kind: "field-undeclared",
      direction: "different",
      summary: "field no longer declared where an enclosing unevaluated keyword sees it",
    },
    open: { kind: "field-undeclared", direction: "wider", summary: "field no longer declared: any value accepted" },
  },
};

/** Compare what one side declares with what the other has in its place, in the order old → new. */
function childInOrder(c: Comparison, side: Side, own: Located, other: Located, path: string): void {
  if (side === "after") c.child(other, own, path);
  else c.child(own, other, path);
}

/** A property only `side` declares (as `own`), where the other version has `other` for it. */
function fieldOnOneSide(c: Comparison, side: Side, own: Located, other: Located, path: string): void {
  const words = FIELD_WORDS[side];
  const row = { pointer: own.at, path, [side]: own.schema };
  if (other.schema === false) c.add({ ...words.closed, ...row });
  else if (!acceptsAnything(other.schema)) childInOrder(c, side, own, other, path);
  else if (c.inPlace) c.add({ ...words.inPlace, ...row });
  else if (!acceptsAnything(own.schema)) c.add({ ...words.open, ...row });
}

/** Other properties: the object opened or closed, or their schema compared; then `unevaluatedProperties`. */
export const additionalProperties: KeywordRule = {
  keywords: ["additionalProperties", "unevaluatedProperties"],
  compare(c) {
    const { before: b, after: a } = c;
    const [ab, aa] = [additional(b), additional(a)];
    const keyword =
      a.keys.has("additionalProperties") || !a.keys.has("unevaluatedProperties")
        ? "additionalProperties"
        : "unevaluatedProperties";
    const closedBefore = ab.schema === false;
    const closedAfter = aa.schema === false;
    if (closedBefore && !closedAfter) {
      const summary = "object opened: other properties accepted";
      c.add({ kind: "object-opened", direction: "wider", summary, pointer: aa.at, before: false, after: aa.schema });
    } else if (!closedBefore && closedAfter) {
      const summary = "object closed: other properties refused";
      c.add({ kind: "object-closed", direction: "narrower", summary, keyword, before: ab.schema, after: false });
    } else if (!closedBefore && !closedAfter && !(acceptsAnything(ab.schema) && acceptsAnything(aa.schema)))
      c.child(ab, aa, `${c.path}/*`);
    compareUnevaluated(c, "unevaluatedProperties", `${c.path}/*`);
  },
};

/** A version's `patternProperties`, and where it is. */
function patternsOf(flat: Flat): { map: Record<string, unknown>; at: string } | undefined {
  const value = flat.keys.get("patternProperties");
  return value !== undefined && isSchemaObject(value.value)
    ? { map: value.value, at: `${value.at}/patternProperties` }
    : undefined;
}

/** The schema one pattern maps to, located; undefined when the pattern is not there. */
function patternSchema(patterns: ReturnType<typeof patternsOf>, pattern: string): Located | undefined {
  return patterns !== undefined && Object.hasOwn(patterns.map, pattern)
    ? { schema: patterns.map[pattern] as JsonSchema, at: `${patterns.at}/${escapePointerToken(pattern)}` }
    : undefined;
}

/**
 * `patternProperties`, pattern by pattern. A pattern on one side only is compared with the other side's additional
 * schema, which covers the names it matches there.
 */
export const patternProperties: KeywordRule = {
  keywords: ["patternProperties"],
  compare(c) {
    const { before: b, after: a, path } = c;
    const [pb, pa] = [patternsOf(b), patternsOf(a)];
    for (const pattern of names(Object.keys(pb?.map ?? {}), Object.keys(pa?.map ?? {}))) {
      const was = patternSchema(pb, pattern);
      const is = patternSchema(pa, pattern);
      // A declared property whose name matches is constrained by the pattern too: taking the pattern away
      // loosens it, while names declared nowhere move between the pattern and the additional schema.
      const declaredMatch = [...b.properties.keys(), ...a.properties.keys()].some((name) => matches(pattern, name));
      if (was !== undefined && is !== undefined) c.child(was, is, `${path}/*`);
      else if (is !== undefined) patternOnOneSide(c, "after", is, additional(b), pattern, declaredMatch);
      else if (was !== undefined) patternOnOneSide(c, "before", was, additional(a), pattern, declaredMatch);
    }
  },
};

/** What a pattern on one side only says, by what the other side's additional schema does with the names it matches. */
interface PatternWords {
  kind: string;
  /** The other side refuses those names. */
  closed: Direction;
  closedSummary: string;
  /** The other side accepts them (or, where a declared property matches, constrains them otherwise). */
  open: Direction;
  summary: string;
}

/**
 * A pattern on one side only, by what the other side's additional schema says of the names it matches: refused
 * (`closed`), accepted (`open`), or constrained otherwise. Where a declared property matches the pattern, the pattern
 * constrains it too, and the change goes both ways.
 */
const PATTERN_WORDS: Record<Side, PatternWords> = {
  after: {
    kind: "pattern-properties-added",
    closed: "wider",
    open: "narrower",
    closedSummary: "properties matching a pattern accepted",
    summary: "properties matching a pattern constrained",
  },
  before: {
    kind: "pattern-properties-removed",
    closed: "narrower",
    open: "wider",
    closedSummary: "properties matching a pattern refused",
    summary: "properties matching a pattern no longer constrained by it",
  },
};

/** A pattern only `side` has (mapping to `own`), where the other version has `other` for the names it matches. */
function patternOnOneSide(
  c: Comparison,
  side: Side,
  own: Located,
  other: Located,
  pattern: string,
  declaredMatch: boolean,
): void {
  const words = PATTERN_WORDS[side];
  const row = { kind: words.kind, pointer: own.at, [side]: pattern };
  if (other.schema === false) {
    c.add({ ...row, direction: declaredMatch ? "different" : words.closed, summary: words.closedSummary });
  } else if (acceptsAnything(other.schema)) c.add({ ...row, direction: words.open, summary: words.summary });
  else if (declaredMatch) c.add({ ...row, direction: "different", summary: words.summary });
  else childInOrder(c, side, own, other, `${c.path}/*`);
}

/** `propertyNames`: a constraint on every name, when present. */
export const propertyNames: KeywordRule = {
  keywords: ["propertyNames"],
  compare(c) {
    optional(c, "propertyNames", c.path);
  },
};
