/**
 * The first call: a fresh process imports one generated adapter and admits its first result of about 1 KB (an MCP
 * `CallToolResult`: structured content and its JSON text), against what the MCP SDK client does before it hands
 * the same result on: one `AjvJsonSchemaValidator` (Ajv 2020 with ajv-formats) constructed, the output schema of
 * every listed tool compiled (both SDK client versions compile the whole `tools/list` on the first `callTool`), and
 * the result validated. With 1, 10 and 100 tools in the catalog; the schemas are the corpus's real tools
 * (`../shared/corpus/mcp-tools`): the output schemas first, then input schemas of the same servers as output schemas
 * of contracts of their own to reach 100.
 *
 * The contracts keep the defaults a user gets (`x-toolgate` names only the receive ceiling the corpus schemas need),
 * so the budget is 8,000 tokens of o200k_base. Each contender runs in a fresh process (`first-call-child.js`), the
 * clock started before its first import; the two run interleaved, and the ratio is the median of per-round ratios.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { transform } from "esbuild";
import { everySchemaContracts, generateContracts, outputSchemaContracts } from "./lib/corpus.js";
import { sampleOf } from "./lib/samples.js";
import { interleave, ratio } from "./lib/stats.js";

const run = promisify(execFile);
const CHILD = path.resolve("bench", "first-call-child.js");

/** The catalog sizes measured. */
export const TOOL_COUNTS = [1, 10, 100];

/** The result size aimed at, in bytes of its JSON text. */
const RESULT_BYTES = 1024;

/**
 * The corpus contracts every contender loads, each with a sample the SDK's validator accepts; the first is the tool
 * called: the one whose full sample is nearest 1 KB.
 * @returns {Array<{ file: string, contract: Record<string, any>, schema: unknown, sample: unknown }>}
 */
function usableContracts() {
  const sdk = new AjvJsonSchemaValidator();
  const usable = [];
  const output = outputSchemaContracts();
  const input = everySchemaContracts().filter((entry) => entry.contract.name.endsWith("_inputSchema"));
  for (const entry of [...output, ...input]) {
    const schema = entry.contract.outputSchema;
    let check;
    try {
      check = sdk.getValidator(schema);
    } catch {
      continue;
    }
    const sample = [true, false].map((full) => sampleOf(schema, { root: schema, full })).find((s) => check(s).valid);
    if (sample !== undefined && sample !== null && typeof sample === "object" && !Array.isArray(sample)) {
      usable.push({ file: entry.file, contract: entry.contract, schema, sample, output: output.includes(entry) });
    }
  }
  const size = (entry) => Math.abs(JSON.stringify(entry.sample).length - RESULT_BYTES);
  const called = usable.filter((entry) => entry.output).sort((a, b) => size(a) - size(b))[0];
  if (called === undefined) throw new Error("no corpus output schema with a sample the SDK accepts");
  return [called, ...usable.filter((entry) => entry !== called)];
}

/** Compiles every generated TypeScript module of a folder to JavaScript beside it (types stripped, imports kept). */
async function compileFolder(folder) {
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { code } = await transform(await readFile(file, "utf8"), { loader: "ts", format: "esm" });
    await writeFile(file.replace(/\.ts$/, ".js"), code);
  }
}

/**
 * Generates one catalog per tool count and writes each contender's input.
 * @param {string} work a scratch folder
 */
export async function prepareFirstCall(work) {
  const contracts = usableContracts();
  if (contracts.length < Math.max(...TOOL_COUNTS)) {
    throw new Error(`only ${contracts.length} corpus schemas are usable, ${Math.max(...TOOL_COUNTS)} are needed`);
  }
  const called = contracts[0];
  const result = { structuredContent: called.sample, content: [{ type: "text", text: JSON.stringify(called.sample) }] };
  const sets = [];
  for (const count of TOOL_COUNTS) {
    const chosen = contracts.slice(0, count);
    const root = path.join(work, "first-call", `tools-${count}`);
    const generated = await generateContracts(
      root,
      chosen.map((entry) => ({ file: entry.file, contract: entry.contract, source: undefined })),
    );
    if (generated.refused.length > 0) {
      throw new Error(`the generator refused ${generated.refused.map((r) => `${r.file} (${r.reason})`).join(", ")}`);
    }
    await compileFolder(generated.out);
    const folder = generated.generated.find((entry) => entry.file === called.file)?.folder;
    if (folder === undefined) throw new Error(`${called.file} was not generated`);
    const input = path.join(root, "first-call.json");
    await writeFile(
      input,
      JSON.stringify({
        adapter: path.join(generated.out, folder, "adapter.js"),
        tool: called.contract.name,
        result,
        schemas: chosen.map((entry) => entry.schema),
      }),
    );
    sets.push({ count, input });
  }
  return { tool: called.contract.name, resultBytes: result.content[0].text.length, sets };
}

/** One first call in a fresh process. */
async function firstCall(contender, input) {
  const { stdout } = await run(process.execPath, [CHILD, contender, input], { cwd: process.cwd() });
  const measured = JSON.parse(stdout.trim().split("\n").at(-1));
  if (!measured.ok) throw new Error(`${contender}: the first result was not admitted (${measured.code})`);
  return measured;
}

/**
 * The first call of each contender in fresh processes, interleaved, `rounds` times per tool count.
 * @param {Awaited<ReturnType<typeof prepareFirstCall>>} prepared
 * @param {{ rounds: number }} options
 */
export async function runFirstCall(prepared, { rounds }) {
  const rows = [];
  for (const { count, input } of prepared.sets) {
    let bound;
    const timing = await interleave(
      {
        toolgate: async () => {
          const measured = await firstCall("toolgate", input);
          bound = measured.exact === false;
          return measured.totalMs;
        },
        sdk: async () => (await firstCall("sdk", input)).totalMs,
      },
      rounds,
    );
    rows.push({ tools: count, timing, ratio: ratio(timing.toolgate, timing.sdk), tokenizerSkipped: bound });
  }
  return { tool: prepared.tool, resultBytes: prepared.resultBytes, rows };
}

/**
 * The table rows of {@link runFirstCall}'s figures, each with its target (no slower than the SDK client).
 * @param {Awaited<ReturnType<typeof runFirstCall>>} first
 * @param {{ ms: (s: any) => string, x: (ratio: number) => string }} format
 */
export function firstCallRows(first, { ms, x }) {
  return first.rows.map((row) => [
    `first call, ${row.tools} ${row.tools === 1 ? "tool" : "tools"}: import the adapter, admit a ${first.resultBytes}-byte MCP result (${first.tool}, 8,000-token budget${row.tokenizerSkipped ? ", tokenizer not loaded" : ""})`,
    `toolgate ${ms(row.timing.toolgate)}`,
    `MCP SDK client (Ajv + formats: construct, compile ${row.tools}, validate) ${ms(row.timing.sdk)}`,
    x(row.ratio),
    "≤ 1× (no slower)",
    row.ratio <= 1 ? "met" : "missed",
  ]);
}
