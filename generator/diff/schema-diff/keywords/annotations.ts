/** Every keyword no rule compares by meaning: descriptions, examples, unknown keywords. */
import { compareText } from "../../../contract/load.js";
import { canonical } from "../flat.js";
import { type Comparison, keywordChanged } from "../rule.js";

/**
 * A keyword that no rule compares (`compared` names those that one does), whose value changed: reported, but it
 * changes no validation result.
 */
export function compareAnnotations(c: Comparison, compared: ReadonlySet<string>): void {
  const { before: b, after: a } = c;
  const keywords = [...new Set([...b.keys.keys(), ...a.keys.keys()])].sort(compareText);
  for (const keyword of keywords) {
    if (compared.has(keyword)) continue;
    const [x, y] = [b.keys.get(keyword)?.value, a.keys.get(keyword)?.value];
    if (canonical(x ?? null) === canonical(y ?? null) && (x === undefined) === (y === undefined)) continue;
    keywordChanged(c, keyword, "annotation");
  }
}
