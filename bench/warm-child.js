/**
 * Warm validation, in a fresh process so nothing the benchmark did before (generating code, compiling schemas)
 * weighs on the heap: `node bench/warm-child.js <samples.json> <rounds> <name>=<set module>…`.
 *
 * Loads every validator set, validates all samples with each until the code is optimized, then times them
 * interleaved. Prints one JSON line: per set, the summary of microseconds to validate all samples once.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { interleave, lastKept, perCall } from "./lib/stats.js";

const [samplesFile, rounds, ...pairs] = process.argv.slice(2);
const samples = JSON.parse(readFileSync(samplesFile, "utf8"));
const timers = {};
for (const pair of pairs) {
  const at = pair.indexOf("=");
  const set = await import(pathToFileURL(pair.slice(at + 1)).href);
  const validators = set.validators();
  // Each set gets a loop of its own, compiled from its own source text: closures of one function literal would share
  // one feedback vector and one optimized code, so whichever set ran first would shape the code the others run.
  const all = new Function(
    "validators",
    "samples",
    "name",
    `return function validateAll() {
      let valid = 0;
      for (let i = 0; i < samples.length; i++) {
        const verdict = validators[i](samples[i]);
        if (verdict === true || verdict?.valid === true) valid++;
      }
      if (valid !== samples.length) throw new Error(name + ": " + (samples.length - valid) + " samples failed");
      return valid;
    };`,
  )(validators, samples, pair);
  for (let i = 0; i < 500; i++) all();
  const timer = perCall(all, 40);
  timers[pair.slice(0, at)] = () => timer() * 1000;
}
const summary = await interleave(timers, Number(rounds));
process.stdout.write(`${JSON.stringify({ summary, kept: lastKept() })}\n`);
