/**
 * A benchmark run in a process of its own. `npm run bench` prepares and runs its benchmarks in one process, and what
 * one leaves behind moves the figures of those timed after it there: the gate rows' admits ran slower right after
 * the first-call benchmark had compiled every corpus schema with Ajv and generated its catalogs, while their
 * baselines did not (`docs/benchmarks.md` has the figures). A benchmark that times calls in the bench's own process
 * runs here instead, in a fresh one, so its rows tell what the gate costs, not what ran before it.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const CHILD = fileURLToPath(import.meta.url);

/**
 * What `name`, exported by the bench module `file`, returns for `args` (each JSON data), called in a fresh Node
 * process. The child's output goes to this process's standard error, beside the bench's progress lines; what the
 * function returns comes back through a file, as JSON.
 * @param {string} file the module, from the repository's root (`bench/gate-overhead.js`)
 * @param {string} name
 * @param {unknown[]} args
 * @param {string} work a scratch folder for the answer
 * @returns {Promise<any>}
 */
export async function isolated(file, name, args, work) {
  const answer = path.join(work, `isolated-${name}-${process.pid}-${Date.now()}.json`);
  const child = spawn(process.execPath, [CHILD, path.resolve(file), name, JSON.stringify(args), answer], {
    cwd: process.cwd(),
    stdio: ["ignore", process.stderr, "inherit"],
  });
  const code = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (exitCode, signal) => resolve(exitCode ?? signal));
  });
  if (code !== 0) throw new Error(`${name} (${file}) in its own process ended with ${code}`);
  return JSON.parse(await readFile(answer, "utf8"));
}

// Run as the child: call the function and write what it returned.
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === CHILD) {
  const [file, name, args, answer] = process.argv.slice(2);
  const module = await import(pathToFileURL(file).href);
  const result = await module[name](...JSON.parse(args));
  await writeFile(answer, JSON.stringify(result));
  // A benchmark may leave a handle open (a server, a timer): this process's work is done.
  process.exit(0);
}
