/**
 * `toolgate report` over a million events: a synthetic trace of five tools (direct, dropped, summarized, spilled and
 * re-called results, failures of two codes; four events a turn, about 300 MB of JSON lines) is written to the run's
 * scratch folder and reported with the built CLI's report code. The target is under 10 s; the figure is the median
 * of `rounds` runs, with the events per second, the CPU time (less sensitive to other load on a shared machine than
 * the wall clock) and the load average at the start.
 *
 *   node bench/report.js [--rounds N]     (after `npm run build`; bench/run.js calls runReportBench)
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildReport } from "../dist/generator/report/build.js";
import { summarize } from "./lib/stats.js";

const TOOLS = ["get_record", "query_database", "read_file", "read_graph", "search_docs"];

/** The i-th event's JSON line, as jsonLinesSink writes one. */
function syntheticEvent(i) {
  const tool = TOOLS[i % TOOLS.length];
  const kind = (i * 7919) % 20;
  const base = `{"v":1,"tool":"${tool}","contractVersion":"1.0.0","turn":"turn-${Math.floor(i / 4)}","correlationId":"call-${i}","receivedAt":"2026-01-01T00:00:00.000Z","rawKind":"string"`;
  if (kind < 12)
    return `${base},"code":"ok","stage":"done","policy":"direct","sizes":{"rawBytes":${200 + (i % 900)},"maxBytes":65536,"viewSize":80,"budget":4000,"unit":"tokens"}}`;
  if (kind < 14)
    return `${base},"code":"oversize","stage":"policy","policy":"drop","sizes":{"rawBytes":90000,"maxBytes":1048576,"viewSize":9000,"budget":4000,"unit":"tokens"}}`;
  if (kind < 16)
    return `${base},"code":"ok","stage":"policy","policy":"summarize","summarize":{"ms":${((i % 20000) / 10).toFixed(1)},"cached":${i % 3 === 0}},"sizes":{"rawBytes":90000,"maxBytes":1048576,"viewSize":300,"budget":4000,"unit":"tokens"}}`;
  if (kind < 17)
    return `${base},"code":"ok","stage":"policy","policy":"spill","sizes":{"rawBytes":90000,"maxBytes":1048576,"viewSize":400,"budget":4000,"unit":"tokens"}}`;
  if (kind < 18)
    return `${base},"code":"ok","stage":"policy","policy":"recall","recall":true,"recalls":1,"sizes":{"rawBytes":3000,"maxBytes":65536,"viewSize":700,"budget":4000,"unit":"tokens"}}`;
  const code = kind === 18 ? "schema_mismatch" : "tool_error";
  return `${base},"code":"${code}","stage":"validate","sizes":{"rawBytes":500,"maxBytes":65536}}`;
}

/** Writes `n` synthetic events to `file`, in batches. */
async function writeTrace(file, n) {
  const out = createWriteStream(file);
  for (let start = 0; start < n; start += 10_000) {
    const lines = [];
    for (let i = start; i < Math.min(n, start + 10_000); i++) lines.push(syntheticEvent(i));
    if (!out.write(`${lines.join("\n")}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** @param {{ rounds: number, work: string, events?: number }} options */
export async function runReportBench({ rounds, work, events = 1_000_000 }) {
  const folder = path.join(work, "report");
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, "events.jsonl");
  await writeTrace(file, events);
  const loadAverageAtStart = Number(os.loadavg()[0].toFixed(2));
  const wall = [];
  const cpu = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      const report = await buildReport([file]);
      wall.push(performance.now() - start);
      const used = process.cpuUsage(cpuStart);
      cpu.push((used.user + used.system) / 1000);
      if (report.events !== events) throw new Error(`counted ${report.events} of ${events} events`);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const timing = summarize(wall);
  return {
    events,
    timing,
    cpu: summarize(cpu),
    eventsPerSecond: Math.round(events / (timing.median / 1000)),
    loadAverageAtStart,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
  const work = path.resolve(".tmp", "bench", `report-${process.pid}`);
  const result = await runReportBench({ rounds: Number(values.rounds), work });
  await rm(work, { recursive: true, force: true });
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  process.stdout.write(
    `toolgate report over ${result.events.toLocaleString("en")} events: ${s(result.timing.median)} ` +
      `±${Math.round(result.timing.spread * 50)}% (${result.eventsPerSecond.toLocaleString("en")} events/s), ` +
      `CPU ${s(result.cpu.median)}, load average ${result.loadAverageAtStart} on ${os.availableParallelism()} cores; ` +
      `target < 10 s: ${result.timing.median < 10_000 ? "met" : "missed"}\n`,
  );
}
