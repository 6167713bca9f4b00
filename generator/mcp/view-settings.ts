/**
 * The `x-toolgate.view` block `import` writes: every string field of a structured tool's output schema that no
 * schema bounds (no `maxLength`, `const` or `enum`) is shown, when longer than its bound, as whole lines from its
 * head and tail with one marked gap (`overflow: "lines"`), since such a field is what a file's contents, a page
 * snapshot or a log comes in, and a model reads whole lines better than text cut mid-line. The bound stays the
 * contract's `view.maxStringChars` (2000 by default), for the user to raise where a field deserves more.
 *
 * Only a new contract gets it: a kept block is the user's and is written back as it is (re-import and `--force`).
 * A `json_text` contract's output schema is the user's own (it starts empty), so none is written for one; nor for a
 * contract `generate` writes without `import`, whose strings stay excerpts unless the contract says `lines`.
 */
import type { ResultKind } from "../contract/x-toolgate.js";
import { unboundedStringPaths } from "../model/view-plan.js";
import type { JsonSchema, SchemaObject } from "../schema/shapes.js";
import { defaultSettings, importedToolError } from "./contract-file.js";
import { importedResult } from "./result-settings.js";

/** Longest path the `x-toolgate` schema accepts as a `view.strings` key (`$defs/path`). */
const MAX_PATH_LENGTH = 512;

/**
 * The `view` entry of a new contract: `{ strings: { <path>: { overflow: "lines" } } }` for each unbounded string
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
      value: { overflow: "lines" },
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
