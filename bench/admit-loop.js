/**
 * Admits of the gate benchmark's JSON text in a loop of their own, beside `JSON.parse` + validator and the same
 * contract without its field rules, in alternating blocks: what the interleaved rows of `npm run bench` read with
 * the other contenders (bytes, one-issue views) run between each admit. With `--mcp`, the same for the MCP path: an
 * admit of the `CallToolResult` (the value as structured content and its JSON text as a text block) beside
 * `JSON.stringify` + validator. A check of those rows, not a row of its own.
 *
 *   node bench/admit-loop.js [--mcp] [bytes …]    (default: 65536 1048576)
 */
import path from "node:path";
import { loadBenchAdapter, loadNoFieldRulesAdapter } from "./gate-overhead.js";
import { issuesPayload } from "./lib/payloads.js";

const WORK = path.resolve(".tmp", "bench", `loop-${process.pid}`);
const { adapter, validateResult } = await loadBenchAdapter(WORK);
const plain = await loadNoFieldRulesAdapter(WORK);
const mcp = process.argv.includes("--mcp");
const given = process.argv.slice(2).filter((arg) => arg !== "--mcp");
const sizes = given.length > 0 ? given.map(Number) : [64 * 1024, 1024 * 1024];

/** Microseconds a call of `work` takes over `calls` calls. */
async function perCall(work, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await work();
  return Number(process.hrtime.bigint() - start) / calls / 1000;
}

for (const size of sizes) {
  const { text } = issuesPayload(size);
  const calls = Math.max(20, Math.round(2e8 / size / 4));
  const value = JSON.parse(text);
  const result = { content: [{ type: "text", text }], structuredContent: value };
  const baseline = mcp ? "JSON.stringify + validator" : "JSON.parse + validator";
  const contenders = mcp
    ? {
        admit: () => adapter.admit(result),
        "admit, no field rules": () => plain.admit(result),
        [baseline]: () => validateResult(value) && JSON.stringify(value),
      }
    : {
        admit: () => adapter.admit(text),
        "admit, no field rules": () => plain.admit(text),
        [baseline]: () => validateResult(JSON.parse(text)),
      };
  const check = await contenders.admit();
  if (!check.ok) throw new Error(`the ${size}-byte ${mcp ? "MCP result" : "text"} was not admitted`);
  for (const work of Object.values(contenders)) await perCall(work, calls * 2);
  const rounds = [];
  for (let round = 0; round < 9; round++) {
    const times = {};
    for (const [name, work] of Object.entries(contenders)) times[name] = await perCall(work, calls);
    rounds.push(times);
  }
  const median = (name, over = (times) => times[name]) => rounds.map(over).sort((a, b) => a - b)[4];
  const line = Object.keys(contenders).map((name) => `${name} ${median(name).toFixed(0)} µs`);
  const ratio = median("", (times) => times.admit / times[baseline]);
  const plainRatio = median("", (times) => times["admit, no field rules"] / times[baseline]);
  console.log(
    `${size} bytes${mcp ? ", MCP" : ""}: ${line.join("; ")}; admit ${ratio.toFixed(2)}×, no field rules ${plainRatio.toFixed(2)}×`,
  );
}
