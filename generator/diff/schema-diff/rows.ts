/**
 * The changes a comparison reports, and how one is recorded: a keyword rule says what changed and in which direction
 * for the schema on its own; where the schema sits (under `not`, in a `oneOf` whose branches overlap, beside an
 * enclosing `unevaluated*`) then decides the direction the whole schema sees.
 */
import type { Direction } from "../classes.js";
import type { Flat } from "./flat.js";

/** One semantic change between two versions of a schema. */
export interface SchemaChange {
  /** What changed, as a stable id: `enum-value-added`, `maxLength-raised`, `field-added`, `type-widened`, … */
  kind: string;
  /** What the change does to the set of accepted values. */
  direction: Direction;
  /** The instance location (JSON pointer into a value; `*` for every item or every other property). */
  path: string;
  /** JSON pointer into the schema: into the new version where the changed keyword is there, else into the old. */
  pointer: string;
  /** One line for a reader: `enum value added`. */
  summary: string;
  /** The old keyword value (or enum value, bound, schema); absent when the old version had none. */
  before?: unknown;
  /** The new keyword value; absent when the new version has none. */
  after?: unknown;
}

/**
 * What a change alters, besides the values the schema accepts:
 * - `values`: only that;
 * - `evaluation`: an in-place applicator appears or goes away (a branch, a conditional, a dependent schema,
 *   `contains`), or a `contains` count changes, which decides (in Ajv) whether `contains` evaluates anything. An
 *   enclosing `unevaluatedProperties`/`unevaluatedItems` reads what in-place applicators evaluated, so there such a
 *   change may accept or refuse more: it is `different`.
 */
export type ChangeEffect = "values" | "evaluation";

/** One change as a keyword rule reports it. */
export interface Row {
  /** The stable id of the change: see {@link SchemaChange.kind}. */
  kind: string;
  /** The direction for this schema on its own, before its place in the whole is taken into account. */
  direction: Direction;
  summary: string;
  /** What else the change alters; `values` when absent. */
  effect?: ChangeEffect;
  /**
   * The changed keyword, for the pointer: where the newer version has it, else where the older had it. Absent (with
   * no `pointer`) for the schema itself.
   */
  keyword?: string;
  /** An explicit schema pointer, in place of the keyword's. */
  pointer?: string;
  /** The instance location, when not that of the schema compared. */
  path?: string;
  /** The old value; absent when there was none. */
  before?: unknown;
  /** The new value; absent when there is none. */
  after?: unknown;
}

/** Where the two schemas a rule compares sit in the whole. */
export interface Place {
  /** The instance location. */
  path: string;
  /** Under `not`: a wider subschema makes the whole narrower. */
  flipped: boolean;
  /** Inside a `oneOf` whose branches may overlap (or under `unevaluated*`): every change goes both ways. */
  exclusive: boolean;
  /** The schema sits under an enclosing (or has its own) `unevaluated*` keyword. */
  inPlace: boolean;
}

/** Records the changes of one pair of schemas, turned for their place in the whole. */
export class Rows {
  constructor(
    private readonly out: SchemaChange[],
    private readonly place: Place,
    private readonly before: Flat,
    private readonly after: Flat,
  ) {}

  /** Record one change. */
  add(row: Row): void {
    const pointer = row.pointer ?? this.#keywordPointer(row.keyword);
    const evaluation = this.place.inPlace && row.effect === "evaluation";
    const exclusive =
      (this.place.exclusive || evaluation) && (row.direction === "wider" || row.direction === "narrower");
    const turned = this.place.flipped ? flip(row.direction) : row.direction;
    const change: SchemaChange = {
      kind: row.kind,
      direction: exclusive ? "different" : turned,
      path: row.path ?? this.place.path,
      pointer,
      summary: row.summary,
    };
    if (row.before !== undefined) change.before = row.before;
    if (row.after !== undefined) change.after = row.after;
    this.out.push(change);
  }

  /** The pointer of a keyword: in the schema object of the newer version that holds it, else of the older one. */
  #keywordPointer(keyword: string | undefined): string {
    if (keyword === undefined) return this.after.at;
    const holder = this.after.keys.get(keyword) ?? this.before.keys.get(keyword);
    return `${holder?.at ?? this.after.at}/${keyword}`;
  }
}

function flip(direction: Direction): Direction {
  return direction === "wider" ? "narrower" : direction === "narrower" ? "wider" : direction;
}
