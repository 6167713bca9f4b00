/**
 * Benchmark 3, receive ceiling: a 1 GiB stream against a 1 MiB ceiling, in child processes with `--expose-gc`
 * (see receive-child.js): how many bytes the gate let the stream hand out, how much memory it grew by, how long
 * it took; and, interleaved with it, draining the same stream without a ceiling.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { benchAdapterFile, loadBenchAdapter } from "./gate-overhead.js";
import { interleave, summarize } from "./lib/stats.js";

const run = promisify(execFile);
const CHILD = path.resolve("bench", "receive-child.js");

/**
 * @param {string} work the scratch folder; the bench adapter is generated and compiled there unless the gate
 *   benchmark already did (see gate-overhead.js)
 * @param {{ rounds: number, drainRounds: number }} options
 */
export async function runReceiveCeiling(work, { rounds, drainRounds }) {
  const adapter = benchAdapterFile(work);
  if (!existsSync(adapter)) await loadBenchAdapter(work);
  const once = async (mode, readAhead = 0) => {
    const args = ["--expose-gc", CHILD, adapter, mode, String(readAhead)];
    const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
    return JSON.parse(stdout.trim().split("\n").at(-1));
  };
  const gateRuns = [];
  const drainRuns = [];
  // Draining 1 GiB takes seconds, so it runs fewer times; the rounds still alternate with the gated runs.
  await interleave(
    {
      gate: async () => {
        const r = await once("gate");
        gateRuns.push(r);
        if (drainRuns.length < drainRounds) drainRuns.push(await once("drain"));
        return r.ms;
      },
    },
    rounds,
  );
  // The web default reads one chunk ahead: the stream produces one chunk more than the gate reads.
  const readAhead = await once("gate", 1);
  const worst = (runs, key) => Math.max(...runs.map((r) => r[key]));
  return {
    streamBytes: 1024 ** 3,
    ceiling: gateRuns[0]?.ceiling,
    codes: [...new Set(gateRuns.map((r) => r.code))],
    bytesRead: worst(gateRuns, "bytesRead"),
    rssGrowth: summarize(gateRuns.map((r) => r.rssGrowth)),
    heapGrowth: summarize(gateRuns.map((r) => r.heapGrowth)),
    worstRssGrowth: worst(gateRuns, "rssGrowth"),
    worstHeapGrowth: worst(gateRuns, "heapGrowth"),
    ms: summarize(gateRuns.map((r) => r.ms)),
    readAheadBytes: readAhead.bytesRead,
    drain: {
      ms: summarize(drainRuns.map((r) => r.ms)),
      bytesRead: drainRuns[0]?.bytesRead,
      rssGrowth: summarize(drainRuns.map((r) => r.rssGrowth)),
    },
  };
}
