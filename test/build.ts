/**
 * Building both packages for tests that need them: generated code imports `@toolgate/runtime` (the built
 * `runtime/dist/`, through the workspace link in `node_modules`), and the CLI tests run the real `bin/toolgate.js`
 * (`dist/`). `npm test` builds first; this covers running one test file on its own. The build is the packages' own
 * (`npm run build`: the runtime compiled and its `./formats` entry bundled, then the generator), so a test never
 * sees a build that differs from the one that ships.
 */

import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, readdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const REPO = path.resolve(import.meta.dirname, "..");
/** Each source folder and where its build goes. */
const SOURCES = [
  ["runtime", "runtime/dist"],
  ["generator", "dist/generator"],
  ["templates", "dist/templates"],
] as const;

/** Build both packages unless every source already has a compiled file at least as new as itself. */
export async function ensureBuilt(): Promise<void> {
  if (await isBuilt()) return;
  // Test files run in parallel processes: one builds while the others wait, so no two compilers write dist/ at once.
  const lock = path.join(REPO, ".tmp", "build.lock");
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
    if (await isBuilt()) return;
    const run = promisify(execFile);
    const tsc = path.join(REPO, "node_modules/.bin/tsc");
    // Type errors elsewhere do not stop the compiler from emitting; only a missing output is fatal.
    const unlessBuilt = (output: string) => (error: unknown) => {
      if (!existsSync(path.join(REPO, output))) throw error;
    };
    await run(tsc, ["-p", "runtime/tsconfig.json"], { cwd: REPO }).catch(unlessBuilt("runtime/dist/index.js"));
    await run("npm", ["run", "--silent", "build:entries"], { cwd: path.join(REPO, "runtime") });
    await run(tsc, ["-p", "tsconfig.build.json"], { cwd: REPO }).catch(unlessBuilt("dist/generator/cli/main.js"));
  } finally {
    await rmdir(lock);
  }
}

async function isBuilt(): Promise<boolean> {
  for (const [folder, output] of SOURCES) {
    const names = (await readdir(path.join(REPO, folder), { recursive: true })).filter(
      (name) => name.endsWith(".ts") && !name.endsWith(".d.ts") && !name.startsWith(`dist${path.sep}`),
    );
    for (const name of names) {
      const built = path.join(REPO, output, name.replace(/\.ts$/, ".js"));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(path.join(REPO, folder, name)).mtimeMs) return false;
    }
  }
  return true;
}
