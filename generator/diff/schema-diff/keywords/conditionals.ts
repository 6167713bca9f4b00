/** Conditionals: `if`, `then` and `else`. */
import { canonical, type Flat } from "../flat.js";
import { type KeywordRule, optional } from "../rule.js";

/**
 * `if` added, removed or changed (compared as a whole: which values take which way cannot be told apart), else
 * `then` and `else` compared inside. Without `if`, `then` and `else` are ignored: adding a condition can only
 * constrain, removing it only loosen.
 */
export const conditional: KeywordRule = {
  keywords: ["if", "then", "else"],
  compare(c) {
    const { before: b, after: a, add } = c;
    const [ib, ia] = [b.keys.get("if"), a.keys.get("if")];
    const guarded = (flat: Flat) => flat.keys.has("then") || flat.keys.has("else");
    const keyword = "if";
    // A condition added or removed is an in-place applicator, which an enclosing `unevaluated*` sees.
    const effect = "evaluation";
    if (ib === undefined && ia !== undefined) {
      if (guarded(a))
        add({
          kind: "if-added",
          direction: "narrower",
          summary: "condition (if) added",
          effect,
          keyword,
          after: ia.value,
        });
    } else if (ib !== undefined && ia === undefined) {
      const summary = "condition (if) removed: then/else no longer apply";
      if (guarded(b)) add({ kind: "if-removed", direction: "wider", summary, effect, keyword, before: ib.value });
    } else if (canonical(ib?.value ?? true) !== canonical(ia?.value ?? true)) {
      const summary = "condition (if) changed";
      add({ kind: "if-changed", direction: "different", summary, keyword, before: ib?.value, after: ia?.value });
    } else {
      optional(c, "then", c.path);
      optional(c, "else", c.path);
    }
  },
};
