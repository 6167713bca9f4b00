/**
 * `toolgate diff`: the review report of the contract changes between two revisions or folders.
 *
 *   toolgate diff [--base REV|DIR] [--head REV|DIR] [--schemas DIR] [--format markdown|json] [--fail-on CLASSES]
 *
 * Exit codes: 0 no change of a class named by `--fail-on`; 1 such a change, or a contract that cannot be read;
 * 2 a usage error (an unknown option, class or format, a side that is neither a folder nor a revision).
 */
import path from "node:path";
import { type Config, configFolders, readConfig } from "../cli/config.js";
import { type Console, isParseArgsError, parseCommandArgs, reportUsage, UsageError } from "../cli/console.js";
import { ContractError } from "../contract/errors.js";
import { CHANGE_CLASSES, type ChangeClass, isChangeClass } from "./classes.js";
import { diffSnapshots } from "./contract-diff.js";
import { buildReport, type DiffReport, reportJson, reportMarkdown } from "./report.js";
import { snapshotFolder } from "./snapshot.js";
import { type ContractSource, openSource, SourceError } from "./source.js";

/** The `diff` lines of `toolgate --help`. */
export const DIFF_HELP = `  toolgate diff [--base REV|DIR] [--head REV|DIR] [--schemas DIR] [--format markdown|json] [--fail-on CLASSES]
      Compare the contracts of two git revisions or folders (default: HEAD against the working tree) and print
      each change with its tool, JSON pointer, before, after and class: ${CHANGE_CLASSES.join(", ")}.
      --fail-on breaking,exposure exits 1 when a change of a listed class occurs.`;

/** Where the report goes: the CLI's console. */
export type DiffConsole = Console;

/** The options of `toolgate diff`, as parsed. */
export interface DiffOptions {
  /** A git revision or a folder; default `HEAD`. */
  base: string;
  /** A git revision or a folder; default the working tree's contracts folder. */
  head?: string | undefined;
  /** The contracts folder in the working tree (and, for revisions, in the repository). */
  schemas: string;
  format: "markdown" | "json";
  failOn: ChangeClass[];
  /** URI prefixes of referenced schemas served from local folders (absolute). */
  remotes: ReadonlyArray<readonly [prefix: string, folder: string]>;
  /** Folders besides the working directory that local references may read (`roots` in the config; absolute). */
  roots?: readonly string[] | undefined;
  /** The working directory. */
  cwd: string;
}

/**
 * Run `toolgate diff` with the arguments after the command name; resolves to the exit code.
 * @param cwd the working directory (the process's own by default)
 */
export async function runDiff(argv: readonly string[], io: DiffConsole, cwd = process.cwd()): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out(
      `Usage:\n${DIFF_HELP}\n\nExit codes: 0 no change of a --fail-on class, 1 such a change or an unreadable contract, 2 usage error.`,
    );
    return 0;
  }
  let options: DiffOptions;
  try {
    options = await parseDiffArguments(argv, cwd);
  } catch (error) {
    if (isParseArgsError(error)) return reportUsage(io, new UsageError(error.message));
    if (!(error instanceof UsageError)) throw error;
    return reportUsage(io, error);
  }
  let report: DiffReport;
  try {
    report = await reviewContracts(options);
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    io.err(`toolgate: ${error.message}`);
    return 2;
  }
  io.out((options.format === "json" ? reportJson(report) : reportMarkdown(report)).replace(/\n$/, ""));
  for (const error of report.errors) io.err(`error (${error.side}) ${error.file}#${error.pointer}: ${error.message}`);
  const failing = options.failOn.filter((c) => report.summary.classes[c] > 0);
  if (failing.length > 0)
    io.err(
      `toolgate diff: ${failing.map((c) => `${report.summary.classes[c]} ${c}`).join(", ")} (--fail-on ${options.failOn.join(",")})`,
    );
  return failing.length > 0 || report.errors.length > 0 ? 1 : 0;
}

/** Open both sides, read their contracts and compare them. The sides' temporary folders are always removed. */
export async function reviewContracts(options: DiffOptions): Promise<DiffReport> {
  const context = { cwd: options.cwd, schemas: options.schemas, remotes: options.remotes, roots: options.roots ?? [] };
  const opened: ContractSource[] = [];
  try {
    const base = await openSource(options.base, context);
    opened.push(base);
    const head = await openSource(options.head, context);
    opened.push(head);
    const [before, after] = [
      await snapshotFolder(base.schemas, base.resolve),
      await snapshotFolder(head.schemas, head.resolve),
    ];
    const changes = diffSnapshots(before, after);
    return buildReport(
      { base: base.label, head: head.label, baseTools: before.tools.size, headTools: after.tools.size },
      changes,
      { base: before.errors, head: after.errors },
    );
  } finally {
    for (const source of opened) await source.dispose();
  }
}

/** The flags of `toolgate diff`. */
export const DIFF_OPTIONS = {
  base: { type: "string" },
  head: { type: "string" },
  schemas: { type: "string" },
  format: { type: "string" },
  "fail-on": { type: "string" },
} as const;

/** Parse the arguments of `toolgate diff`, with `toolgate.config.json` (in `cwd`) for the folders. */
export async function parseDiffArguments(argv: readonly string[], cwd: string): Promise<DiffOptions> {
  const { values, positionals } = parseCommandArgs(argv, DIFF_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const format = values.format ?? "markdown";
  if (format !== "markdown" && format !== "json")
    throw new UsageError(`--format must be markdown or json, not ${JSON.stringify(format)}`);
  const failOn: ChangeClass[] = [];
  for (const word of (values["fail-on"] ?? "")
    .split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "")) {
    if (!isChangeClass(word))
      throw new UsageError(`--fail-on: unknown class ${JSON.stringify(word)} (classes: ${CHANGE_CLASSES.join(", ")})`);
    if (!failOn.includes(word)) failOn.push(word);
  }
  const config = await configOf(cwd);
  const { remotes, roots } = configFolders(config, cwd);
  return {
    base: values.base ?? "HEAD",
    head: values.head,
    schemas: path.resolve(cwd, values.schemas ?? config.schemas ?? "schemas"),
    format,
    failOn,
    remotes,
    roots,
    cwd,
  };
}

/** `toolgate.config.json` in `cwd`; a broken one is a usage error of `diff` (exit 2), named by file and pointer. */
async function configOf(cwd: string): Promise<Config> {
  try {
    return await readConfig(cwd);
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    throw new UsageError(`${error.file}${error.pointer === "" ? "" : `#${error.pointer}`}: ${error.message}`);
  }
}
