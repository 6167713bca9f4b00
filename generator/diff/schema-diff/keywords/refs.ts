/** References the bundle could not turn into a `#/…` pointer: compared as text. */
import { type KeywordRule, keywordChanged } from "../rule.js";

const REFERENCES = ["$ref", "$dynamicRef", "$recursiveRef"];

/** A reference left as it was written (another document, a dynamic scope) changed. */
export const references: KeywordRule = {
  keywords: REFERENCES,
  compare(c) {
    for (const keyword of REFERENCES) {
      // Only a reference the bundle could not turn into a `#/…` pointer is still a keyword here.
      if (c.before.keys.get(keyword)?.value !== c.after.keys.get(keyword)?.value)
        keywordChanged(c, keyword, "different");
    }
  },
};
