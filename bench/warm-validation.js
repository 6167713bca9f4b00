/**
 * Warm validation, schema by schema: the generated validator against run-time Ajv compiling the same schema in the
 * same format mode, once both are warm. The schemas are the bench's own (bench/contracts/ and the example contracts
 * of schemas/) and the ten largest output schemas of the corpus (../shared/corpus/mcp-tools). Each schema is measured
 * with formats annotated (the 2020-12 default, Ajv's `validateFormats: false`) and asserted (ajv-formats).
 *
 * The samples are built from each schema (bench/lib/samples.js): every declared property filled in, two items per
 * array; the same with 24 items in each outermost array and 3 in each nested one, a result of a real one's size; and
 * the required properties alone; an example contract's good payload (test/fixtures/payloads/), and the gate bench's
 * 1 KB `list_issues` result, too. A sample run-time Ajv rejects is left out, and both contenders must accept every
 * sample kept. A row's time is per sample, over all its samples in one loop. Target: the generated validator at least
 * as fast as run-time Ajv (ratio ≥ 1×).
 *
 * The timing runs in a fresh process (`node bench/warm-validation.js <plan.json> <rounds>`), so nothing the generator
 * did weighs on the heap; each contender is loaded several times (`COPIES`), and each copy gets a loop compiled of its
 * own, so no two share feedback.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { outputSchemaSha256 } from "../runtime/dist/integrations/mcp-validator.js";
import { generateContracts, outputSchemaContracts } from "./lib/corpus.js";
import { issuesPayload } from "./lib/payloads.js";
import { sampleOf } from "./lib/samples.js";
import { interleave, ratio } from "./lib/stats.js";

const run = promisify(execFile);
const SELF = fileURLToPath(import.meta.url);
/** How many of the corpus's output schemas, the largest first (by the length of their JSON text). */
export const LARGEST_CORPUS_SCHEMAS = 10;
/** The long sample's items per array, by nesting: see `sampleOf`'s `items`. */
const LONG_LIST_ITEMS = [24, 3];

/** The bench's own contracts: the gate bench's and the examples of schemas/. */
function benchContracts() {
  const files = [
    path.resolve("bench", "contracts", "list_issues.tool.json"),
    ...readdirSync(path.resolve("schemas"))
      .filter((name) => name.endsWith(".tool.json"))
      .sort()
      .map((name) => path.resolve("schemas", name)),
  ];
  return files.map((file) => {
    const contract = JSON.parse(readFileSync(file, "utf8"));
    // An example contract's good payload (the gate's tests admit it) is a sample too: real-shaped where a sample
    // built from the schema cannot match its patterns.
    const good = path.resolve("test", "fixtures", "payloads", contract.name, "good.json");
    const samples = existsSync(good) ? [JSON.parse(readFileSync(good, "utf8"))] : [];
    // The gate bench's own contract has no fixture: its 1 KB result (the small-results row's) is its real-shaped
    // sample, since the one built from its schema cannot match the logins' pattern.
    if (contract.name === "list_issues") samples.push(JSON.parse(issuesPayload(1024).text));
    return {
      file: path.basename(file),
      contract,
      source: { label: `${path.relative(process.cwd(), file)}`, schema: contract.outputSchema, samples },
    };
  });
}

/** The corpus contracts of the largest output schemas (ties broken by file name, so the list is stable). */
function largestCorpusContracts() {
  return outputSchemaContracts()
    .map((entry) => ({ entry, size: JSON.stringify(entry.source.schema).length }))
    .sort((a, b) => b.size - a.size || a.entry.file.localeCompare(b.entry.file))
    .slice(0, LARGEST_CORPUS_SCHEMAS)
    .map(({ entry }) => ({
      ...entry,
      source: { ...entry.source, label: `${entry.source.server}/${entry.source.file.replace(/\.json$/, "")}` },
    }));
}

/** The contracts with `"formats": "assert"` added to their `x-toolgate` block. */
function asserting(contracts) {
  return contracts.map((entry) => ({
    ...entry,
    contract: { ...entry.contract, "x-toolgate": { ...entry.contract["x-toolgate"], formats: "assert" } },
  }));
}

/**
 * Generates every listed schema's contract in both format modes and writes the plan the child process times.
 * @param {string} work a scratch folder
 */
export async function prepareWarmValidation(work) {
  const groups = { bench: benchContracts(), corpus: largestCorpusContracts() };
  const cases = [];
  const left = [];
  for (const formats of ["annotate", "assert"]) {
    for (const [group, contracts] of Object.entries(groups)) {
      const root = path.join(work, "warm", `${group}-${formats}`);
      const entries = formats === "assert" ? asserting(contracts) : contracts;
      const generated = await generateContracts(root, entries);
      for (const refused of generated.refused) left.push({ formats, file: refused.file, reason: refused.reason });
      const byFile = new Map(entries.map((entry) => [entry.file, entry]));
      for (const { file } of generated.generated) {
        const { source } = byFile.get(file);
        const schema = source.schema;
        const samples = [
          ...[true, false].map((full) => sampleOf(schema, { root: schema, full })),
          // A result of a real one's size: tens of items in the outermost lists, a few in each nested one. Two
          // tiny items time little more than the function's entry and one key loop.
          sampleOf(schema, { root: schema, full: true, items: LONG_LIST_ITEMS }),
          ...(source.samples ?? []),
        ];
        cases.push({
          label: source.label,
          formats,
          module: path.join(generated.out, "validators.js"),
          hash: outputSchemaSha256(schema),
          schema,
          samples: samples.filter((s, i) => samples.findIndex((t) => JSON.stringify(t) === JSON.stringify(s)) === i),
        });
      }
    }
  }
  const planFile = path.join(work, "warm", "plan.json");
  await writeFile(planFile, JSON.stringify(cases));
  return { planFile, cases: cases.length, left };
}

/**
 * Times every case in a fresh process.
 * @param {{ planFile: string }} prepared
 * @param {{ rounds: number }} options
 */
export async function runWarmValidation(prepared, { rounds }) {
  const { stdout } = await run(process.execPath, [SELF, prepared.planFile, String(rounds)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const measured = JSON.parse(stdout.trim().split("\n").at(-1));
  return measured.map((m) =>
    // Run-time Ajv's time over the generated validator's: at least 1 when the generated one is as fast.
    m.left === undefined ? { ...m, ratio: ratio(m.ajv, m.toolgate) } : m,
  );
}

/** Run-time Ajv as a user builds it for a schema: the class of its dialect, formats checked only when asserted. */
async function runtimeAjv(schema, formats) {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  const { default: Ajv } = dialect.includes("2020-12")
    ? await import("ajv/dist/2020.js")
    : dialect.includes("2019-09")
      ? await import("ajv/dist/2019.js")
      : await import("ajv");
  const ajv = new Ajv({ strict: false, validateFormats: formats === "assert" });
  if (formats === "assert") (await import("ajv-formats")).default(ajv);
  return ajv.compile(schema);
}

/** A loop over the samples compiled from its own source text (closures of one literal would share feedback). */
function ownLoop(validate, samples, name) {
  return new Function(
    "validate",
    "samples",
    "name",
    `return function validateAll() {
      let valid = 0;
      for (let i = 0; i < samples.length; i++) if (validate(samples[i]) === true) valid++;
      if (valid !== samples.length) throw new Error(name + ": " + (samples.length - valid) + " samples failed");
      return valid;
    };`,
  )(validate, samples, name);
}

/**
 * Microseconds of CPU time per call of `work`, over enough calls to take about `targetMs` (calibrated once). CPU time,
 * not wall time: on a machine shared by many processes, a wall-clock sample mostly measures how long the process
 * waited for a core, and that wait does not depend on the code being timed.
 * @param {() => unknown} work
 * @param {number} targetMs
 */
function cpuPerCall(work, targetMs) {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  // Calibrated three times, keeping the most calls: process CPU time counts the compiler's and the collector's
  // threads too, so one calibration that met a compilation would time too few calls.
  let calls = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    let trial = 16;
    for (;;) {
      const start = cpu();
      for (let i = 0; i < trial; i++) keep(work());
      const elapsed = cpu() - start;
      if (elapsed >= targetMs * 250 || trial >= 1 << 24) {
        calls = Math.max(calls, 16, Math.round((trial * targetMs * 1000) / Math.max(elapsed, 1)));
        break;
      }
      trial *= 4;
    }
  }
  return () => {
    const start = cpu();
    for (let i = 0; i < calls; i++) keep(work());
    return (cpu() - start) / calls;
  };
}

let sink;
/** Keeps a loop's result observable, so its work cannot be optimized away. */
function keep(value) {
  sink = value;
}

/**
 * How many copies of each contender are loaded and timed. Two loads of one module, same code and same samples, time
 * up to ±20% apart on this kind of machine: each copy is optimized on its own, and where its code lands and what
 * the compiler inlined differ from copy to copy. A row of a few tenths of a microsecond is then decided by which copy
 * each side drew. So each contender is loaded several times (the generated module under distinct URLs, run-time Ajv
 * as that many Ajv instances), every copy is timed in every round, and the round's figure is the median over the
 * copies: a copy that drew well or badly moves the median little. More rounds would not do this, as every round
 * times the same copy.
 */
const COPIES = 5;

/** Every case's two contenders, each as {@link COPIES} loaded copies with loops of their own, warmed up. */
async function contenders(c, copies) {
  // Only samples run-time Ajv accepts: the generated validator must accept each of them too. The Ajv instance that
  // judges them is none of the timed copies, so every copy meets the samples first in its own warm-up.
  const judge = await runtimeAjv(c.schema, c.formats);
  const samples = c.samples.filter((sample) => judge(sample) === true);
  if (samples.length === 0) return { samples };
  const loops = { toolgate: [], ajv: [] };
  for (let k = 0; k < copies; k++) {
    const { outputValidators } = await import(`${pathToFileURL(c.module).href}?copy=${k}`);
    loops.toolgate.push(ownLoop(outputValidators[c.hash], samples, `${c.label} (toolgate, copy ${k})`));
    loops.ajv.push(ownLoop(await runtimeAjv(c.schema, c.formats), samples, `${c.label} (run-time Ajv, copy ${k})`));
  }
  for (const copiesOf of Object.values(loops)) for (const loop of copiesOf) for (let i = 0; i < 2000; i++) loop();
  return { samples, loops };
}

/** The median of a list of numbers. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The child process: every case's two contenders, warmed up, then timed interleaved. */
async function child(planFile, rounds) {
  const cases = JSON.parse(readFileSync(planFile, "utf8"));
  const results = [];
  for (const c of cases) {
    const { samples, loops } = await contenders(c, COPIES);
    if (loops === undefined) {
      results.push({ label: c.label, formats: c.formats, left: "run-time Ajv accepts no sample" });
      continue;
    }
    /** Each copy's figures, kept so the spread between copies can be read in bench/results.json. */
    const perCopy = {};
    const timers = Object.fromEntries(
      Object.entries(loops).map(([name, copiesOf]) => {
        const copyTimers = copiesOf.map((loop) => cpuPerCall(loop, 2));
        perCopy[name] = copyTimers.map(() => []);
        const timeCopies = () =>
          median(
            copyTimers.map((timer, k) => {
              const microseconds = timer() / samples.length;
              perCopy[name][k].push(microseconds);
              return microseconds;
            }),
          );
        return [name, timeCopies];
      }),
    );
    const timed = await interleave(timers, rounds);
    const copies = Object.fromEntries(
      Object.entries(perCopy).map(([name, lists]) => [name, lists.map((list) => Number(median(list).toFixed(4)))]),
    );
    results.push({ label: c.label, formats: c.formats, samples: samples.length, ...timed, copies });
  }
  if (sink === undefined) throw new Error("no loop ran");
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === SELF) {
  await child(process.argv[2], Number(process.argv[3]));
}
