/**
 * `toolgate proxy` overhead: a round trip of a 64 KB structured result through the proxy against the same call made
 * directly plus the generated adapter's `admit`, which is what an application that gates in process pays. One
 * process is the host for both: an MCP SDK `Client` over `StdioClientTransport`
 *
 * - proxied: to the real CLI, `bin/toolgate.js proxy --schemas bench/contracts -- node bench/proxy-server.js`, which
 *   admits the server's result and answers with the gated content and the view (20 of the issues);
 * - direct: to `node bench/proxy-server.js` itself, the result then admitted by the same contract's adapter,
 *   generated and compiled as the gate benchmark does;
 * - call alone: the direct call without `admit`, the floor (reported, so the gate's share can be read off).
 *
 * The server (bench/proxy-server.js) answers `list_issues` with about 64 KB of JSON, as structured content and as
 * a text block. Neither host lists the tools first, so the SDK's client validates neither result: each side
 * checks what it got only through the gate. Contenders run interleaved; each sample is the mean of enough
 * sequential round trips to last about 100 ms; the ratio is the median of the per-round ratios. Target: proxied at
 * most 1.5× direct plus `admit`.
 *
 *   node bench/proxy.js [--rounds N] [--profile DIR]     (after `npm run build`; bench/run.js calls runProxyBench)
 *
 * `--profile DIR` runs the proxy and the server behind it under `--cpu-prof`; each writes its profile to DIR when
 * the host closes.
 */
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadBenchAdapter } from "./gate-overhead.js";
import { interleave, perCallAsync, ratio } from "./lib/stats.js";

const REPO = path.resolve(fileURLToPath(import.meta.url), "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const SERVER = path.join(REPO, "bench", "proxy-server.js");
const CONTRACTS = path.join(REPO, "bench", "contracts");
/** The call every round trip makes. */
const CALL = { name: "list_issues", arguments: { repository: "acme/widgets", perPage: 100 } };
/** Issues the view keeps (the contract's `take`). */
const VIEW_ISSUES = 20;

/**
 * A host connected over stdio to `node args…`, and what the child said on stderr (for an error's message).
 * @param {string[]} args
 */
async function connect(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: REPO, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "toolgate-proxy-bench-host", version: "1" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`could not connect to node ${args.join(" ")}: ${error.message}\n${stderr}`);
  }
  return client;
}

/**
 * The three round trips, each checked once before any is timed (a contender that answers the wrong thing would
 * time nothing worth comparing) and checked again on every call it makes.
 * @param {Client} proxied
 * @param {Client} direct
 * @param {{ admit: (raw: unknown, options?: object) => Promise<any> }} adapter
 */
async function roundTrips(proxied, direct, adapter) {
  const viaProxy = async () => {
    const result = await proxied.callTool(CALL);
    if (result.isError || result.structuredContent?.issues?.length !== VIEW_ISSUES) {
      throw new Error(`the proxy answered no view: ${JSON.stringify(result).slice(0, 300)}`);
    }
    return result;
  };
  const call = async () => {
    const result = await direct.callTool(CALL);
    if (result.isError || result.structuredContent === undefined) throw new Error("the server answered no value");
    return result;
  };
  const callAdmit = async () => {
    const outcome = await adapter.admit(await call(), { args: CALL.arguments });
    if (!outcome.ok) throw new Error(`the direct result was not admitted: ${outcome.error.code}`);
    return outcome;
  };
  const sample = await call();
  const answer = await viaProxy();
  const outcome = await callAdmit();
  return {
    contenders: { viaProxy, callAdmit, call },
    resultBytes: Buffer.byteLength(sample.content[0].text),
    answerBytes: Buffer.byteLength(JSON.stringify(answer)),
    issues: outcome.data.issues.length,
  };
}

/**
 * Times the proxied round trip, the direct one plus `admit`, and the direct call alone, interleaved.
 * @param {{ rounds: number, work: string, profile?: string }} options `profile`: a folder for the proxy's and its
 *   server's CPU profiles
 */
export async function runProxyBench({ rounds, work, profile }) {
  const loadAverageAtStart = os.loadavg().map((n) => Number(n.toFixed(2)));
  const { adapter } = await loadBenchAdapter(path.join(work, "proxy"));
  const cpuProf = profile === undefined ? [] : ["--cpu-prof", "--cpu-prof-dir", profile];
  if (profile !== undefined) await mkdir(profile, { recursive: true });
  const direct = await connect([SERVER]);
  const proxied = await connect([
    ...cpuProf,
    BIN,
    "proxy",
    "--schemas",
    CONTRACTS,
    "--",
    process.execPath,
    ...cpuProf,
    SERVER,
  ]);
  try {
    const { contenders, ...sizes } = await roundTrips(proxied, direct, adapter);
    // Warm both paths' code (the proxy's and the host's) before the first timed round.
    for (let i = 0; i < 50; i++) for (const run of Object.values(contenders)) await run();
    const timing = await interleave(
      {
        proxied: await perCallAsync(contenders.viaProxy, 100),
        directAdmit: await perCallAsync(contenders.callAdmit, 100),
        directCall: await perCallAsync(contenders.call, 100),
      },
      rounds,
    );
    return {
      ...sizes,
      rounds,
      timing,
      ratio: ratio(timing.proxied, timing.directAdmit),
      ratioToCall: ratio(timing.proxied, timing.directCall),
      admitShare: ratio(timing.directAdmit, timing.directCall),
      target: 1.5,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg().map((n) => Number(n.toFixed(2))),
    };
  } finally {
    // Each child's stdin is closed: the server exits, and the proxy closes its own server and exits.
    await Promise.all([proxied.close(), direct.close()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { rounds: { type: "string", default: "15" }, profile: { type: "string" } },
  });
  const work = path.resolve(".tmp", "bench", `proxy-${process.pid}`);
  const profile = values.profile === undefined ? undefined : path.resolve(values.profile);
  const result = await runProxyBench({ rounds: Number(values.rounds), work, profile });
  await rm(work, { recursive: true, force: true });
  const ms = (s) => `${s.median.toFixed(2)} ms ±${Math.round(s.spread * 50)}%`;
  const { timing } = result;
  process.stdout.write(
    `toolgate proxy, ${Math.round(result.resultBytes / 1024)} KB result (${result.issues} issues, ` +
      `${Math.round(result.answerBytes / 1024)} KB answered through the proxy), ${result.rounds} rounds: ` +
      `proxied ${ms(timing.proxied)}, direct + admit ${ms(timing.directAdmit)}, direct call ${ms(timing.directCall)}; ` +
      `ratio ${result.ratio.toFixed(2)}× (target ≤ ${result.target}×: ${result.ratio <= result.target ? "met" : "missed"}), ` +
      `${result.ratioToCall.toFixed(2)}× the call alone, admit ${result.admitShare.toFixed(2)}× the call; ` +
      `load average ${result.loadAverageAtStart.join(" / ")} at start, ${result.loadAverageAtEnd.join(" / ")} at end ` +
      `on ${os.availableParallelism()} cores\n`,
  );
}
