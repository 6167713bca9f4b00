/**
 * The generated validators against the official JSON Schema Test Suite (2020-12).
 *
 * For every group the validator stage either emits a standalone validator, which must give the suite's verdict on
 * every case and agree with Ajv compiling the same schema at run time, or refuses the schema with a reason. There is
 * no allow-list: a wrong verdict fails. Counts go to `.tmp/conformance/results.json`, rendered by `report.ts`.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compilerFor, type FormatMode } from "../../generator/validator/compiler.js";
import type { ValidatorRequest } from "../../generator/validator/index.js";
import { ensureBuilt } from "../build.js";
import { emitValidators } from "../generator/validator/emit-module.js";
import { loadGroups, REPO_ROOT, runtimeBuilt, type SuiteGroup, suiteFiles, WORK_DIR, writeModule } from "./suite.js";

/** Counts for one suite file. */
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
    /** What Ajv compiling the schema at run time would do: cases it gets wrong, or that it cannot compile. */
    ajv: { compiles: true; wrong: number } | { compiles: false; error: string };
  }>;
  wrongCases: Array<{ group: number; description: string; case: string; expected: boolean }>;
  disagreements: Array<{ group: number; case: string; standalone: boolean; runtime: boolean | string }>;
  /** Where the module with this file's validators was written (relative to the repository). */
  module?: string;
}

type Validate = (data: unknown) => boolean;

function requestFor(group: SuiteGroup, formats: FormatMode): ValidatorRequest {
  return { exportName: `group${group.index}`, schema: group.schema, formats };
}

/** The verdict of Ajv compiling the schema in-process with the generator's options, or why it threw. */
function runtimeVerdicts(group: SuiteGroup, formats: FormatMode): Array<boolean | string> {
  const ajv = compilerFor(group.schema, formats);
  const validate = ajv.getSchema(group.schema.baseUri);
  if (validate === undefined) throw new Error(`no schema ${group.schema.baseUri}`);
  return group.cases.map((c) => {
    try {
      return validate(c.data) as boolean;
    } catch (error) {
      return `threw: ${(error as Error).message}`;
    }
  });
}

/** How Ajv at run time would have fared on a group the stage refused. */
function ajvWithoutRefusal(group: SuiteGroup, formats: FormatMode): FileResult["refusals"][number]["ajv"] {
  let verdicts: Array<boolean | string>;
  try {
    verdicts = runtimeVerdicts(group, formats);
  } catch (error) {
    return { compiles: false, error: (error as Error).message };
  }
  return { compiles: true, wrong: group.cases.filter((c, i) => verdicts[i] !== c.valid).length };
}

/** Generate, load and run every group of one suite file. */
async function runFile(file: string, formats: FormatMode): Promise<FileResult> {
  const groups = loadGroups(file);
  const result: FileResult = {
    file,
    groups: groups.length,
    cases: 0,
    right: 0,
    wrong: 0,
    refusedGroups: 0,
    refusedCases: 0,
    refusals: [],
    wrongCases: [],
    disagreements: [],
  };
  const accepted: SuiteGroup[] = [];
  for (const group of groups) {
    result.cases += group.cases.length;
    const emitted = emitValidators([requestFor(group, formats)]);
    if ("refusals" in emitted) {
      result.refusedGroups++;
      result.refusedCases += group.cases.length;
      result.refusals.push({
        group: group.index,
        description: group.description,
        cases: group.cases.length,
        reasons: emitted.refusals.map((r) => `${r.pointer || "/"}: ${r.reason}`),
        ajv: ajvWithoutRefusal(group, formats),
      });
    } else {
      accepted.push(group);
    }
  }
  if (accepted.length === 0) return result;
  // All accepted groups of a file in one module: this also exercises several validators sharing a module.
  const emitted = emitValidators(accepted.map((g) => requestFor(g, formats)));
  if (!("code" in emitted)) throw new Error(`${file}: accepted groups refused together`);
  const moduleName = `${file.replace(/\.json$/, "")}.js`;
  const url = writeModule(moduleName, emitted.code);
  result.module = join(".tmp/conformance", moduleName);
  const validators = (await import(/* @vite-ignore */ url)) as Record<string, Validate>;
  for (const group of accepted) {
    const validate = validators[`group${group.index}`];
    if (validate === undefined) throw new Error(`${file}: group${group.index} not exported`);
    const runtime = runtimeVerdicts(group, formats);
    group.cases.forEach((c, i) => {
      const verdict = validate(c.data);
      if (verdict === c.valid) result.right++;
      else {
        result.wrong++;
        result.wrongCases.push({
          group: group.index,
          description: group.description,
          case: c.description,
          expected: c.valid,
        });
      }
      if (runtime[i] !== verdict) {
        result.disagreements.push({
          group: group.index,
          case: c.description,
          standalone: verdict,
          runtime: runtime[i] as boolean | string,
        });
      }
    });
  }
  return result;
}

const results: Record<string, FileResult[]> = {};
/** Generous: the whole suite compiles several hundred schemas, and the machines running it are shared. */
const SUITE_TIMEOUT = 600_000;
const started = Date.now();
const startedCpu = process.cpuUsage();

/** CPU time this test process has spent since the suite started (the wall clock depends on the machine's load). */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage(startedCpu);
  return Math.round((user + system) / 100_000) / 10;
}

beforeAll(async () => {
  // Generated modules import `@toolgate/runtime`, which resolves to the built `runtime/dist/index.js`.
  await ensureBuilt();
  if (!runtimeBuilt()) throw new Error("runtime/dist/validators.js is missing: run `npm run build`");
}, 180_000);

function writeResults(): void {
  writeFileSync(
    join(WORK_DIR, "results.json"),
    `${JSON.stringify({ seconds: Math.round((Date.now() - started) / 100) / 10, cpuSeconds: cpuSeconds(), results }, null, 2)}\n`,
  );
}

describe("JSON Schema Test Suite 2020-12", () => {
  it(
    "gives the suite's verdict on every case of every group it does not refuse",
    async () => {
      const files = await Promise.all(suiteFiles("").map((f) => runFile(f, "annotate")));
      results.required = files;
      writeResults();
      expect(files.flatMap((f) => f.wrongCases)).toEqual([]);
      expect(files.flatMap((f) => f.disagreements)).toEqual([]);
    },
    SUITE_TIMEOUT,
  );

  it(
    "agrees with Ajv on the optional tests, formats asserted under optional/format/",
    async () => {
      const optional = await Promise.all(suiteFiles("optional").map((f) => runFile(f, "annotate")));
      const formats = await Promise.all(suiteFiles("optional/format").map((f) => runFile(f, "assert")));
      results.optional = optional;
      results.format = formats;
      writeResults();
      expect([...optional, ...formats].flatMap((f) => f.disagreements)).toEqual([]);
    },
    SUITE_TIMEOUT,
  );

  it("loads the generated modules under plain Node ESM with code generation from strings disabled", () => {
    const required = results.required ?? [];
    const picked = required.filter(
      (f) =>
        f.module !== undefined &&
        ["ref.json", "uniqueItems.json", "maxLength.json", "properties.json"].includes(f.file),
    );
    expect(picked.length).toBe(4);
    // The child checks each case against the suite itself and prints what it counted.
    const script = `
      import { readFileSync } from "node:fs";
      const jobs = JSON.parse(process.argv[1]);
      const counts = {};
      for (const job of jobs) {
        const validators = await import(job.url);
        const groups = JSON.parse(readFileSync(job.suite, "utf8"));
        let right = 0, wrong = 0;
        for (const [name, validate] of Object.entries(validators)) {
          for (const c of groups[Number(name.slice(5))].tests) (validate(c.data) === c.valid ? right++ : wrong++);
        }
        counts[job.file] = { right, wrong };
      }
      console.log(JSON.stringify(counts));`;
    const jobs = picked.map((f) => ({
      file: f.file,
      url: new URL(`file://${join(REPO_ROOT, f.module as string)}`).href,
      suite: join(REPO_ROOT, "../shared/corpus/json-schema-test-suite/tests/draft2020-12", f.file),
    }));
    const output = execFileSync(
      process.execPath,
      ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script, JSON.stringify(jobs)],
      { cwd: REPO_ROOT, encoding: "utf8" },
    );
    const counts = JSON.parse(output) as Record<string, { right: number; wrong: number }>;
    for (const f of picked) expect(counts[f.file]).toEqual({ right: f.right, wrong: 0 });
  });
});
