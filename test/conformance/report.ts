/**
 * Renders `test/conformance/REPORT.md` from the counts the conformance test writes to
 * `.tmp/conformance/results.json`. Run from the repository root after `vitest run test/conformance`
 * (`npm run conformance` does both). When they exist, it adds the types soundness harness's counts
 * (`.tmp/conformance/types.json`, written by `test/generator/types/soundness.test.ts`) and the SchemaStore counts
 * (`.tmp/conformance/schemastore.json`, written by `test/conformance/schemastore.test.ts`).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SoundnessReport, SourceCounts, SuiteFileTypes } from "../generator/types/suite.js";

/** `npm run` starts scripts in the package root. */
const REPO_ROOT = process.cwd();

/** The per-file counts, as the conformance test writes them. */
interface FileResult {
  file: string;
  groups: number;
  cases: number;
  right: number;
  wrong: number;
  refusedGroups: number;
  refusedCases: number;
  refusals: Array<{
    group: number;
    description: string;
    cases: number;
    reasons: string[];
    ajv: { compiles: true; wrong: number } | { compiles: false; error: string };
  }>;
  wrongCases: Array<{ group: number; description: string; case: string; expected: boolean }>;
  disagreements: unknown[];
}

interface Results {
  seconds: number;
  cpuSeconds?: number;
  results: { required?: FileResult[]; optional?: FileResult[]; format?: FileResult[] };
}

const PARTS: Array<{ key: keyof Results["results"]; title: string; formats: string }> = [
  { key: "required", title: "Required tests (`tests/draft2020-12/*.json`)", formats: "format annotates" },
  { key: "optional", title: "Optional tests (`optional/*.json`)", formats: "format annotates" },
  { key: "format", title: "Format tests (`optional/format/*.json`)", formats: "formats asserted" },
];

function totals(files: readonly FileResult[]) {
  const sum = (pick: (f: FileResult) => number) => files.reduce((n, f) => n + pick(f), 0);
  return {
    files: files.length,
    groups: sum((f) => f.groups),
    cases: sum((f) => f.cases),
    right: sum((f) => f.right),
    wrong: sum((f) => f.wrong),
    refusedGroups: sum((f) => f.refusedGroups),
    refusedCases: sum((f) => f.refusedCases),
    disagreements: sum((f) => f.disagreements.length),
    refusedThoughAjvRight: sum((f) => f.refusals.filter((r) => r.ajv.compiles && r.ajv.wrong === 0).length),
  };
}

/** What `test/conformance/schemastore.test.ts` writes. */
interface SchemaStoreSummary {
  schemas: number;
  generated: number;
  refused: number;
  instancesJudged: number;
  wrong: string[];
  typeChecked: number;
  report: Record<
    string,
    { generated: true; instances: number; agree: number } | { refused: string[]; instances: number }
  >;
}

/** The report's optional parts: each present when its test has written its file. */
export interface ReportExtras {
  types?: SoundnessReport;
  schemastore?: SchemaStoreSummary;
  /** Written by test/generator/corpus.test.ts. */
  mcpCorpus?: Record<
    string,
    { contracts: number; generated: number; refused: number; reasons: Record<string, number> }
  >;
}

/** Table cells cannot hold a raw `|` or a line break. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** `precise/schemas`, or a dash when no schema uses the keyword. */
function ratio(measure: { schemas: number; precise: number }): string {
  return measure.schemas === 0 ? "–" : `${measure.precise}/${measure.schemas}`;
}

/** Sum of soundness counts and precision measures over suite files. */
function typeTotals(files: readonly SuiteFileTypes[]): Omit<SuiteFileTypes, "file"> {
  const sum = (pick: (f: SuiteFileTypes) => number) => files.reduce((n, f) => n + pick(f), 0);
  const measure = (key: keyof SuiteFileTypes["precision"]) => ({
    schemas: sum((f) => f.precision[key].schemas),
    precise: sum((f) => f.precision[key].precise),
  });
  return {
    schemas: sum((f) => f.schemas),
    accepted: sum((f) => f.accepted),
    unsound: sum((f) => f.unsound),
    rejected: { checked: sum((f) => f.rejected.checked), alsoByType: sum((f) => f.rejected.alsoByType) },
    precision: { tuple: measure("tuple"), literal: measure("literal"), named: measure("named") },
  };
}

/** What each source of the soundness harness is. */
const TYPE_SOURCES: Record<string, string> = {
  suite: "JSON Schema Test Suite, required and optional tests (formats annotating)",
  "mcp-tools": "MCP tool definitions (`mcp-tools/**`), input and output schemas",
  "mcp-specification": "MCP specification schemas, with its official examples",
  schemastore: "SchemaStore schemas, with upstream instances (`vector` only when run with `{ vector: true }`)",
};

function renderTypes(types: SoundnessReport): string[] {
  const lines = [
    "",
    "## Types",
    "",
    "The types soundness harness (`test/generator/types/suite.ts`, run by `npx vitest run test/generator/types/soundness.test.ts`, part",
    "of `npm test`) emits declarations for every schema below and type-checks, in one program, every instance the",
    "validator accepts as `const v: T = <value>`: a type error there is an unsound type. Instances the validator",
    "rejects are checked too; the type rejecting them as well is precision, not a requirement.",
    "",
    `${types.schemas} schemas, ${types.instances} accepted instances, ${types.unsound.length} type errors on accepted instances, ` +
      `${types.declarationErrors.length} declarations that do not compile, ${types.unresolved.length} sources with unresolved references; ` +
      `${types.ajvCannotCompile.length} schemas Ajv cannot compile, whose instances are taken on the suite's or upstream's own verdict. ` +
      `Emit ${types.milliseconds.emit} ms, one type-check ${types.milliseconds.typecheck} ms.`,
    "",
    "| source | schemas | accepted instances checked | unsound | rejected instances checked | also rejected by the type |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const [part, counts] of Object.entries(types.parts) as Array<[string, SourceCounts]>) {
    lines.push(
      `| ${TYPE_SOURCES[part] ?? part} | ${counts.schemas} | ${counts.accepted} | ${counts.unsound} | ${counts.rejected.checked} | ${counts.rejected.alsoByType} |`,
    );
  }
  lines.push(
    "",
    "### Types per suite file",
    "",
    "Precision is measured on each group's schema and the declarations emitted for it, as `precise/schemas`:",
    "",
    "- tuple: schemas using `prefixItems` anywhere / of them, declarations holding a tuple type (`[A, B?, ...C[]]`)",
    "  rather than only arrays (`unknown[]`);",
    "- literal: schemas using `enum` or `const` / of them, declarations holding a literal type for one of the values",
    '  they name (`"a"`, `1`, `true`, `null`) rather than only wider types (`string`, `number`); an object or array',
    "  value counts through the primitives inside it;",
    "- named: schemas using `$ref` / of them, declarations referring by name to a type they declare (a `$defs`",
    "  entry's own type, or `T` itself for a recursive reference) rather than inlining or `unknown`.",
    "",
    "A keyword counts where it is a keyword: not as a property name under `properties`, nor inside `enum`, `const`,",
    "`default` or `examples` data. Unsound counts instances, not diagnostics.",
    "",
    "| file | schemas | accepted checked | unsound | rejected checked | also rejected by the type | tuple | literal | named |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  const row = (name: string, f: Omit<SuiteFileTypes, "file">) =>
    `| ${name} | ${f.schemas} | ${f.accepted} | ${f.unsound} | ${f.rejected.checked} | ${f.rejected.alsoByType} | ${ratio(f.precision.tuple)} | ${ratio(f.precision.literal)} | ${ratio(f.precision.named)} |`;
  for (const f of types.suite) lines.push(row(f.file, f));
  lines.push(row("**total**", typeTotals(types.suite)));
  if (types.unsound.length > 0) {
    lines.push("", "Unsound types:", "", "| source | instance | type error |", "| --- | --- | --- |");
    for (const u of types.unsound) lines.push(`| ${cell(u.source)} | ${cell(u.instance)} | ${cell(u.message)} |`);
  }
  if (types.declarationErrors.length > 0) {
    lines.push("", "Declarations that do not compile:", "", "| source | error |", "| --- | --- |");
    for (const d of types.declarationErrors) lines.push(`| ${cell(d.source)} | ${cell(d.message)} |`);
  }
  return lines;
}

function renderRealContracts(extras: ReportExtras): string[] {
  const lines = ["", "## Real contracts"];
  const store = extras.schemastore;
  if (store !== undefined) {
    lines.push(
      "",
      "### SchemaStore",
      "",
      "Every SchemaStore schema of `../shared/corpus/schemastore/`, as a contract's output schema, through the real",
      "generator (`test/conformance/schemastore.test.ts`): it generates, its generated validator judges the upstream",
      "instances (`test/` valid, `negative_test/` invalid) and every accepted instance type-checks against the",
      "generated result type; or it is refused with a reason.",
      "",
      "| schemas | generated | refused | instances judged | judged unlike upstream | accepted instances type-checked |",
      "| ---: | ---: | ---: | ---: | ---: | ---: |",
      `| ${store.schemas} | ${store.generated} | ${store.refused} | ${store.instancesJudged} | ${store.wrong.length} | ${store.typeChecked} |`,
    );
    const refused = Object.entries(store.report).flatMap(([name, entry]) =>
      "refused" in entry ? [{ name, ...entry }] : [],
    );
    if (refused.length > 0) {
      lines.push("", "| refused schema | upstream instances | reason |", "| --- | ---: | --- |");
      for (const r of refused) lines.push(`| ${r.name} | ${r.instances} | ${cell(r.refused.join("; "))} |`);
    }
    if (store.wrong.length > 0) {
      lines.push("", "Judged unlike upstream:", "");
      for (const w of store.wrong) lines.push(`- ${cell(w)}`);
    }
  }
  const types = extras.types;
  if (types !== undefined) {
    lines.push(
      "",
      "### Types of real contracts",
      "",
      "From the types soundness harness (see Types above):",
      "",
      "| source | schemas | accepted instances checked | unsound | rejected instances checked | also rejected by the type |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const [part, counts] of Object.entries(types.parts) as Array<[string, SourceCounts]>) {
      if (part === "suite") continue;
      lines.push(
        `| ${TYPE_SOURCES[part] ?? part} | ${counts.schemas} | ${counts.accepted} | ${counts.unsound} | ${counts.rejected.checked} | ${counts.rejected.alsoByType} |`,
      );
    }
  }
  const corpus = extras.mcpCorpus;
  lines.push(
    "",
    "### MCP tool corpus",
    "",
    "Every tool definition of `../shared/corpus/mcp-tools/` (GitHub, Sentry, the reference servers, the MCP",
    "specification's examples), given only a receive ceiling, through the real generator and `tsc --strict`",
    "(`test/generator/corpus.test.ts`): as published, and every schema it holds (input and output alike) as the",
    "output schema of a contract of its own. The import path (`toolgate import`) is counted by `test/mcp/corpus.test.ts`.",
  );
  if (corpus !== undefined) {
    lines.push("", "| pass | contracts | generated and type-checked | refused |", "| --- | ---: | ---: | ---: |");
    for (const [pass, counts] of Object.entries(corpus)) {
      lines.push(
        `| ${pass === "tools" ? "tools as published" : "every schema as an output schema"} | ${counts.contracts} | ${counts.generated} | ${counts.refused} |`,
      );
    }
    for (const [pass, counts] of Object.entries(corpus)) {
      const reasons = Object.entries(counts.reasons);
      if (reasons.length === 0) continue;
      lines.push("", `Refusals (${pass}):`, "");
      for (const [reason, count] of reasons) lines.push(`- ${count} × ${cell(reason)}`);
    }
  }
  return lines;
}

/** The Markdown report for one run. */
export function renderReport(results: Results, ajvVersion: string, extras: ReportExtras = {}): string {
  const lines: string[] = [
    "# Conformance: generated validators against the JSON Schema Test Suite",
    "",
    "Every group of the official JSON Schema Test Suite (draft 2020-12, from `../shared/corpus/json-schema-test-suite/`)",
    "goes through the validator stage. A group is either compiled into a standalone validator, which must give the",
    "suite's verdict on every case and agree with Ajv compiling the same schema at run time, or refused with a reason.",
    "Refusals come from feature detection (`generator/validator/unsupported.ts`) or from Ajv failing to compile.",
    "The detection rules name shapes Ajv validates wrongly, several found beyond the suite by comparing Ajv with a",
    "direct reading of the spec on generated schemas (`test/generator/validator/unevaluated.property.test.ts`). A group refused",
    "by such a rule may still be one whose particular cases run-time Ajv happens to get right: the column",
    '"refused though run-time Ajv is right on them" counts those.',
    "",
    `Ajv ${ajvVersion}; harness run time ${results.seconds} s (${results.cpuSeconds ?? "?"} s of CPU in the test process). Reproduce with \`npm run conformance\`.`,
    "",
    "| part | files | groups | cases | right | wrong | refused groups | cases in refused groups | refused though run-time Ajv is right on them | standalone ≠ run-time Ajv |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const part of PARTS) {
    const files = results.results[part.key];
    if (files === undefined) continue;
    const t = totals(files);
    lines.push(
      `| ${part.key} (${part.formats}) | ${t.files} | ${t.groups} | ${t.cases} | ${t.right} | ${t.wrong} | ${t.refusedGroups} | ${t.refusedCases} | ${t.refusedThoughAjvRight} | ${t.disagreements} |`,
    );
  }
  for (const part of PARTS) {
    const files = results.results[part.key];
    if (files === undefined) continue;
    lines.push(
      "",
      `## ${part.title}`,
      "",
      "| file | groups | cases | right | wrong | refused groups | refused cases |",
    );
    lines.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const f of files) {
      lines.push(
        `| ${f.file} | ${f.groups} | ${f.cases} | ${f.right} | ${f.wrong} | ${f.refusedGroups} | ${f.refusedCases} |`,
      );
    }
    const refusals = files.flatMap((f) => f.refusals.map((r) => ({ file: f.file, ...r })));
    if (refusals.length > 0) {
      lines.push(
        "",
        "Refused groups, with what Ajv compiling the schema at run time would have done:",
        "",
        "| file | group | cases | Ajv at run time | reason |",
        "| --- | --- | ---: | --- | --- |",
      );
      for (const r of refusals) {
        const ajv = r.ajv.compiles ? `${r.ajv.wrong} wrong` : "does not compile";
        lines.push(
          `| ${r.file} | ${r.group}: ${cell(r.description)} | ${r.cases} | ${ajv} | ${cell(r.reasons.join("; "))} |`,
        );
      }
    }
    const wrong = files.flatMap((f) => f.wrongCases.map((w) => ({ file: f.file, ...w })));
    if (wrong.length > 0) {
      lines.push("", "Wrong verdicts:", "", "| file | group | case | suite says |", "| --- | --- | --- | --- |");
      for (const w of wrong) {
        lines.push(
          `| ${w.file} | ${w.group}: ${cell(w.description)} | ${cell(w.case)} | ${w.expected ? "valid" : "invalid"} |`,
        );
      }
    }
  }
  if (extras.types !== undefined) lines.push(...renderTypes(extras.types));
  lines.push(...renderRealContracts(extras));
  return `${lines.join("\n")}\n`;
}

/** A JSON file a test wrote, or undefined when that test has not run. */
function readIfPresent<T>(path: string): T | undefined {
  const file = join(REPO_ROOT, path);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;
}

const results = JSON.parse(readFileSync(join(REPO_ROOT, ".tmp/conformance/results.json"), "utf8")) as Results;
const ajv = JSON.parse(readFileSync(join(REPO_ROOT, "node_modules/ajv/package.json"), "utf8")) as { version: string };
const extras: ReportExtras = {};
const types = readIfPresent<SoundnessReport>(".tmp/conformance/types.json");
if (types !== undefined) extras.types = types;
const schemastore = readIfPresent<SchemaStoreSummary>(".tmp/conformance/schemastore.json");
if (schemastore !== undefined) extras.schemastore = schemastore;
const mcpCorpus = readIfPresent<NonNullable<ReportExtras["mcpCorpus"]>>(".tmp/conformance/mcp-corpus.json");
if (mcpCorpus !== undefined) extras.mcpCorpus = mcpCorpus;
writeFileSync(join(REPO_ROOT, "test/conformance/REPORT.md"), renderReport(results, ajv.version, extras));
