/**
 * The dialects toolgate reads, and the `$schema` URIs that name them: the one table every stage asks.
 */

import type { Dialect } from "./shapes.js";

const DIALECTS: ReadonlyArray<[RegExp, Dialect]> = [
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, "2020-12"],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, "2019-09"],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, "draft-07"],
];

/** The dialect a `$schema` value names, or `undefined` when it names none toolgate supports. */
export function dialectNamed(uri: unknown): Dialect | undefined {
  if (typeof uri !== "string") return undefined;
  for (const [pattern, dialect] of DIALECTS) if (pattern.test(uri)) return dialect;
  return undefined;
}
