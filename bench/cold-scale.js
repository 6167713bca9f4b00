/**
 * Cold start with 1,000 tools: the schemas the cold start chooses (cold-start.js, `chooseColdStartSchemas`) copied to
 * 1,000 different tools, generated into one catalog, and loaded in fresh processes (cold-entry.js) with the three
 * workloads of the cold start: every tool a full sample, every tool validating `{}`, and one tool's first result (the
 * catalog loaded whole, one validator used).
 *
 * Each copy is a tool of its own, with a validator of its own: under a new name (`scaleContracts` of codegen.js) and
 * with `"maxProperties": <1,000,000 + its number>` at the root of its output schema. The catalog keys its validators
 * by the hash of the output schema, so copies of one schema would share one validator and make 1,000 tools load the
 * code of 47; a bound of their own gives every copy its own hash and its own validator function, and the bound is
 * checked by every contender, so the copies differ in what is validated. No sample has that many properties: every
 * verdict stays the one the SDK's validator gives the corpus schema. `prepareColdScale` counts the distinct
 * validator functions of the generated catalog and refuses to run on fewer than one per tool.
 *
 * Contenders, as plain ESM and as an esbuild bundle (minified, code splitting), with the same 1,000 schemas:
 *
 * - `toolgate`: the generated catalog's `validators.js`, each validator looked up by output schema hash in its
 *   `outputValidators`, as the cold start does;
 * - `cfworker`: the interpreter, the SDK's `CfWorkerJsonSchemaValidator`, getting each validator from its schema;
 * - `ajv-runtime` (the `one` workload only): the SDK's `AjvJsonSchemaValidator` compiling that one schema. It
 *   compiles about 2 ms a schema (the first call's 100-tool row, first-call.js), so the workloads that use every tool
 *   would cost it seconds a start, each round: it is left out of them, and their rows say so.
 *
 * Each contender's module holds what it starts from: the hashes for toolgate, the schemas for the others, as a
 * literal in the module as in the cold start. When toolgate's row misses, `profileColdScale` says where its start
 * goes: a CPU profile of one more start of its plain ESM module, by kind of work.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { outputSchemaSha256 } from "../runtime/dist/integrations/mcp-validator.js";
import { scaleContracts } from "./codegen.js";
import { chooseColdStartSchemas, medianSchema, writeContender } from "./cold-start.js";
import { generateContracts, outputSchemaContracts } from "./lib/corpus.js";
import { interleave, ratio } from "./lib/stats.js";
import { catalogSections } from "./validator-size.js";

const run = promisify(execFile);
const ENTRY = path.resolve("bench", "cold-entry.js");
/**
 * Loaded before cold-entry.js when a start is profiled: starts V8's sampling profiler (every 100 µs) in the process
 * itself, after Node's boot, and writes the profile to `$COLD_PROFILE` as the process exits. Node's `--cpu-prof`
 * would start at the boot, which the cold start's clock leaves out.
 */
const PROFILER = `data:text/javascript,${encodeURIComponent(
  [
    'import { Session } from "node:inspector";',
    'import { writeFileSync } from "node:fs";',
    "const session = new Session();",
    "session.connect();",
    'session.post("Profiler.enable");',
    'session.post("Profiler.setSamplingInterval", { interval: 100 });',
    'session.post("Profiler.start");',
    'process.on("exit", () => session.post("Profiler.stop", (error, result) => { if (error) throw error; writeFileSync(process.env.COLD_PROFILE, JSON.stringify(result.profile)); }));',
  ].join("\n"),
)}`;

/** How many tools the catalog holds. */
export const SCALE_TOOLS = 1000;

/** The first copy's `maxProperties`: far above any sample's property count, so no verdict changes. */
const BOUND_BASE = 1_000_000;

/** The workloads, as in the cold start; run-time Ajv takes part in the ones listed here only. */
export const SCALE_WORKLOADS = {
  full: ["toolgate", "cfworker"],
  empty: ["toolgate", "cfworker"],
  one: ["toolgate", "cfworker", "ajv-runtime"],
};

/**
 * The cold start's schemas copied to `count` tools, each with an output schema of its own (see the file's comment).
 * @param {Array<{ file: string, schema: Record<string, any>, sample: unknown }>} chosen the cold start's schemas
 * @param {number} count
 */
export function scaleTools(chosen, count) {
  const byFile = new Map(outputSchemaContracts().map((entry) => [entry.file, entry.contract]));
  const base = chosen.map((entry) => ({ file: entry.file, contract: byFile.get(entry.file) }));
  const fromChosen = new Map(chosen.map((entry) => [entry.file, entry]));
  return scaleContracts(base, count).map(({ file, contract }, i) => {
    const original = fromChosen.get(file.replace(/_copy\d+\.tool\.json$/, ".tool.json"));
    if (original === undefined) throw new Error(`${file}: not a copy of a chosen schema`);
    const outputSchema = { ...contract.outputSchema, maxProperties: BOUND_BASE + i };
    return { file, contract: { ...contract, outputSchema }, schema: outputSchema, original };
  });
}

/**
 * Generates the 1,000-tool catalog, checks it holds a validator function per tool, and writes each contender's
 * module, its bundle and the workloads.
 * @param {string} work a scratch folder
 */
export async function prepareColdScale(work) {
  const root = path.join(work, "cold-scale");
  await rm(root, { recursive: true, force: true });
  const { chosen } = await chooseColdStartSchemas(root);
  const tools = scaleTools(chosen, SCALE_TOOLS);
  const started = performance.now();
  const generated = await generateContracts(
    path.join(root, "catalog"),
    tools.map(({ file, contract }) => ({ file, contract, source: undefined })),
  );
  const generateMs = performance.now() - started;
  if (generated.refused.length > 0) {
    throw new Error(`the generator refused ${generated.refused.map((r) => `${r.file} (${r.reason})`).join(", ")}`);
  }
  const catalog = path.join(generated.out, "validators.js");
  const distinct = distinctValidators(readFileSync(catalog, "utf8"));
  if (distinct.byHash < tools.length || distinct.functions < tools.length) {
    throw new Error(
      `the catalog holds ${distinct.functions} distinct validator functions under ${distinct.byHash} hashes for ${tools.length} tools`,
    );
  }

  // The SDK's verdict on `{}` for each corpus schema: the copies' bounds never change it.
  const sdk = new AjvJsonSchemaValidator();
  const emptyValid = new Map(chosen.map((entry) => [entry.file, sdk.getValidator(entry.schema)({}).valid]));
  const dir = path.join(root, "sets");
  await mkdir(dir, { recursive: true });
  const one = medianSchema(tools);
  const every = tools.map((_, i) => i);
  const workloads = {
    full: { indices: every, samples: tools.map((t) => t.original.sample), expected: tools.length },
    empty: {
      indices: every,
      samples: tools.map(() => ({})),
      expected: tools.filter((t) => emptyValid.get(t.original.file)).length,
    },
    one: { indices: [one], samples: [tools[one].original.sample], expected: 1 },
  };
  const workloadFiles = {};
  for (const [name, workload] of Object.entries(workloads)) {
    workloadFiles[name] = path.join(dir, `workload-${name}.json`);
    await writeFile(workloadFiles[name], JSON.stringify(workload));
  }

  const schemasLiteral = JSON.stringify(tools.map((t) => t.schema));
  const rel = (p) => `./${path.relative(dir, p).split(path.sep).join("/")}`;
  const sets = {
    toolgate: [
      `import { outputValidators } from ${JSON.stringify(rel(catalog))};`,
      `const hashes = ${JSON.stringify(tools.map((t) => outputSchemaSha256(t.schema)))};`,
      "export function validators(indices) { return indices.map((i) => outputValidators[hashes[i]]); }",
    ].join("\n"),
    cfworker: [
      `import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";`,
      `const schemas = ${schemasLiteral};`,
      "export function validators(indices) { const provider = new CfWorkerJsonSchemaValidator(); return indices.map((i) => provider.getValidator(schemas[i])); }",
    ].join("\n"),
    "ajv-runtime": [
      `import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";`,
      `const schemas = ${schemasLiteral};`,
      "export function validators(indices) { const provider = new AjvJsonSchemaValidator(); return indices.map((i) => provider.getValidator(schemas[i])); }",
    ].join("\n"),
  };
  const variants = [];
  for (const [name, code] of Object.entries(sets)) {
    const { plain, bundle, bytes } = await writeContender(dir, name, code);
    variants.push({ name, form: "esm", module: plain });
    variants.push({ name, form: "bundle", module: bundle, bytes });
  }
  return {
    tools: tools.length,
    corpusSchemas: chosen.length,
    distinct,
    generateMs,
    catalogBytes: readFileSync(catalog).length,
    oneTool: tools[one].contract.name,
    variants,
    workloadFiles,
    scratch: root,
  };
}

/**
 * How many different validators a catalog module holds: the entries of its `outputValidators`, and the distinct
 * texts of its tools' validator functions once their export names are taken out.
 * @param {string} code the catalog's `validators.js`
 */
export function distinctValidators(code) {
  const { sections, byHash } = catalogSections(code);
  const bodies = new Set([...sections.values()].map((text) => text.replace(/^export const [A-Za-z_$][\w$]* =/, "")));
  return { exported: sections.size, byHash: byHash.size, functions: bodies.size };
}

/** One cold start in a fresh process; a verdict that is not the SDK's makes the run fail. */
async function coldRun(variant, workloadFile, { args = [], env } = {}) {
  const { stdout } = await run(process.execPath, [...args, ENTRY, variant.module, workloadFile], {
    cwd: process.cwd(),
    env: env === undefined ? process.env : { ...process.env, ...env },
  });
  const result = JSON.parse(stdout.trim().split("\n").at(-1));
  if (result.valid !== result.expected) {
    throw new Error(
      `${variant.name} (${variant.form}) passed ${result.valid} results, the SDK's validator ${result.expected}`,
    );
  }
  return result;
}

/**
 * The cold starts, workload by workload, each contender's variants interleaved `rounds` times; the ratio of each
 * other contender's time over toolgate's is the median of per-round ratios. Then, for each workload where toolgate
 * is slower than the interpreter in either form, a CPU profile of toolgate's start (plain ESM).
 * @param {Awaited<ReturnType<typeof prepareColdScale>>} prepared
 * @param {{ rounds: number }} options
 */
export async function runColdScale(prepared, { rounds }) {
  const byWorkload = {};
  const phases = {};
  for (const [workload, names] of Object.entries(SCALE_WORKLOADS)) {
    const variants = prepared.variants.filter((v) => names.includes(v.name));
    const split = {};
    const timing = await interleave(
      Object.fromEntries(
        variants.map((variant) => [
          `${variant.name}/${variant.form}`,
          async () => {
            const result = await coldRun(variant, prepared.workloadFiles[workload]);
            const key = `${variant.name}/${variant.form}`;
            split[key] ??= { importMs: [], lookupMs: [], validateMs: [] };
            split[key].importMs.push(result.importMs);
            split[key].lookupMs.push(result.readyMs - result.importMs);
            split[key].validateMs.push(result.totalMs - result.readyMs);
            return result.totalMs;
          },
        ]),
      ),
      rounds,
    );
    const ratios = {};
    for (const form of ["esm", "bundle"]) {
      for (const name of names.filter((n) => n !== "toolgate")) {
        ratios[`${name}/${form}`] = ratio(timing[`${name}/${form}`], timing[`toolgate/${form}`]);
      }
    }
    byWorkload[workload] = { timing, ratios };
    phases[workload] = Object.fromEntries(
      Object.entries(split).map(([key, parts]) => [
        key,
        Object.fromEntries(Object.entries(parts).map(([part, values]) => [part, median(values)])),
      ]),
    );
  }
  const profiles = {};
  for (const [workload, { ratios }] of Object.entries(byWorkload)) {
    if (ratios["cfworker/esm"] >= 1 && ratios["cfworker/bundle"] >= 1) continue;
    profiles[workload] = await profileColdScale(prepared, workload);
  }
  await rm(prepared.scratch, { recursive: true, force: true });
  return {
    tools: prepared.tools,
    corpusSchemas: prepared.corpusSchemas,
    distinctValidators: prepared.distinct,
    generateMs: prepared.generateMs,
    catalogBytes: prepared.catalogBytes,
    bundleBytes: Object.fromEntries(prepared.variants.filter((v) => v.bytes).map((v) => [v.name, v.bytes])),
    oneTool: prepared.oneTool,
    rounds,
    byWorkload,
    phases,
    profiles,
  };
}

/** The median of a list of numbers. */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)] + sorted[Math.ceil(middle)]) / 2;
}

/**
 * Where one 1,000-tool start of toolgate's plain ESM module goes: a CPU profile of a fresh process running the
 * workload, from the end of Node's boot (`PROFILER`), its self time put into kinds of work. V8 parses a module's
 * text inside Node's `compileSourceTextModule` (and books what runs outside any JavaScript function to `(program)`);
 * a function left unparsed at import is compiled at its first call and that time is booked to the caller: in
 * cold-entry.js, the loop that makes each validator's first call (the only other work of that frame is reading the
 * workload, before the clock starts). The catalog's own frames are its top-level evaluation (the module body and each
 * tool's wrapper function, which run once at import) or its validators running; the set module's frames are the
 * lookup by hash; the rest is Node loading modules, reading files and writing the result.
 * @param {Awaited<ReturnType<typeof prepareColdScale>>} prepared
 * @param {string} workload
 */
export async function profileColdScale(prepared, workload) {
  const variant = prepared.variants.find((v) => v.name === "toolgate" && v.form === "esm");
  const file = path.join(prepared.scratch, `profile-${workload}.json`);
  const measured = await coldRun(variant, prepared.workloadFiles[workload], {
    args: ["--import", PROFILER],
    env: { COLD_PROFILE: file },
  });
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const kinds = {
    "parsing the module text (V8, at import)": 0,
    "compiling each validator at its first call (V8, booked to its caller), and reading the workload": 0,
    "the catalog's top-level evaluation": 0,
    "the lookup by hash": 0,
    "the validators running": 0,
    "garbage collection": 0,
    "Node (module loading, file reads, output)": 0,
  };
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const { url, functionName } = nodes.get(id).callFrame;
    let kind;
    if (functionName === "(idle)" || functionName === "(root)") return;
    if (functionName === "(program)" || functionName === "compileSourceTextModule")
      kind = "parsing the module text (V8, at import)";
    else if (functionName === "(garbage collector)") kind = "garbage collection";
    else if (url.endsWith("/cold-entry.js"))
      kind = "compiling each validator at its first call (V8, booked to its caller), and reading the workload";
    else if (url.endsWith("/validators.js"))
      kind = /^(validate\d+|fail|atPath)$/.test(functionName)
        ? "the validators running"
        : "the catalog's top-level evaluation";
    else if (url.endsWith(`/${path.basename(variant.module)}`)) kind = "the lookup by hash";
    else if (/@toolgate\/runtime|runtime\/dist/.test(url)) kind = "the validators running";
    else kind = "Node (module loading, file reads, output)";
    kinds[kind] += delta;
    total += delta;
  });
  return {
    workload,
    samples: profile.samples.length,
    profiledMs: total / 1000,
    measured: {
      importMs: measured.importMs,
      lookupMs: measured.readyMs - measured.importMs,
      validateMs: measured.totalMs - measured.readyMs,
      totalMs: measured.totalMs,
    },
    byKind: Object.entries(kinds)
      .map(([kind, micros]) => ({ kind, ms: micros / 1000, share: total === 0 ? 0 : micros / total }))
      .sort((a, b) => b.ms - a.ms),
  };
}

/**
 * The table rows of {@link runColdScale}'s figures, in the cold start's style: for each workload and form, toolgate
 * against the interpreter (target: no slower), and against run-time Ajv where it ran; a profile row under a miss.
 * @param {Awaited<ReturnType<typeof runColdScale>>} scale
 * @param {{ ms: (s: any) => string, x: (ratio: number) => string, kb: (bytes: number) => string }} format
 */
export function coldScaleRows(scale, { ms, x, kb }) {
  const rows = [];
  const titles = {
    full: `cold start, ${scale.tools.toLocaleString("en")} different tools (${scale.corpusSchemas} corpus schemas copied, each with a bound of its own), each a full sample`,
    empty: `cold start, ${scale.tools.toLocaleString("en")} different tools each validating {}`,
    one: `cold start, one tool's first result (${scale.oneTool}) after loading the ${scale.tools.toLocaleString("en")}-tool catalog`,
  };
  for (const [workload, title] of Object.entries(titles)) {
    const { timing, ratios } = scale.byWorkload[workload];
    for (const form of ["bundle", "esm"]) {
      const tg = timing[`toolgate/${form}`];
      const formName = form === "bundle" ? "esbuild bundle" : "plain ESM";
      const ajvLeftOut = workload === "one" ? "" : "; run-time Ajv left out (compiling 1,000 schemas takes it seconds)";
      rows.push([
        `${title}, ${formName}`,
        `toolgate ${ms(tg)}`,
        `interpreter (@cfworker/json-schema) ${ms(timing[`cfworker/${form}`])}${ajvLeftOut}`,
        x(ratios[`cfworker/${form}`]),
        "≥ 1× (no slower)",
        ratios[`cfworker/${form}`] >= 1 ? "met" : "missed",
      ]);
      if (timing[`ajv-runtime/${form}`] !== undefined) {
        rows.push([
          "",
          "",
          `run-time Ajv (MCP SDK) ${ms(timing[`ajv-runtime/${form}`])}`,
          x(ratios[`ajv-runtime/${form}`]),
          "(reported)",
          "",
        ]);
      }
    }
    const profile = scale.profiles[workload];
    if (profile !== undefined) {
      const parts = profile.byKind
        .filter(({ share }) => share >= 0.005)
        .map(({ kind, ms: spent, share }) => `${kind} ${spent.toFixed(0)} ms (${(share * 100).toFixed(0)}%)`);
      const m = profile.measured;
      rows.push([
        `where toolgate's ${scale.tools.toLocaleString("en")}-tool start goes, ${workload === "empty" ? "{}" : workload} (plain ESM, CPU profile, ${profile.samples} samples)`,
        parts.join("; "),
        `timed in the same start: import ${m.importMs.toFixed(0)} ms, lookup ${m.lookupMs.toFixed(1)} ms, validations ${m.validateMs.toFixed(1)} ms`,
        "",
        "(profile)",
        "",
      ]);
    }
  }
  rows.push([
    `${scale.tools.toLocaleString("en")}-tool catalog`,
    `validators.js ${kb(scale.catalogBytes)} (bundle ${kb(scale.bundleBytes.toolgate)}), ${scale.distinctValidators.functions} distinct validators; generated in ${(scale.generateMs / 1000).toFixed(1)} s`,
    `interpreter bundle with the schemas ${kb(scale.bundleBytes.cfworker)}`,
    "",
    "(reported)",
    "",
  ]);
  return rows;
}
