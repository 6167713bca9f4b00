/**
 * The `toolgate` command line.
 *
 *   toolgate generate [--schemas DIR] [--out DIR] [--check] [--verbose]
 *   toolgate init [--schemas DIR]
 *   toolgate report EVENTS.jsonl… [--labels FILE] [--format text|markdown|json|html] [--out FILE] [--fail-on RULES]
 *   toolgate proxy [--schemas DIR] [--allow-ungated] [--events FILE] … -- COMMAND ARGS…
 *   toolgate --help | --version
 *
 * Exit codes: 0 all is well; 1 contract errors, or stale output under `--check`; 2 a usage error, or an output
 * folder toolgate will not write into (a symbolic link on the way).
 * A user's mistake is reported as `file#pointer: message`, never as a stack trace.
 *
 * Everything printed goes through the terminal-safe console of `console.ts`; the config is read by `config.ts`.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { ContractError } from "../contract/errors.js";
import { compareOutput, generatedFiles, writeOutput } from "../emit/write.js";
import { terminalText, UnsafeOutputError } from "../files.js";
import { generatorChangedSince, rememberRun } from "../lock/freshness.js";
import { recordedFresh } from "../lock/record.js";
import { toolgateVersion } from "../package.js";
import type { ToolSummary } from "../pipeline.js";
import { configFolders, readConfig } from "./config.js";
import { type Console, parseCommandArgs, reportUsage, stdio, terminalConsole, UsageError } from "./console.js";
import { tokenizerWarning } from "./tokenizer-check.js";

/**
 * The whole help text. The other commands' parts load with their commands: a `generate --check` that finds its
 * output up to date loads none of them (the validator compiler and the TypeScript parser among them, about a
 * second of a start).
 */
export async function helpText(): Promise<string> {
  const [{ DIFF_HELP }, { INIT_HELP }, { REPORT_HELP }, { PROXY_HELP }] = await Promise.all([
    import("../diff/command.js"),
    import("./init.js"),
    import("../report/command.js"),
    import("../proxy/command.js"),
  ]);
  return `toolgate: typed, precompiled, bounded adapters for AI tool results

Usage:
${GENERATE_HELP}
${IMPORT_HELP}
${DIFF_HELP}
${INIT_HELP}
${REPORT_HELP}
${PROXY_HELP}
${GENERAL_HELP}`;
}

/** `generate`'s part of the help text. */
export const GENERATE_HELP = `  toolgate generate [--schemas DIR] [--out DIR] [--check] [--verbose]
      Read every *.tool.json contract in DIR (default schemas/) and write the adapters to --out
      (default generated/). With --check, write nothing: exit 1 and name every stale, missing or extra
      file; only those and the verdict are printed (and contract errors), unless --verbose also prints
      each tool and its warnings as generate does.`;

/** `import`'s part of the help text. */
export const IMPORT_HELP = `  toolgate import FILE... [--out DIR] [--prefix NAME] [--json-text NAME]... [--force]
  toolgate import --stdio "[NAME=value...] COMMAND ARGS" [--cwd DIR] [--out DIR] [--prefix NAME]
                  [--json-text NAME]... [--force]
      Turn MCP tool definitions (a tools/list result, a JSON-RPC response, an array of tools or one tool; or a
      server started over stdio, every page) into contracts in DIR (default schemas/), and list every unbounded
      field to bound. A tool without an outputSchema is gated as text (1 MiB), or, with --json-text NAME, as
      JSON in its first text block against an outputSchema you write. An existing contract is only replaced
      with --force, which keeps its x-toolgate block. Exit 1 when any tool was refused.
      --stdio: leading NAME=value words set the server's environment; --cwd is its working directory; when
      it fails, the last lines of its stderr are shown. --prefix NAME: the tools go to DIR/NAME/, named
      NAME_<tool> (a name that already starts with NAME_ is kept; the server's own name is kept in
      x-toolgate.mcp.name), so two servers' tools of the same name live in one project.`;

/** The help text after the commands: `--help`, `--version`, the config file and the exit codes. */
export const GENERAL_HELP = `  toolgate --help       this text
  toolgate --version    the version

Defaults may be set in toolgate.config.json in the working directory:
  { "schemas": "schemas", "out": "generated", "refs": { "https://example.com/schemas/": "vendor/schemas" },
    "roots": ["../shared-schemas"] }
"refs" maps URI prefixes of referenced schemas to local folders: a network URI is never fetched.
"roots" names folders besides the working directory that a local $ref may read; a $ref anywhere else is an error.

Exit codes: 0 all is well, 1 contract errors or stale output (--check), 2 usage error or an output folder
with a symbolic link in it (toolgate never writes through a link).
`;

/** The flags of `toolgate generate` (and of `toolgate` alone: `--help`, `--version`). */
export const GENERATE_OPTIONS = {
  schemas: { type: "string" },
  out: { type: "string" },
  check: { type: "boolean" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

/** Where output goes (re-exported for callers of {@link main}). */
export type { Console };

/** Run the CLI with the given arguments; resolves to the exit code. */
export async function main(argv: readonly string[], console: Console = stdio): Promise<number> {
  const io = terminalConsole(console);
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, error);
    if (error instanceof ContractError) {
      io.err(`error ${errorLine(error)}`);
      return 1;
    }
    if (error instanceof UnsafeOutputError) {
      io.err(`toolgate: ${terminalText(error.message)}`);
      return 2;
    }
    throw error;
  }
}

async function run(argv: readonly string[], io: Console): Promise<number> {
  // `import` has options of its own (--stdio, --force), so it parses its own arguments.
  if (argv[0] === "import") return (await import("../mcp/import.js")).runImport(argv.slice(1), io);
  // So does `diff` (--base, --head, --format, --fail-on).
  if (argv[0] === "diff") return (await import("../diff/command.js")).runDiff(argv.slice(1), io);
  if (argv[0] === "init") return (await import("./init.js")).runInit(argv.slice(1), io);
  if (argv[0] === "report") return (await import("../report/command.js")).runReport(argv.slice(1), io);
  if (argv[0] === "proxy") return (await import("../proxy/command.js")).runProxy(argv.slice(1), io);
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(await helpText());
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

  const config = await readConfig(process.cwd());
  const schemas = path.resolve(values.schemas ?? config.schemas ?? "schemas");
  const out = path.resolve(values.out ?? config.out ?? "generated");
  if (!existsSync(schemas)) throw new UsageError(`no contracts folder at ${schemas}`);
  const { remotes, roots } = configFolders(config, process.cwd());

  // Roots decide which references are read, so a note for other roots is another question.
  const key = { schemas, out, options: roots.length === 0 ? remotes : { remotes, roots } };
  const where = path.relative(process.cwd(), out) || ".";
  if (
    values.check &&
    (await recordedFresh({ schemas, out, remotes, roots }, () => generatedFiles(out))) &&
    !(await generatorChangedSince(key))
  ) {
    io.out(`${where}/ is up to date (as its lock records: the same contracts, files and generator).`);
    return 0;
  }
  // The pipeline (Ajv, json-schema-to-typescript, the TypeScript parser) loads only when there is work to do.
  const { generate } = await import("../pipeline.js");
  const result = await generate({ schemas, remotes, roots });
  // A check answers one question, what is stale: the tools and their warnings are what generate already said.
  if (!values.check || values.verbose) printSummary(result.tools, io);
  if (!values.check || values.verbose) {
    const warning = tokenizerWarning(result.tools, process.cwd());
    if (warning !== undefined) io.err(terminalText(warning));
  }
  if (!result.ok) {
    for (const error of result.errors) io.err(`error ${errorLine(error)}`);
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
  return parseCommandArgs(argv, GENERATE_OPTIONS);
}

/** A contract error as one terminal line: every part of it may quote the contract. */
function errorLine(error: ContractError): string {
  return `${terminalText(error.file)}#${terminalText(error.pointer)}: ${terminalText(error.message)}`;
}

/** One line per tool, then its checker findings. */
function printSummary(tools: readonly ToolSummary[], io: Console): void {
  for (const tool of tools) {
    const budget = `${tool.context.max} ${tool.context.unit}`;
    // A text or content result has no schema: its ceiling is the declared one.
    const schemaless = tool.kind === "text" || tool.kind === "content";
    const derived = schemaless
      ? `${tool.kind} result, declared`
      : tool.derivedMaxBytes === null
        ? "unbounded schema"
        : `largest valid result ${tool.derivedMaxBytes} B`;
    const findings = schemaless
      ? "no output schema"
      : tool.findings.length === 0
        ? "fully bounded"
        : `${tool.findings.length} finding${tool.findings.length === 1 ? "" : "s"}`;
    const name = terminalText(tool.tool);
    if (tool.folder === "") io.out(`${name}: not generated (see the errors below)`);
    else
      io.out(
        `${name} → ${terminalText(tool.folder)}/  ceiling ${tool.maxBytes} B (${derived}), budget ${budget}, ${findings}`,
      );
    for (const finding of [...(tool.warnings ?? []), ...tool.findings])
      io.out(`  warn ${terminalText(tool.file)}#${terminalText(finding.pointer)}: ${terminalText(finding.message)}`);
  }
}
