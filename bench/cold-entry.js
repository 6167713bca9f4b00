/**
 * One cold start, in a fresh process: `node bench/cold-entry.js <validator set module> <workload.json>`.
 *
 * A workload is `{ indices, samples, expected }`: which schemas' validators to get (by their place in the corpus
 * list), one result for each, and how many of them must pass. A set module's `validators(indices)` gives those
 * validators; a set that takes no indices gives all of them, and then the workload must name every schema.
 * The workload is read first; the clock starts right after, before the first import of anything being measured,
 * and stops when the last result has been validated for the first time. Node's own boot is outside the window.
 * Prints one JSON line: the import time, the time to the last first validation, and how many results passed.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [setModule, workloadFile] = process.argv.slice(2);
const { indices, samples, expected } = JSON.parse(readFileSync(workloadFile, "utf8"));

const start = performance.now();
const set = await import(pathToFileURL(setModule).href);
const imported = performance.now();
const validators = set.validators(indices);
const ready = performance.now();
let valid = 0;
for (let i = 0; i < samples.length; i++) {
  const verdict = validators[i](samples[i]);
  if (verdict === true || verdict?.valid === true) valid++;
}
const done = performance.now();
process.stdout.write(
  `${JSON.stringify({ importMs: imported - start, readyMs: ready - start, totalMs: done - start, valid, expected, count: samples.length })}\n`,
);
