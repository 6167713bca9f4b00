/**
 * One memory run in a fresh process (started with --expose-gc):
 * `node --expose-gc bench/admit-memory-child.js <compiled adapter module> <payload file> parse|mcp|text`.
 *
 * The payload's JSON text is read from the file first, and for `mcp` parsed into the structured content of an MCP
 * `CallToolResult` (with the text as its text block, as servers send it): what the caller already holds is not
 * counted. Then, after a collection, the peak resident set is reset to the current one (Linux's
 * `/proc/self/clear_refs`), the work runs once, and the peak is read back (`VmHWM`): `parse` is `JSON.parse` of the
 * text (kept), `mcp` is `admit` of the result, `text` is `admit` of the text as JSON text. Prints one JSON line: the
 * peak's growth over the collected baseline, the heap and array buffers kept after a collection, the outcome and the time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [adapterModule, payloadFile, mode] = process.argv.slice(2);

const adapterExports = await import(pathToFileURL(adapterModule).href);
const adapter = Object.values(adapterExports).find((value) => typeof value?.admit === "function");
const text = readFileSync(payloadFile, "utf8");
const raw = mode === "mcp" ? { content: [{ type: "text", text }], structuredContent: JSON.parse(text) } : text;

// A small admit first, so code the gate compiles on its first call is not counted as memory the payload cost.
const warm = await adapter.admit('{"totalCount":0,"issues":[]}');
if (!warm.ok) throw new Error(`the warm-up admit failed: ${warm.error.code}`);

/** The resident set's peak since the last reset, in bytes, from `/proc/self/status`. */
function peakRss() {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("VmHWM:"));
  return Number(line?.match(/\d+/)?.[0] ?? Number.NaN) * 1024;
}

globalThis.gc();
globalThis.gc();
const base = process.memoryUsage();
// Resets the peak to the current resident set, so a peak reached while the payload was built does not hide this one.
let reset = true;
try {
  writeFileSync("/proc/self/clear_refs", "5");
} catch {
  reset = false;
}
const baseRss = reset ? process.memoryUsage().rss : process.resourceUsage().maxRSS * 1024;
const start = performance.now();
let kept;
let code = "ok";
if (mode === "parse") kept = JSON.parse(text);
else {
  const outcome = await adapter.admit(raw);
  code = outcome.ok ? "ok" : outcome.error.code;
  kept = outcome;
}
const ms = performance.now() - start;
const peak = reset ? peakRss() : process.resourceUsage().maxRSS * 1024;
// What stays once the work is done (the parsed value, or the outcome with its data), after a collection.
globalThis.gc();
const after = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({
    mode,
    code,
    ms,
    reset,
    rssGrowth: Math.max(0, peak - baseRss),
    heapAfter: after.heapUsed + after.arrayBuffers - (base.heapUsed + base.arrayBuffers),
    kept: kept === undefined ? 0 : 1,
  })}\n`,
);
