/**
 * Generating contracts for the hardening tests into `.tmp/hardening/` inside the repository, where generated code
 * finds `@toolgate/runtime` through the workspace link in `node_modules` (the built `runtime/dist/`), exactly as a user's project does.
 */
import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ContractError } from "../../generator/contract/errors.js";
import { writeOutput } from "../../generator/emit/write.js";
import { type GenerateResult, generate } from "../../generator/pipeline.js";
import type { ToolAdapter } from "../../runtime/index.js";
import { ensureRuntimeBuilt } from "../mcp/fixture-catalog.js";

/** The repository root. */
export const REPO = path.resolve(import.meta.dirname, "../..");
/** The hardening tests' scratch root (git-ignored). */
export const SCRATCH = path.join(REPO, ".tmp", "hardening");

/** Any generated adapter. */
export type AnyAdapter = ToolAdapter<unknown, unknown, unknown>;

/** A folder of contracts, generated and written. */
export interface GeneratedFolder {
  /** `<dir>/schemas`: the contracts. */
  schemas: string;
  /** `<dir>/generated`: the output. */
  out: string;
  result: Extract<GenerateResult, { ok: true }>;
}

/** Write contracts (file name → contract object) into a fresh `.tmp/hardening/<name>/schemas`. */
export async function writeContracts(name: string, contracts: Record<string, unknown>): Promise<string> {
  const dir = path.join(SCRATCH, name);
  await rm(dir, { recursive: true, force: true });
  const schemas = path.join(dir, "schemas");
  await mkdir(schemas, { recursive: true });
  for (const [file, contract] of Object.entries(contracts)) {
    await writeFile(path.join(schemas, file), JSON.stringify(contract, null, 2));
  }
  return schemas;
}

/** Generation's contract errors for a folder, as `file#pointer` → message. */
export async function contractErrors(schemas: string): Promise<ContractError[]> {
  const result = await generate({ schemas, projectRoot: REPO });
  return result.ok ? [] : result.errors;
}

/**
 * Generate a folder of contracts into `.tmp/hardening/<name>/generated` (by default the folder beside a scratch
 * `schemas/` folder); throws with every contract error. Never writes outside the scratch root.
 */
export async function generateInto(schemas: string, name?: string): Promise<GeneratedFolder> {
  await ensureRuntimeBuilt();
  const result = await generate({ schemas, projectRoot: REPO });
  if (!result.ok) throw new Error(`generation failed:\n${result.errors.map(String).join("\n")}`);
  const out =
    name === undefined ? path.join(path.dirname(schemas), "generated") : path.join(SCRATCH, name, "generated");
  if (!out.startsWith(`${SCRATCH}${path.sep}`)) throw new Error(`refusing to write outside ${SCRATCH}: ${out}`);
  await rm(out, { recursive: true, force: true });
  await writeOutput(out, result.files);
  return { schemas, out, result };
}

/** Import one generated module of a folder. */
export async function importGenerated<T = Record<string, unknown>>(folder: GeneratedFolder, file: string): Promise<T> {
  return (await import(/* @vite-ignore */ pathToFileURL(path.join(folder.out, file)).href)) as T;
}

/** The adapter of each tool of a generated folder, by tool name. */
export async function adaptersOf(folder: GeneratedFolder): Promise<Map<string, AnyAdapter>> {
  const adapters = new Map<string, AnyAdapter>();
  for (const tool of folder.result.tools) {
    const module = await importGenerated(folder, `${tool.folder}/adapter.ts`);
    const adapter = Object.values(module).find((value) => (value as AnyAdapter | undefined)?.name === tool.tool);
    if (adapter === undefined) throw new Error(`no adapter exported for ${tool.tool}`);
    adapters.set(tool.tool, adapter as AnyAdapter);
  }
  return adapters;
}

/** Type-check a generated folder under the project's strict settings; returns tsc's report ("" when clean). */
export async function typeCheck(folder: GeneratedFolder): Promise<string> {
  const config = path.join(path.dirname(folder.out), "tsconfig.json");
  const extendsPath = path.relative(path.dirname(config), path.join(REPO, "tsconfig.json"));
  await writeFile(config, JSON.stringify({ extends: extendsPath, include: ["generated/**/*.ts"] }));
  try {
    execFileSync(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", config], {
      encoding: "utf8",
      cwd: REPO,
    });
    return "";
  } catch (error) {
    return String((error as { stdout?: string }).stdout || error);
  }
}
