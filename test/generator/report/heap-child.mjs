// Run by streaming.test.ts as `node --expose-gc heap-child.mjs EVENTS`: reports a trace with the built CLI's report
// code and prints, as JSON, the live heap's largest growth over the baseline (sampled after a full collection every
// second while it reads), the growth still held at the end, the events counted and the time taken.
import { buildReport } from "../../../dist/generator/report/build.js";

const gc = globalThis.gc;
if (typeof gc !== "function") throw new Error("run with --expose-gc");
gc();
const baseline = process.memoryUsage().heapUsed;
let peak = 0;
const sample = () => {
  gc();
  peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
};
const timer = setInterval(sample, 1000);
const started = performance.now();
const report = await buildReport([process.argv[2]]);
const ms = performance.now() - started;
clearInterval(timer);
sample();
process.stdout.write(
  JSON.stringify({
    peak,
    held: process.memoryUsage().heapUsed - baseline,
    events: report.events,
    turns: report.all.turns,
    ms,
  }),
);
