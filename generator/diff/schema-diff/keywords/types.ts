/** `type`: which JSON types a schema accepts, as a set (`integer` is within `number`). */
import { covers, type Flat, JSON_TYPES, typeSet, valueSet } from "../flat.js";
import type { KeywordRule } from "../rule.js";

/** `type` added, removed, widened, narrowed or changed both ways. */
export const types: KeywordRule = {
  keywords: ["type"],
  compare({ before: b, after: a, add }) {
    // With `enum`/`const` on both sides, the values each accepts (filtered by its type) say it all: see `values`.
    if (valueSet(b) !== undefined && valueSet(a) !== undefined) return;
    const before = typeSet(b);
    const after = typeSet(a);
    if (before === undefined && after === undefined) return;
    const shown = (flat: Flat) => flat.keys.get("type")?.value;
    const added = JSON_TYPES.filter((t) => covers(after, t) && !covers(before, t));
    const removed = JSON_TYPES.filter((t) => covers(before, t) && !covers(after, t));
    const keyword = "type";
    if (before === undefined) {
      add({ kind: "type-added", direction: "narrower", summary: "type constrained", keyword, after: shown(a) });
    } else if (after === undefined) {
      add({ kind: "type-removed", direction: "wider", summary: "type constraint removed", keyword, before: shown(b) });
    } else if (added.length > 0 && removed.length > 0) {
      add({
        kind: "type-changed",
        direction: "different",
        summary: "type changed",
        keyword,
        before: shown(b),
        after: shown(a),
      });
    } else if (added.length > 0) {
      const summary = `type widened (${added.join(", ")} accepted)`;
      add({ kind: "type-widened", direction: "wider", summary, keyword, before: shown(b), after: shown(a) });
    } else if (removed.length > 0) {
      const summary = `type narrowed (${removed.join(", ")} refused)`;
      add({ kind: "type-narrowed", direction: "narrower", summary, keyword, before: shown(b), after: shown(a) });
    }
  },
};
