/**
 * Building `dist/` for tests that need it: generated code imports `toolgate/runtime` (the built runtime), and the
 * CLI tests run the real `bin/toolgate.js`. `npm test` builds first; this covers running one test file on its own.
 * The build is the package's own (`npm run build`: the compiler, then the published entries bundled), so a test
 * never sees a `dist/` that differs from the one that ships.
 */

import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, readdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const REPO = path.resolve(import.meta.dirname, "..");
const SOURCES = ["runtime", "generator", "templates"];

/** Build `dist/` unless every source already has a compiled file at least as new as itself. */
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
    await run(path.join(REPO, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], { cwd: REPO }).catch(
      (error: unknown) => {
        // Type errors elsewhere do not stop the compiler from emitting; only a missing output is fatal.
        if (!existsSync(path.join(REPO, "dist/runtime/index.js"))) throw error;
      },
    );
    await run("npm", ["run", "--silent", "build:entries"], { cwd: REPO });
  } finally {
    await rmdir(lock);
  }
}

async function isBuilt(): Promise<boolean> {
  for (const folder of SOURCES) {
    const names = (await readdir(path.join(REPO, folder), { recursive: true })).filter((name) => name.endsWith(".ts"));
    for (const name of names) {
      const built = path.join(REPO, "dist", folder, name.replace(/\.ts$/, ".js"));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(path.join(REPO, folder, name)).mtimeMs) return false;
    }
  }
  return true;
}
