/**
 * What the lock's record (`record.ts`) cannot see: toolgate's own code changing under an unchanged version, as in a
 * development build of toolgate. Each run that generates or checks an output folder in full notes a fingerprint of
 * the code that ran in `node_modules/.cache/toolgate/` (or the OS temp folder); when a later `--check` finds a note
 * for the same folder with another fingerprint, the code changed since the output was last verified, and `--check`
 * generates in full instead of trusting the lock. No note (a fresh clone, CI) leaves the answer to the lock alone.
 *
 * The note is written without following a link (`writeFileInside`: every folder below `node_modules` or the temp
 * folder is checked with `lstat`, the file is renamed into place), and a note that cannot be written so is not
 * written: a cloned `node_modules/.cache` linked elsewhere gets no file from toolgate. In the shared temp folder the
 * cache folder must also be the user's own. Notes are read bounded, regular files only.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../contract/input-hash.js";
import { readBoundedText, writeFileInside } from "../files.js";
import { packageRoot } from "../package.js";

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

/**
 * The files whose content is toolgate's code as it runs: the generator and the templates (under `dist/` when the
 * CLI runs built, or the sources when tests import them), and the runtime package the generator reads through its
 * exports. Sorted, so the fingerprint does not depend on the order a folder lists them in.
 */
export async function fingerprintFiles(): Promise<string[]> {
  // This file is <root>/generator/lock/freshness.(ts|js), and <root> is the repository or its dist/.
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const runtime = path.dirname(fileURLToPath(import.meta.resolve("@toolgate/runtime")));
  const folders = [path.join(root, "generator"), path.join(root, "templates"), runtime];
  const files: string[] = [];
  for (const dir of folders) {
    if (!existsSync(dir)) continue;
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(js|ts|json)$/.test(entry.name)) files.push(path.join(entry.parentPath, entry.name));
    }
  }
  files.push(path.join(packageRoot(), "schemas", "x-toolgate.schema.json"));
  return files.sort();
}

/** toolgate's own code and its `x-toolgate` schema (see {@link fingerprintFiles}). Library versions are the lock's. */
function generatorFingerprint(): Promise<string> {
  generatorHash ??= (async () => {
    const hash = createHash("sha256");
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
    for (const file of await fingerprintFiles()) {
      hash.update(`${path.relative(root, file)}\0`).update(await readFile(file));
    }
    return hash.digest("hex");
  })();
  return generatorHash;
}

/** The folder notes are kept under, and the path of the note's folder below it. */
function noteBase(): { base: string; folder: string } {
  return existsSync(path.resolve("node_modules"))
    ? { base: path.resolve("node_modules"), folder: ".cache/toolgate" }
    : { base: tmpdir(), folder: "toolgate-cache" };
}

/** Where the note for one output folder, contracts folder and set of options is kept. */
export function noteFile(key: FreshnessKey): string {
  const { base, folder } = noteBase();
  return path.join(base, ...folder.split("/"), noteName(key));
}

/** The note's file name: a hash of what identifies the run's question. */
function noteName(key: FreshnessKey): string {
  const id = sha256Hex(JSON.stringify([path.resolve(key.schemas), path.resolve(key.out), process.cwd(), key.options]));
  return `${id.slice(0, 32)}.json`;
}

/** Note the code that generated or checked this output in full. */
export async function rememberRun(key: FreshnessKey): Promise<void> {
  const note: Note = { generator: await generatorFingerprint() };
  const { base, folder } = noteBase();
  try {
    if (base === tmpdir() && !(await ownFolderOrNone(path.join(base, folder)))) return;
    await writeFileInside(base, `${folder}/${noteName(key)}`, JSON.stringify(note));
  } catch {
    // A note that cannot be written (or only through a link) leaves the next check to the lock alone.
  }
}

/** Whether a folder in the shared temp folder is absent, or a real folder of this user's (not a link). */
async function ownFolderOrNone(folder: string): Promise<boolean> {
  try {
    const stats = await lstat(folder);
    return stats.isDirectory() && (process.getuid === undefined || stats.uid === process.getuid());
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Whether other code than this generated or checked the output last, as far as this machine's notes say. */
export async function generatorChangedSince(key: FreshnessKey): Promise<boolean> {
  let note: Note;
  try {
    note = JSON.parse(await readBoundedText(noteFile(key), 64 * 1024)) as Note;
  } catch {
    return false;
  }
  return note.generator !== (await generatorFingerprint());
}
