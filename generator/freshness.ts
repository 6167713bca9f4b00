/**
 * A fast `--check`: when neither the contracts (nor any file they reference), nor toolgate itself, nor the output
 * folder changed since the last run that generated or checked it, the output is up to date without generating it
 * again.
 *
 * What the last run saw is kept outside the repository, in `node_modules/.cache/toolgate/` (or the OS temp folder):
 * the hashes of every input file, of toolgate's own code and of the libraries that shape the output, and of every
 * generated file. Any difference, or no record at all (a fresh clone, CI), and `--check` generates in full and
 * compares byte for byte, as before.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findContracts } from "./load.js";
import { packageRoot } from "./package.js";

/** What one run saw. */
interface Record {
  generator: string;
  inputs: { [file: string]: string };
  outputs: { [file: string]: string };
}

/** What identifies a run's question: which contracts, into which folder, with which options. */
export interface FreshnessKey {
  schemas: string;
  out: string;
  options: unknown;
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

let generatorHash: Promise<string> | undefined;

/** toolgate's own code (as it runs: `dist/` or the sources) and the versions of the libraries that shape output. */
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
    const require = createRequire(path.join(packageRoot(), "package.json"));
    for (const library of ["ajv", "ajv-formats", "json-schema-to-typescript", "@apidevtools/json-schema-ref-parser"]) {
      hash.update(`${library}@${require(`${library}/package.json`).version}\0`);
    }
    hash.update(await readFile(path.join(packageRoot(), "schemas", "x-toolgate.schema.json")));
    return hash.digest("hex");
  })();
  return generatorHash;
}

function recordFile(key: FreshnessKey): string {
  const cache = existsSync(path.resolve("node_modules"))
    ? path.resolve("node_modules", ".cache", "toolgate")
    : path.join(tmpdir(), "toolgate-cache");
  const id = sha256(JSON.stringify([path.resolve(key.schemas), path.resolve(key.out), process.cwd(), key.options]));
  return path.join(cache, `${id.slice(0, 32)}.json`);
}

async function hashFiles(files: Iterable<string>): Promise<{ [file: string]: string } | undefined> {
  const hashes: { [file: string]: string } = {};
  for (const file of files) {
    try {
      hashes[file] = sha256(await readFile(file));
    } catch {
      return undefined;
    }
  }
  return hashes;
}

/** Remember what this run read and wrote (or found up to date). */
export async function rememberRun(
  key: FreshnessKey,
  inputs: readonly string[],
  outputs: ReadonlyMap<string, string>,
): Promise<void> {
  const record: Record = {
    generator: await generatorFingerprint(),
    inputs: (await hashFiles([...inputs].sort())) ?? {},
    outputs: Object.fromEntries([...outputs].map(([name, content]) => [name, sha256(content)])),
  };
  const file = recordFile(key);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(record));
  } catch {
    // A cache that cannot be written only costs the next check its shortcut.
  }
}

/**
 * Whether the output is known to be up to date: the same contract files, each unchanged, as every referenced file
 * and toolgate itself; and every generated file as it was written. Never true on a guess: any doubt is `false`.
 */
export async function knownFresh(
  key: FreshnessKey,
  generatedFiles: () => Promise<Map<string, string>>,
): Promise<boolean> {
  let record: Record;
  try {
    record = JSON.parse(await readFile(recordFile(key), "utf8")) as Record;
  } catch {
    return false;
  }
  if (record.generator !== (await generatorFingerprint())) return false;
  const contracts = (await findContracts(key.schemas)).map((f) => path.resolve(f));
  if (contracts.some((file) => record.inputs[file] === undefined)) return false;
  const inputs = await hashFiles(Object.keys(record.inputs));
  if (inputs === undefined || Object.entries(inputs).some(([file, hash]) => record.inputs[file] !== hash)) return false;
  const existing = await generatedFiles();
  if (existing.size !== Object.keys(record.outputs).length) return false;
  for (const [name, content] of existing) if (record.outputs[name] !== sha256(content)) return false;
  return true;
}
