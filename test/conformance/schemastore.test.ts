/**
 * Real schemas: every SchemaStore schema of ../shared/corpus/schemastore, as the output schema of a contract, goes
 * through the real generator. Each one generates and type-checks and its generated validator judges the upstream
 * instances (JSON, YAML and TOML; test/ valid, negative_test/ invalid) as upstream expects; or it is refused with a
 * reason naming a pointer. Counts go to .tmp/conformance/schemastore.json for the report.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { writeOutput } from "../../generator/emit/write.js";
import { generate } from "../../generator/pipeline.js";

const STORE = path.resolve("..", "shared", "corpus", "schemastore");
const WORK = path.resolve(".tmp", "schemastore");

/** Upstream instances of one schema: valid ones from test/, invalid ones from negative_test/. */
async function instances(name: string): Promise<Array<{ file: string; valid: boolean; value: unknown }>> {
  const found = [];
  for (const [folder, valid] of [
    ["test", true],
    ["negative_test", false],
  ] as const) {
    const dir = path.join(STORE, folder, name);
    if (!existsSync(dir)) continue;
    for (const file of (await readdir(dir)).sort()) {
      const text = await readFile(path.join(dir, file), "utf8");
      const value = file.endsWith(".json")
        ? JSON.parse(text)
        : file.endsWith(".toml")
          ? parseToml(text)
          : parseYaml(text);
      found.push({ file: `${folder}/${name}/${file}`, valid, value: JSON.parse(JSON.stringify(value)) });
    }
  }
  return found;
}

describe("SchemaStore schemas through the generator", () => {
  it("generate, type-check and judge their upstream instances as upstream expects, or are refused with a reason", async () => {
    await rm(WORK, { recursive: true, force: true });
    const names = (await readdir(path.join(STORE, "schemas"))).filter((f) => f.endsWith(".json")).sort();
    const report: Record<string, unknown> = {};
    const wrong: string[] = [];
    const typeChecks: string[] = [];
    let judged = 0;
    for (const file of names) {
      const name = file.replace(/\.json$/, "");
      const schemas = path.join(WORK, name, "schemas");
      await mkdir(schemas, { recursive: true });
      const schema = JSON.parse(await readFile(path.join(STORE, "schemas", file), "utf8"));
      const contract = { name, outputSchema: schema, "x-toolgate": { receive: { maxBytes: 16_777_216 } } };
      await writeFile(path.join(schemas, "schema.tool.json"), JSON.stringify(contract));
      const result = await generate({ schemas });
      const cases = await instances(name);
      if (!result.ok) {
        report[name] = { refused: result.errors.map((e) => `${e.pointer}: ${e.message}`), instances: cases.length };
        for (const error of result.errors) expect(error.pointer, name).toMatch(/^\/outputSchema|^\/name$/);
        continue;
      }
      const out = path.join(WORK, name, "generated");
      await writeOutput(out, result.files);
      const folder = (await readdir(out, { withFileTypes: true })).find((e) => e.isDirectory())?.name as string;
      const { validateResult } = await import(pathToFileURL(path.join(out, folder, "validate.js")).href);
      const verdicts = cases.map((c) => ({
        file: c.file,
        expected: c.valid,
        actual: validateResult(c.value) as boolean,
      }));
      for (const v of verdicts)
        if (v.actual !== v.expected) wrong.push(`${v.file}: expected ${v.expected}, got ${v.actual}`);
      judged += verdicts.length;
      report[name] = {
        generated: true,
        instances: verdicts.length,
        agree: verdicts.filter((v) => v.actual === v.expected).length,
      };
      // Every accepted instance must type-check against the generated result type.
      const typeName = (await readFile(path.join(out, folder, "validate.d.ts"), "utf8")).match(
        /ValidateFunction<(\w+)>/,
      )?.[1];
      cases.forEach((c, i) => {
        if (verdicts[i]?.actual && typeName !== undefined) {
          typeChecks.push(
            `import type { ${typeName} as T${typeChecks.length} } from "./${name}/generated/${folder}/types.js";\n` +
              `export const v${typeChecks.length}: T${typeChecks.length} = ${JSON.stringify(c.value)};\n`,
          );
        }
      });
    }
    await writeFile(path.join(WORK, "instances.ts"), typeChecks.join(""));
    await writeFile(
      path.join(WORK, "tsconfig.json"),
      JSON.stringify({ extends: "../../tsconfig.json", include: ["instances.ts", "*/generated/**/*.ts"] }),
    );
    let diagnostics = "";
    try {
      execFileSync(
        process.execPath,
        [path.resolve("node_modules/typescript/bin/tsc"), "-p", path.join(WORK, "tsconfig.json")],
        {
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
        },
      );
    } catch (error) {
      diagnostics = String((error as { stdout?: string }).stdout ?? error);
    }
    const generated = Object.values(report).filter((r) => (r as { generated?: boolean }).generated).length;
    const summary = {
      schemas: names.length,
      generated,
      refused: names.length - generated,
      instancesJudged: judged,
      wrong,
      typeChecked: typeChecks.length,
      report,
    };
    await mkdir(path.resolve(".tmp", "conformance"), { recursive: true });
    await writeFile(path.resolve(".tmp", "conformance", "schemastore.json"), JSON.stringify(summary, null, 2));
    console.log(
      `schemastore: ${names.length} schemas, ${generated} generated, ${names.length - generated} refused; ${judged} instances judged, ${wrong.length} wrong; ${typeChecks.length} accepted instances type-checked`,
    );
    for (const [name, entry] of Object.entries(report)) {
      const refused = (entry as { refused?: string[] }).refused;
      if (refused !== undefined)
        console.log(`  refused ${name}: ${refused[0]}${refused.length > 1 ? ` (+${refused.length - 1} more)` : ""}`);
    }
    expect(wrong).toEqual([]);
    expect(diagnostics).toBe("");
    expect(generated).toBeGreaterThan(0);
    // Generating and type-checking 50 real schemas takes about a minute and a half on two busy cores.
  }, 300_000);
});
