/**
 * The types stage: bundled JSON Schemas → TypeScript declarations.
 *
 * Pipeline, one line per phase:
 *   names     the requested names are claimed exactly; every other name comes from the registry (names.ts)
 *   lower     each schema → named units in a sound, printable subset (lower.ts, with the pre-pass rules.ts)
 *   cycles    references that would make a type alias circular become `unknown` (print.ts)
 *   print     each unit through json-schema-to-typescript, the project's chosen printer (print.ts)
 *
 * The hard rule: a generated type accepts every value the validator accepts (soundness). Within that it is as
 * precise as the printer allows: tuples for `prefixItems`, literal types for `const`/`enum`, named types for
 * referenced `$defs`, closed objects for `additionalProperties: false` and plain `unevaluatedProperties: false`.
 */
import type { Dialect, JsonSchema } from "../schema/shapes.js";
import { RequestLowering, type Unit } from "./lower.js";
import { NameRegistry } from "./names.js";
import { breakAliasCycles, KeyPlaceholders, printUnits } from "./print.js";

/** One schema to turn into an exported TypeScript type. */
export interface TypeRequest {
  /** The exported type's name, used exactly (a valid TypeScript identifier that is not a reserved word). */
  name: string;
  /** A `ResolvedSchema["bundled"]`: every `$ref` a `#/…` pointer into this schema. */
  schema: JsonSchema;
  /** The dialect (`ResolvedSchema["dialect"]`); default: the root's `$schema`, else 2020-12 (MCP's rule). */
  dialect?: Dialect;
}

/**
 * TypeScript declarations (no header, no imports) exporting one type per request, under exactly its `name`, plus
 * named types for the `$defs` (and other locations) that are referenced, named `<request name><PascalCase key>`
 * and suffixed where that would collide. Deterministic: the same requests give the same text.
 */
export async function emitTypes(requests: TypeRequest[]): Promise<string> {
  const registry = new NameRegistry();
  for (const request of requests) registry.claimExact(request.name);
  const units: Unit[] = [];
  for (const request of requests) {
    units.push(...new RequestLowering(request.schema, request.name, request.dialect ?? "2020-12", registry).lower());
  }
  const keys = new KeyPlaceholders(requests.flatMap((r) => [r.name, ...stringsIn(r.schema)]));
  return printUnits(breakAliasCycles(units), keys);
}

/** Every string in a JSON value (keys and values), visiting each object once. */
function stringsIn(value: unknown, seen = new Set<object>()): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null || seen.has(value)) return [];
  seen.add(value);
  const entries = Array.isArray(value) ? value.map((v): [string, unknown] => ["", v]) : Object.entries(value);
  return entries.flatMap(([key, member]) => [key, ...stringsIn(member, seen)]);
}
