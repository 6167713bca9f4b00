/**
 * Admits of the gate benchmark's JSON text in a loop of their own, beside `JSON.parse` + validator and the same
 * contract without its field rules, in alternating blocks: what the interleaved rows of `npm run bench` read with
 * the other contenders (bytes, MCP results, one-issue views) run between each admit. A check of those rows, not a
 * row of its own.
 *
 *   node bench/admit-loop.js [bytes …]    (default: 65536 1048576)
 */
import path from "node:path";
import { loadBenchAdapter, loadNoFieldRulesAdapter } from "./gate-overhead.js";
import { issuesPayload } from "./lib/payloads.js";

const WORK = path.resolve(".tmp", "bench", `loop-${process.pid}`);
const { adapter, validateResult } = await loadBenchAdapter(WORK);
const plain = await loadNoFieldRulesAdapter(WORK);
const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [64 * 1024, 1024 * 1024];

/** Microseconds a call of `work` takes over `calls` calls. */
async function perCall(work, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await work();
  return Number(process.hrtime.bigint() - start) / calls / 1000;
}

for (const size of sizes) {
  const { text } = issuesPayload(size);
  const calls = Math.max(20, Math.round(2e8 / size / 4));
  const contenders = {
    admit: () => adapter.admit(text),
    "admit, no field rules": () => plain.admit(text),
    "JSON.parse + validator": () => validateResult(JSON.parse(text)),
  };
  for (const work of Object.values(contenders)) await perCall(work, calls * 2);
  const rounds = [];
  for (let round = 0; round < 9; round++) {
    const times = {};
    for (const [name, work] of Object.entries(contenders)) times[name] = await perCall(work, calls);
    rounds.push(times);
  }
  const median = (name, over = (times) => times[name]) => rounds.map(over).sort((a, b) => a - b)[4];
  const baseline = "JSON.parse + validator";
  const line = Object.keys(contenders).map((name) => `${name} ${median(name).toFixed(0)} µs`);
  const ratio = median("", (times) => times.admit / times[baseline]);
  const plainRatio = median("", (times) => times["admit, no field rules"] / times[baseline]);
  console.log(
    `${size} bytes: ${line.join("; ")}; admit ${ratio.toFixed(2)}×, no field rules ${plainRatio.toFixed(2)}×`,
  );
}
