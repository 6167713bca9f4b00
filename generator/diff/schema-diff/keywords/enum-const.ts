/** `enum` and `const`: the values a schema allows, compared as sets of JSON values (of the types it allows). */
import { compareText } from "../../../contract/load.js";
import { type Flat, valueSet } from "../flat.js";
import type { KeywordRule } from "../rule.js";

/** A value restriction added or removed, or values added to it and removed from it. */
export const values: KeywordRule = {
  keywords: ["enum", "const"],
  compare({ before: b, after: a, add }) {
    const before = valueSet(b);
    const after = valueSet(a);
    const keyword = a.keys.has("const") || (!a.keys.has("enum") && b.keys.has("const")) ? "const" : "enum";
    const listed = (flat: Flat) => [...(valueSet(flat)?.values() ?? [])];
    if (before === undefined && after === undefined) return;
    if (before === undefined) {
      const summary = `values restricted (${keyword} added)`;
      add({ kind: `${keyword}-added`, direction: "narrower", summary, keyword, after: listed(a) });
      return;
    }
    if (after === undefined) {
      const was = b.keys.has("const") ? "const" : "enum";
      const summary = `value restriction removed (${was} removed)`;
      add({ kind: `${was}-removed`, direction: "wider", summary, keyword: was, before: listed(b) });
      return;
    }
    for (const [text, value] of [...after].sort(([x], [y]) => compareText(x, y))) {
      if (!before.has(text))
        add({ kind: "enum-value-added", direction: "wider", summary: "value added", keyword, after: value });
    }
    for (const [text, value] of [...before].sort(([x], [y]) => compareText(x, y))) {
      if (!after.has(text))
        add({ kind: "enum-value-removed", direction: "narrower", summary: "value removed", keyword, before: value });
    }
  },
};
