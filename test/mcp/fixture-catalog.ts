/**
 * Generate a folder of contracts with the real generator into `.tmp/mcp/` inside the repo (so generated code finds
 * `toolgate/runtime` by package self-reference), and load what the MCP tests need from it.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rmdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { generate } from "../../generator/pipeline.js";
import { canonicalJson } from "../../generator/schema/json.js";
import { writeOutput } from "../../generator/write.js";
import type { ValidateFunction } from "../../runtime/types.js";

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

/**
 * Make sure `dist/` (what `toolgate/runtime` resolves to) is at least as new as `runtime/`: generated adapters run
 * against it. `npm test` builds first; this covers running one test folder on its own.
 */
export async function ensureRuntimeBuilt(): Promise<void> {
  if (await runtimeIsBuilt()) return;
  // Test files run in parallel processes: one builds while the others wait, so no two compilers write dist/ at once.
  const lock = path.join(repo, ".tmp", "mcp-build.lock");
  await mkdir(path.dirname(lock), { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (waited > 180_000) throw new Error(`waited too long for ${lock}: remove it if no build is running`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (await runtimeIsBuilt()) return;
    const built = path.join(repo, "dist/runtime/index.js");
    const tsc = path.join(repo, "node_modules/.bin/tsc");
    await promisify(execFile)(tsc, ["-p", "tsconfig.build.json"], { cwd: repo }).catch((error: unknown) => {
      // Type errors elsewhere in the project do not stop tsc from emitting; only a missing output is fatal.
      if (!existsSync(built)) throw error;
    });
  } finally {
    await rmdir(lock);
  }
}

/** Whether every runtime module has a compiled file in dist/ at least as new as the newest runtime source. */
async function runtimeIsBuilt(): Promise<boolean> {
  const built = path.join(repo, "dist/runtime/index.js");
  // The runtime has subfolders (gate, stages, policies, record): every source in them counts.
  const sources = (await readdir(path.join(repo, "runtime"), { recursive: true })).filter((name) =>
    name.endsWith(".ts"),
  );
  const newest = Math.max(...sources.map((name) => statSync(path.join(repo, "runtime", name)).mtimeMs));
  const missing = sources.some((name) => !existsSync(path.join(repo, "dist/runtime", name.replace(/\.ts$/, ".js"))));
  return !missing && existsSync(built) && statSync(built).mtimeMs >= newest;
}
