/**
 * Dependencies between properties: `dependentRequired` and `dependentSchemas`, and draft-07's `dependencies` (an
 * array of names is the one, a schema the other).
 */

import { compareText } from "../../../contract/load.js";
import { isSchemaObject } from "../../../schema/guards.js";
import { escapePointerToken } from "../../../schema/pointer.js";
import { acceptsAnything, type Flat, type Located } from "../flat.js";
import type { Comparison, KeywordRule } from "../rule.js";

/** `dependentRequired` (and draft-07 array `dependencies`): property → names required with it. */
function dependentRequired(flat: Flat): Map<string, { names: Set<string>; at: string }> {
  const out = new Map<string, { names: Set<string>; at: string }>();
  for (const keyword of ["dependentRequired", "dependencies"]) {
    const found = flat.keys.get(keyword);
    if (found === undefined || !isSchemaObject(found.value)) continue;
    for (const [name, value] of Object.entries(found.value)) {
      if (!Array.isArray(value)) continue;
      const names = out.get(name)?.names ?? new Set<string>();
      for (const other of value) if (typeof other === "string") names.add(other);
      out.set(name, { names, at: `${found.at}/${keyword}/${escapePointerToken(name)}` });
    }
  }
  return out;
}

/** `dependentSchemas` (and draft-07 schema `dependencies`): property → schema applied when it is present. */
function dependentSchemas(flat: Flat): Map<string, Located> {
  const out = new Map<string, Located>();
  for (const keyword of ["dependentSchemas", "dependencies"]) {
    const found = flat.keys.get(keyword);
    if (found === undefined || !isSchemaObject(found.value)) continue;
    for (const [name, value] of Object.entries(found.value)) {
      if (isSchemaObject(value) || typeof value === "boolean")
        out.set(name, { schema: value, at: `${found.at}/${keyword}/${escapePointerToken(name)}` });
    }
  }
  return out;
}

/** The keys of two maps together, in text order. */
function keysOf<T>(x: Map<string, T>, y: Map<string, T>): string[] {
  return [...new Set([...x.keys(), ...y.keys()])].sort(compareText);
}

/** Names required when a property is present, added or removed. */
function requiredWith(c: Comparison): void {
  const [rb, ra] = [dependentRequired(c.before), dependentRequired(c.after)];
  for (const name of keysOf(rb, ra)) {
    const was = rb.get(name);
    const is = ra.get(name);
    const path = `${c.path}/${escapePointerToken(name)}`;
    for (const other of [...(is?.names ?? [])].sort(compareText)) {
      if (!was?.names.has(other))
        c.add({
          kind: "dependent-required-added",
          direction: "narrower",
          summary: `requires ${JSON.stringify(other)} when present`,
          pointer: (is as { at: string }).at,
          after: other,
          path,
        });
    }
    for (const other of [...(was?.names ?? [])].sort(compareText)) {
      if (!is?.names.has(other))
        c.add({
          kind: "dependent-required-removed",
          direction: "wider",
          summary: `no longer requires ${JSON.stringify(other)}`,
          pointer: (is ?? was)?.at ?? c.after.at,
          before: other,
          path,
        });
    }
  }
}

/** Schemas applied when a property is present: compared inside, or added or removed. */
function schemasWith(c: Comparison): void {
  const [sb, sa] = [dependentSchemas(c.before), dependentSchemas(c.after)];
  for (const name of keysOf(sb, sa)) {
    const was = sb.get(name);
    const is = sa.get(name);
    // A dependent schema applies in place: an enclosing `unevaluated*` sees what it evaluates.
    const effect = "evaluation";
    if (was !== undefined && is !== undefined) c.child(was, is, c.path);
    else if (is !== undefined && !acceptsAnything(is.schema))
      c.add({
        kind: "dependent-schema-added",
        direction: "narrower",
        summary: `constrained when ${JSON.stringify(name)} is present`,
        effect,
        pointer: is.at,
        after: is.schema,
      });
    else if (was !== undefined && !acceptsAnything(was.schema))
      c.add({
        kind: "dependent-schema-removed",
        direction: "wider",
        summary: `no longer constrained when ${JSON.stringify(name)} is present`,
        effect,
        pointer: was.at,
        before: was.schema,
      });
  }
}

/** Dependencies between properties: the required names first, then the schemas. */
export const dependencies: KeywordRule = {
  keywords: ["dependentRequired", "dependentSchemas", "dependencies"],
  compare(c) {
    requiredWith(c);
    schemasWith(c);
  },
};
