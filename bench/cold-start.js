/**
 * Benchmark 1, cold start: a fresh process loads the validators of the corpus output schemas and validates a first
 * result. Three workloads (`WORKLOADS`): every schema with a full sample each; every schema validating `{}` (what
 * loading the validators costs, with little validation); and one tool's first result (a serverless worker's first
 * call: the catalog is loaded whole, an interpreter or run-time Ajv compiles that one schema). Contenders, each as
 * plain Node ESM and as an esbuild bundle:
 *
 * - `toolgate`: the generated catalog's `validators.js`, every result validator in one module, looked up by output
 *   schema hash in its `outputValidators` as an MCP client does (and the light entries `@toolgate/runtime/validators`
 *   and `@toolgate/runtime/formats`, which it imports);
 * - `toolgate-formats`: the same contracts with `"formats": "assert"`, checking `format` as the SDK's Ajv does;
 * - `ajv-runtime`: the MCP SDK client's own provider (`AjvJsonSchemaValidator`: one Ajv with ajv-formats) compiling
 *   every schema at start-up;
 * - `cfworker`: the SDK's no-eval provider for edge runtimes (`CfWorkerJsonSchemaValidator`, an interpreter);
 * - `ajv-standalone`: plain Ajv standalone code for the same schemas with the SDK's options, in one module.
 *
 * Then, in one fresh process (warm-child.js), the same validators once warm, interleaved: how fast each validates all samples.
 * And the import cost of `@toolgate/runtime` alone, against the tokenizer it must not load eagerly.
 */
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";
import { build } from "esbuild";
import { outputSchemaSha256 } from "../runtime/dist/integrations/mcp-validator.js";
import { generateContracts, outputSchemaContracts } from "./lib/corpus.js";
import { sampleOf } from "./lib/samples.js";
import { interleave } from "./lib/stats.js";

const run = promisify(execFile);
const ENTRY = path.resolve("bench", "cold-entry.js");
const WARM = path.resolve("bench", "warm-child.js");

/** The contenders, in the order the table shows them. */
export const CONTENDERS = ["toolgate", "toolgate-formats", "ajv-runtime", "cfworker", "ajv-standalone"];

/** The cold-start workloads; the import-cost sets and the layout experiments run only the first. */
export const WORKLOADS = ["full", "empty", "one"];

/**
 * Generates the corpus output contracts (formats annotated, and asserted) and picks the schemas every contender
 * accepts, each with a sample result the SDK's own validator accepts: the schemas of the cold start, and the ones the
 * 1,000-tool cold start (cold-scale.js) copies.
 * @param {string} work a scratch folder
 */
export async function chooseColdStartSchemas(work) {
  const generated = await generateContracts(path.join(work, "corpus"), outputSchemaContracts());
  // The SDK's Ajv asserts `format`; toolgate annotates unless a contract says "assert". Both are measured.
  const asserted = await generateContracts(
    path.join(work, "corpus-formats"),
    outputSchemaContracts({ formats: "assert" }),
  );
  const assertedFolder = new Map(asserted.generated.map((entry) => [entry.file, entry.folder]));

  // Only schemas every contender can load, each with a sample the SDK's own validator accepts.
  const sdk = new AjvJsonSchemaValidator();
  const cf = new CfWorkerJsonSchemaValidator();
  const chosen = [];
  const left = [];
  for (const entry of generated.generated) {
    const schema = entry.source.schema;
    if (!assertedFolder.has(entry.file)) {
      left.push({ tool: entry.tool, reason: "refused with formats asserted" });
      continue;
    }
    let check;
    try {
      check = sdk.getValidator(schema);
      cf.getValidator(schema);
    } catch (error) {
      left.push({ tool: entry.tool, reason: `not loadable by the SDK's validators: ${String(error).slice(0, 100)}` });
      continue;
    }
    const sample = [true, false]
      .map((full) => sampleOf(schema, { root: schema, full }))
      .find((candidate) => check(candidate).valid);
    if (sample === undefined) {
      left.push({ tool: entry.tool, reason: "no sample the SDK's validator accepts" });
      continue;
    }
    chosen.push({
      ...entry,
      schema,
      sample,
      assertedFolder: assertedFolder.get(entry.file),
    });
  }
  for (const refusal of generated.refused) left.push({ tool: refusal.file, reason: refusal.reason });
  return { generated, asserted, chosen, left };
}

/**
 * Generates the corpus output contracts, picks the schemas every contender accepts, makes one sample result per
 * schema, and writes each contender's validator-set module and its bundle.
 * @param {string} work a scratch folder
 */
export async function prepareColdStart(work) {
  const { generated, asserted, chosen, left } = await chooseColdStartSchemas(work);
  const dir = path.join(work, "cold");
  await mkdir(dir, { recursive: true });
  const sdk = new AjvJsonSchemaValidator();
  const samplesFile = path.join(dir, "samples.json");
  await writeFile(samplesFile, JSON.stringify(chosen.map((c) => c.sample)));
  const one = medianSchema(chosen);
  const workloads = {
    full: { indices: chosen.map((_, i) => i), samples: chosen.map((c) => c.sample), expected: chosen.length },
    // `{}` passes some schemas and fails others; every contender must give the SDK's own verdicts.
    empty: {
      indices: chosen.map((_, i) => i),
      samples: chosen.map(() => ({})),
      expected: chosen.filter((c) => sdk.getValidator(c.schema)({}).valid).length,
    },
    one: { indices: [one], samples: [chosen[one].sample], expected: 1 },
    none: { indices: [], samples: [], expected: 0 },
  };
  const workloadFiles = {};
  for (const [name, workload] of Object.entries(workloads)) {
    workloadFiles[name] = path.join(dir, `workload-${name}.json`);
    await writeFile(workloadFiles[name], JSON.stringify(workload));
  }

  const schemasLiteral = JSON.stringify(chosen.map((c) => c.schema));
  const rel = (p) => `./${path.relative(dir, p).split(path.sep).join("/")}`;
  // What an MCP client's provider does: each output schema's validator, by the hash of the schema.
  const hashes = JSON.stringify(chosen.map((c) => outputSchemaSha256(c.schema)));
  const byHash = (out) =>
    [
      `import { outputValidators } from ${JSON.stringify(rel(path.join(out, "validators.js")))};`,
      `const hashes = ${hashes};`,
      "export function validators(indices = hashes.map((_, i) => i)) { return indices.map((i) => outputValidators[hashes[i]]); }",
    ].join("\n");
  const sets = {
    toolgate: byHash(generated.out),
    "toolgate-formats": byHash(asserted.out),
    "ajv-runtime": [
      `import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";`,
      `const schemas = ${schemasLiteral};`,
      `export function validators(indices = schemas.map((_, i) => i)) { const provider = new AjvJsonSchemaValidator(); return indices.map((i) => provider.getValidator(schemas[i])); }`,
    ].join("\n"),
    cfworker: [
      `import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";`,
      `const schemas = ${schemasLiteral};`,
      `export function validators(indices = schemas.map((_, i) => i)) { const provider = new CfWorkerJsonSchemaValidator(); return indices.map((i) => provider.getValidator(schemas[i])); }`,
    ].join("\n"),
    "ajv-standalone": [
      `import compiled from "./ajv-standalone.cjs";`,
      `const all = [${chosen.map((_, i) => `compiled.v${i}`).join(", ")}];`,
      "export function validators(indices = all.map((_, i) => i)) { return indices.map((i) => all[i]); }",
    ].join("\n"),
    "runtime-import": `export * as runtime from "@toolgate/runtime";\nexport function validators() { return []; }`,
    "tokenizer-import": `export * as tokenizer from "gpt-tokenizer/encoding/o200k_base";\nexport function validators() { return []; }`,
  };

  // Plain Ajv standalone code, compiled with the SDK provider's options, all schemas in one CommonJS module.
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
    code: { source: true },
  });
  addFormats(ajv);
  chosen.forEach((c, i) => {
    ajv.addSchema(c.schema, `urn:bench:${i}`);
  });
  await writeFile(
    path.join(dir, "ajv-standalone.cjs"),
    standaloneCode(ajv, Object.fromEntries(chosen.map((_, i) => [`v${i}`, `urn:bench:${i}`]))),
  );

  const variants = [];
  let tokenizerInStartChunks;
  for (const [name, code] of Object.entries(sets)) {
    const { plain, bundle, bytes, metafile } = await writeContender(dir, name, code);
    const samples = name.endsWith("-import") ? workloadFiles.none : workloadFiles.full;
    variants.push({ name, form: "esm", module: plain, samples });
    variants.push({ name, form: "bundle", module: bundle, samples, bytes });
    if (name === "runtime-import")
      tokenizerInStartChunks = staticInputs(metafile, bundle).some((input) => input.includes("gpt-tokenizer"));
  }
  return {
    chosen,
    left,
    variants,
    workloadFiles,
    oneTool: chosen[one].tool,
    generatedOut: generated.out,
    assertedOut: asserted.out,
    setModules: dir,
    tokenizerInStartChunks,
  };
}

/** The place of the schema of median size (as JSON text): the one tool of the first-call workload. */
export function medianSchema(chosen) {
  const bySize = chosen.map((c, i) => [JSON.stringify(c.schema).length, i]).sort((a, b) => a[0] - b[0]);
  return bySize[Math.floor(bySize.length / 2)][1];
}

/**
 * Writes a contender's module into `dir` and bundles it with esbuild, code split as an edge deployment that cares
 * about start-up would: a module loaded by dynamic import (the tokenizer) becomes a chunk of its own, fetched only
 * when used (without splitting, esbuild inlines it, and every start parses it). `bytes` is what a start parses of
 * the bundle: its entry chunk and the chunks that one imports statically.
 * @param {string} dir
 * @param {string} name
 * @param {string} code the module's text
 */
export async function writeContender(dir, name, code) {
  const plain = path.join(dir, `${name}.js`);
  await writeFile(plain, `${code}\n`);
  const built = await build({
    entryPoints: [plain],
    outdir: path.join(dir, `bundle-${name}`),
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform: "node",
    metafile: true,
    logLevel: "silent",
  });
  const bundle = path.join(dir, `bundle-${name}`, `${name}.js`);
  return { plain, bundle, bytes: staticBytes(built.metafile, bundle), metafile: built.metafile };
}

/** Bytes of a bundle's entry chunk and every chunk it imports statically: what a start loads. */
function staticBytes(metafile, entry) {
  return staticChunks(metafile, entry).reduce((sum, name) => sum + metafile.outputs[name].bytes, 0);
}

/** The source files in a bundle's entry chunk and the chunks it imports statically. */
function staticInputs(metafile, entry) {
  return staticChunks(metafile, entry).flatMap((name) => Object.keys(metafile.outputs[name].inputs));
}

/** The output chunks a bundle's entry loads before it runs: itself and its static imports, transitively. */
function staticChunks(metafile, entry) {
  const outputs = metafile.outputs;
  const key = Object.keys(outputs).find((name) => path.resolve(name) === path.resolve(entry));
  const seen = new Set();
  const pending = [key];
  while (pending.length > 0) {
    const name = pending.pop();
    if (name === undefined || seen.has(name)) continue;
    seen.add(name);
    for (const imported of outputs[name].imports) if (imported.kind === "import-statement") pending.push(imported.path);
  }
  return [...seen];
}

/** One cold start in a child process. */
async function coldRun(variant) {
  const { stdout } = await run(process.execPath, [ENTRY, variant.module, variant.samples], { cwd: process.cwd() });
  const result = JSON.parse(stdout.trim().split("\n").at(-1));
  // Every verdict is the SDK's own (it accepted every sample): a contender that disagrees is broken, not fast.
  if (result.valid !== result.expected) {
    throw new Error(
      `${variant.name} (${variant.form}) passed ${result.valid} results, the SDK's validator ${result.expected}`,
    );
  }
  return result;
}

/**
 * Cold starts, interleaved across every variant, `rounds` times, for each workload of {@link WORKLOADS} in turn
 * (`cold` is the full-sample one, `byWorkload` has all three); then warm validation in a fresh process.
 * @param {Awaited<ReturnType<typeof prepareColdStart>>} prepared
 * @param {{ rounds: number, warmRounds: number, extraVariants?: Array<{ name: string, form: string, module: string, samples: string, comparedWith?: string }>, extraWarm?: Record<string, string> }} options
 *   extra variants are timed in the same interleaving (the code-size experiments of validator-size.js)
 */
export async function runColdStart(prepared, { rounds, warmRounds, extraVariants = [], extraWarm = {} }) {
  const lastRun = {};
  const timed = (variants, workload) =>
    Object.fromEntries(
      variants.map((variant) => [
        `${variant.name}/${variant.form}`,
        async () => {
          const result = await coldRun(variant);
          lastRun[`${workload}:${variant.name}/${variant.form}`] = result;
          return result.totalMs;
        },
      ]),
    );
  // Every sample of every schema: all variants, the layout experiments (which take no indices) included.
  const full = [...prepared.variants, ...extraVariants.map((v) => ({ ...v, samples: prepared.workloadFiles.full }))];
  const cold = await interleave(timed(full, "full"), rounds);
  // The other workloads: the validator-set contenders only.
  const contenders = prepared.variants.filter((v) => CONTENDERS.includes(v.name));
  const byWorkload = { full: cold };
  for (const workload of WORKLOADS.filter((w) => w !== "full")) {
    const variants = contenders.map((v) => ({ ...v, samples: prepared.workloadFiles[workload] }));
    byWorkload[workload] = await interleave(timed(variants, workload), rounds);
  }

  // Warm: every contender's validators loaded in one fresh process, each validating all samples; interleaved.
  const sets = [
    ...CONTENDERS.map((name) => `${name}=${path.join(prepared.setModules, `${name}.js`)}`),
    ...Object.entries(extraWarm).map(([name, module]) => `${name}=${module}`),
  ];
  const samplesFile = path.join(prepared.setModules, "samples.json");
  const { stdout } = await run(process.execPath, [WARM, samplesFile, String(warmRounds), ...sets]);
  const warm = JSON.parse(stdout.trim().split("\n").at(-1)).summary;

  // Every result validator of the corpus catalog, in the one module the toolgate contender loads.
  const toolgateBytes = statSync(path.join(prepared.generatedOut, "validators.js")).size;
  return {
    schemas: prepared.chosen.length,
    left: prepared.left,
    cold,
    byWorkload,
    oneTool: prepared.oneTool,
    lastRun,
    warmMicrosecondsPerAllSamples: warm,
    bundleBytes: Object.fromEntries(prepared.variants.filter((v) => v.bytes).map((v) => [v.name, v.bytes])),
    sizeVariants: extraVariants.map((v) => ({
      name: v.name,
      form: v.form,
      comparedWith: v.comparedWith ?? "toolgate",
      sourceBytes: v.sourceBytes,
      bundleBytes: v.bundleBytes,
    })),
    tokenizerInStartChunks: prepared.tokenizerInStartChunks,
    generatedValidatorBytes: toolgateBytes,
    ajvStandaloneBytes: statSync(path.join(prepared.setModules, "ajv-standalone.cjs")).size,
    codeShare: codeShare(prepared),
  };
}

/**
 * Where the generated validator code goes: bytes of embedded schema literals, of error objects (with their
 * messages), of the unevaluated-keyword bookkeeping, and the rest.
 */
function codeShare(prepared) {
  const share = {
    total: 0,
    schemaLiterals: 0,
    errorObjects: 0,
    errorMessages: 0,
    evaluatedBookkeeping: 0,
    functions: 0,
  };
  {
    const code = readFileSync(path.join(prepared.generatedOut, "validators.js"), "utf8");
    share.total += code.length;
    for (const line of code.split("\n")) {
      if (/^const schema\d+ = /.test(line)) share.schemaLiterals += line.length + 1;
      if (/^function validate\d+\(/.test(line)) share.functions++;
      if (/evaluated\d*|\.evaluated\b|dynamicProps|dynamicItems|props\d+|items\d+/.test(line))
        share.evaluatedBookkeeping += line.length + 1;
    }
    for (const match of code.matchAll(/\{instancePath:[^\n]*?message:("(?:[^"\\]|\\.)*"(?:\+[^}]*)?)\}/g)) {
      share.errorObjects += match[0].length;
      share.errorMessages += match[1].length + ",message:".length;
    }
  }
  return share;
}
