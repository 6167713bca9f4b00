/**
 * `npm run fuzz`: the invariant properties of `invariants.test.ts`, run long. `FUZZ_RUNS` payloads in all (default
 * 1,000,000), split evenly over the example contracts, one vitest process per contract, `FUZZ_JOBS` at a time
 * (default: the machine's parallelism); each contract also meets a tenth as many hostile raw values (throwing
 * getters, proxies, hostile thenables and iterators, values that are not plain data, detached buffers). Exits
 * non-zero when any contract breaks an invariant.
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

const TOOLS = ["read_file", "read_graph", "search_docs", "query_database", "get_record"];
const runs = Number(process.env.FUZZ_RUNS ?? 1_000_000);
const jobs = Number(process.env.FUZZ_JOBS ?? availableParallelism());
const started = Date.now();

/** Run one contract's properties; resolves with vitest's exit code. */
function fuzz(tool) {
  return new Promise((resolve) => {
    const child = spawn("npx", ["vitest", "run", "test/hardening/invariants.test.ts"], {
      env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_TOOLS: tool },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => {
      const tally = output.match(new RegExp(`${tool}: \\d+ payloads, outcomes .*`))?.[0];
      const hostile = output.match(new RegExp(`${tool}: \\d+ hostile raw values, outcomes .*`))?.[0];
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      console.log(`${code === 0 ? "ok  " : "FAIL"} ${tally ?? tool} (done at ${seconds} s)`);
      if (hostile !== undefined) console.log(`     ${hostile}`);
      if (code !== 0) console.log(output);
      resolve(code ?? 1);
    });
  });
}

const queue = [...TOOLS];
const codes = [];
await Promise.all(
  Array.from({ length: Math.max(1, jobs) }, async () => {
    for (let tool = queue.shift(); tool !== undefined; tool = queue.shift()) codes.push(await fuzz(tool));
  }),
);
const failed = codes.filter((code) => code !== 0).length;
const perContract = Math.ceil(runs / TOOLS.length);
const total = perContract * TOOLS.length;
const hostileTotal = Math.max(100, Math.ceil(perContract / 10)) * TOOLS.length;
console.log(
  `${total} payloads and ${hostileTotal} hostile raw values over ${TOOLS.length} contracts in ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s: ` +
    `${failed === 0 ? "0 invariant violations" : `${failed} contract(s) broke an invariant`}`,
);
process.exit(failed === 0 ? 0 : 1);
