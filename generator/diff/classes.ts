/**
 * The classes a contract change falls into, and how a schema change's direction becomes a class.
 *
 * A schema change is first judged on its own: does the schema now accept more values (`wider`), fewer (`narrower`),
 * some more and some fewer (`different`), or the same values with other words around them (`annotation`)? Who is
 * hurt depends on which side of the tool the schema describes:
 *
 * - the output schema describes what the tool sends and agents consume. A wider result lets the tool send what
 *   consumers did not accept before: `breaking`. A narrower one is safe for consumers but may now reject results
 *   the tool legitimately sends: `tightened`.
 * - the input schema describes what agents send and the tool consumes. A narrower input refuses arguments callers
 *   sent before: `breaking`. A wider one is safe for callers, but the tool may now receive arguments it never
 *   handled: `loosened`.
 */

/** Every class of contract change, in the order reports list them. */
export const CHANGE_CLASSES = [
  "breaking",
  "exposure",
  "removed",
  "tightened",
  "loosened",
  "settings",
  "added",
  "annotation",
] as const;

/**
 * The class of one contract change:
 * - `breaking`: a counterpart that worked before may fail now: a result that may carry what consumers did not accept
 *   (a new enum value, a loosened bound, a field no longer required, a widened type, a new field on a closed object),
 *   or arguments that refuse what callers sent before. A change that is both wider and narrower is breaking.
 * - `exposure`: a field newly reaches the model view, or tool errors are newly shown to the model.
 * - `removed`: a tool is gone.
 * - `tightened`: the result schema accepts less: safe for consumers, but legitimate results may be refused.
 * - `loosened`: the input schema accepts more: safe for callers, but the tool may receive arguments it never handled.
 * - `settings`: the `x-toolgate` block or the MCP annotations changed: receive ceiling, context budget, view, oversize
 *   policies, retry, field kinds; also the contract version and the schemas' dialect, and fields leaving the view.
 * - `added`: a new tool.
 * - `annotation`: words only: descriptions, titles, examples, defaults, a `format` that is not asserted, unknown
 *   keywords. Descriptions do reach the model, so they are listed for review, but validation is unchanged.
 */
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** What a schema change does to the set of values the schema accepts. */
export type Direction = "wider" | "narrower" | "different" | "annotation";

/** Which side of the tool a schema describes. */
export type SchemaRole = "result" | "arguments";

/** The class of a schema change of the given direction in the given schema. */
export function classify(direction: Direction, role: SchemaRole): ChangeClass {
  switch (direction) {
    case "annotation":
      return "annotation";
    case "different":
      return "breaking";
    case "wider":
      return role === "result" ? "breaking" : "loosened";
    case "narrower":
      return role === "result" ? "tightened" : "breaking";
  }
}

/** Whether a word names a change class. */
export function isChangeClass(word: string): word is ChangeClass {
  return (CHANGE_CLASSES as readonly string[]).includes(word);
}
