/**
 * Generate a folder of contracts with the real generator into `.tmp/mcp/` inside the repo (so generated code finds
 * `@toolgate/runtime` through the workspace link in `node_modules`), and load what the MCP tests need from it.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

export { ensureBuilt as ensureRuntimeBuilt } from "../build.js";

import { writeOutput } from "../../generator/emit/write.js";
import { generate } from "../../generator/pipeline.js";
import { canonicalJson } from "../../generator/schema/json.js";
import type { ValidateFunction } from "../../runtime/contract/types.js";

/** The repository root. */
export const repo = path.resolve(import.meta.dirname, "../..");
/** The MCP fixture servers and their contracts. */
export const fixtures = path.join(repo, "test/fixtures/mcp-servers");

/** A generated catalog, loaded. */
export interface FixtureCatalog {
  /** The output folder. */
  dir: string;
  /** `index.ts`, imported. */
  index: Record<string, unknown>;
  /**
   * What the generator should emit as `outputValidators` in `index.ts`, built here from the generated modules: each
   * tool's `validateResult` by the sha256 of its contract's output schema in canonical JSON, hashed with node:crypto
   * (independently of the runtime's own SHA-256).
   */
  outputValidators: Record<string, ValidateFunction<unknown>>;
  /** Each tool's folder and the sha256 of its output schema (the key in `outputValidators`). */
  tools: Array<{ tool: string; folder: string; outputSchemaSha256: string }>;
}

/** A fresh scratch folder under `.tmp/mcp/`. */
export async function scratchFolder(prefix: string): Promise<string> {
  const root = path.join(repo, ".tmp", "mcp");
  await mkdir(root, { recursive: true });
  return mkdtemp(path.join(root, `${prefix}-`));
}

/** Generate `contracts` into `out`; throws with every contract error when generation fails. */
export async function generateCatalog(contracts: string, out: string): Promise<FixtureCatalog> {
  const result = await generate({ schemas: contracts, projectRoot: repo });
  if (!result.ok) throw new Error(`generation failed:\n${result.errors.map(String).join("\n")}`);
  await writeOutput(out, result.files);
  const outputValidators: Record<string, ValidateFunction<unknown>> = {};
  const tools: FixtureCatalog["tools"] = [];
  for (const tool of result.tools) {
    const contract = JSON.parse(await readFile(path.resolve(repo, tool.file), "utf8"));
    const hash = createHash("sha256").update(canonicalJson(contract.outputSchema)).digest("hex");
    const module = await import(pathToFileURL(path.join(out, tool.folder, "validate.js")).href);
    outputValidators[hash] = module.validateResult;
    tools.push({ tool: tool.tool, folder: tool.folder, outputSchemaSha256: hash });
  }
  const index = await import(pathToFileURL(path.join(out, "index.ts")).href);
  return { dir: out, index, outputValidators, tools };
}
