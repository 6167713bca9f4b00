/**
 * The `toolgate` command line.
 *
 *   toolgate generate [--schemas DIR] [--out DIR] [--check]
 *   toolgate --help | --version
 *
 * Exit codes: 0 all is well; 1 contract errors, or stale output under `--check`; 2 a usage error.
 * A user's mistake is reported as `file#pointer: message`, never as a stack trace.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DIFF_HELP, runDiff } from "./diff/command.js";
import { ContractError } from "./errors.js";
import { generatorChangedSince, rememberRun } from "./freshness.js";
import { runImport } from "./import.js";
import { toolgateVersion } from "./package.js";
import type { ToolSummary } from "./pipeline.js";
import { recordedFresh } from "./record.js";
import { compareOutput, generatedFiles, writeOutput } from "./write.js";

const HELP = `toolgate: typed, precompiled, bounded adapters for AI tool results

Usage:
  toolgate generate [--schemas DIR] [--out DIR] [--check]
      Read every *.tool.json contract in DIR (default schemas/) and write the adapters to --out
      (default generated/). With --check, write nothing: exit 1 and name every stale or missing file.
  toolgate import FILE... [--out DIR] [--force]
  toolgate import --stdio "COMMAND ARGS" [--out DIR] [--force]
      Turn MCP tool definitions (a tools/list result, a JSON-RPC response, an array of tools or one tool; or a
      server started over stdio, every page) into contracts in DIR (default schemas/), and list every unbounded
      field to bound. Tools without an outputSchema are refused. An existing contract is only replaced with
      --force, which keeps its x-toolgate block. Exit 1 when any tool was refused.
${DIFF_HELP}
  toolgate --help       this text
  toolgate --version    the version

Defaults may be set in toolgate.config.json in the working directory:
  { "schemas": "schemas", "out": "generated", "refs": { "https://example.com/schemas/": "vendor/schemas" } }
"refs" maps URI prefixes of referenced schemas to local folders: a network URI is never fetched.

Exit codes: 0 all is well, 1 contract errors or stale output (--check), 2 usage error.
`;

/** Where output goes; tests pass their own. */
export interface Console {
  out: (line: string) => void;
  err: (line: string) => void;
}

const stdio: Console = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

class UsageError extends Error {}

/** Run the CLI with the given arguments; resolves to the exit code. */
export async function main(argv: readonly string[], io: Console = stdio): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`toolgate: ${error.message}`);
      io.err("Run `toolgate --help` for usage.");
      return 2;
    }
    if (error instanceof ContractError) {
      io.err(`error ${error}`);
      return 1;
    }
    throw error;
  }
}

async function run(argv: readonly string[], io: Console): Promise<number> {
  // `import` has options of its own (--stdio, --force), so it parses its own arguments.
  if (argv[0] === "import") return runImport(argv.slice(1), io);
  // So does `diff` (--base, --head, --format, --fail-on).
  if (argv[0] === "diff") return runDiff(argv.slice(1), io);
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  if (values.version) {
    io.out(toolgateVersion());
    return 0;
  }
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError("no command given");
  if (command !== "generate") throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);

  const config = readConfig();
  const schemas = path.resolve(values.schemas ?? config.schemas ?? "schemas");
  const out = path.resolve(values.out ?? config.out ?? "generated");
  if (!existsSync(schemas)) throw new UsageError(`no contracts folder at ${schemas}`);
  const remotes = Object.entries(config.refs ?? {}).map(([prefix, folder]) => [prefix, path.resolve(folder)] as const);

  const key = { schemas, out, options: remotes };
  const where = path.relative(process.cwd(), out) || ".";
  if (
    values.check &&
    (await recordedFresh({ schemas, out, remotes }, () => generatedFiles(out))) &&
    !(await generatorChangedSince(key))
  ) {
    io.out(`${where}/ is up to date (as its lock records: the same contracts, files and generator).`);
    return 0;
  }
  // The pipeline (Ajv, json-schema-to-typescript, the TypeScript parser) loads only when there is work to do.
  const { generate } = await import("./pipeline.js");
  const result = await generate({ schemas, remotes });
  printSummary(result.tools, io);
  if (!result.ok) {
    for (const error of result.errors) io.err(`error ${error}`);
    io.err(`${result.errors.length} contract error${result.errors.length === 1 ? "" : "s"}: nothing written.`);
    return 1;
  }
  if (values.check) {
    const stale = await compareOutput(out, result.files);
    const names = [
      ...stale.changed.map((f) => `stale    ${where}/${f}`),
      ...stale.missing.map((f) => `missing  ${where}/${f}`),
      ...stale.extra.map((f) => `extra    ${where}/${f} (no contract produces it)`),
    ];
    if (names.length === 0) {
      await rememberRun(key);
      io.out(`${where}/ is up to date (${result.files.size} files).`);
      return 0;
    }
    for (const line of names) io.err(line);
    io.err(`${names.length} file${names.length === 1 ? "" : "s"} out of date: run \`toolgate generate\`.`);
    return 1;
  }
  const changes = await writeOutput(out, result.files);
  await rememberRun(key);
  const touched = changes.changed.length + changes.missing.length + changes.extra.length;
  io.out(`${result.files.size} files in ${where}/, ${touched} changed.`);
  return 0;
}

function parseCommandLine(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      schemas: { type: "string" },
      out: { type: "string" },
      check: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

/** `toolgate.config.json` in the working directory, if there is one. */
function readConfig(): { schemas?: string; out?: string; refs?: Record<string, string> } {
  const file = path.resolve("toolgate.config.json");
  if (!existsSync(file)) return {};
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ContractError("toolgate.config.json", "", `invalid JSON: ${(error as Error).message}`);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new ContractError("toolgate.config.json", "", "the config is a JSON object");
  }
  const known = new Set(["schemas", "out", "refs"]);
  for (const key of Object.keys(config)) {
    if (!known.has(key))
      throw new ContractError("toolgate.config.json", `/${key}`, `unknown key ${JSON.stringify(key)}`);
  }
  return config as { schemas?: string; out?: string; refs?: Record<string, string> };
}

/** One line per tool, then its checker findings. */
function printSummary(tools: readonly ToolSummary[], io: Console): void {
  for (const tool of tools) {
    const budget = `${tool.context.max} ${tool.context.unit}`;
    const derived =
      tool.derivedMaxBytes === null ? "unbounded schema" : `largest valid result ${tool.derivedMaxBytes} B`;
    const findings =
      tool.findings.length === 0
        ? "fully bounded"
        : `${tool.findings.length} finding${tool.findings.length === 1 ? "" : "s"}`;
    if (tool.folder === "") io.out(`${tool.tool}: not generated (see the errors below)`);
    else
      io.out(`${tool.tool} → ${tool.folder}/  ceiling ${tool.maxBytes} B (${derived}), budget ${budget}, ${findings}`);
    for (const finding of tool.findings) io.out(`  warn ${tool.file}#${finding.pointer}: ${finding.message}`);
  }
}
