/**
 * What the lock's record (`record.ts`) cannot see: toolgate's own code changing under an unchanged version, as in a
 * development build of toolgate. Each run that generates or checks an output folder in full notes a fingerprint of
 * the code that ran in `node_modules/.cache/toolgate/` (or the OS temp folder); when a later `--check` finds a note
 * for the same folder with another fingerprint, the code changed since the output was last verified, and `--check`
 * generates in full instead of trusting the lock. No note (a fresh clone, CI) leaves the answer to the lock alone.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "./input-hash.js";
import { packageRoot } from "./package.js";

/** What one run noted. */
interface Note {
  generator: string;
}

/** What identifies a run's question: which contracts, into which folder, with which options. */
export interface FreshnessKey {
  schemas: string;
  out: string;
  options: unknown;
}

let generatorHash: Promise<string> | undefined;

/** toolgate's own code (as it runs: `dist/` or the sources) and its `x-toolgate` schema. Library versions are the lock's. */
function generatorFingerprint(): Promise<string> {
  generatorHash ??= (async () => {
    const hash = createHash("sha256");
    const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
    for (const folder of ["generator", "templates", "runtime"]) {
      const dir = path.join(root, folder);
      if (!existsSync(dir)) continue;
      const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && /\.(js|ts|json)$/.test(e.name))
        .map((e) => path.join(e.parentPath, e.name))
        .sort();
      for (const file of files) hash.update(`${path.relative(root, file)}\0`).update(await readFile(file));
    }
    hash.update(await readFile(path.join(packageRoot(), "schemas", "x-toolgate.schema.json")));
    return hash.digest("hex");
  })();
  return generatorHash;
}

/** Where the note for one output folder, contracts folder and set of options is kept. */
export function noteFile(key: FreshnessKey): string {
  const cache = existsSync(path.resolve("node_modules"))
    ? path.resolve("node_modules", ".cache", "toolgate")
    : path.join(tmpdir(), "toolgate-cache");
  const id = sha256Hex(JSON.stringify([path.resolve(key.schemas), path.resolve(key.out), process.cwd(), key.options]));
  return path.join(cache, `${id.slice(0, 32)}.json`);
}

/** Note the code that generated or checked this output in full. */
export async function rememberRun(key: FreshnessKey): Promise<void> {
  const note: Note = { generator: await generatorFingerprint() };
  const file = noteFile(key);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(note));
  } catch {
    // A note that cannot be written only leaves the next check to the lock alone.
  }
}

/** Whether other code than this generated or checked the output last, as far as this machine's notes say. */
export async function generatorChangedSince(key: FreshnessKey): Promise<boolean> {
  let note: Note;
  try {
    note = JSON.parse(await readFile(noteFile(key), "utf8")) as Note;
  } catch {
    return false;
  }
  return note.generator !== (await generatorFingerprint());
}
