/**
 * Every server folder of the MCP corpus (`../shared/corpus/mcp-tools`, real tool definitions nobody here wrote)
 * goes through `toolgate import`, `generate` and a TypeScript type check of the generated files. Whatever is not
 * carried through is listed with its reason, and the counts are printed and pinned.
 */
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { Project, ts } from "ts-morph";
import { beforeAll, describe, expect, it } from "vitest";
import { writeOutput } from "../../generator/emit/write.js";
import { importTools, readToolFiles } from "../../generator/mcp/import.js";
import { generate } from "../../generator/pipeline.js";
import { ensureRuntimeBuilt, repo, scratchFolder } from "./fixture-catalog.js";

const corpus = path.join(repo, "../shared/corpus/mcp-tools");
const examples = path.join(corpus, "mcp-specification/schema/2026-07-28/examples");

/** One import unit: a server's folder of tool files, or one file holding a list. */
interface Unit {
  name: string;
  files: string[];
}

/** What happened to one unit's tools. */
interface Tally {
  unit: string;
  tools: number;
  imported: number;
  refused: Array<{ tool: string; reason: string }>;
  generated: number;
  generationErrors: string[];
  typeErrors: string[];
}

async function jsonFiles(folder: string): Promise<string[]> {
  return (await readdir(folder))
    .filter((name) => name.endsWith(".json") && name !== "_server.json")
    .sort()
    .map((name) => path.join(folder, name));
}

async function units(): Promise<Unit[]> {
  const found: Unit[] = [];
  for (const server of ["github-mcp-server", "sentry-mcp"]) {
    found.push({ name: server, files: await jsonFiles(path.join(corpus, server)) });
  }
  for (const server of (await readdir(path.join(corpus, "mcp-proxy-captures"), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()) {
    found.push({
      name: `mcp-proxy-captures/${server}`,
      files: await jsonFiles(path.join(corpus, "mcp-proxy-captures", server)),
    });
  }
  // The specification's examples: each file on its own (two of them define a tool of the same name).
  for (const type of ["Tool", "ListToolsResult", "ListToolsResultResponse"]) {
    for (const file of await jsonFiles(path.join(examples, type))) {
      found.push({ name: `mcp-specification/${type}/${path.basename(file)}`, files: [file] });
    }
  }
  return found;
}

/**
 * Type-check generated TypeScript the way the project does (strict, NodeNext), with ts-morph's bundled compiler
 * (the installed TypeScript 7 has no JavaScript API); ts-morph also serves the standard library files.
 */
function typeCheck(files: string[]): string[] {
  const project = new Project({
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
    skipAddingFilesFromTsConfig: true,
  });
  project.addSourceFilesAtPaths(files);
  return project.getPreEmitDiagnostics().map((d) => {
    const file = d.getSourceFile();
    const where = file ? `${path.relative(repo, file.getFilePath())}:${d.getLineNumber() ?? 0}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, "\n")}`;
  });
}

let tallies: Tally[];
/** Generated TypeScript files the type check read. */
let checkedFiles: number;

beforeAll(async () => {
  await ensureRuntimeBuilt();
  const scratch = await scratchFolder("corpus");
  tallies = [];
  const toCheck: string[] = [];
  for (const [i, unit] of (await units()).entries()) {
    const folder = path.join(scratch, String(i));
    const read = await readToolFiles(unit.files);
    const report = await importTools(read.tools, { out: path.join(folder, "schemas"), projectRoot: repo });
    const tally: Tally = {
      unit: unit.name,
      tools: read.tools.length,
      imported: report.imported.length,
      refused: [...read.refused, ...report.refused],
      generated: 0,
      generationErrors: [],
      typeErrors: [],
    };
    tallies.push(tally);
    if (report.imported.length === 0) continue;
    const result = await generate({ schemas: path.join(folder, "schemas"), projectRoot: repo });
    if (!result.ok) {
      tally.generationErrors = result.errors.map(String);
      continue;
    }
    tally.generated = result.tools.length;
    await writeOutput(path.join(folder, "generated"), result.files);
    toCheck.push(
      ...[...result.files.keys()]
        .filter((name) => name.endsWith(".ts"))
        .map((name) => path.join(folder, "generated", name)),
    );
  }
  // One program for every unit: the type check is the slow part, and the units do not share names.
  const errors = typeCheck(toCheck);
  checkedFiles = toCheck.length;
  for (const tally of tallies) {
    const index = tallies.indexOf(tally);
    const prefix = path.relative(repo, path.join(scratch, String(index), "generated"));
    tally.typeErrors = errors.filter((error) => error.startsWith(`${prefix}/`));
  }
  const lines = tallies.map(
    (t) =>
      `${t.unit.padEnd(62)} tools ${String(t.tools).padStart(3)}  imported ${String(t.imported).padStart(3)}  refused ${String(t.refused.length).padStart(3)}  generated ${String(t.generated).padStart(3)}  type errors ${t.typeErrors.length}`,
  );
  const reasons = new Map<string, number>();
  for (const tally of tallies) {
    for (const refusal of tally.refused) {
      const key = refusal.reason.startsWith("no outputSchema")
        ? "no outputSchema"
        : `${tally.unit} ${refusal.tool}: ${refusal.reason}`;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
  }
  const sum = (pick: (t: Tally) => number) => tallies.reduce((total, t) => total + pick(t), 0);
  console.log(
    [
      "MCP corpus: import → generate → type-check",
      ...lines,
      `total: ${sum((t) => t.tools)} tools, ${sum((t) => t.imported)} imported, ${sum((t) => t.refused.length)} refused, ${sum((t) => t.generated)} generated, ${checkedFiles} generated .ts files type-checked, ${sum((t) => t.typeErrors.length)} type errors`,
      "refusals:",
      ...[...reasons].map(([reason, count]) => `  ${count} × ${reason}`),
    ].join("\n"),
  );
  return () => rm(scratch, { recursive: true, force: true });
}, 300_000);

describe("the MCP corpus", () => {
  it("accounts for every tool: imported, or refused with a reason", () => {
    for (const tally of tallies) {
      expect(tally.imported + tally.refused.length, tally.unit).toBe(tally.tools);
      for (const refusal of tally.refused)
        expect(refusal.reason.length, `${tally.unit} ${refusal.tool}`).toBeGreaterThan(10);
    }
  });

  it("generates every imported tool, and the generated code type-checks", () => {
    // adapter.ts, types.ts, validate.d.ts and view.ts per tool, and one index.ts and validators.d.ts per folder.
    // Every tool of the corpus has an input schema, so a validate.d.ts (text tools validate only their arguments).
    expect(checkedFiles).toBe(236 * 4 + 2 * tallies.filter((t) => t.generated > 0).length);
    for (const tally of tallies) {
      expect(tally.generationErrors, tally.unit).toEqual([]);
      expect(tally.generated, tally.unit).toBe(tally.imported);
      expect(tally.typeErrors, tally.unit).toEqual([]);
    }
  });

  it("gates every tool, those without an output schema as text, and reads the undeclared draft-07 tuples as written", () => {
    const counts = Object.fromEntries(tallies.map((t) => [t.unit, [t.tools, t.imported, t.refused.length]]));
    expect(counts).toEqual({
      "github-mcp-server": [117, 117, 0],
      "sentry-mcp": [54, 54, 0],
      "mcp-proxy-captures/mcp-server-fetch": [1, 1, 0],
      "mcp-proxy-captures/server-filesystem": [14, 14, 0],
      "mcp-proxy-captures/server-github": [26, 26, 0],
      "mcp-proxy-captures/server-memory": [9, 9, 0],
      "mcp-proxy-captures/server-puppeteer": [7, 7, 0],
      "mcp-specification/Tool/tool-with-array-output-schema.json": [1, 1, 0],
      "mcp-specification/Tool/tool-with-composition-input-schema.json": [1, 1, 0],
      "mcp-specification/Tool/with-default-2020-12-input-schema.json": [1, 1, 0],
      "mcp-specification/Tool/with-explicit-draft-07-input-schema.json": [1, 1, 0],
      "mcp-specification/Tool/with-no-parameters.json": [1, 1, 0],
      "mcp-specification/Tool/with-output-schema-for-structured-content.json": [1, 1, 0],
      "mcp-specification/ListToolsResult/tools-list-with-cursor-and-ttl.json": [1, 1, 0],
      "mcp-specification/ListToolsResultResponse/list-tools-result-response.json": [1, 1, 0],
    });
  });
});
