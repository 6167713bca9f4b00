/** Strings: `pattern` (compared as text: two regular expressions are not compared by meaning) and `format`. */
import type { KeywordRule } from "../rule.js";

/** `pattern` added, removed or changed. */
export const pattern: KeywordRule = {
  keywords: ["pattern"],
  compare({ before: b, after: a, add }) {
    const pb = b.keys.get("pattern")?.value;
    const pa = a.keys.get("pattern")?.value;
    const keyword = "pattern";
    if (pb === undefined && pa !== undefined)
      add({ kind: "pattern-added", direction: "narrower", summary: "pattern added", keyword, after: pa });
    else if (pb !== undefined && pa === undefined)
      add({ kind: "pattern-removed", direction: "wider", summary: "pattern removed", keyword, before: pb });
    else if (pb !== pa)
      add({
        kind: "pattern-changed",
        direction: "different",
        summary: "pattern changed",
        keyword,
        before: pb,
        after: pa,
      });
  },
};

/**
 * `format`: a constraint only where the validator asserts formats (`x-toolgate.formats: "assert"`), else an
 * annotation. Turning assertion on or off is a change of its own.
 */
export const format: KeywordRule = {
  keywords: ["format"],
  compare({ before: b, after: a, formatsAsserted, add }) {
    const fb = b.keys.get("format")?.value;
    const fa = a.keys.get("format")?.value;
    const checkedBefore = formatsAsserted.before && fb !== undefined;
    const checkedAfter = formatsAsserted.after && fa !== undefined;
    const values = { keyword: "format", before: fb, after: fa };
    if (!checkedBefore && checkedAfter)
      add({ kind: "format-asserted", direction: "narrower", summary: "format now checked", ...values });
    else if (checkedBefore && !checkedAfter)
      add({ kind: "format-unchecked", direction: "wider", summary: "format no longer checked", ...values });
    else if (checkedBefore && checkedAfter && fb !== fa)
      add({ kind: "format-changed", direction: "different", summary: "format changed", ...values });
    else if (fb !== fa)
      add({
        kind: "format-annotation-changed",
        direction: "annotation",
        summary: "format changed (not checked)",
        ...values,
      });
  },
};
