/**
 * Benchmark 2, gate overhead: `admit` on realistic 1 KB, 64 KB and 1 MB results (JSON text, as a transport
 * delivers it) against what a careful caller would do without the gate: `JSON.parse` plus the same generated
 * standalone validator. `JSON.parse` alone is timed too, as the floor. Beside it: `admit` on the same result as
 * bytes; the same text admitted by a contract whose view keeps one issue (the gate without most of the view's
 * cost); and an MCP `CallToolResult` (structured content plus its text block) against `JSON.stringify` of the
 * parsed value plus the validator on it, which is what an MCP client validating structured content and hashing what
 * it got would pay (the validator alone is reported too, and so is the MCP path's floor: the private copy of the
 * structured content and the JSON text written of it, which the gate hashes). The contract
 * (bench/contracts/list_issues) keeps 20 issues in the view, cuts bodies to 400 characters and budgets the view in
 * bytes.
 *
 * Small results: `admit` of a 1 KB result by a contract with the default budget (8,000 tokens of o200k_base), as
 * JSON text, as bytes and as an MCP `CallToolResult`, against a fatal decode of its bytes, `JSON.parse`, the
 * validator and sha256 of the bytes: what a careful caller that keeps provenance pays for the same result. Timed in
 * the main thread's CPU time (`/proc/thread-self/schedstat`), every path warmed up first; the verdict is on the
 * median of the per-round CPU-time ratios, and the wall-clock figures of the same calls are printed beside them.
 *
 * Text results: `admit` of a 1 MB text result (result kind `text`, as bytes and as a string) against a fatal
 * `TextDecoder` decode plus sha256 of the same bytes, which is the least a caller that keeps provenance does. And
 * the curve from 1 KB to 100 MB under the default token budget (8,000 tokens of o200k_base), against the same.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { copyParsedValue } from "../runtime/dist/stages/receive/value-copy.js";
import { profileAdmits } from "./gate-profile.js";
import { generateContracts } from "./lib/corpus.js";
import { issuesPayload, textPayload } from "./lib/payloads.js";
import {
  cpuPerCall,
  cpuPerCallAsync,
  interleave,
  perCall,
  perCallAsync,
  ratio,
  summarize,
  threadCpuMs,
} from "./lib/stats.js";

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
  const { adapter, validateResult, folder } = await loadGenerated(work, "list_issues", (contract) => contract);
  return { adapter, validateResult, folder };
}

/**
 * Where {@link loadBenchAdapter} writes the compiled bench adapter (the receive benchmark's child loads it).
 * @param {string} work a scratch folder
 */
export function benchAdapterFile(work) {
  return path.join(work, "gate", "list_issues", "adapter.js");
}

/**
 * The bench contract with its view keeping one issue instead of 20: admitting with it is the gate with little of
 * the view's cost, which tells the view's share of the ratio.
 * @param {string} work a scratch folder
 */
export async function loadOneIssueAdapter(work) {
  return (
    await loadGenerated(work, "list_issues_one", (contract) => ({
      ...contract,
      name: "list_issues_one",
      "x-toolgate": {
        ...contract["x-toolgate"],
        view: { ...contract["x-toolgate"].view, arrays: { "/issues": { take: 1 } } },
      },
    }))
  ).adapter;
}

/**
 * The bench contract without its field rules (the titles' check for instruction-like text, the cursor's opaque
 * token rule): admitting with it shows what the gate costs without the checks this contract chose to add.
 * @param {string} work a scratch folder
 */
export async function loadNoFieldRulesAdapter(work) {
  return (
    await loadGenerated(work, "list_issues_plain", (contract) => {
      const { fields: _fields, ...settings } = contract["x-toolgate"];
      return { ...contract, name: "list_issues_plain", "x-toolgate": settings };
    })
  ).adapter;
}

/** The receive ceiling of {@link loadUnboundedAdapter}'s contract: room for a 100 MB result. */
export const UNBOUNDED_BYTES = 256 * 1024 * 1024;

/**
 * The bench contract with room for results up to {@link UNBOUNDED_BYTES}: no bound on the number of issues (a
 * bound that large would allow results past any ceiling, which the generator refuses), a 256 MiB ceiling, the same
 * view and field rules; for the curve from 1 KB to 100 MB (admit-curve.js).
 * @param {string} work a scratch folder
 * @returns {Promise<{ adapter: any, validateResult: (value: unknown) => boolean, file: string }>}
 */
export async function loadUnboundedAdapter(work) {
  const tool = "list_issues_large";
  const loaded = await loadGenerated(work, tool, (contract) => {
    const output = contract.outputSchema;
    const { maxItems: _maxItems, ...issues } = output.properties.issues;
    return {
      ...contract,
      name: tool,
      outputSchema: { ...output, properties: { ...output.properties, issues } },
      "x-toolgate": { ...contract["x-toolgate"], receive: { maxBytes: UNBOUNDED_BYTES } },
    };
  });
  return { ...loaded, file: path.join(work, "gate", tool, "adapter.js") };
}

/**
 * The bench contract with the default context budget (no `context` block: 8,000 tokens of o200k_base), as a contract
 * that names none, and every one `toolgate import` writes, counts.
 * @param {string} work a scratch folder
 */
export async function loadDefaultBudgetAdapter(work) {
  return (
    await loadGenerated(work, "list_issues_tokens", (contract) => {
      const { context: _context, ...settings } = contract["x-toolgate"];
      return { ...contract, name: "list_issues_tokens", "x-toolgate": settings };
    })
  ).adapter;
}

/**
 * Generates the bench contract (changed by `edit`, under the tool name it gives) and loads its adapter.
 * @param {string} work
 * @param {string} tool
 * @param {(contract: any) => any} edit
 */
async function loadGenerated(work, tool, edit) {
  const contract = edit(JSON.parse(readFileSync(path.resolve("bench", "contracts", "list_issues.tool.json"), "utf8")));
  const root = path.join(work, "gate", tool);
  const generated = await generateContracts(root, [{ file: `${tool}.tool.json`, contract, source: undefined }]);
  const folder = path.join(generated.out, tool);
  const compiled = path.join(root, "adapter.js");
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
  const adapter = Object.values(adapterModule).find((value) => value?.name === tool);
  return { adapter, validateResult: validators.validateResult, folder };
}

/**
 * Runs every contender for `ms` milliseconds, in three passes over them all, awaiting those that return a promise:
 * what optimises each before its calls per sample are calibrated.
 * @param {Record<string, () => unknown>} contenders
 * @param {number} ms
 */
async function warmUp(contenders, ms) {
  const each = ms / 3;
  for (let pass = 0; pass < 3; pass++) {
    for (const work of Object.values(contenders)) {
      const start = performance.now();
      do await work();
      while (performance.now() - start < each);
    }
  }
}

/**
 * Times admit, parse+validate and parse alone at each size, interleaved. With `profile`, each size of 64 KB and more
 * also gets a CPU profile of its JSON text and MCP admits, by stage (`gate-profile.js`), after its timings.
 * @param {string} work
 * @param {{ rounds: number, profile?: boolean }} options
 */
export async function runGateOverhead(work, { rounds, profile = false }) {
  const { adapter, validateResult } = await loadBenchAdapter(work);
  const oneIssue = await loadOneIssueAdapter(work);
  const noFieldRules = await loadNoFieldRulesAdapter(work);
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
    const asyncWork = {
      admit: () => adapter.admit(payload.text),
      admitBytes: () => adapter.admit(bytes),
      admitOneIssue: () => oneIssue.admit(payload.text),
      admitNoFieldRules: () => noFieldRules.admit(payload.text),
      admitMcpNoFieldRules: () => noFieldRules.admit(mcpResult),
      admitMcp: () => adapter.admit(mcpResult),
    };
    const syncWork = {
      parseValidate: () => validateResult(JSON.parse(payload.text)),
      parseOnly: () => JSON.parse(payload.text),
      // What an MCP client that validates structured content itself pays: the message is already parsed; writing
      // its JSON is what it takes to hash or log what was received.
      validateOnly: () => validateResult(value),
      stringifyValidate: () => validateResult(value) && JSON.stringify(value),
      // The copy's way, the MCP path for a result without one text block of its value: the private copy of the
      // structured content and the JSON text it writes of that copy (which it hashes), and nothing else of the admit.
      copyWrite: () => copyParsedValue(value, 64, Number.MAX_SAFE_INTEGER, Number.POSITIVE_INFINITY),
      // The view's floor: what showing the model the contract's view takes at the least, the JSON of the 20-issue
      // view (markup escapes aside) and its UTF-8 length, which the budget is measured in.
      renderView: () => Buffer.byteLength(JSON.stringify(check.view)),
    };
    // Every contender warmed up before any is calibrated. Calibrated on code not yet optimised, an admit's sample
    // would hold a few calls where it should hold a hundred, and time mostly the first call after the switch from
    // another contender (twice an admit's time: caches and the hash thread are elsewhere), not the calls after it.
    await warmUp({ ...asyncWork, ...syncWork }, 300);
    const timed = {};
    for (const [name, work] of Object.entries(asyncWork)) timed[name] = await perCallAsync(work);
    for (const [name, work] of Object.entries(syncWork)) timed[name] = perCall(work);
    const timing = await interleave(timed, rounds);
    const mbps = (ms) => payload.bytes / 1_048_576 / (ms / 1000);
    rows.push({
      size: label,
      bytes: payload.bytes,
      issues: payload.issues,
      complete: check.complete,
      timing,
      ratio: ratio(timing.admit, timing.parseValidate),
      bytesRatio: ratio(timing.admitBytes, timing.parseValidate),
      oneIssueRatio: ratio(timing.admitOneIssue, timing.parseValidate),
      noFieldRulesRatio: ratio(timing.admitNoFieldRules, timing.parseValidate),
      mcpNoFieldRulesRatio: ratio(timing.admitMcpNoFieldRules, timing.stringifyValidate),
      mcpRatio: ratio(timing.admitMcp, timing.stringifyValidate),
      mcpValidateRatio: ratio(timing.admitMcp, timing.validateOnly),
      mcpFloorRatio: ratio(timing.copyWrite, timing.stringifyValidate),
      mcpParseRatio: ratio(timing.parseOnly, timing.stringifyValidate),
      viewFloorRatio: ratio(timing.renderView, timing.parseValidate),
      mbPerSecond: {
        admit: mbps(timing.admit.median),
        parseValidate: mbps(timing.parseValidate.median),
        parseOnly: mbps(timing.parseOnly.median),
      },
      profile:
        profile && target >= 64 * 1024
          ? {
              text: await profileAdmits(adapter, payload.text, Math.round(40_000_000 / target)),
              mcp: await profileAdmits(adapter, mcpResult, Math.round(40_000_000 / target)),
            }
          : undefined,
    });
  }
  return rows;
}

/**
 * Times `admit` of a 1 KB result under the default token budget on the JSON text, bytes and MCP paths, against a
 * fatal decode + `JSON.parse` + validator + sha256 of the same bytes, interleaved, in the main thread's CPU time
 * (the wall clock of the same calls kept beside it: on a shared machine it swings several-fold with the wait for a
 * core).
 * @param {string} work
 * @param {{ rounds: number }} options
 */
export async function runSmallResults(work, { rounds }) {
  const adapter = await loadDefaultBudgetAdapter(work);
  const { validateResult } = await loadBenchAdapter(work);
  const payload = issuesPayload(1024);
  const bytes = new TextEncoder().encode(payload.text);
  const value = JSON.parse(payload.text);
  const mcpResult = { content: [{ type: "text", text: payload.text }], structuredContent: value };
  for (const raw of [payload.text, bytes, mcpResult]) {
    const check = await adapter.admit(raw);
    if (!check.ok || !check.complete) throw new Error("the 1 KB result was not admitted whole");
  }
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const floor = () =>
    validateResult(JSON.parse(decoder.decode(bytes))) && createHash("sha256").update(bytes).digest("hex");
  // Every path warmed up first, all of them before any is calibrated: an admit is optimised over thousands of calls,
  // and the three paths share code, so a path calibrated while another was still cold would time the wrong code.
  for (let i = 0; i < 3000; i++) {
    await adapter.admit(payload.text);
    await adapter.admit(bytes);
    await adapter.admit(mcpResult);
    floor();
  }
  // Timed in the main thread's CPU time: a 1 KB admit takes tens of microseconds, and on a shared machine a
  // wall-clock sample of it swings several-fold with how long the thread waited for a core.
  const samplers = {
    text: await cpuPerCallAsync(() => adapter.admit(payload.text)),
    fromBytes: await cpuPerCallAsync(() => adapter.admit(bytes)),
    mcp: await cpuPerCallAsync(() => adapter.admit(mcpResult)),
    baseline: cpuPerCall(floor),
  };
  const timing = await interleave(samplers, rounds);
  const wall = Object.fromEntries(Object.entries(samplers).map(([name, sampler]) => [name, summarize(sampler.wall)]));
  const exact = (await adapter.admit(payload.text)).contextUsed.exact;
  return {
    bytes: bytes.byteLength,
    issues: payload.issues,
    tokenizerSkipped: exact === false,
    clock: threadCpuMs.source,
    timing,
    wall,
    ratios: {
      text: ratio(timing.text, timing.baseline),
      bytes: ratio(timing.fromBytes, timing.baseline),
      mcp: ratio(timing.mcp, timing.baseline),
    },
    wallRatios: {
      text: ratio(wall.text, wall.baseline),
      bytes: ratio(wall.fromBytes, wall.baseline),
      mcp: ratio(wall.mcp, wall.baseline),
    },
  };
}

/**
 * The table rows of {@link runSmallResults}' figures: one per path, each against its target of 3×.
 * @param {Awaited<ReturnType<typeof runSmallResults>>} small
 * @param {{ ms: (s: any) => string, x: (ratio: number) => string, kb: (bytes: number) => string }} format
 */
export function smallResultRows(small, { ms, x, kb }) {
  const budget = `8,000-token budget${small.tokenizerSkipped ? ", tokenizer not loaded" : ""}`;
  return [
    ["text", "JSON text", small.timing.text, small.wall.text],
    ["bytes", "bytes", small.timing.fromBytes, small.wall.fromBytes],
    ["mcp", "MCP CallToolResult", small.timing.mcp, small.wall.mcp],
  ].map(([path, label, timing, wall]) => [
    `small result, ${kb(small.bytes)} (${small.issues} issues, ${budget}), ${label}; ${small.clock}, wall clock beside it`,
    `admit ${ms(timing)} CPU (wall ${ms(wall)})`,
    `fatal decode + JSON.parse + validator + sha256 ${ms(small.timing.baseline)} CPU (wall ${ms(small.wall.baseline)})`,
    `${x(small.ratios[path])} CPU (wall ${x(small.wallRatios[path])})`,
    "≤ 3× (CPU)",
    small.ratios[path] <= 3 ? "met" : "missed",
  ]);
}

/** The text result measured, in bytes. */
export const TEXT_BYTES = 1024 * 1024;

/**
 * Times `admit` of a 1 MB text result (result kind `text`, as bytes and as a string) against a fatal
 * `TextDecoder` decode plus sha256 of the same bytes, interleaved.
 * @param {{ defineTool: (spec: any) => any }} runtime the built `@toolgate/runtime`
 * @param {{ rounds: number }} options
 */
export async function runTextResult(runtime, { rounds }) {
  const adapter = runtime.defineTool(textSpec());
  const payload = textPayload(TEXT_BYTES);
  const bytes = new TextEncoder().encode(payload.text);
  const check = await adapter.admit(bytes);
  if (!check.ok) throw new Error(`the text result was not admitted: ${check.error.code}`);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const admitBytes = await perCallAsync(() => adapter.admit(bytes));
  const admitString = await perCallAsync(() => adapter.admit(payload.text));
  const decodeHash = perCall(() => decoder.decode(bytes).length + createHash("sha256").update(bytes).digest("hex"));
  const timing = await interleave({ admitBytes, admitString, decodeHash }, rounds);
  return {
    bytes: bytes.byteLength,
    lines: payload.lines,
    complete: check.complete,
    timing,
    ratio: ratio(timing.admitBytes, timing.decodeHash),
    stringRatio: ratio(timing.admitString, timing.decodeHash),
  };
}

/** The sizes of the text curve, in bytes. */
export const TEXT_CURVE = [
  ["1 KB", 1024],
  ["64 KB", 64 * 1024],
  ["1 MB", 1024 * 1024],
  ["10 MB", 10 * 1024 * 1024],
  ["100 MB", 100 * 1024 * 1024],
];

/**
 * Times `admit` of text results from 1 KB to 100 MB (as bytes) under the default token budget, each against a fatal
 * decode + sha256 of the same bytes, interleaved per size; the largest sizes take fewer rounds.
 * @param {{ defineTool: (spec: any) => any }} runtime the built `@toolgate/runtime`
 * @param {{ rounds: number, sizes?: typeof TEXT_CURVE }} options
 */
export async function runTextCurve(runtime, { rounds, sizes = TEXT_CURVE }) {
  const largest = Math.max(...sizes.map(([, bytes]) => bytes));
  const base = textSpec();
  const adapter = runtime.defineTool({
    ...base,
    limits: { ...base.limits, maxBytes: largest * 2 },
    context: { unit: "tokens", max: 8000, tokenizer: "o200k_base" },
    result: { ...base.result, text: { ...base.result.text, maxLines: Math.ceil(largest / 16) } },
  });
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const rows = [];
  for (const [label, target] of sizes) {
    let bytes = new TextEncoder().encode(textPayload(target).text);
    const check = await adapter.admit(bytes);
    if (!check.ok) throw new Error(`the ${label} text result was not admitted: ${check.error.code}`);
    const admitBytes = await perCallAsync(() => adapter.admit(bytes));
    const decodeHash = perCall(() => decoder.decode(bytes).length + createHash("sha256").update(bytes).digest("hex"));
    const sizeRounds = target >= 10 * 1024 * 1024 ? Math.min(rounds, 5) : rounds;
    const timing = await interleave({ admitBytes, decodeHash }, sizeRounds);
    const size = bytes.byteLength;
    bytes = undefined;
    rows.push({
      size: label,
      bytes: size,
      complete: check.complete,
      contextUsed: check.contextUsed,
      timing,
      ratio: ratio(timing.admitBytes, timing.decodeHash),
      msPerMB: timing.admitBytes.median / (size / 1_048_576),
    });
  }
  return rows;
}

/**
 * The table rows of {@link runTextCurve}'s figures: the 1 MB point against its target of 1.5×, the others the curve.
 * @param {Awaited<ReturnType<typeof runTextCurve>>} curve
 * @param {{ ms: (s: any) => string, x: (ratio: number) => string }} format
 */
export function textCurveRows(curve, { ms, x }) {
  return curve.map((point) => {
    const targeted = point.size === "1 MB";
    return [
      `text result under the 8,000-token budget, ${point.size}${point.complete ? ", whole" : ""}`,
      `admit(bytes) ${ms(point.timing.admitBytes)}, ${point.msPerMB.toFixed(1)} ms/MB`,
      `fatal TextDecoder + sha256 ${ms(point.timing.decodeHash)}`,
      x(point.ratio),
      targeted ? "≤ 1.5×" : "(curve: linear)",
      targeted ? (point.ratio <= 1.5 ? "met" : "missed") : "",
    ];
  });
}

/**
 * A text tool's spec, as a generated adapter would define it: a file read, by default up to 2 MB and 50,000 lines.
 * @param {{ maxBytes: number, maxLines: number }} [bounds]
 */
export function textSpec(bounds = { maxBytes: 2 * 1024 * 1024, maxLines: 50_000 }) {
  return {
    name: "read_log",
    contract: { version: "1", sha256: "b".repeat(64), file: "bench/read_log.tool.json" },
    view: { plan: { kind: "value" }, maxStringChars: 2000 },
    buildView: () => {
      throw new Error("the gate's own view serves text results");
    },
    limits: { maxBytes: bounds.maxBytes, maxDepth: 1 },
    context: { unit: "bytes", max: 32 * 1024 },
    oversize: ["drop"],
    recallLimit: 1,
    summaryMax: 200,
    spillPreview: 2,
    retry: {},
    fields: [],
    exposeToolError: false,
    mcp: {},
    result: {
      kind: "text",
      text: { maxLines: bounds.maxLines, headShare: 0.67 },
      content: { maxBlocks: 8, text: { maxCount: 6 } },
    },
  };
}
