/**
 * Renders `test/conformance/REPORT.md` from the counts the conformance test writes to
 * `.tmp/conformance/results.json`. Run from the repository root after `vitest run test/conformance`
 * (`npm run conformance` does both).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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

/** Table cells cannot hold a raw `|` or a line break. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** The Markdown report for one run. */
export function renderReport(results: Results, ajvVersion: string): string {
  const lines: string[] = [
    "# Conformance: generated validators against the JSON Schema Test Suite",
    "",
    "Every group of the official JSON Schema Test Suite (draft 2020-12, from `../shared/corpus/json-schema-test-suite/`)",
    "goes through the validator stage. A group is either compiled into a standalone validator, which must give the",
    "suite's verdict on every case and agree with Ajv compiling the same schema at run time, or refused with a reason.",
    "Refusals come from feature detection (`generator/validator/unsupported.ts`) or from Ajv failing to compile.",
    "The detection rules name shapes Ajv validates wrongly, several found beyond the suite by comparing Ajv with a",
    "direct reading of the spec on generated schemas (`test/validator/unevaluated.property.test.ts`). A group refused",
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
  return `${lines.join("\n")}\n`;
}

const results = JSON.parse(readFileSync(join(REPO_ROOT, ".tmp/conformance/results.json"), "utf8")) as Results;
const ajv = JSON.parse(readFileSync(join(REPO_ROOT, "node_modules/ajv/package.json"), "utf8")) as { version: string };
writeFileSync(join(REPO_ROOT, "test/conformance/REPORT.md"), renderReport(results, ajv.version));
