/**
 * `npm run bench`: every benchmark of the gate and the generator, each comparing toolgate with what users would
 * otherwise run, in one process run, as ratios. Prints a Markdown table and writes every figure to bench/results.json,
 * from which `npm run docs:generate` writes the latest run's tables of docs/benchmarks.md.
 *
 *   node bench/run.js [--only cold,coldscale,warm,firstcall,gate,small,curve,textcurve,receive,tokens,readback,validators,
 *     codegen,report,proxy,replicas,usefulness] [--quick] [--profile]
 *
 * `--quick` runs fewer rounds (a smoke test, not figures to quote); `--profile` adds a CPU profile of codegen (the
 * gate's rows always carry one: where an admit's time goes, by stage, at 64 KB and 1 MB).
 * Needs `npm run build` first (the script in package.json does it). Scratch files go to .tmp/bench/run-<pid>/ and
 * are removed at the end.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { curveRows, runAdmitCurve, runAdmitMemory } from "./admit-curve.js";
import { runCodegen } from "./codegen.js";
import { coldScaleRows, prepareColdScale, runColdScale } from "./cold-scale.js";
import { CONTENDERS, prepareColdStart, runColdStart } from "./cold-start.js";
import { firstCallRows, prepareFirstCall, runFirstCall } from "./first-call.js";
import { runTextCurve, runTextResult, smallResultRows, textCurveRows } from "./gate-overhead.js";
import { isolated } from "./lib/isolated.js";
import { ratio } from "./lib/stats.js";
import { runProxyBench } from "./proxy.js";
import { runReadBack } from "./read-back.js";
import { runReceiveCeiling } from "./receive-ceiling.js";
import { runReplicasBench } from "./replicas.js";
import { runReportBench } from "./report.js";
import { runTokenBudget } from "./token-budget.js";
import { runUsefulness } from "./usefulness.js";
import { prepareSizeVariants } from "./validator-size.js";
import { runValidatorWorst } from "./validator-worst.js";
import { prepareWarmValidation, runWarmValidation } from "./warm-validation.js";

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    quick: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
  },
});
const ALL =
  "cold coldscale warm firstcall gate small curve textcurve receive tokens readback validators codegen report proxy replicas usefulness".split(
    " ",
  );
const selected = new Set(values.only ? values.only.split(",") : ALL);
const quick = values.quick;
// Scratch files of this run only: two runs at once (the tree is shared) must not delete each other's files.
const WORK = path.resolve(".tmp", "bench", `run-${process.pid}`);
await mkdir(WORK, { recursive: true });

const machine = {
  cpu: os.cpus()[0]?.model ?? "unknown",
  cores: os.availableParallelism(),
  memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  loadAverageAtStart: os.loadavg().map((n) => Number(n.toFixed(2))),
  date: new Date().toISOString().slice(0, 10),
};
const results = { machine, quick, benchmarks: {} };
/** Table rows: [benchmark, measured, compared with, ratio, target, met]. */
const rows = [];
/** This run's rows, by benchmark. */
const tables = {};
const ms = (s) => `${s.median.toFixed(s.median < 10 ? 2 : 0)} ms ±${Math.round(s.spread * 50)}%`;
const x = (ratio) => `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
const kb = (bytes) => `${Math.round(bytes / 1024)} KB`;
const mib = (bytes) => `${(bytes / 1024 ** 2).toFixed(2)} MiB`;
const say = (line) => process.stderr.write(`${line}\n`);

/** Runs one benchmark; a failure is reported in its row and in the results, and the other benchmarks still run. */
async function section(key, body) {
  try {
    await body();
  } catch (error) {
    process.exitCode = 1;
    const message = String(error?.message ?? error)
      .split("\n")[0]
      .slice(0, 200);
    say(`${key} failed: ${message}`);
    results.benchmarks[key] = { failed: message };
    tables[key] = [[key, `failed: ${message.replaceAll("|", "/")}`, "", "", "", "failed"]];
    rows.push(...tables[key]);
  }
}

/** Runs one benchmark whose module makes its own table rows, when selected: its figures and rows under `name`. */
async function rowsSection(key, name, body) {
  if (!selected.has(key)) return;
  await section(name, async () => {
    const { figures, made } = await body();
    results.benchmarks[name] = figures;
    rows.push(...made);
    tables[name] = made;
  });
}

if (selected.has("cold"))
  await section("coldStart", async () => {
    const firstRow = rows.length;
    say("cold start: generating the corpus output contracts and the contenders' modules…");
    const prepared = await prepareColdStart(WORK);
    const sizeVariants = await prepareSizeVariants(prepared);
    say(`cold start: ${prepared.chosen.length} schemas; child processes…`);
    const cold = await runColdStart(prepared, {
      rounds: quick ? 3 : 12,
      warmRounds: quick ? 5 : 21,
      extraVariants: sizeVariants,
      extraWarm: Object.fromEntries(
        sizeVariants.filter((v) => v.warm).map((v) => [v.name.replace(/^size-/, ""), v.set]),
      ),
    });
    results.benchmarks.coldStart = cold;
    const c = cold.cold;
    for (const form of ["bundle", "esm"]) {
      const tg = c[`toolgate/${form}`];
      const formName = form === "bundle" ? "esbuild bundle" : "plain ESM";
      rows.push([
        `cold start, ${cold.schemas} schemas, ${formName}`,
        `toolgate ${ms(tg)}`,
        `run-time Ajv (MCP SDK) ${ms(c[`ajv-runtime/${form}`])}`,
        x(ratio(c[`ajv-runtime/${form}`], tg)),
        "≥ 10× faster",
        ratio(c[`ajv-runtime/${form}`], tg) >= 10 ? "met" : "missed",
      ]);
      rows.push([
        "",
        "",
        `interpreter (@cfworker/json-schema) ${ms(c[`cfworker/${form}`])}`,
        x(ratio(c[`cfworker/${form}`], tg)),
        "≥ 1× (no slower)",
        ratio(c[`cfworker/${form}`], tg) >= 1 ? "met" : "missed",
      ]);
      const asserted = c[`toolgate-formats/${form}`];
      rows.push([
        "same, formats asserted like the SDK's Ajv",
        `toolgate ${ms(asserted)}`,
        `run-time Ajv ${ms(c[`ajv-runtime/${form}`])}; interpreter ${x(ratio(c[`cfworker/${form}`], asserted))}`,
        x(ratio(c[`ajv-runtime/${form}`], asserted)),
        "≥ 10× faster",
        ratio(c[`ajv-runtime/${form}`], asserted) >= 10 ? "met" : "missed",
      ]);
      rows.push([
        "",
        "",
        `Ajv standalone, SDK options ${ms(c[`ajv-standalone/${form}`])}`,
        x(ratio(c[`ajv-standalone/${form}`], tg)),
        "(reference)",
        "",
      ]);
    }
    const workloadNames = {
      empty: `cold start, ${cold.schemas} schemas each validating {}`,
      one: `cold start, one tool's first result (${cold.oneTool}) after loading the catalog`,
    };
    for (const [workload, title] of Object.entries(workloadNames)) {
      const w = cold.byWorkload[workload];
      for (const form of ["bundle", "esm"]) {
        const tg = w[`toolgate/${form}`];
        rows.push([
          `${title}, ${form === "bundle" ? "esbuild bundle" : "plain ESM"}`,
          `toolgate ${ms(tg)}`,
          `run-time Ajv (MCP SDK) ${ms(w[`ajv-runtime/${form}`])}`,
          x(ratio(w[`ajv-runtime/${form}`], tg)),
          "≥ 10× faster",
          ratio(w[`ajv-runtime/${form}`], tg) >= 10 ? "met" : "missed",
        ]);
        rows.push([
          "",
          "",
          `interpreter (@cfworker/json-schema) ${ms(w[`cfworker/${form}`])}`,
          x(ratio(w[`cfworker/${form}`], tg)),
          "≥ 1× (no slower)",
          ratio(w[`cfworker/${form}`], tg) >= 1 ? "met" : "missed",
        ]);
        const asserted = w[`toolgate-formats/${form}`];
        rows.push([
          "same, formats asserted like the SDK's Ajv",
          `toolgate ${ms(asserted)}`,
          `run-time Ajv ${ms(w[`ajv-runtime/${form}`])}; interpreter ${x(ratio(w[`cfworker/${form}`], asserted))}`,
          x(ratio(w[`ajv-runtime/${form}`], asserted)),
          "≥ 10× faster",
          ratio(w[`ajv-runtime/${form}`], asserted) >= 10 ? "met" : "missed",
        ]);
      }
    }
    const warm = cold.warmMicrosecondsPerAllSamples;
    const perSchema = (name) =>
      `${(warm[name].median / cold.schemas).toFixed(2)} µs/result ±${Math.round(warm[name].spread * 50)}%`;
    rows.push([
      "warm validation, one result per schema",
      `toolgate ${perSchema("toolgate")}`,
      `interpreter ${perSchema("cfworker")}`,
      x(ratio(warm.cfworker, warm.toolgate)),
      "≥ 10× faster",
      ratio(warm.cfworker, warm.toolgate) >= 10 ? "met" : "missed",
    ]);
    rows.push([
      "same, formats asserted",
      `toolgate ${perSchema("toolgate-formats")}`,
      `interpreter ${perSchema("cfworker")}`,
      x(ratio(warm.cfworker, warm["toolgate-formats"])),
      "≥ 10× faster",
      ratio(warm.cfworker, warm["toolgate-formats"]) >= 10 ? "met" : "missed",
    ]);
    rows.push([
      "",
      "",
      `run-time Ajv ${perSchema("ajv-runtime")}`,
      x(ratio(warm["ajv-runtime"], warm.toolgate)),
      "(reference)",
      "",
    ]);
    for (const variant of cold.sizeVariants) {
      const { form } = variant;
      const timing = c[`${variant.name}/${form}`];
      const shipped = c[`${variant.comparedWith}/${form}`];
      const bytes = variant.bundleBytes === undefined ? "" : ` (bundle ${kb(variant.bundleBytes)})`;
      rows.push([
        `plan: ${variant.name.replace(/^size-/, "")}, ${form === "bundle" ? "bundle" : "plain ESM"}`,
        `${ms(timing)}, ${kb(variant.sourceBytes)}${bytes}`,
        `interpreter ${ms(c[`cfworker/${form}`])}; shipped (${variant.comparedWith}) ${ms(shipped)}`,
        x(ratio(c[`cfworker/${form}`], timing)),
        "(experiment)",
        "",
      ]);
    }
    for (const name of Object.keys(warm).filter((key) => !CONTENDERS.includes(key))) {
      rows.push([
        `plan: ${name}, warm`,
        `${perSchema(name)}`,
        `interpreter ${perSchema("cfworker")}`,
        x(ratio(warm.cfworker, warm[name])),
        "(experiment)",
        "",
      ]);
    }
    rows.push([
      "generated validator code",
      `toolgate ${kb(cold.generatedValidatorBytes)} (bundle ${kb(cold.bundleBytes.toolgate)})`,
      `Ajv standalone ${kb(cold.ajvStandaloneBytes)}; interpreter bundle ${kb(cold.bundleBytes.cfworker)}`,
      x(cold.generatedValidatorBytes / cold.ajvStandaloneBytes),
      "much less code per schema",
      cold.generatedValidatorBytes < cold.ajvStandaloneBytes ? "" : "missed",
    ]);
    for (const form of ["esm", "bundle"]) {
      const runtime = c[`runtime-import/${form}`];
      const tokenizer = c[`tokenizer-import/${form}`];
      rows.push([
        `import cost, ${form === "bundle" ? "esbuild bundle (code splitting)" : "plain ESM"}`,
        `@toolgate/runtime ${ms(runtime)}`,
        `gpt-tokenizer o200k_base ${ms(tokenizer)}`,
        x(ratio(tokenizer, runtime)),
        "tokenizer not loaded",
        // Bundled, the tokenizer must sit in a chunk of its own that no start loads; in plain ESM it is only ever
        // reached through a dynamic import (test/runtime/import-cost.test.ts), which the timing confirms.
        (form === "bundle" ? cold.tokenizerInStartChunks === false : true) && runtime.median < tokenizer.median / 4
          ? "met"
          : "missed",
      ]);
    }
    tables.coldStart = rows.slice(firstRow);
  });

await rowsSection("coldscale", "coldStartScale", async () => {
  say("cold start with 1,000 tools: generating the catalog and the contenders' modules…");
  const prepared = await prepareColdScale(WORK);
  say(`cold start with ${prepared.tools} tools (${prepared.distinct.functions} distinct validators); child processes…`);
  const scale = await runColdScale(prepared, { rounds: quick ? 2 : 7 });
  return { figures: scale, made: coldScaleRows(scale, { ms, x, kb }) };
});

await rowsSection("firstcall", "firstCall", async () => {
  say("first call: catalogs of 1, 10 and 100 corpus tools, fresh processes…");
  const first = await runFirstCall(await prepareFirstCall(WORK), { rounds: quick ? 3 : 15 });
  return { figures: first, made: firstCallRows(first, { ms, x }) };
});

if (selected.has("warm"))
  await section("warmValidation", async () => {
    const firstRow = rows.length;
    say("warm validation: each listed schema, the generated validator against run-time Ajv…");
    const prepared = await prepareWarmValidation(WORK);
    const measured = await runWarmValidation(prepared, { rounds: quick ? 5 : 21 });
    results.benchmarks.warmValidation = { left: prepared.left, schemas: measured };
    const us = (s) => `${s.median.toFixed(3)} µs ±${Math.round(s.spread * 50)}%`;
    for (const m of measured) {
      const title = `warm validation, ${m.label}, formats ${m.formats === "assert" ? "asserted" : "annotated"}`;
      if (m.left !== undefined) {
        rows.push([title, `left out: ${m.left}`, "", "", "≥ 1×", "missed"]);
        continue;
      }
      rows.push([
        `${title} (${m.samples} samples)`,
        `toolgate ${us(m.toolgate)}`,
        `run-time Ajv, same format mode ${us(m.ajv)}`,
        x(m.ratio),
        "≥ 1× (no slower)",
        m.ratio >= 1 ? "met" : "missed",
      ]);
    }
    for (const left of prepared.left) {
      rows.push([`warm validation, ${left.file}, formats ${left.formats}`, `refused: ${left.reason}`, "", "", "", ""]);
    }
    tables.warmValidation = rows.slice(firstRow);
  });

if (selected.has("gate"))
  await section("gateOverhead", async () => {
    const firstRow = rows.length;
    say("gate overhead…");
    // In a process of its own, as the small results are (bench/lib/isolated.js).
    const gate = await isolated(
      "bench/gate-overhead.js",
      "runGateOverhead",
      [WORK, { rounds: quick ? 3 : 15, profile: true }],
      WORK,
    );
    results.benchmarks.gateOverhead = { sizes: gate };
    for (const row of gate) {
      const jsonTarget = row.size === "1 MB" ? 1.3 : 1.6;
      const reported = row.size === "1 KB";
      rows.push([
        `gate overhead, ${row.size} (${row.issues} issues), JSON text`,
        `admit ${ms(row.timing.admit)}, ${row.mbPerSecond.admit.toFixed(0)} MB/s`,
        `JSON.parse + validator ${ms(row.timing.parseValidate)}, ${row.mbPerSecond.parseValidate.toFixed(0)} MB/s`,
        x(row.ratio),
        reported ? "(reported)" : `≤ ${jsonTarget}×`,
        reported ? "" : row.ratio <= jsonTarget ? "met" : "missed",
      ]);
      rows.push([
        "",
        `admit(bytes) ${ms(row.timing.admitBytes)}; view of one issue ${ms(row.timing.admitOneIssue)}; no field rules ${ms(row.timing.admitNoFieldRules)}`,
        "JSON.parse + validator",
        `${x(row.bytesRatio)} / ${x(row.oneIssueRatio)} / ${x(row.noFieldRulesRatio)}`,
        "(reported)",
        "",
      ]);
      rows.push([
        "",
        `the view's floor: JSON.stringify of the ${Math.min(row.issues, 20)}-issue view and its UTF-8 length alone ${ms(row.timing.renderView)}`,
        "JSON.parse + validator",
        x(row.viewFloorRatio),
        "(reported)",
        "",
      ]);
      rows.push([
        `gate overhead, ${row.size}, MCP structured content`,
        `admit(CallToolResult) ${ms(row.timing.admitMcp)}`,
        `JSON.stringify + validator ${ms(row.timing.stringifyValidate)}; validator alone ${ms(row.timing.validateOnly)} (${x(row.mcpValidateRatio)})`,
        x(row.mcpRatio),
        reported ? "(reported)" : "≤ 1.5×",
        reported ? "" : row.mcpRatio <= 1.5 ? "met" : "missed",
      ]);
      rows.push([
        "",
        `no field rules ${ms(row.timing.admitMcpNoFieldRules)}`,
        "JSON.stringify + validator",
        x(row.mcpNoFieldRulesRatio),
        "(reported)",
        "",
      ]);
      rows.push([
        "",
        `the floor: JSON.parse of the text block alone ${ms(row.timing.parseOnly)}; the copy's way (no text block of the value): the private copy and its JSON.stringify alone ${ms(row.timing.copyWrite)}`,
        "JSON.stringify + validator",
        `${x(row.mcpParseRatio)} / ${x(row.mcpFloorRatio)}`,
        "(reported)",
        "",
      ]);
      for (const [path, label] of [
        ["text", "JSON text"],
        ["mcp", "MCP structured content"],
      ]) {
        const profiled = row.profile?.[path];
        if (profiled === undefined) continue;
        const parts = profiled.stages
          .filter(({ share }) => share >= 0.005)
          .map(({ stage, share }) => `${stage} ${(share * 100).toFixed(0)}%`);
        rows.push([
          `where admit's time goes, ${row.size}, ${label} (CPU profile, ${profiled.samples} samples)`,
          [...parts, `the rest ${(profiled.other * 100).toFixed(0)}%`].join("; "),
          "",
          "",
          "(profile)",
          "",
        ]);
      }
    }
    const text = await runTextResult(await import("@toolgate/runtime"), { rounds: quick ? 3 : 15 });
    results.benchmarks.gateOverhead.text = text;
    rows.push([
      `text result, ${mib(text.bytes)} (${text.lines} lines)`,
      `admit(bytes) ${ms(text.timing.admitBytes)}; admit(string) ${ms(text.timing.admitString)} (${x(text.stringRatio)})`,
      `fatal TextDecoder + sha256 ${ms(text.timing.decodeHash)}`,
      x(text.ratio),
      "≤ 1.5×",
      text.ratio <= 1.5 ? "met" : "missed",
    ]);
    tables.gateOverhead = rows.slice(firstRow);
  });

await rowsSection("small", "smallResults", async () => {
  say("small results…");
  const small = await isolated("bench/gate-overhead.js", "runSmallResults", [WORK, { rounds: quick ? 3 : 15 }], WORK);
  return { figures: small, made: smallResultRows(small, { ms, x, kb }) };
});

await rowsSection("textcurve", "textCurve", async () => {
  say("text results from 1 KB to 100 MB under a token budget…");
  const curve = await runTextCurve(await import("@toolgate/runtime"), { rounds: quick ? 3 : 11 });
  // An object, not the array itself: the run stamps every figure with when it ran, which an array would drop.
  return { figures: { points: curve }, made: textCurveRows(curve, { ms, x }) };
});

if (selected.has("curve"))
  await section("admitCurve", async () => {
    say("admit cost per MB, 1 KB to 100 MB, and the memory of a 100 MB MCP result…");
    const points = await runAdmitCurve(WORK, await import("@toolgate/runtime"), { quick });
    const memory = quick ? undefined : await runAdmitMemory(WORK, { rounds: 3 });
    results.benchmarks.admitCurve = { points, memory };
    tables.admitCurve = curveRows(points, memory);
    rows.push(...tables.admitCurve);
  });

if (selected.has("receive"))
  await section("receiveCeiling", async () => {
    const firstRow = rows.length;
    say("receive ceiling…");
    const receive = await runReceiveCeiling(WORK, { rounds: quick ? 2 : 7, drainRounds: quick ? 1 : 3 });
    results.benchmarks.receiveCeiling = receive;
    const overRead = receive.bytesRead - receive.ceiling;
    rows.push([
      "receive, 1 GiB stream, 1 MiB ceiling",
      `read ${mib(receive.bytesRead)} (ceiling + ${kb(overRead)}), ${ms(receive.ms)}, ${receive.codes.join(", ")}`,
      `draining it: ${ms(receive.drain.ms)} (with the web default of one chunk read ahead, the stream hands out ${mib(receive.readAheadBytes)})`,
      x(ratio(receive.ms, receive.drain.ms)),
      "≤ ceiling + 64 KiB",
      overRead <= 64 * 1024 ? "met" : "missed",
    ]);
    rows.push([
      "",
      `memory growth: heap + buffers ${mib(receive.worstHeapGrowth)}, peak RSS ${mib(receive.worstRssGrowth)} (worst run)`,
      `draining it: peak RSS ${mib(receive.drain.rssGrowth.median)}`,
      "",
      "< 8 MiB",
      Math.max(receive.worstHeapGrowth, receive.worstRssGrowth) < 8 * 1024 ** 2 ? "met" : "missed",
    ]);
    tables.receiveCeiling = rows.slice(firstRow);
  });

if (selected.has("tokens"))
  await section("tokenBudget", async () => {
    const firstRow = rows.length;
    say("token budget…");
    const tokens = await runTokenBudget({ rounds: quick ? 3 : 9 });
    results.benchmarks.tokenBudget = tokens;
    // The length rule decides a 1 MB text in microseconds: milliseconds to two places would print 0.00.
    const fine = (s) => (s.median < 0.1 ? `${(s.median * 1000).toFixed(2)} µs ±${Math.round(s.spread * 50)}%` : ms(s));
    const fineX = (ratio) => (ratio < 0.01 ? "< 0.01×" : x(ratio));
    rows.push([
      "token budget, 1 MB view, 1,000 tokens",
      `measureText ${fine(tokens.timing.measureLarge)}`,
      `counting 1,000 tokens ${ms(tokens.timing.measureBudget)}`,
      fineX(tokens.ratioToBudget),
      "≈ 1× (cost of 1,000 tokens)",
      tokens.ratioToBudget <= 2 ? "met" : "missed",
    ]);
    rows.push([
      "",
      "",
      `counting all ${tokens.largeTokens} tokens ${ms(tokens.timing.countWhole)}`,
      fineX(tokens.ratioToWhole),
      "(reported)",
      "",
    ]);
    for (const [size, hostile] of Object.entries(tokens.hostile)) {
      const decidedBy = size === "1 MB" ? "length rule" : "chunk scan";
      for (const [kind, what] of [
        ["cjk", "one CJK run"],
        ["letter", "one letter run"],
        ["cjkSentences", "of CJK sentences (short chunks, merged exactly)"],
      ]) {
        const measured = hostile.ratios[kind];
        if (measured === undefined) continue;
        const reported = kind === "cjkSentences";
        rows.push([
          reported
            ? `token budget, ${size} ${what}, 1,000 tokens`
            : `token budget, ${size} hostile text (${what}), 1,000 tokens (${decidedBy})`,
          `measureText ${fine(hostile.timing[kind])}`,
          `measureText on ${size} of prose ${fine(hostile.timing.prose)}`,
          fineX(measured),
          reported ? "(reported)" : "within 2×",
          reported ? "" : measured <= 2 ? "met" : "missed",
        ]);
      }
    }
    tables.tokenBudget = rows.slice(firstRow);
  });

if (selected.has("readback"))
  await section("readBack", async () => {
    const firstRow = rows.length;
    say("read-back: a 10 MB spilled result, page by page against whole…");
    const read = await runReadBack({ rounds: quick ? 3 : 9, work: WORK });
    results.benchmarks.readBack = read;
    rows.push([
      `read-back, ${mib(read.bytes)} spilled (${read.items} items), ${read.pages} pages of 16,000 bytes`,
      `paged ${ms(read.timing.paged)}`,
      `reading it whole once ${ms(read.timing.whole)}`,
      x(read.ratio),
      "≤ 2×",
      read.ratio <= 2 ? "met" : "missed",
    ]);
    tables.readBack = rows.slice(firstRow);
  });

if (selected.has("validators"))
  await section("validatorWorst", async () => {
    const firstRow = rows.length;
    say("validator worst cases…");
    const worst = await runValidatorWorst(WORK, { rounds: quick ? 3 : 9 });
    results.benchmarks.validatorWorst = worst;
    const perMb = (s) => `${s.median.toFixed(1)} ms/MB ±${Math.round(s.spread * 50)}%`;
    for (const [family, figure] of Object.entries(worst.families)) {
      rows.push([
        `worst 1 MB payload, ${family === "format" ? "format (assert)" : family} (${figure.payloads} payloads; worst: ${figure.worst.replaceAll("|", "/")})`,
        `validator ${perMb(figure.msPerMb)}`,
        `JSON.parse of the same text ${perMb(figure.parseMsPerMb)}`,
        x(figure.msPerMb.median / figure.parseMsPerMb.median),
        `< ${worst.targetMsPerMb} ms per 1 MB`,
        figure.msPerMb.median < worst.targetMsPerMb ? "met" : "missed",
      ]);
    }
    tables.validatorWorst = rows.slice(firstRow);
  });

if (selected.has("codegen"))
  await section("codegen", async () => {
    const firstRow = rows.length;
    say("codegen (this takes a few minutes)…");
    const codegen = await runCodegen(WORK, {
      rounds: quick ? 1 : 3,
      scaleRounds: quick ? 1 : 3,
      profile: values.profile,
    });
    results.benchmarks.codegen = codegen;
    rows.push([
      `codegen, ${codegen.contracts} contracts (CLI, fresh process)`,
      `generate ${ms(codegen.timing.generate)}`,
      "",
      "",
      "< 10 s",
      codegen.timing.generate.median < 10_000 ? "met" : "missed",
    ]);
    rows.push([
      "",
      `generate --check, nothing changed since the last run ${ms(codegen.timing.check)}`,
      "",
      "",
      "< 2 s",
      codegen.timing.check.median < 2_000 ? "met" : "missed",
    ]);
    rows.push([
      "",
      `generate --check, no record of a last run (CI) ${ms(codegen.timing.checkUnrecorded)}`,
      "",
      "",
      "< 2 s",
      codegen.timing.checkUnrecorded.median < 2_000 ? "met" : "missed",
    ]);
    for (const [count, point] of Object.entries(codegen.scale ?? {})) {
      const cpu = (s) => `${(s.median / 1000).toFixed(2)} s CPU`;
      const at1000 = Number(count) === 1000;
      const generateMet = point.timing.generate.median < 15_000 ? "met" : "missed";
      const checkMet = point.timing.check.median < 2_000 ? "met" : "missed";
      rows.push([
        `codegen scale, ${count} contracts (corpus schemas copied, each with a bound of its own)`,
        `generate ${ms(point.timing.generate)}`,
        cpu(point.cpu.generate),
        "",
        at1000 ? "< 15 s" : "(curve)",
        at1000 ? generateMet : "",
      ]);
      rows.push([
        "",
        `generate --check, nothing changed ${ms(point.timing.check)}`,
        cpu(point.cpu.check),
        "",
        at1000 ? "< 2 s" : "(curve)",
        at1000 ? checkMet : "",
      ]);
    }
    if (codegen.staleAnswers > 0) {
      rows.push(["", `${codegen.staleAnswers} checks said "stale": dist/ was rebuilt during the run`, "", "", "", ""]);
    }
    tables.codegen = rows.slice(firstRow);
  });

if (selected.has("report"))
  await section("report", async () => {
    const firstRow = rows.length;
    say("report: toolgate report over a million events…");
    const result = await runReportBench({ rounds: quick ? 1 : 3, work: WORK });
    results.benchmarks.report = result;
    rows.push([
      `toolgate report over ${result.events.toLocaleString("en")} events (CPU ${(result.cpu.median / 1000).toFixed(2)} s, load ${result.loadAverageAtStart})`,
      `${(result.timing.median / 1000).toFixed(2)} s ±${Math.round(result.timing.spread * 50)}%, ${result.eventsPerSecond.toLocaleString("en")} events/s`,
      "",
      "",
      "< 10 s",
      result.timing.median < 10_000 ? "met" : "missed",
    ]);
    tables.report = rows.slice(firstRow);
  });

if (selected.has("proxy"))
  await section("proxy", async () => {
    const firstRow = rows.length;
    say("proxy: a 64 KB result through toolgate proxy against the direct call plus admit…");
    const proxy = await runProxyBench({ rounds: quick ? 3 : 15, work: WORK });
    results.benchmarks.proxy = proxy;
    rows.push([
      `toolgate proxy round trip, ${kb(proxy.resultBytes)} result over stdio (load ${proxy.loadAverageAtStart[0]})`,
      `through the proxy ${ms(proxy.timing.proxied)}`,
      `direct call + admit ${ms(proxy.timing.directAdmit)}; call alone ${ms(proxy.timing.directCall)} (${x(proxy.ratioToCall)})`,
      x(proxy.ratio),
      `≤ ${proxy.target}×`,
      proxy.ratio <= proxy.target ? "met" : "missed",
    ]);
    tables.proxy = rows.slice(firstRow);
  });

if (selected.has("replicas"))
  await section("replicas", async () => {
    const firstRow = rows.length;
    const sessions = quick ? 10 : 50;
    const calls = quick ? 40 : 200;
    say(`replicas: ${sessions} host sessions × ${calls} calls through HAProxy and three proxy replicas sharing Redis…`);
    const rep = await runReplicasBench({ sessions, calls, rounds: quick ? 2 : 5, work: WORK });
    results.benchmarks.replicas = rep;
    const msOf = (value) => `${value.toFixed(1)} ms`;
    /** An overhead, signed: one run on a busy machine may well see the balanced replicas faster. */
    const plusMs = (value) => `${value >= 0 ? "+" : "−"}${msOf(Math.abs(value))}`;
    const pct = (fraction) => `${fraction >= 0 ? "+" : "−"}${(Math.abs(fraction) * 100).toFixed(1)}%`;
    const clean = rep.lost === 0 && rep.wrong === 0 && rep.duplicated === 0;
    const same = rep.mismatched === 0 && rep.equalToOneReplica === rep.comparedWithOneReplica;
    rows.push([
      `${rep.sessions} host sessions × ${rep.callsPerSession} calls, 3 replicas behind HAProxy, Redis, --turns session (load ${machine.loadAverageAtStart[0]})`,
      `p50 ${msOf(rep.p50.gated)}, p99 ${msOf(rep.p99.gated)}; over one replica p50 ${plusMs(rep.p50OverheadSingleMs)}, p99 ${plusMs(rep.p99OverheadSingleMs)}`,
      `one replica directly: p50 ${msOf(rep.p50.single)}, p99 ${msOf(rep.p99.single)} (${rep.singleLost} lost, ${rep.singleWrong} not its own answer)`,
      x(rep.p50RatioSingle),
      "(reported)",
      "",
    ]);
    rows.push([
      "",
      `over server-everything directly: p50 ${plusMs(rep.p50OverheadMs)}, p99 ${plusMs(rep.p99OverheadMs)}`,
      `server-everything directly: p50 ${msOf(rep.p50.direct)}, p99 ${msOf(rep.p99.direct)} (${rep.directLost} of its own calls lost)`,
      x(rep.p50Ratio),
      "(reported)",
      "",
    ]);
    rows.push([
      "",
      `replica memory retained (heap + external after a full GC, ${rep.retained[0].length} probes between bursts), last quarter against second: ${rep.memoryDrift.map((d) => `${mib(d.last)} ${pct(d.change)}`).join(", ")}`,
      `second quarter: ${rep.memoryDrift.map((d) => mib(d.second)).join(", ")}`,
      "",
      `flat: each within ±${rep.memoryFlatWithin * 100}%`,
      rep.memoryFlat ? "met" : "missed",
    ]);
    rows.push([
      "",
      `replica resident memory (RSS every second, ${rep.memorySamples[0].length} samples), last quarter against second: ${rep.rssDrift.map((d) => `${mib(d.last)} ${pct(d.change)}`).join(", ")}`,
      `second quarter: ${rep.rssDrift.map((d) => mib(d.second)).join(", ")}`,
      "",
      "(reported: follows V8's heap sizing and the load of the moment)",
      "",
    ]);
    rows.push([
      "",
      `${rep.answered}/${rep.calls} answered, ${rep.lost} lost, ${rep.wrong} crossed, ${rep.duplicated} duplicated (${rep.recordedGatedCalls} gated calls recorded for ${rep.gatedAnswers} answers)`,
      `${rep.spillsRead} spills read back on another replica`,
      "",
      "0 lost, 0 crossed, 0 duplicated",
      clean ? "met" : "missed",
    ]);
    rows.push([
      "",
      `${rep.equalToOneReplica}/${rep.comparedWithOneReplica} outcomes equal to one replica's`,
      "",
      "",
      "all equal",
      same ? "met" : "missed",
    ]);
    if (!clean || !same || !rep.memoryFlat) process.exitCode = 1;
    tables.replicas = rows.slice(firstRow);
  });

if (selected.has("usefulness"))
  await section("usefulness", async () => {
    const firstRow = rows.length;
    say("usefulness: what the model reads of each result, per token, under toolgate's defaults and without them…");
    const use = await runUsefulness();
    results.benchmarks.usefulness = use;
    /** One contender's figure: units read, their share, tokens, units per 1,000 tokens. */
    const read = (f, unit) =>
      `${f.read} ${unit} (${(f.share * 100).toFixed(1)}%), ${f.tokens.toLocaleString("en")} tok, ${f.per1kTokens.toFixed(1)}/1k tok`;
    const times = (a, b) => (b === 0 ? (a === 0 ? "–" : "∞") : x(a / b));
    for (const row of use.rows) {
      const { toolgate, headTail, tokenCap, drop } = row.figures;
      rows.push([
        `usefulness, ${row.what} (${row.units.toLocaleString("en")} ${row.unit}, ${kb(row.bytes)}, ${row.serverTokens.toLocaleString("en")} tok)`,
        `defaults (${toolgate.outcome}): ${read(toolgate, row.unit)}`,
        `head+tail 10 KiB/256 lines: ${read(headTail, row.unit)}`,
        times(toolgate.read, headTail.read),
        "(reported)",
        "",
      ]);
      rows.push([
        "",
        "",
        `25k-token cap: ${read(tokenCap, row.unit)}; drop (${drop.outcome}): ${read(drop, row.unit)}`,
        `${times(toolgate.per1kTokens, tokenCap.per1kTokens)} per token`,
        "(reported)",
        "",
      ]);
    }
    rows.push(["usefulness: what counts as read", use.definition, use.budget, "", "(definition)", ""]);
    tables.usefulness = rows.slice(firstRow);
  });

// A run of some benchmarks (--only) keeps the others' latest figures in the file, each with the run it came from.
const resultsFile = path.resolve("bench", "results.json");
let previous = {};
try {
  previous = JSON.parse(readFileSync(resultsFile, "utf8"));
} catch {
  // No earlier results, or unreadable ones: this run's figures stand alone.
}
const ranAt = new Date().toISOString();
for (const result of Object.values(results.benchmarks)) Object.assign(result, { ranAt, quick, machine });
writeFileSync(
  resultsFile,
  `${JSON.stringify(
    {
      ...results,
      benchmarks: { ...(previous.benchmarks ?? {}), ...results.benchmarks },
      tables: { ...(previous.tables ?? {}), ...tables },
    },
    null,
    2,
  )}\n`,
);
const header = ["benchmark", "toolgate", "compared with", "ratio", "target", ""];
const lines = [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`);
process.stdout.write(
  [
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.platform}, Node ${machine.node}; ` +
      `load average at start ${machine.loadAverageAtStart.join(" / ")}. Times: medians of interleaved runs, ± half ` +
      "the interquartile range. Ratios: the median of per-round ratios; cold start and warm validation give the " +
      "contender's time over toolgate's, the other rows toolgate's time over the baseline's.",
    "",
    ...lines,
    "",
  ].join("\n"),
);
await rm(WORK, { recursive: true, force: true });
say(`contenders compared at cold start: ${CONTENDERS.join(", ")}; figures in bench/results.json`);
