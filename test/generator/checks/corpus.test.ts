/**
 * The checker against schemas and instances nobody here wrote: the official JSON Schema Test Suite (2020-12) and
 * SchemaStore's schemas with their sample files, read from ../shared/corpus.
 *
 * Each schema goes through the real resolve stage (remote references served from the suite's `remotes/`), so the
 * checker sees the bundled form the pipeline gives it. The oracle is Ajv compiled from that bundle: every instance
 * it accepts, as the gate would, must fit the derived bounds. The checker must also finish on every schema,
 * recursive and 1.5 MB ones included.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { checkBounds } from "../../../generator/checks/index.js";
import { resolveSchema } from "../../../generator/contract/resolve.js";
import type { Dialect, JsonSchema, SchemaObject } from "../../../generator/schema/shapes.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const corpus = path.resolve(repo, "../shared/corpus");
const suite = path.join(corpus, "json-schema-test-suite");
const remotes: Array<[string, string]> = [["http://localhost:1234/", `${path.join(suite, "remotes")}/`]];

/** Compact JSON with every string character as a `\uXXXX` escape: the longest legal spelling of a value. */
function escapeEverything(value: unknown): string {
  if (typeof value === "string") {
    return `"${Array.from({ length: value.length }, (_, i) => `\\u${value.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")}"`;
  }
  if (Array.isArray(value)) return `[${value.map(escapeEverything).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${escapeEverything(k)}:${escapeEverything(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf));
}

/**
 * A bounded schema to conjoin with a suite schema: scalars, strings of 16 code points, and arrays and objects of at
 * most 4 entries, two levels deep. The conjunction is bounded whatever the suite schema says, so every merge rule
 * of the checker (allOf, $ref, unevaluated*, tuples, anyOf, enum) is exercised against Ajv's verdicts.
 */
function envelope(levels: number): SchemaObject {
  const inner = levels === 0 ? { type: ["null", "boolean", "number", "string"] } : envelope(levels - 1);
  return {
    maxLength: 16,
    ...(levels === 0
      ? inner
      : { maxItems: 4, items: inner, maxProperties: 4, propertyNames: { maxLength: 8 }, additionalProperties: inner }),
  };
}

/** `{allOf: [schema, envelope]}`, with the schema's own `#/…` references moved under `/allOf/0`. */
function enveloped(bundled: JsonSchema): JsonSchema {
  const moved = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(moved);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" && (v === "#" || v.startsWith("#/"))
          ? `#/allOf/0${v.slice(1)}`
          : moved(v),
      ]),
    );
  };
  return { allOf: [moved(bundled) as JsonSchema, envelope(2)] };
}

function withoutIds(value: JsonSchema): JsonSchema {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (typeof node !== "object" || node === null) return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([k, v]) => !(k === "$id" && typeof v === "string"))
        .map(([k, v]) => [k, strip(v)]),
    );
  };
  return strip(value) as JsonSchema;
}

interface Tally {
  schemas: number;
  unresolved: number;
  bounded: number;
  depthBounded: number;
  instances: number;
  violations: string[];
}

const oracles = new Map<string, Ajv2019 | Ajv2020>();

/** One Ajv per dialect and format mode, reused: creating one costs more than compiling a suite schema. */
function oracle(dialect: Dialect, formats: "annotate" | "assert"): Ajv2019 | Ajv2020 {
  const key = `${dialect} ${formats}`;
  let ajv = oracles.get(key);
  if (ajv === undefined) {
    const options = { strict: false, validateFormats: formats === "assert", logger: false as const };
    ajv = dialect === "2019-09" ? new Ajv2019(options) : new Ajv2020(options);
    addFormats.default(ajv);
    oracles.set(key, ajv);
  }
  return ajv;
}

/** Resolve, check, and hold every instance the validator accepts to the bounds. */
async function checkAgainstOracle(
  tally: Tally,
  label: string,
  schema: JsonSchema,
  dialect: Dialect,
  formats: "annotate" | "assert",
  file: string,
  instances: unknown[],
  conjoin = false,
): Promise<void> {
  tally.schemas++;
  let bundled: JsonSchema;
  try {
    bundled = (await resolveSchema(schema, dialect, file, "", { projectRoot: repo, remotes })).bundled;
  } catch {
    tally.unresolved++; // a reference the resolve stage refuses: the pipeline never reaches the checker
    return;
  }
  // In the bundle every `$ref` is a pointer from its root and `$id` is informational; Ajv would still scope
  // references by a nested `$id`, so the oracle compiles the bundle without them.
  bundled = withoutIds(bundled);
  if (conjoin) bundled = enveloped(bundled);
  const report = checkBounds(bundled, { dialect, formats });
  if (conjoin) expect(report.maxBytes, label).not.toBeNull();
  if (report.maxBytes !== null) tally.bounded++;
  if (report.maxDepth !== null) tally.depthBounded++;
  if (report.maxBytes === null) expect(report.findings.length, label).toBeGreaterThan(0);
  if (report.maxBytes === null && report.maxDepth === null) return;
  const ajv = oracle(dialect, formats);
  let validate: ReturnType<typeof ajv.compile>;
  try {
    validate = ajv.compile(bundled as object);
  } catch {
    return; // Ajv cannot compile it: no oracle
  } finally {
    if (typeof bundled === "object") ajv.removeSchema(bundled);
  }
  for (const data of instances) {
    let accepted: boolean;
    try {
      accepted = validate(data) === true;
    } catch {
      continue; // the oracle itself failed (a reference loop Ajv recurses into): no verdict
    }
    if (!accepted) continue;
    tally.instances++;
    const bytes = Math.max(Buffer.byteLength(JSON.stringify(data)), Buffer.byteLength(escapeEverything(data)));
    if (report.maxBytes !== null && bytes > report.maxBytes) {
      tally.violations.push(`${label}: ${bytes} bytes > maxBytes ${report.maxBytes}`);
    }
    if (report.maxDepth !== null && depthOf(data) > report.maxDepth) {
      tally.violations.push(`${label}: depth ${depthOf(data)} > maxDepth ${report.maxDepth}`);
    }
  }
}

function suiteFiles(folder: string): string[] {
  const dir = path.join(suite, "tests/draft2020-12", folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => path.join(dir, f));
}

describe("checkBounds on the JSON Schema Test Suite (2020-12)", () => {
  it.each([
    ["as written", false],
    ["conjoined with a bounding envelope", true],
  ])("bounds every instance the validator accepts, %s", async (how, conjoin) => {
    const tally: Tally = { schemas: 0, unresolved: 0, bounded: 0, depthBounded: 0, instances: 0, violations: [] };
    const folders: Array<[string, "annotate" | "assert"]> = [
      ["", "annotate"],
      ["optional", "annotate"],
      ["optional/format", "assert"],
    ];
    for (const [folder, formats] of folders) {
      for (const file of suiteFiles(folder)) {
        const groups = JSON.parse(readFileSync(file, "utf8")) as Array<{
          description: string;
          schema: JsonSchema;
          tests: Array<{ data: unknown; valid: boolean }>;
        }>;
        for (const [i, group] of groups.entries()) {
          // Every case's data, valid or not: the oracle decides which ones the gate would accept.
          const data = group.tests.map((t) => t.data);
          const label = `${path.relative(suite, file)}#${i} (${group.description})`;
          await checkAgainstOracle(tally, label, group.schema, "2020-12", formats, file, data, conjoin);
        }
      }
    }
    console.log(
      `test suite ${how}: ${tally.schemas} schemas, ${tally.unresolved} refused by resolve, ${tally.bounded} with maxBytes, ` +
        `${tally.depthBounded} with maxDepth, ${tally.instances} accepted instances held to their bounds`,
    );
    expect(tally.violations).toEqual([]);
    // Not vacuous. As written, most suite schemas have no `type` and are honestly unbounded; enveloped, all are bounded.
    expect(tally.bounded).toBeGreaterThan(conjoin ? 400 : 60);
    expect(tally.instances).toBeGreaterThan(conjoin ? 500 : 100);
  });
});

describe("checkBounds on SchemaStore", () => {
  const root = path.join(corpus, "schemastore");
  const schemas = readdirSync(path.join(root, "schemas"))
    .filter((f) => f.endsWith(".json"))
    .sort();

  it("finishes on every schema and bounds every accepted sample file", async () => {
    const tally: Tally = { schemas: 0, unresolved: 0, bounded: 0, depthBounded: 0, instances: 0, violations: [] };
    for (const file of schemas) {
      const name = file.replace(/\.json$/, "");
      const schema = JSON.parse(readFileSync(path.join(root, "schemas", file), "utf8")) as JsonSchema;
      const declared = typeof schema === "object" && typeof schema.$schema === "string" ? schema.$schema : "";
      const dialect: Dialect = declared.includes("2019-09") ? "2019-09" : "2020-12";
      const instances: unknown[] = [];
      for (const folder of ["test", "negative_test"]) {
        const dir = path.join(root, folder, name);
        let entries: string[] = [];
        try {
          entries = readdirSync(dir).sort();
        } catch {
          continue;
        }
        for (const entry of entries) {
          const text = readFileSync(path.join(dir, entry), "utf8");
          if (entry.endsWith(".json")) instances.push(JSON.parse(text));
          else if (entry.endsWith(".yaml") || entry.endsWith(".yml")) instances.push(parseYaml(text));
          else if (entry.endsWith(".toml")) instances.push(parseToml(text));
        }
      }
      await checkAgainstOracle(tally, file, schema, dialect, "annotate", path.join(root, "schemas", file), instances);
    }
    console.log(
      `schemastore: ${tally.schemas} schemas, ${tally.unresolved} refused by resolve, ${tally.bounded} with maxBytes, ` +
        `${tally.depthBounded} with maxDepth, ${tally.instances} accepted instances held to their bounds`,
    );
    expect(tally.violations).toEqual([]);
    expect(tally.schemas).toBe(schemas.length);
  });
});

describe("checkBounds on real MCP tool definitions", () => {
  const root = path.join(corpus, "mcp-tools");
  const files = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".json"))
    .sort();

  it("reports on every input and output schema, with findings exactly when a bound is missing", () => {
    let schemas = 0;
    for (const file of files) {
      const tool = JSON.parse(readFileSync(path.join(root, file), "utf8")) as Record<string, unknown>;
      for (const key of ["inputSchema", "outputSchema"]) {
        const schema = tool[key];
        if (typeof schema !== "object" || schema === null) continue;
        schemas++;
        const report = checkBounds(schema as JsonSchema);
        const label = `${file}#/${key}`;
        expect(report.maxBytes === null, label).toBe(report.findings.length > 0);
        if (report.maxBytes !== null) expect(report.maxDepth, label).not.toBeNull();
        for (const f of report.findings) expect(f.pointer === "" || f.pointer.startsWith("/"), label).toBe(true);
      }
    }
    expect(schemas).toBeGreaterThan(250);
  });
});
