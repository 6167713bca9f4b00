/**
 * One cold start, in a fresh process: `node bench/cold-entry.js <validator set module> <samples.json>`.
 *
 * The samples are read first; the clock starts right after, before the first import of anything being measured,
 * and stops when the last sample has been validated for the first time. Node's own boot is outside the window.
 * Prints one JSON line: the import time, the time to the last first validation, and how many samples passed.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [setModule, samplesFile] = process.argv.slice(2);
const samples = JSON.parse(readFileSync(samplesFile, "utf8"));

const start = performance.now();
const set = await import(pathToFileURL(setModule).href);
const imported = performance.now();
const validators = set.validators();
const ready = performance.now();
let valid = 0;
for (let i = 0; i < samples.length; i++) {
  const verdict = validators[i](samples[i]);
  if (verdict === true || verdict?.valid === true) valid++;
}
const done = performance.now();
process.stdout.write(
  `${JSON.stringify({ importMs: imported - start, readyMs: ready - start, totalMs: done - start, valid, count: samples.length })}\n`,
);
