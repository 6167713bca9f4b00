/**
 * The schema comparison against a real validator, on the official JSON Schema Test Suite (2020-12):
 *
 * - every schema compared with itself, and with its keys reordered at every level, has no change (SchemaStore too);
 * - property: mutate one keyword of a suite schema at random; for every instance of its test group, when the new
 *   schema accepts what the old refused, the comparison must report a `wider` (or `different`) change, and when it
 *   refuses what the old accepted, a `narrower` (or `different`) one. A change classed `annotation` only must not
 *   change any verdict. Ajv is the judge.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareSchemas } from "../../../generator/diff/schema-diff/compare.js";
import { isSchemaObject } from "../../../generator/schema/guards.js";
import type { JsonSchema, SchemaObject } from "../../../generator/schema/shapes.js";
import { subschemas } from "../../../generator/schema/walk.js";

const SUITE = fileURLToPath(
  new URL("../../../../shared/corpus/json-schema-test-suite/tests/draft2020-12/", import.meta.url),
);
const SCHEMASTORE = fileURLToPath(new URL("../../../../shared/corpus/schemastore/schemas/", import.meta.url));

/** Files whose schemas lean on references to other documents or on the meta-schema: not self-contained. */
const SKIPPED = new Set([
  "refRemote.json",
  "dynamicRef.json",
  "vocabulary.json",
  "defs.json",
  "ref.json",
  "anchor.json",
]);

interface Group {
  label: string;
  schema: JsonSchema;
  data: unknown[];
}

function suiteGroups(): Group[] {
  const groups: Group[] = [];
  for (const file of readdirSync(SUITE)
    .filter((f) => f.endsWith(".json") && !SKIPPED.has(f))
    .sort()) {
    const content = JSON.parse(readFileSync(join(SUITE, file), "utf8")) as Array<{
      description: string;
      schema: JsonSchema;
      tests: Array<{ data: unknown }>;
    }>;
    for (const group of content) {
      groups.push({
        label: `${file}: ${group.description}`,
        schema: group.schema,
        data: group.tests.map((t) => t.data),
      });
    }
  }
  return groups;
}

function newAjv() {
  return new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
}

/** A validator, or undefined when Ajv refuses the schema (a mutation may make it invalid). */
function compile(schema: JsonSchema): ((data: unknown) => boolean) | undefined {
  try {
    const validate = newAjv().compile(schema as SchemaObject);
    return (data) => validate(data) as boolean;
  } catch {
    return undefined;
  }
}

function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reordered((value as Record<string, unknown>)[k])]),
  );
}

const groups = suiteGroups();
/** The groups Ajv compiles, with their validators (compiled once: compiling is the slow part). */
const compiled = groups.flatMap((group) => {
  const validate = compile(group.schema);
  return validate === undefined ? [] : [{ ...group, validate }];
});

const NUMERIC = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
];
const TYPES = ["string", "number", "integer", "object", "array", "boolean", "null"];

/** Change one keyword of one subschema; `pick` chooses where and how. Returns a description, or undefined. */
function mutate(schema: JsonSchema, pick: number[]): { schema: JsonSchema; what: string } | undefined {
  const copy = structuredClone(schema);
  const nodes = [...subschemas(copy)].filter((v) => isSchemaObject(v.schema));
  if (nodes.length === 0) return undefined;
  const choose = <T>(list: readonly T[], i: number): T => list[(pick[i] ?? 0) % list.length] as T;
  const visit = choose(nodes, 0);
  const node = visit.schema as SchemaObject;
  const at = visit.pointer || "/";
  switch ((pick[1] ?? 0) % 10) {
    case 0: {
      const keys = Object.keys(node).filter((k) => !k.startsWith("$"));
      if (keys.length === 0) return undefined;
      const key = choose(keys, 2);
      delete node[key];
      return { schema: copy, what: `${at}: delete ${key}` };
    }
    case 1: {
      const keys = Object.keys(node).filter((k) => NUMERIC.includes(k) && typeof node[k] === "number");
      if (keys.length === 0) return undefined;
      const key = choose(keys, 2);
      const delta = (pick[3] ?? 0) % 2 === 0 ? 1 : -1;
      const value = (node[key] as number) + delta;
      if (value < 0 && !/imum$/.test(key)) return undefined;
      node[key] = value;
      return { schema: copy, what: `${at}: ${key} ${delta > 0 ? "+" : "-"}1` };
    }
    case 2: {
      if (Array.isArray(node.enum)) {
        if ((pick[2] ?? 0) % 2 === 0) node.enum = [...node.enum, choose(["zz", 42, null, true, { a: 1 }], 3)];
        else node.enum = node.enum.slice(0, -1);
        return { schema: copy, what: `${at}: enum changed` };
      }
      node.enum = [choose(["foo", 1, null, [], {}], 3)];
      return { schema: copy, what: `${at}: enum added` };
    }
    case 3: {
      const required = Array.isArray(node.required) ? [...(node.required as string[])] : [];
      if ((pick[2] ?? 0) % 2 === 0 || required.length === 0) required.push(choose(["foo", "bar", "baz"], 3));
      else required.pop();
      node.required = [...new Set(required)];
      return { schema: copy, what: `${at}: required ${JSON.stringify(node.required)}` };
    }
    case 4: {
      const type = node.type;
      if (Array.isArray(type) && (pick[2] ?? 0) % 2 === 0) node.type = type.slice(0, -1);
      else if (Array.isArray(type)) node.type = [...new Set([...type, choose(TYPES, 3)])];
      else if (typeof type === "string" && (pick[2] ?? 0) % 2 === 0) node.type = [type, choose(TYPES, 3)];
      else node.type = choose(TYPES, 3);
      return { schema: copy, what: `${at}: type ${JSON.stringify(type)} → ${JSON.stringify(node.type)}` };
    }
    case 5: {
      if (node.additionalProperties === false) delete node.additionalProperties;
      else node.additionalProperties = false;
      return { schema: copy, what: `${at}: additionalProperties → ${JSON.stringify(node.additionalProperties)}` };
    }
    case 6: {
      node.const = choose(["foo", 1, null, false, [1]], 2);
      return { schema: copy, what: `${at}: const ${JSON.stringify(node.const)}` };
    }
    case 7: {
      const properties = isSchemaObject(node.properties) ? { ...node.properties } : {};
      properties[choose(["foo", "bar", "baz"], 2)] = choose(
        [{ type: "integer" }, { type: "string", maxLength: 2 }, false, true],
        3,
      );
      node.properties = properties;
      return { schema: copy, what: `${at}: property set` };
    }
    case 8: {
      // The nullable form: the same schema, or null allowed besides.
      const inner = { ...node };
      for (const key of Object.keys(node)) delete node[key];
      node.anyOf = [inner, { type: "null" }];
      return { schema: copy, what: `${at}: wrapped in anyOf with null` };
    }
    default: {
      const list = ["anyOf", "oneOf", "allOf"].find((k) => Array.isArray(node[k]) && (node[k] as unknown[]).length > 1);
      if (list === undefined) return undefined;
      node[list] = (node[list] as unknown[]).slice(0, -1);
      return { schema: copy, what: `${at}: last ${list} branch dropped` };
    }
  }
}

describe("schema comparison on the JSON Schema Test Suite", () => {
  it("reads enough of the suite to mean something", () => {
    expect(compiled.length).toBeGreaterThan(250);
  });

  it("finds no change between a schema and itself, or its keys reordered", () => {
    for (const group of groups) {
      const same = compareSchemas(
        { schema: group.schema, formatsAsserted: false },
        { schema: structuredClone(group.schema), formatsAsserted: false },
      );
      const moved = compareSchemas(
        { schema: group.schema, formatsAsserted: false },
        { schema: reordered(group.schema) as JsonSchema, formatsAsserted: false },
      );
      expect([group.label, same, moved]).toEqual([group.label, [], []]);
    }
  });

  it("finds no change between a SchemaStore schema and its keys reordered (real schemas, up to 1.5 MB)", () => {
    const files = readdirSync(SCHEMASTORE).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const schema = JSON.parse(readFileSync(join(SCHEMASTORE, file), "utf8")) as JsonSchema;
      const changes = compareSchemas(
        { schema, formatsAsserted: true },
        { schema: reordered(schema) as JsonSchema, formatsAsserted: true },
      );
      expect([file, changes]).toEqual([file, []]);
    }
  });

  it("reports a wider change whenever a mutation accepts more, a narrower one whenever it refuses more", () => {
    let checked = 0;
    fc.assert(
      fc.property(
        fc.nat(compiled.length - 1),
        fc.array(fc.nat(1000), { minLength: 4, maxLength: 4 }),
        (index, pick) => {
          const group = compiled[index] as (typeof compiled)[number];
          const mutation = mutate(group.schema, pick);
          if (mutation === undefined) return;
          const before = group.validate;
          const after = compile(mutation.schema);
          if (after === undefined) return;
          const changes = compareSchemas(
            { schema: group.schema, formatsAsserted: false },
            { schema: mutation.schema, formatsAsserted: false },
          );
          const directions = new Set(changes.map((c) => c.direction));
          for (const data of group.data) {
            let verdicts: [boolean, boolean];
            try {
              verdicts = [before(data), after(data)];
            } catch {
              // A mutation can make a schema loop without end (a `$ref` to itself with nothing else): no verdict.
              continue;
            }
            const [was, is] = verdicts;
            const context = { group: group.label, mutation: mutation.what, data: JSON.stringify(data), changes };
            const missed =
              (is && !was && !directions.has("wider") && !directions.has("different")) ||
              (was && !is && !directions.has("narrower") && !directions.has("different"));
            if (missed) throw new Error(`verdict ${was} → ${is} not explained: ${JSON.stringify(context)}`);
          }
          checked++;
        },
      ),
      { seed: 20261130, numRuns: 600 },
    );
    expect(checked).toBeGreaterThan(250);
  });
});
