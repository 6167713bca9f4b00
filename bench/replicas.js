/**
 * `toolgate proxy` on replicas under load, on the loopback: 50 host sessions at once, each making 200 `echo` calls,
 * through HAProxy (round-robin, no stickiness) to three `toolgate proxy --listen --redis … --url …` replicas in
 * front of one server-everything over Streamable HTTP, host sessions and spills in one `redis-server`
 * (`test/fixtures/replicas/cluster.mjs` starts them all). Against it, interleaved round by round, the same 50
 * sessions' calls made directly to server-everything (no gate, no balancer): the floor.
 *
 * Every replica runs with `--turns session`: each gated call is also claimed in its host session's turn, counted in
 * Redis, as a deployment holding the re-call cap across replicas does (every call here has its own arguments, so
 * none is refused).
 *
 * Three contenders, interleaved round by round (the order turned each round): through the balancer, the same calls
 * on one replica reached directly (a fourth replica alike, outside the balancer, with 50 host sessions of its own), and the same calls made
 * directly to server-everything (no gate, no balancer): the floor.
 *
 * Reported, each with its criterion:
 * - p50 and p99 of a call's latency each way, and the overhead against one replica and against the server direct
 *   (the median of the per-round p50 ratios, and of the per-round p50 and p99 differences);
 * - what each replica retains: its V8 heap in use plus its external memory (Buffers) after a full garbage
 *   collection, which the replica makes when asked over an IPC channel (`memory-probe.cjs`), once the sessions are
 *   open and after every contender's burst (so no collection pauses a timed call): flat when, for every replica,
 *   the mean of the last quarter of these probes is within {@link FLAT_WITHIN} of the mean of the second quarter
 *   (the first quarter is the warm-up). Resident memory, sampled every second, is reported beside it but not
 *   judged: a replica is busy only while the balanced contender's burst runs, a third of each round in an order
 *   turned each round, and V8 grows its heap under that load and gives pages back when it chooses, so a quarter's
 *   mean RSS says how much balanced load the quarter caught (50 sessions × 60 calls: 187 to 199 MiB after a full
 *   collection following another contender's burst, 211 to 230 MiB following the balanced one's, heap retained
 *   71 to 74 MiB throughout);
 * - zero lost (every call answered), zero crossed (each answer carries its own request's text) and zero duplicated
 *   (each replica's events file holds exactly one gated `echo` per call a gate answered, so no call was run twice);
 * - the same outcomes as one replica: one call in ten is also made on one replica alone and must give the same
 *   answer (spill handles aside), and one in twenty is long enough to spill and is read back on the call after,
 *   which the balancer sends to another replica, and compared with what was sent.
 *
 *   node bench/replicas.js [--sessions N] [--calls N] [--rounds N]   (after `npm run build`)
 *
 * Bounded: every call has a 30 s timeout, and the whole run stops at 45 minutes (a full run on a busy two-core
 * machine takes about 15).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ECHO_CONTRACT, startCluster } from "../test/fixtures/replicas/cluster.mjs";
import { summarize } from "./lib/stats.js";

const CALL_TIMEOUT_MS = 30_000;
const RUN_LIMIT_MS = 45 * 60_000;
/**
 * Flat memory: on every replica, the last quarter's mean of what it retains after a full collection within this
 * fraction of the second quarter's. From one burst to the next it moved by up to 3% with nothing kept per call (the
 * heap's own bookkeeping: compiled code, caches), and a full run makes some 1,900 calls per replica between the two
 * quarters, so a replica keeping 2 KB per call passes 5%.
 */
export const FLAT_WITHIN = 0.05;

/** The message of call `call` of session `session`: every twentieth long enough to spill. */
function message(session, call) {
  const tag = `s${session}-c${call}`;
  if (call % 20 !== 19) return `${tag} hello`;
  return Array.from({ length: 80 }, (_, i) => `${tag} line ${i} of a long answer`).join("\n");
}

/** All the text of a result's content. */
const textOf = (result) => (result.content ?? []).map((part) => part.text ?? "").join("\n");
/** The answer's text with the spill handle (random per spill) taken out, to compare outcomes. */
const outcomeOf = (result) => textOf(result).replace(/spill_[0-9a-f]{32}/g, "spill_…");

/** A host session at `url`. */
async function host(url) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "toolgate-replicas-bench", version: "1" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`could not open a session at ${url}: ${error.message} ${error.cause?.message ?? ""}`);
  }
  return { client, transport };
}

/** `count` host sessions at `url`, opened ten at a time (the load measured is the calls, not a storm of opens). */
async function hosts(url, count) {
  const open = [];
  for (let i = 0; i < count; i += 10) {
    open.push(...(await Promise.all(Array.from({ length: Math.min(10, count - i) }, () => host(url)))));
  }
  return open;
}

/** Resident memory of a process, in bytes (Linux). */
async function rss(pid) {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

/** The `p`-quantile of sorted `values`. */
const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/**
 * Runs `calls` calls on each session at once; per-call latencies, and each answer checked against its request.
 * `check(session, call, result)` returns a problem or undefined.
 */
async function burst(hosts, from, calls, check, stats) {
  const latencies = [];
  await Promise.all(
    hosts.map(async ({ client }, session) => {
      for (let call = from; call < from + calls; call++) {
        const started = performance.now();
        let result;
        try {
          result = await client.callTool({ name: "echo", arguments: { message: message(session, call) } }, undefined, {
            timeout: CALL_TIMEOUT_MS,
          });
        } catch (error) {
          stats.lost++;
          stats.problems.push(`session ${session} call ${call}: ${error.message} ${error.cause?.message ?? ""}`);
          continue;
        }
        latencies.push(performance.now() - started);
        stats.answered++;
        const problem = await Promise.resolve(check(session, call, result, client)).catch(
          (error) => `its check failed: ${error.message} ${error.cause?.message ?? ""}`,
        );
        if (problem !== undefined) {
          stats.wrong++;
          if (stats.problems.length < 20) stats.problems.push(`session ${session} call ${call}: ${problem}`);
        }
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

/** Samples each process's resident memory every `everyMs` until `stop()`; the samples per process. */
function sampleMemory(pids, everyMs = 1000) {
  const samples = pids.map(() => []);
  let pending = Promise.resolve();
  const timer = setInterval(() => {
    pending = Promise.all(pids.map((pid, i) => rss(pid).then((bytes) => samples[i].push(bytes))));
  }, everyMs);
  return {
    samples,
    stop: async () => {
      clearInterval(timer);
      await pending;
    },
  };
}

/** The mean of `values`. */
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Whether one process's memory stayed flat: the last quarter's mean against the second quarter's (the first is the
 * warm-up), as a relative change, flat within `within`.
 */
export function memoryDrift(samples, within = FLAT_WITHIN) {
  const quarter = Math.floor(samples.length / 4);
  if (quarter === 0) return { second: Number.NaN, last: Number.NaN, change: Number.NaN, flat: false };
  const second = mean(samples.slice(quarter, 2 * quarter));
  const last = mean(samples.slice(samples.length - quarter));
  const change = (last - second) / second;
  return { second, last, change, flat: Math.abs(change) <= within };
}

/** What a replica retains after a full collection: its V8 heap in use and the memory outside it (Buffers). */
const retainedOf = ({ heapUsed, external }) => heapUsed + external;

/** Bytes as MiB, one decimal. */
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

/** The gated `echo` calls recorded in each replica's events file. */
async function gatedCalls(files) {
  let count = 0;
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => "");
    for (const line of text.split("\n")) if (line.includes('"tool":"echo"')) count++;
  }
  return count;
}

/** Tallies of one contender's calls. */
const tally = () => ({ answered: 0, lost: 0, wrong: 0, mismatched: 0, spillsRead: 0, problems: [] });

/**
 * The load test. `rounds` rounds, each of `calls / rounds` calls per session through the replicas, on one replica,
 * and directly, in an order turned each round.
 */
export async function runReplicasBench({ sessions = 50, calls = 200, rounds = 5, work }) {
  const deadline = setTimeout(() => {
    process.stderr.write("replicas: over the run's time limit; stopping\n");
    process.exit(1);
  }, RUN_LIMIT_MS).unref();
  const contracts = path.join(work, "replicas-contracts");
  await mkdir(contracts, { recursive: true });
  await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(ECHO_CONTRACT, null, 2));
  const eventFiles = [0, 1, 2, 3].map((i) => path.join(work, `replicas-events-${process.pid}-${i}.jsonl`));
  const flags = ["--schemas", contracts, "--turns", "session"];
  // The spare is one replica alike, outside the balancer: the one-replica contender and the outcomes' reference
  // (each replica holds at most 64 host sessions, so it is not one of the three).
  const cluster = await startCluster({ replicas: 3, spares: 1, server: "http", flags, eventFiles, memoryProbe: true });
  const hostsOpen = [];
  try {
    const serverUrl = /--url (\S+)/.exec(cluster.proxies[0].child.spawnargs.join(" "))?.[1];
    const gated = await hosts(cluster.url, sessions).catch((error) => {
      const said = cluster.proxies
        .flatMap((proxy) => proxy.output().split("\n"))
        .filter((line) => /could not/.test(line));
      throw new Error(`${error.message}; the replicas said: ${said.slice(0, 3).join(" / ")}`);
    });
    const [spare] = cluster.spares;
    const single = await hosts(spare.url, sessions);
    const direct = await hosts(serverUrl, sessions);
    // One replica alone, reached without the balancer: the outcomes every answer must equal.
    const alone = await host(spare.url);
    hostsOpen.push(...gated, ...single, ...direct, alone);

    const stats = { gated: tally(), single: tally(), direct: tally() };
    const reference = new Map();
    let compared = 0;
    const checkGated = async (session, call, result, client) => {
      const text = textOf(result);
      const sent = message(session, call);
      if (!text.includes(JSON.stringify(`Echo: ${sent}`).slice(1, 40)))
        return `not its own answer: ${text.slice(0, 200)}`;
      // One call in ten is also made on one replica alone: the answer must be the same outcome.
      if (call % 10 === 9) {
        compared++;
        const own = await alone.client.callTool({ name: "echo", arguments: { message: sent } });
        if (outcomeOf(own) !== outcomeOf(result)) {
          stats.gated.mismatched++;
          return `an outcome one replica alone does not give: ${outcomeOf(result).slice(0, 160)} / ${outcomeOf(own).slice(0, 160)}`;
        }
        reference.set(`${session}/${call}`, true);
      }
      const handle = /<spilled handle="(spill_[0-9a-f]{32})"/.exec(text)?.[1];
      if (call % 20 === 19) {
        if (handle === undefined) return "a long answer not spilled";
        // Read back on the next request, which the balancer sends to another replica.
        const page = await client.callTool({ name: "read_tool_result", arguments: { handle } });
        const lines = page.structuredContent?.lines ?? [];
        if (page.isError || lines[1] !== sent.split("\n")[1]) return `its spill did not read back: ${textOf(page)}`;
        stats.gated.spillsRead++;
      }
      return undefined;
    };
    const checkSingle = (session, call, result) =>
      textOf(result).includes(JSON.stringify(`Echo: ${message(session, call)}`).slice(1, 40))
        ? undefined
        : `not its own answer: ${textOf(result).slice(0, 200)}`;
    const checkDirect = (session, call, result) =>
      textOf(result) === `Echo: ${message(session, call)}` ? undefined : "not its own answer";
    const contenders = {
      gated: (from, count) => burst(gated, from, count, checkGated, stats.gated),
      single: (from, count) => burst(single, from, count, checkSingle, stats.single),
      direct: (from, count) => burst(direct, from, count, checkDirect, stats.direct),
    };

    const perRound = Math.ceil(calls / rounds);
    const memory = sampleMemory(cluster.proxies.map((proxy) => proxy.child.pid));
    // What each replica retains, asked between bursts (never while a contender is timed): a full collection in a
    // replica pauses it, and it would otherwise be counted in a call's latency.
    const retained = cluster.proxies.map(() => []);
    const probe = async (label) => {
      const answers = await Promise.all(cluster.proxies.map((proxy) => proxy.memory()));
      for (const [i, answer] of answers.entries()) {
        retained[i].push({ after: label, retained: retainedOf(answer), ...answer });
      }
    };
    await probe("opening");
    const roundsOut = [];
    const names = Object.keys(contenders);
    for (let round = 0; round < rounds; round++) {
      const from = round * perRound;
      const count = Math.min(perRound, calls - from);
      const latencies = {};
      for (let k = 0; k < names.length; k++) {
        const which = names[(round + k) % names.length];
        latencies[which] = await contenders[which](from, count);
        await probe(`round ${round + 1} ${which}`);
      }
      const held = retained.map((samples) => mib(samples.at(-1).retained)).join(", ");
      const q = (which, p) => quantile(latencies[which], p);
      roundsOut.push(Object.fromEntries(names.map((which) => [which, { p50: q(which, 0.5), p99: q(which, 0.99) }])));
      process.stderr.write(
        `replicas: round ${round + 1}/${rounds}: p50 ${names.map((which) => `${which} ${q(which, 0.5).toFixed(1)}`).join(", ")} ms; p99 ${names.map((which) => `${which} ${q(which, 0.99).toFixed(1)}`).join(", ")} ms; retained ${held} MiB\n`,
      );
    }
    await memory.stop();
    const med = (values) => summarize(values).median;
    const of = (which, p) => med(roundsOut.map((r) => r[which][p]));
    const over = (which, base, p) => med(roundsOut.map((r) => r[which][p] - r[base][p]));
    const drift = retained.map((samples) => memoryDrift(samples.map((sample) => sample.retained)));
    // Resident memory is reported, not judged: it follows V8's heap sizing and the load of the moment (see above).
    const rssDrift = memory.samples.map((samples) => memoryDrift(samples, Number.POSITIVE_INFINITY));
    // Every gated call is one event: through the balancer, on one replica, and each comparison made on it. The
    // replicas' last lines are given a moment to reach their files.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const recorded = await gatedCalls(eventFiles);
    const gatedAnswers = stats.gated.answered + stats.single.answered + compared;
    return {
      sessions,
      callsPerSession: calls,
      rounds,
      replicas: cluster.proxies.length,
      calls: stats.gated.answered + stats.gated.lost,
      answered: stats.gated.answered,
      lost: stats.gated.lost,
      wrong: stats.gated.wrong - stats.gated.mismatched,
      mismatched: stats.gated.mismatched,
      duplicated: recorded - gatedAnswers,
      recordedGatedCalls: recorded,
      gatedAnswers,
      singleLost: stats.single.lost,
      singleWrong: stats.single.wrong,
      directLost: stats.direct.lost,
      directWrong: stats.direct.wrong,
      spillsRead: stats.gated.spillsRead,
      comparedWithOneReplica: compared,
      equalToOneReplica: reference.size,
      problems: [...stats.gated.problems, ...stats.single.problems, ...stats.direct.problems].slice(0, 20),
      p50: { gated: of("gated", "p50"), single: of("single", "p50"), direct: of("direct", "p50") },
      p99: { gated: of("gated", "p99"), single: of("single", "p99"), direct: of("direct", "p99") },
      p50Ratio: med(roundsOut.map((r) => r.gated.p50 / r.direct.p50)),
      p50RatioSingle: med(roundsOut.map((r) => r.gated.p50 / r.single.p50)),
      p50OverheadMs: over("gated", "direct", "p50"),
      p99OverheadMs: over("gated", "direct", "p99"),
      p50OverheadSingleMs: over("gated", "single", "p50"),
      p99OverheadSingleMs: over("gated", "single", "p99"),
      memoryFlatWithin: FLAT_WITHIN,
      memoryDrift: drift,
      memoryFlat: drift.every((replica) => replica.flat),
      retained,
      rssDrift,
      memorySamples: memory.samples,
      memoryGrowthBytes: memory.samples.map((samples) => samples.at(-1) - samples[0]),
      roundsDetail: roundsOut,
    };
  } finally {
    clearTimeout(deadline);
    await Promise.allSettled(
      hostsOpen.map(async ({ client, transport }) => {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }),
    );
    await cluster.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { sessions: { type: "string" }, calls: { type: "string" }, rounds: { type: "string" } },
  });
  const work = path.resolve(".tmp", "bench", `replicas-${process.pid}`);
  const result = await runReplicasBench({
    sessions: Number(values.sessions ?? 50),
    calls: Number(values.calls ?? 200),
    rounds: Number(values.rounds ?? 5),
    work,
  });
  console.log(JSON.stringify(result, null, 2));
}
