/**
 * Benchmark 2, gate overhead: `admit` on realistic 1 KB, 64 KB and 1 MB results (JSON text, as a transport
 * delivers it) against what a careful caller would do without the gate: `JSON.parse` plus the same generated
 * standalone validator. `JSON.parse` alone is timed too, as the floor. Reported beside it: `admit` on the same
 * result as bytes, and as an MCP `CallToolResult` (structured content plus its text block) against the validator
 * alone on the already parsed value, which is what an MCP client validating structured content pays. The contract (bench/contracts/list_issues)
 * keeps 20 issues in the view, cuts bodies to 400 characters and budgets the view in bytes.
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { generateContracts } from "./lib/corpus.js";
import { issuesPayload } from "./lib/payloads.js";
import { interleave, perCall, perCallAsync, ratio } from "./lib/stats.js";

/** The result sizes measured, in bytes. */
export const SIZES = [
  ["1 KB", 1024],
  ["64 KB", 64 * 1024],
  ["1 MB", 1024 * 1024],
];

/**
 * Generates the bench contract and compiles its adapter to JavaScript (TypeScript is only stripped; the adapter
 * still imports `@toolgate/runtime` and its generated `validate.js`).
 * @param {string} work a scratch folder
 * @returns {Promise<{ adapter: any, validateResult: (value: unknown) => boolean, folder: string }>}
 */
export async function loadBenchAdapter(work) {
  const contract = JSON.parse(readFileSync(path.resolve("bench", "contracts", "list_issues.tool.json"), "utf8"));
  const generated = await generateContracts(path.join(work, "gate"), [
    { file: "list_issues.tool.json", contract, source: undefined },
  ]);
  const folder = path.join(generated.out, "list_issues");
  const compiled = path.join(work, "gate", "adapter.js");
  await mkdir(path.dirname(compiled), { recursive: true });
  await build({
    entryPoints: [path.join(folder, "adapter.ts")],
    outfile: compiled,
    bundle: true,
    format: "esm",
    platform: "node",
    // The generated validator and the runtime are loaded as the modules they are, not copied into the bundle.
    external: ["@toolgate/runtime", "./validate.js"],
    logLevel: "silent",
  });
  // esbuild keeps the external "./validate.js" relative to the output file: point it back at the generated one.
  const source = readFileSync(compiled, "utf8").replace(
    '"./validate.js"',
    JSON.stringify(pathToFileURL(path.join(folder, "validate.js")).href),
  );
  await writeFile(compiled, source);
  const adapterModule = await import(pathToFileURL(compiled).href);
  const validators = await import(pathToFileURL(path.join(folder, "validate.js")).href);
  return { adapter: adapterModule.listIssues, validateResult: validators.validateResult, folder };
}

/**
 * Times admit, parse+validate and parse alone at each size, interleaved.
 * @param {string} work
 * @param {{ rounds: number }} options
 */
export async function runGateOverhead(work, { rounds }) {
  const { adapter, validateResult } = await loadBenchAdapter(work);
  const rows = [];
  for (const [label, target] of SIZES) {
    const payload = issuesPayload(target);
    const check = await adapter.admit(payload.text);
    if (!check.ok) throw new Error(`the ${label} payload was not admitted: ${check.error.code}`);
    if (!validateResult(JSON.parse(payload.text))) throw new Error(`the ${label} payload does not validate`);
    const bytes = new TextEncoder().encode(payload.text);
    const value = JSON.parse(payload.text);
    // An MCP result as servers send it: the value as structured content, and its JSON text as a text block.
    const mcpResult = { content: [{ type: "text", text: payload.text }], structuredContent: value };
    const mcpCheck = await adapter.admit(mcpResult);
    if (!mcpCheck.ok) throw new Error(`the ${label} MCP result was not admitted: ${mcpCheck.error.code}`);
    const admit = await perCallAsync(() => adapter.admit(payload.text));
    const admitBytes = await perCallAsync(() => adapter.admit(bytes));
    const admitMcp = await perCallAsync(() => adapter.admit(mcpResult));
    const parseValidate = perCall(() => validateResult(JSON.parse(payload.text)));
    const parseOnly = perCall(() => JSON.parse(payload.text));
    // What an MCP client that validates structured content itself pays: the message is already parsed.
    const validateOnly = perCall(() => validateResult(value));
    const timing = await interleave({ admit, admitBytes, admitMcp, parseValidate, parseOnly, validateOnly }, rounds);
    const mbps = (ms) => payload.bytes / 1_048_576 / (ms / 1000);
    rows.push({
      size: label,
      bytes: payload.bytes,
      issues: payload.issues,
      complete: check.complete,
      timing,
      ratio: ratio(timing.admit, timing.parseValidate),
      bytesRatio: ratio(timing.admitBytes, timing.parseValidate),
      mcpRatio: ratio(timing.admitMcp, timing.validateOnly),
      mbPerSecond: {
        admit: mbps(timing.admit.median),
        parseValidate: mbps(timing.parseValidate.median),
        parseOnly: mbps(timing.parseOnly.median),
      },
    });
  }
  return rows;
}
