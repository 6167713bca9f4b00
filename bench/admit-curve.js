/**
 * Admit cost by result size, 1 KB to 100 MB, for each path a result takes: JSON text (as a string and as bytes),
 * an MCP `CallToolResult` (structured content beside its JSON as a text block) and a text result (as bytes). Each
 * size is timed interleaved with its baseline (`JSON.parse` + validator; `JSON.stringify` + validator; a fatal
 * `TextDecoder` decode + sha256), and reported in milliseconds per MB, so a straight line is a flat row. The
 * contract is the gate benchmark's `list_issues` with room for 100 MB (`loadUnboundedAdapter`).
 *
 * Memory: a 100 MB MCP result admitted in a fresh process, against `JSON.parse` of its text, each in its own child
 * (admit-memory-child.js): the growth of the peak resident set over a collected baseline.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { loadUnboundedAdapter, textSpec, UNBOUNDED_BYTES } from "./gate-overhead.js";
import { issuesPayload, textPayload } from "./lib/payloads.js";
import { interleave, perCall, perCallAsync, ratio, summarize } from "./lib/stats.js";

const run = promisify(execFile);
const CHILD = path.resolve("bench", "admit-memory-child.js");
const MB = 1024 * 1024;

/** The sizes of the curve, with the rounds each is timed for (a 100 MB admit takes a second or more). */
export const CURVE_SIZES = [
  ["1 KB", 1024, 9],
  ["64 KB", 64 * 1024, 9],
  ["1 MB", MB, 9],
  ["10 MB", 10 * MB, 5],
  ["100 MB", 100 * MB, 3],
];

/** The size the memory of an MCP admit is measured at. */
export const MEMORY_BYTES = 100 * MB;

/**
 * Times every path at every size, interleaved within a size.
 * @param {string} work a scratch folder
 * @param {{ defineTool: (spec: any) => any }} runtime the built `@toolgate/runtime`
 * @param {{ quick: boolean }} options `quick` stops at 10 MB, with 3 rounds
 */
export async function runAdmitCurve(work, runtime, { quick }) {
  const { adapter, validateResult } = await loadUnboundedAdapter(work);
  const textAdapter = runtime.defineTool(textSpec({ maxBytes: UNBOUNDED_BYTES, maxLines: 10_000_000 }));
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const points = [];
  for (const [label, target, rounds] of CURVE_SIZES) {
    if (quick && target > 10 * MB) continue;
    const payload = issuesPayload(target);
    const bytes = new TextEncoder().encode(payload.text);
    const value = JSON.parse(payload.text);
    const mcpResult = { content: [{ type: "text", text: payload.text }], structuredContent: value };
    const log = new TextEncoder().encode(textPayload(target).text);
    for (const [name, outcome] of [
      ["JSON text", await adapter.admit(payload.text)],
      ["MCP", await adapter.admit(mcpResult)],
      ["text", await textAdapter.admit(log)],
    ]) {
      if (!outcome.ok) throw new Error(`the ${label} ${name} result was not admitted: ${outcome.error.code}`);
    }
    const timing = await interleave(
      {
        admitText: await perCallAsync(() => adapter.admit(payload.text)),
        admitBytes: await perCallAsync(() => adapter.admit(bytes)),
        parseValidate: perCall(() => validateResult(JSON.parse(payload.text))),
        admitMcp: await perCallAsync(() => adapter.admit(mcpResult)),
        stringifyValidate: perCall(() => validateResult(value) && JSON.stringify(value)),
        admitLog: await perCallAsync(() => textAdapter.admit(log)),
        decodeHash: perCall(() => decoder.decode(log).length + createHash("sha256").update(log).digest("hex")),
      },
      quick ? Math.min(rounds, 3) : rounds,
    );
    const perMb = (summary, size) => (summary.median * MB) / size;
    points.push({
      size: label,
      bytes: payload.bytes,
      logBytes: log.byteLength,
      timing,
      msPerMb: {
        admitText: perMb(timing.admitText, payload.bytes),
        admitBytes: perMb(timing.admitBytes, payload.bytes),
        parseValidate: perMb(timing.parseValidate, payload.bytes),
        admitMcp: perMb(timing.admitMcp, payload.bytes),
        stringifyValidate: perMb(timing.stringifyValidate, payload.bytes),
        admitLog: perMb(timing.admitLog, log.byteLength),
        decodeHash: perMb(timing.decodeHash, log.byteLength),
      },
      ratios: {
        text: ratio(timing.admitText, timing.parseValidate),
        bytes: ratio(timing.admitBytes, timing.parseValidate),
        mcp: ratio(timing.admitMcp, timing.stringifyValidate),
        log: ratio(timing.admitLog, timing.decodeHash),
      },
    });
  }
  return points;
}

/**
 * The peak memory an MCP admit of a {@link MEMORY_BYTES} result grows by, against `JSON.parse` of its text, each
 * in fresh processes, `rounds` times in turn.
 * @param {string} work a scratch folder (the unbounded adapter is compiled there by {@link runAdmitCurve}, or here)
 * @param {{ rounds: number }} options
 */
export async function runAdmitMemory(work, { rounds }) {
  const { file } = await loadUnboundedAdapter(work);
  const payload = issuesPayload(MEMORY_BYTES);
  const payloadFile = path.join(work, "memory-payload.json");
  await writeFile(payloadFile, payload.text);
  const once = async (mode) => {
    const args = ["--expose-gc", CHILD, file, payloadFile, mode];
    const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
    const result = JSON.parse(stdout.trim().split("\n").at(-1));
    if (result.code !== "ok") throw new Error(`the ${mode} run ended ${result.code}`);
    return result;
  };
  const runs = { parse: [], mcp: [], text: [] };
  await interleave(
    Object.fromEntries(
      Object.keys(runs).map((mode) => [
        mode,
        async () => {
          const result = await once(mode);
          runs[mode].push(result);
          return result.rssGrowth;
        },
      ]),
    ),
    rounds,
  );
  const growth = (mode) => summarize(runs[mode].map((r) => r.rssGrowth));
  return {
    bytes: payload.bytes,
    reset: runs.parse.every((r) => r.reset),
    parse: growth("parse"),
    mcp: growth("mcp"),
    text: growth("text"),
    mcpRatio: ratio(growth("mcp"), growth("parse")),
    textRatio: ratio(growth("text"), growth("parse")),
  };
}

/**
 * The table rows of a curve and a memory run: one row per path with its ms per MB at every size, the ratio to its
 * baseline at every size, and the MCP path's targets (1.5× at 10 MB; linear: its cost per MB from 1 MB to 100 MB
 * growing at most 1.25× as much as its baseline's; memory within 1.5× of `JSON.parse`).
 * @param {Awaited<ReturnType<typeof runAdmitCurve>>} points
 * @param {Awaited<ReturnType<typeof runAdmitMemory>> | undefined} memory
 */
export function curveRows(points, memory) {
  const rows = [];
  const at = (key) => points.map((p) => `${p.size} ${p.msPerMb[key].toFixed(1)}`).join(", ");
  const ratios = (key) => points.map((p) => `${p.ratios[key].toFixed(2)}×`).join(" / ");
  const linear = (key) => {
    // The cost per MB at the largest size over that at 1 MB (below it, fixed costs dominate).
    const one = points.find((p) => p.size === "1 MB");
    const last = points.at(-1);
    if (one === undefined || last === one) return "";
    return `; ${last.size} per MB over 1 MB's ${(last.msPerMb[key] / one.msPerMb[key]).toFixed(2)}×`;
  };
  const sizes = points.map((p) => p.size).join(" / ");
  for (const [key, base, baseLabel, label] of [
    ["admitText", "parseValidate", "JSON.parse + validator", "JSON text (string)"],
    ["admitBytes", "parseValidate", "JSON.parse + validator", "JSON text (bytes)"],
    ["admitMcp", "stringifyValidate", "JSON.stringify + validator", "MCP structured content"],
    ["admitLog", "decodeHash", "fatal TextDecoder + sha256", "text result (bytes)"],
  ]) {
    const ratioKey = { admitText: "text", admitBytes: "bytes", admitMcp: "mcp", admitLog: "log" }[key];
    rows.push([
      `admit cost per MB, ${label}, ${sizes}`,
      `ms/MB: ${at(key)}${linear(key)}`,
      `${baseLabel}, ms/MB: ${at(base)}`,
      ratios(ratioKey),
      "(curve)",
      "",
    ]);
  }
  const ten = points.find((p) => p.size === "10 MB");
  if (ten !== undefined)
    rows.push([
      "gate overhead, 10 MB, MCP structured content",
      `admit(CallToolResult) ${ten.timing.admitMcp.median.toFixed(0)} ms`,
      `JSON.stringify + validator ${ten.timing.stringifyValidate.median.toFixed(0)} ms`,
      `${ten.ratios.mcp.toFixed(2)}×`,
      "≤ 1.5×",
      ten.ratios.mcp <= 1.5 ? "met" : "missed",
    ]);
  const one = points.find((p) => p.size === "1 MB");
  const last = points.at(-1);
  if (one !== undefined && last.size === "100 MB") {
    // Linear: from 1 MB to 100 MB the admit's cost per MB grows no more than its baseline's, taken in the same run
    // (on a shared machine both slow down at 100 MB, so the admit's own growth alone would read the load).
    const admitGrowth = last.msPerMb.admitMcp / one.msPerMb.admitMcp;
    const baseGrowth = last.msPerMb.stringifyValidate / one.msPerMb.stringifyValidate;
    const relative = admitGrowth / baseGrowth;
    rows.push([
      "MCP path linear in size, 1 MB to 100 MB",
      `admit ${one.msPerMb.admitMcp.toFixed(1)} → ${last.msPerMb.admitMcp.toFixed(1)} ms/MB (${admitGrowth.toFixed(2)}×)`,
      `JSON.stringify + validator ${one.msPerMb.stringifyValidate.toFixed(1)} → ${last.msPerMb.stringifyValidate.toFixed(1)} ms/MB (${baseGrowth.toFixed(2)}×)`,
      `${relative.toFixed(2)}×`,
      "≤ 1.25× the baseline's growth",
      relative <= 1.25 ? "met" : "missed",
    ]);
  }
  if (memory !== undefined) {
    const mib = (summary) => `${(summary.median / MB).toFixed(0)} MiB`;
    rows.push([
      `peak memory, ${(memory.bytes / MB).toFixed(0)} MB result (fresh process, peak RSS growth${memory.reset ? "" : ", not reset"})`,
      `admit(CallToolResult) +${mib(memory.mcp)}; admit(JSON text) +${mib(memory.text)} (${memory.textRatio.toFixed(2)}×)`,
      `JSON.parse of the text +${mib(memory.parse)}`,
      `${memory.mcpRatio.toFixed(2)}×`,
      "≤ 1.5×",
      memory.mcpRatio <= 1.5 ? "met" : "missed",
    ]);
  }
  return rows;
}
