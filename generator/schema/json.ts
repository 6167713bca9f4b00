/**
 * JSON text the generator writes or hashes: canonical JSON (shared with the runtime, so both hash the same text) and
 * the sorted, indented JSON of the lock and its record.
 */
import { canonicalJson } from "@toolgate/runtime";
import { spellHidden } from "./visible.js";

/** Canonical JSON (keys sorted, no white space), shared with the runtime so both hash the same text. */
export { canonicalJson };

/**
 * JSON with keys sorted at every level, two-space indented; undefined members are left out, and hidden characters
 * are written as escapes (`spellHidden`: the same value, shown).
 */
export function sortedJson(value: unknown): string {
  return spellHidden(JSON.stringify(sortKeys(value), null, 2));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  // No prototype, so every key (`__proto__` too) is an own property by plain assignment: the lock of 1,000 tools has
  // 100,000 keys, and defining each one took a tenth of a `--check`.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(record).sort()) if (record[key] !== undefined) out[key] = sortKeys(record[key]);
  return out;
}

/** Set an own, enumerable property: a key such as `__proto__` (a tool may be named so) must not set a prototype. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
