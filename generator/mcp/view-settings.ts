/**
 * The `x-toolgate.view` block `import` writes: every string field of a structured tool's output schema that no
 * schema bounds (no `maxLength`, `const` or `enum`) is shown, when longer than its bound, as whole lines from its
 * head and tail with one marked gap (`overflow: "lines"`), since such a field is what a file's contents, a page
 * snapshot or a log comes in, and a model reads whole lines better than text cut mid-line. Its bound
 * ({@link IMPORTED_LINES_MAX}) is as much as the default budget could ever hold, not the contract's
 * `view.maxStringChars`: a file of 8 KB that fits the budget is shown whole, and one over it is cut to whole lines
 * by the `shorten` policy (the default end of the chain), to the most that fits.
 *
 * Only a new contract gets it: a kept block is the user's and is written back as it is (re-import and `--force`).
 * A `json_text` contract's output schema is the user's own (it starts empty), so none is written for one; nor for a
 * contract `generate` writes without `import`, whose strings stay excerpts unless the contract says `lines`.
 */
import { MAX_TOKEN_UNITS } from "@toolgate/runtime";
import { DEFAULTS, type ResultKind } from "../contract/x-toolgate.js";
import { unboundedStringPaths } from "../model/view-plan.js";
import type { JsonSchema, SchemaObject } from "../schema/shapes.js";
import { defaultSettings, importedToolError } from "./contract-file.js";
import { importedResult } from "./result-settings.js";

/**
 * The bound import writes for a string shown as lines: the most characters the default context budget could hold
 * (no token of either tokenizer covers more than 128 code units), so the plan never cuts what the budget would show.
 */
export const IMPORTED_LINES_MAX = DEFAULTS.context.max * MAX_TOKEN_UNITS;

/** Longest path the `x-toolgate` schema accepts as a `view.strings` key (`$defs/path`). */
const MAX_PATH_LENGTH = 512;

/**
 * The `view` entry of a new contract: `{ strings: { <path>: { overflow: "lines", max } } }` for each unbounded string
 * field, or nothing when the kind is not `structured` or the schema has none. Paths in sorted order, so the file is
 * the same on every run.
 */
export function importedView(kind: ResultKind, bundled: JsonSchema | undefined): { view?: SchemaObject } {
  if (kind !== "structured" || bundled === undefined) return {};
  const strings: SchemaObject = {};
  for (const path of unboundedStringPaths(bundled)) {
    if (path.length > MAX_PATH_LENGTH) continue;
    // Defined, not assigned: a field named `__proto__` stays a key.
    Object.defineProperty(strings, path, {
      value: { overflow: "lines", max: IMPORTED_LINES_MAX },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return Object.keys(strings).length === 0 ? {} : { view: { strings } };
}

/**
 * The whole `x-toolgate` block of a new contract: the version, the receive ceiling when the schema needs one, the
 * view of its unbounded strings, how the tool answers, and that the model reads its error text.
 */
export function importedSettings(
  receiveBytes: number | undefined,
  kind: ResultKind,
  bundled: JsonSchema | undefined,
): SchemaObject {
  return {
    ...defaultSettings(receiveBytes),
    ...importedView(kind, bundled),
    result: importedResult(kind),
    toolError: importedToolError(),
  };
}
