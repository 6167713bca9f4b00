/**
 * The soundness harness: generated types must accept every value the validator accepts.
 *
 * Every schema is turned into declarations; every instance the validator accepts becomes
 * `export const vN: T = <value>;` beside them. All of it goes into one in-memory program and one diagnostics call.
 * A diagnostic on an accepted instance's line is an unsound type; one on a declaration line is a type that does
 * not compile. Instances the validator rejects are checked too, as a measure of precision (not a failure).
 *
 * Sources:
 * - the JSON Schema Test Suite, every file under `tests/draft2020-12/` (the required tests, then `optional/`),
 *   references made local by the harness's own bundler (bundle.ts);
 * - every tool's `inputSchema`/`outputSchema` under `mcp-tools/**` (declarations only: no instances there),
 *   with the two example results the MCP specification pairs with its example tools;
 * - the MCP specification's own schemas, with its 129 official examples checked against the named `$defs`;
 * - SchemaStore's 2020-12 and 2019-09 schemas with their upstream valid and invalid instances (JSON, YAML, TOML),
 *   except `vector` (1.5 MB: 8 s to emit on its own; run `checkSoundness({ vector: true })` to include it).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseToml } from "smol-toml";
import { ts } from "ts-morph";
import { parse as parseYaml } from "yaml";
import { emitTypes, type TypeRequest } from "../../../generator/types/index.js";
import { pascalCase } from "../../../generator/types/names.js";
import { bundle } from "./bundle.js";
import { literal, typeCheck } from "./typecheck.js";

export const CORPUS = fileURLToPath(new URL("../../../../shared/corpus/", import.meta.url));
const SUITE = join(CORPUS, "json-schema-test-suite");
const MCP = join(CORPUS, "mcp-tools");
const REMOTE_BASE = "http://localhost:1234/";

type Ajv = InstanceType<typeof Ajv2020>;
type Validate = (data: unknown) => boolean;

/** One instance to check against a type: `valid` is the validator's verdict. */
interface Instance {
  label: string;
  typeName: string;
  data: unknown;
  valid: boolean;
}

/** What one run found. */
export interface SoundnessReport {
  /** Schemas (suite groups, tool schemas, specification schemas) turned into declarations. */
  schemas: number;
  /** Instances the validator accepts, each checked against its type. */
  instances: number;
  unsound: Array<{ source: string; instance: string; message: string }>;
  declarationErrors: Array<{ source: string; message: string }>;
  /** Instances the validator rejects, and how many of them the type rejects too (precision, not soundness). */
  invalid: { checked: number; rejected: number };
  /** Suite groups Ajv cannot compile: their instances are checked on the suite's own verdict. */
  ajvCannotCompile: string[];
  /** Sources with references neither the bundler nor the types stage could follow (typed `unknown` there). */
  unresolved: string[];
  milliseconds: { emit: number; typecheck: number; total: number };
  /** The same counts by source: `suite`, `mcp-tools`, `mcp-specification`, `schemastore`. */
  parts: Record<string, SourceCounts>;
  /** The suite's counts per file of `tests/draft2020-12/`, in file order, with precision measures. */
  suite: SuiteFileTypes[];
}

/** Soundness counts for one source (a part of the corpus, or one suite file). */
export interface SourceCounts {
  /** Schemas turned into declarations. */
  schemas: number;
  /** Instances the validator accepts, each checked against its type. */
  accepted: number;
  /** Accepted instances the type rejects. */
  unsound: number;
  /** Instances the validator rejects, and how many of them the type rejects too. */
  rejected: { checked: number; alsoByType: number };
}

/**
 * How many schemas using a keyword got the precise TypeScript form for it: `schemas` use the keyword somewhere
 * (a keyword position, not a property name or data), `precise` of them have declarations with that form.
 */
export interface PrecisionMeasure {
  schemas: number;
  precise: number;
}

/** One suite file: soundness counts, and precision measured on the schemas and their emitted declarations. */
export interface SuiteFileTypes extends SourceCounts {
  file: string;
  precision: {
    /** Schemas using `prefixItems`; precise: the declarations hold a tuple type (`[A, B?, ...C[]]`). */
    tuple: PrecisionMeasure;
    /** Schemas using `enum` or `const`; precise: the declarations hold a literal type (`"a"`, `1`, `true`, `null`). */
    literal: PrecisionMeasure;
    /** Schemas using `$ref`; precise: the declarations refer to a type they declare by name (`TA`, or `T` itself). */
    named: PrecisionMeasure;
  };
}

function emptyCounts(): SourceCounts {
  return { schemas: 0, accepted: 0, unsound: 0, rejected: { checked: 0, alsoByType: 0 } };
}

/** Where a batch entry's counts go: a part of the corpus, and for the suite, its file. */
interface Tally {
  part: string;
  suiteFile?: string;
  schemas: number;
}

/** Source files for one program, with which line holds which instance. */
class Batch {
  readonly files: Record<string, string> = {};
  readonly #entries = new Map<string, { source: string; tally: Tally; lines: Map<number, Instance> }>();

  /** Emit `requests` with `instances` below them; returns the emitted declarations. */
  async add(source: string, tally: Tally, requests: TypeRequest[], instances: Instance[] = []): Promise<string> {
    const declarations = await emitTypes(requests);
    const file = `f${this.#entries.size}.ts`;
    const lines = new Map<number, Instance>();
    const text = [declarations];
    let line = declarations.split("\n").length;
    for (const [n, instance] of instances.entries()) {
      lines.set(++line, instance);
      text.push(`export const v${n}: ${instance.typeName} = ${literal(instance.data)};`);
    }
    this.files[file] = `${text.join("\n")}\n`;
    this.#entries.set(file, { source, tally, lines });
    return declarations;
  }

  check(report: SoundnessReport): void {
    const rejected = new Set<Instance>();
    const unsound = new Set<Instance>();
    for (const finding of typeCheck(this.files)) {
      const entry = this.#entries.get(finding.file);
      const instance = entry?.lines.get(finding.line);
      if (instance === undefined) {
        report.declarationErrors.push({
          source: entry?.source ?? finding.file,
          message: `${finding.line}: ${finding.message}`,
        });
      } else if (instance.valid) {
        report.unsound.push({ source: entry?.source ?? "", instance: instance.label, message: finding.message });
        unsound.add(instance);
      } else {
        rejected.add(instance);
      }
    }
    const suiteFiles = new Map(report.suite.map((counts) => [counts.file, counts]));
    for (const { tally, lines } of this.#entries.values()) {
      report.parts[tally.part] ??= emptyCounts();
      const targets = [report.parts[tally.part] as SourceCounts];
      const suiteFile = tally.suiteFile === undefined ? undefined : suiteFiles.get(tally.suiteFile);
      if (suiteFile !== undefined) targets.push(suiteFile);
      for (const counts of targets) counts.schemas += tally.schemas;
      for (const instance of lines.values()) {
        if (instance.valid) report.instances += 1;
        else report.invalid.checked += 1;
        for (const counts of targets) {
          if (instance.valid) {
            counts.accepted += 1;
            // A diagnostic may name an instance more than once; count the instance once.
            if (unsound.has(instance)) counts.unsound += 1;
          } else {
            counts.rejected.checked += 1;
            if (rejected.has(instance)) counts.rejected.alsoByType += 1;
          }
        }
      }
    }
    report.invalid.rejected = rejected.size;
  }
}

/** Every JSON file under `dir`, recursively, as [path relative to dir, parsed], sorted by path. */
function jsonFiles(dir: string): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".json")) continue;
    const path = join(entry.parentPath, entry.name);
    out.push([path.slice(dir.length + 1), JSON.parse(readFileSync(path, "utf8"))]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The remote documents the suite refers to (`http://localhost:1234/…` → `remotes/…`), and the 2020-12 meta-schemas. */
function remoteDocuments(): Map<string, unknown> {
  const remotes = new Map<string, unknown>();
  for (const [path, schema] of jsonFiles(join(SUITE, "remotes"))) {
    if (!/^draft(3|4|6|7|2019-09|-next)\//.test(path)) remotes.set(REMOTE_BASE + path, schema);
  }
  const metaDir = fileURLToPath(new URL("../../../node_modules/ajv/dist/refs/json-schema-2020-12/", import.meta.url));
  for (const [, schema] of jsonFiles(metaDir)) {
    const id = (schema as { $id?: unknown }).$id;
    if (typeof id === "string") remotes.set(id, schema);
  }
  return remotes;
}

function newAjv(remotes: Map<string, unknown>): Ajv {
  const ajv = new Ajv2020({ strict: false, ownProperties: true, validateFormats: false, validateSchema: false });
  for (const [uri, schema] of remotes) {
    if (!uri.startsWith(REMOTE_BASE)) continue; // Ajv2020 has the meta-schemas already
    try {
      ajv.addSchema(schema as object, uri);
    } catch {
      // a remote whose $id another one already took
    }
  }
  return ajv;
}

/** Ajv's verdict (a validator that overflows the stack on `data` accepts nothing). */
function verdict(validate: Validate, data: unknown): boolean {
  try {
    return validate(data);
  } catch {
    return false;
  }
}

/** Keywords whose value maps names to subschemas: the names are not keywords. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is data, not schemas. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

/** What a schema uses: its keywords (not property names, not data), and the primitives in its `enum`s and `const`s. */
interface SchemaUse {
  keywords: Set<string>;
  /** `JSON.stringify` of every string, number, boolean and null inside an `enum` or `const` value. */
  literals: Set<string>;
}

function primitivesIn(value: unknown, found: Set<string>): void {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) primitivesIn(member, found);
  } else {
    found.add(JSON.stringify(value));
  }
}

/** The keywords used anywhere in `schema` in keyword position, and the primitives its `enum`s and `const`s name. */
function useOf(schema: unknown, use: SchemaUse = { keywords: new Set(), literals: new Set() }): SchemaUse {
  if (Array.isArray(schema)) {
    for (const member of schema) useOf(member, use);
    return use;
  }
  if (typeof schema !== "object" || schema === null) return use;
  for (const [key, value] of Object.entries(schema)) {
    use.keywords.add(key);
    if (key === "const") primitivesIn(value, use.literals);
    else if (key === "enum" && Array.isArray(value)) primitivesIn(value, use.literals);
    if (DATA_KEYWORDS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && typeof value === "object" && value !== null) {
      for (const member of Object.values(value)) useOf(member, use);
    } else {
      useOf(value, use);
    }
  }
  return use;
}

/** A literal type node's value as `JSON.stringify` writes it (`"a"`, `-1`, `true`, `null`). */
function literalValue(node: ts.LiteralTypeNode): string | undefined {
  const { literal } = node;
  if (ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) return JSON.stringify(literal.text);
  if (ts.isNumericLiteral(literal)) return JSON.stringify(Number(literal.text));
  if (ts.isPrefixUnaryExpression(literal) && ts.isNumericLiteral(literal.operand)) {
    return JSON.stringify(-Number(literal.operand.text));
  }
  if (literal.kind === ts.SyntaxKind.TrueKeyword) return "true";
  if (literal.kind === ts.SyntaxKind.FalseKeyword) return "false";
  if (literal.kind === ts.SyntaxKind.NullKeyword) return "null";
  return undefined;
}

/**
 * Which precise forms emitted declarations hold: a tuple type; a literal type for one of `literals` (a `null` in
 * the union every untyped schema gets does not count unless an `enum` or `const` names null); a reference to a
 * type they declare.
 */
function formsIn(declarations: string, literals: Set<string>): { tuple: boolean; literal: boolean; named: boolean } {
  const file = ts.createSourceFile("declarations.ts", declarations, ts.ScriptTarget.ES2022);
  const declared = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) {
      declared.add(statement.name.text);
    }
  }
  const forms = { tuple: false, literal: false, named: false };
  const visit = (node: ts.Node): void => {
    if (ts.isTupleTypeNode(node)) forms.tuple = true;
    else if (ts.isLiteralTypeNode(node)) {
      const value = literalValue(node);
      if (value !== undefined && literals.has(value)) forms.literal = true;
    } else if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && declared.has(node.typeName.text)) {
      forms.named = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return forms;
}

/** Count one suite schema into its file's precision measures. */
function measurePrecision(counts: SuiteFileTypes, schema: unknown, declarations: string): void {
  const { keywords, literals } = useOf(schema);
  const forms = formsIn(declarations, literals);
  const { tuple, literal, named } = counts.precision;
  if (keywords.has("prefixItems")) {
    tuple.schemas += 1;
    if (forms.tuple) tuple.precise += 1;
  }
  if (keywords.has("enum") || keywords.has("const")) {
    literal.schemas += 1;
    if (forms.literal) literal.precise += 1;
  }
  if (keywords.has("$ref")) {
    named.schemas += 1;
    if (forms.named) named.precise += 1;
  }
}

async function addSuite(batch: Batch, report: SoundnessReport): Promise<void> {
  const remotes = remoteDocuments();
  const testsDir = join(SUITE, "tests", "draft2020-12");
  // The required tests, then the optional ones (`optional/…`, `optional/format/…`): a type must accept what the
  // validator accepts there too (formats only annotate, so every well-formed string of the right type is accepted).
  const suiteFiles = readdirSync(testsDir, { recursive: true, encoding: "utf8" })
    .map((f) => f.split(sep).join("/"))
    .filter((f) => f.endsWith(".json"))
    .sort((a, b) => Number(a.includes("/")) - Number(b.includes("/")) || (a < b ? -1 : a > b ? 1 : 0));
  for (const suiteFile of suiteFiles) {
    const groups = JSON.parse(readFileSync(join(testsDir, suiteFile), "utf8")) as Array<{
      description: string;
      schema: unknown;
      tests: Array<{ description: string; data: unknown; valid: boolean }>;
    }>;
    const counts: SuiteFileTypes = {
      file: suiteFile,
      ...emptyCounts(),
      precision: {
        tuple: { schemas: 0, precise: 0 },
        literal: { schemas: 0, precise: 0 },
        named: { schemas: 0, precise: 0 },
      },
    };
    report.suite.push(counts);
    for (const [index, group] of groups.entries()) {
      const source = `${suiteFile} #${index} ${group.description}`;
      let validate: Validate | undefined;
      try {
        validate = newAjv(remotes).compile(group.schema as object);
      } catch {
        report.ajvCannotCompile.push(source);
      }
      const bundled = bundle(group.schema, remotes);
      if (bundled.unresolved.length > 0) report.unresolved.push(`${source}: ${bundled.unresolved.join(", ")}`);
      const instances = group.tests.map((test) => ({
        label: test.description,
        typeName: "T",
        data: test.data,
        valid: validate === undefined ? test.valid : test.valid && verdict(validate, test.data),
      }));
      const declarations = await batch.add(
        source,
        { part: "suite", suiteFile, schemas: 1 },
        [{ name: "T", schema: bundled.schema as TypeRequest["schema"] }],
        instances,
      );
      measurePrecision(counts, group.schema, declarations);
      report.schemas += 1;
    }
  }
}

/** A tool definition as MCP servers publish them. */
interface Tool {
  name: string;
  inputSchema: TypeRequest["schema"];
  outputSchema?: TypeRequest["schema"];
}

function isTool(value: unknown): value is Tool {
  const tool = value as Partial<Tool> | null;
  return typeof tool?.name === "string" && typeof tool.inputSchema === "object" && tool.inputSchema !== null;
}

/** Every tool object in a JSON document (a tool file, or a `tools/list` result holding several). */
function toolsIn(value: unknown): Tool[] {
  if (isTool(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(toolsIn);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(toolsIn);
  return [];
}

/** Results the specification's examples pair with its example tools: [tool file, result file]. */
const PAIRED_RESULTS: Array<[string, string]> = [
  ["Tool/with-output-schema-for-structured-content.json", "CallToolResult/result-with-structured-content.json"],
  ["Tool/tool-with-array-output-schema.json", "CallToolResult/result-with-array-structured-content.json"],
];
const EXAMPLES = "mcp-specification/schema/2026-07-28/examples/";

async function addToolSchemas(batch: Batch, report: SoundnessReport): Promise<void> {
  const ajv = new Ajv2020({ strict: false, ownProperties: true, validateFormats: false, validateSchema: false });
  for (const [path, document] of jsonFiles(MCP)) {
    if (path.endsWith("/schema.json")) continue; // the protocol's own schemas: addSpecification
    for (const [n, tool] of toolsIn(document).entries()) {
      const base = pascalCase(tool.name) || "Tool";
      const requests: TypeRequest[] = [{ name: `${base}Input`, schema: tool.inputSchema }];
      const instances: Instance[] = [];
      if (tool.outputSchema !== undefined) {
        requests.push({ name: `${base}Result`, schema: tool.outputSchema });
        const paired = PAIRED_RESULTS.find(([toolFile]) => path === EXAMPLES + toolFile);
        if (paired) {
          const result = JSON.parse(readFileSync(join(MCP, EXAMPLES, paired[1]), "utf8")) as {
            structuredContent: unknown;
          };
          const valid = verdict(ajv.compile(tool.outputSchema as object), result.structuredContent);
          instances.push({ label: paired[1], typeName: `${base}Result`, data: result.structuredContent, valid });
        }
      }
      const tally = { part: "mcp-tools", schemas: requests.length };
      await batch.add(`${path} [${n}] ${tool.name}`, tally, requests, instances);
      report.schemas += requests.length;
    }
  }
}

/** The MCP specification's schemas; for the newest, its official examples checked against the named `$defs`. */
async function addSpecification(batch: Batch, report: SoundnessReport): Promise<void> {
  for (const version of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
    const dir = join(MCP, "mcp-specification", "schema", version);
    const schema = JSON.parse(readFileSync(join(dir, "schema.json"), "utf8")) as Record<string, unknown>;
    const container = schema.$defs === undefined ? "definitions" : "$defs";
    const keys = Object.keys(schema[container] as object);
    // A root that references every definition, so each becomes a named type: `Mcp<Key>`.
    const root = { ...schema, anyOf: keys.map((key) => ({ $ref: `#/${container}/${encodeURIComponent(key)}` })) };
    const instances: Instance[] = [];
    if (version === "2026-07-28") {
      const ajv = new Ajv2020({ strict: false, ownProperties: true, validateFormats: false, validateSchema: false });
      ajv.addSchema(schema, "https://mcp.invalid/schema.json");
      for (const [path, example] of jsonFiles(join(dir, "examples"))) {
        const key = path.split("/")[0] as string;
        const validate = ajv.getSchema(`https://mcp.invalid/schema.json#/$defs/${key}`);
        if (validate === undefined) continue;
        instances.push({
          label: path,
          typeName: `Mcp${pascalCase(key)}`,
          data: example,
          valid: verdict(validate, example),
        });
      }
    }
    await batch.add(
      `mcp-specification ${version}`,
      { part: "mcp-specification", schemas: 1 },
      [{ name: "Mcp", schema: root as TypeRequest["schema"] }],
      instances,
    );
    report.schemas += 1;
  }
}

/** Parse a SchemaStore instance file as the JSON value a validator sees (TOML dates become strings). */
function parseInstance(path: string): unknown {
  const text = readFileSync(path, "utf8");
  if (path.endsWith(".json")) return JSON.parse(text);
  return JSON.parse(JSON.stringify(path.endsWith(".toml") ? parseToml(text) : parseYaml(text)));
}

async function addSchemaStore(batch: Batch, report: SoundnessReport, withVector: boolean): Promise<void> {
  const root = join(CORPUS, "schemastore");
  for (const [file, schema] of jsonFiles(join(root, "schemas"))) {
    const name = file.replace(/\.json$/, "");
    if (name === "vector" && !withVector) continue;
    const options = { strict: false, validateFormats: false, validateSchema: false } as const;
    const ajv = String((schema as { $schema?: unknown }).$schema).includes("2019-09")
      ? new Ajv2019(options)
      : new Ajv2020(options);
    let validate: Validate | undefined;
    try {
      validate = ajv.compile(schema as object);
    } catch {
      report.ajvCannotCompile.push(`schemastore ${name}`);
    }
    const instances: Instance[] = [];
    for (const [folder, upstreamValid] of [
      ["test", true],
      ["negative_test", false],
    ] as const) {
      let entries: string[] = [];
      try {
        entries = readdirSync(join(root, folder, name)).sort();
      } catch {
        continue; // no instances of this kind upstream
      }
      for (const entry of entries) {
        const data = parseInstance(join(root, folder, name, entry));
        const valid = validate === undefined ? upstreamValid : verdict(validate, data);
        instances.push({ label: `${folder}/${name}/${entry}`, typeName: "S", data, valid });
      }
    }
    await batch.add(
      `schemastore ${name}`,
      { part: "schemastore", schemas: 1 },
      [{ name: "S", schema: schema as TypeRequest["schema"] }],
      instances,
    );
    report.schemas += 1;
  }
}

/** Run the whole harness: one batch, one program, one diagnostics call. */
export async function checkSoundness(options: { vector?: boolean } = {}): Promise<SoundnessReport> {
  const report: SoundnessReport = {
    schemas: 0,
    instances: 0,
    unsound: [],
    declarationErrors: [],
    invalid: { checked: 0, rejected: 0 },
    ajvCannotCompile: [],
    unresolved: [],
    milliseconds: { emit: 0, typecheck: 0, total: 0 },
    parts: {},
    suite: [],
  };
  const started = performance.now();
  const batch = new Batch();
  await addSuite(batch, report);
  await addToolSchemas(batch, report);
  await addSpecification(batch, report);
  await addSchemaStore(batch, report, options.vector === true);
  report.milliseconds.emit = Math.round(performance.now() - started);
  batch.check(report);
  report.milliseconds.total = Math.round(performance.now() - started);
  report.milliseconds.typecheck = report.milliseconds.total - report.milliseconds.emit;
  return report;
}
