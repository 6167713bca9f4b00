/**
 * `toolgate proxy` on replicas under load, on the loopback: 50 host sessions at once, each making 200 `echo` calls,
 * through HAProxy (round-robin, no stickiness) to three `toolgate proxy --listen --redis … --url …` replicas in
 * front of one server-everything over Streamable HTTP, host sessions and spills in one `redis-server`
 * (`test/fixtures/replicas/cluster.mjs` starts them all). Against it, interleaved round by round, the same 50
 * sessions' calls made directly to server-everything (no gate, no balancer): the floor.
 *
 * Reported: p50 and p99 of a call's latency each way and the overhead (the median of the per-round p50 ratios,
 * and of the per-round p50 and p99 differences); each replica's resident memory after every round (flat: its
 * growth from the first round to the last); every answer checked against its own request (zero lost, zero
 * duplicated or crossed: each call gets exactly one answer, with its own text), each answer's text against what one
 * replica alone answers for the same message, and, one call in twenty, a text long enough to spill, read back on
 * the call after (which reaches another replica) and compared with what was sent.
 *
 *   node bench/replicas.js [--sessions N] [--calls N] [--rounds N]   (after `npm run build`)
 *
 * Bounded: every call has a 30 s timeout, and the whole run stops at 15 minutes.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startCluster } from "../test/fixtures/replicas/cluster.mjs";
import { summarize } from "./lib/stats.js";

/** server-everything's `echo` as a text result: a short answer whole, a long one spilled with its first lines. */
const ECHO = {
  name: "echo",
  description: "Echoes back the input string",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string", maxLength: 100_000 } },
    required: ["message"],
    additionalProperties: false,
  },
  "x-toolgate": {
    receive: { maxBytes: 1024 * 1024 },
    context: { unit: "bytes", max: 2000 },
    oversize: ["spill", "drop"],
    result: { kind: "text", text: { maxLines: 10_000 } },
  },
};

const CALL_TIMEOUT_MS = 30_000;
const RUN_LIMIT_MS = 15 * 60_000;

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

/**
 * The load test. `rounds` rounds, each of `calls / rounds` calls per session through the replicas and as many
 * directly, in alternating order.
 */
export async function runReplicasBench({ sessions = 50, calls = 200, rounds = 5, work }) {
  const deadline = setTimeout(() => {
    process.stderr.write("replicas: over the run's time limit; stopping\n");
    process.exit(1);
  }, RUN_LIMIT_MS).unref();
  const contracts = path.join(work, "replicas-contracts");
  await mkdir(contracts, { recursive: true });
  await writeFile(path.join(contracts, "echo.tool.json"), JSON.stringify(ECHO, null, 2));
  const cluster = await startCluster({ replicas: 3, server: "http", flags: ["--schemas", contracts] });
  const hostsOpen = [];
  try {
    const serverUrl = /--url (\S+)/.exec(cluster.proxies[0].child.spawnargs.join(" "))?.[1];
    const gated = await hosts(cluster.url, sessions).catch((error) => {
      const said = cluster.proxies
        .flatMap((proxy) => proxy.output().split("\n"))
        .filter((line) => /could not/.test(line));
      throw new Error(`${error.message}; the replicas said: ${said.slice(0, 3).join(" / ")}`);
    });
    const direct = await hosts(serverUrl, sessions);
    // One replica alone, reached without the balancer: the outcomes every answer must equal.
    const alone = await host(cluster.proxies[0].url);
    hostsOpen.push(...gated, ...direct, alone);

    const stats = { answered: 0, lost: 0, wrong: 0, spillsRead: 0, problems: [] };
    const directStats = { answered: 0, lost: 0, wrong: 0, spillsRead: 0, problems: [] };
    const reference = new Map();
    const checkGated = async (session, call, result, client) => {
      const text = textOf(result);
      const sent = message(session, call);
      if (!text.includes(JSON.stringify(`Echo: ${sent}`).slice(1, 40))) return "not its own answer";
      // One call in ten is also made on one replica alone: the answer must be the same outcome.
      if (call % 10 === 9) {
        const own = await alone.client.callTool({ name: "echo", arguments: { message: sent } });
        if (outcomeOf(own) !== outcomeOf(result)) {
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
        stats.spillsRead++;
      }
      return undefined;
    };
    const checkDirect = (session, call, result) =>
      textOf(result) === `Echo: ${message(session, call)}` ? undefined : "not its own answer";

    const perRound = Math.ceil(calls / rounds);
    const memory = cluster.proxies.map(() => []);
    const roundsOut = [];
    for (let round = 0; round < rounds; round++) {
      const from = round * perRound;
      const count = Math.min(perRound, calls - from);
      const order = round % 2 === 0 ? ["gated", "direct"] : ["direct", "gated"];
      const latencies = {};
      for (const which of order) {
        latencies[which] =
          which === "gated"
            ? await burst(gated, from, count, checkGated, stats)
            : await burst(direct, from, count, checkDirect, directStats);
      }
      for (const [i, proxy] of cluster.proxies.entries()) memory[i].push(await rss(proxy.child.pid));
      const p = (which, q) => quantile(latencies[which], q);
      roundsOut.push({
        gated: { p50: p("gated", 0.5), p99: p("gated", 0.99) },
        direct: { p50: p("direct", 0.5), p99: p("direct", 0.99) },
      });
      process.stderr.write(
        `replicas: round ${round + 1}/${rounds}: p50 ${p("gated", 0.5).toFixed(1)} ms vs ${p("direct", 0.5).toFixed(1)} ms direct, p99 ${p("gated", 0.99).toFixed(1)} vs ${p("direct", 0.99).toFixed(1)}\n`,
      );
    }
    const med = (values) => summarize(values).median;
    const growth = memory.map((samples) => samples.at(-1) - samples[0]);
    return {
      sessions,
      callsPerSession: calls,
      rounds,
      replicas: cluster.proxies.length,
      calls: stats.answered + stats.lost,
      answered: stats.answered,
      lost: stats.lost,
      wrong: stats.wrong,
      directLost: directStats.lost,
      directWrong: directStats.wrong,
      spillsRead: stats.spillsRead,
      comparedWithOneReplica: reference.size,
      problems: [...stats.problems, ...directStats.problems].slice(0, 20),
      p50: { gated: med(roundsOut.map((r) => r.gated.p50)), direct: med(roundsOut.map((r) => r.direct.p50)) },
      p99: { gated: med(roundsOut.map((r) => r.gated.p99)), direct: med(roundsOut.map((r) => r.direct.p99)) },
      p50Ratio: med(roundsOut.map((r) => r.gated.p50 / r.direct.p50)),
      p50OverheadMs: med(roundsOut.map((r) => r.gated.p50 - r.direct.p50)),
      p99OverheadMs: med(roundsOut.map((r) => r.gated.p99 - r.direct.p99)),
      memoryBytes: memory,
      memoryGrowthBytes: growth,
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
