/**
 * `toolgate diff`: the review report of the contract changes between two revisions or folders.
 *
 *   toolgate diff [--base REV|DIR] [--head REV|DIR] [--schemas DIR] [--format markdown|json] [--fail-on CLASSES]
 *
 * Exit codes: 0 no change of a class named by `--fail-on`; 1 such a change, or a contract that cannot be read;
 * 2 a usage error (an unknown option, class or format, a side that is neither a folder nor a revision).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { MAX_CONFIG_BYTES, readBoundedText, readFailure } from "../files.js";
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

/** Where the report goes; the same shape as the CLI's console. */
export interface DiffConsole {
  out: (line: string) => void;
  err: (line: string) => void;
}

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

/** A mistake on the command line: reported in one line, exit 2. */
class DiffUsageError extends Error {}

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
    const parseError = String((error as NodeJS.ErrnoException).code ?? "").startsWith("ERR_PARSE_ARGS");
    if (!(error instanceof DiffUsageError) && !parseError) throw error;
    io.err(`toolgate: ${(error as Error).message}`);
    io.err("Run `toolgate --help` for usage.");
    return 2;
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

/** Parse the arguments of `toolgate diff`, with `toolgate.config.json` (in `cwd`) for the folders. */
export async function parseDiffArguments(argv: readonly string[], cwd: string): Promise<DiffOptions> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      base: { type: "string" },
      head: { type: "string" },
      schemas: { type: "string" },
      format: { type: "string" },
      "fail-on": { type: "string" },
    },
  });
  if (positionals.length > 0) throw new DiffUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const format = values.format ?? "markdown";
  if (format !== "markdown" && format !== "json")
    throw new DiffUsageError(`--format must be markdown or json, not ${JSON.stringify(format)}`);
  const failOn: ChangeClass[] = [];
  for (const word of (values["fail-on"] ?? "")
    .split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "")) {
    if (!isChangeClass(word))
      throw new DiffUsageError(
        `--fail-on: unknown class ${JSON.stringify(word)} (classes: ${CHANGE_CLASSES.join(", ")})`,
      );
    if (!failOn.includes(word)) failOn.push(word);
  }
  const config = await readConfig(cwd);
  return {
    base: values.base ?? "HEAD",
    head: values.head,
    schemas: path.resolve(cwd, values.schemas ?? config.schemas ?? "schemas"),
    format,
    failOn,
    remotes: Object.entries(config.refs ?? {}).map(([prefix, folder]) => [prefix, path.resolve(cwd, folder)] as const),
    roots: (config.roots ?? []).map((folder) => path.resolve(cwd, folder)),
    cwd,
  };
}

/** The keys of `toolgate.config.json` that `diff` reads; `generate` validates the file as a whole. */
async function readConfig(cwd: string): Promise<{ schemas?: string; refs?: Record<string, string>; roots?: string[] }> {
  const file = path.join(cwd, "toolgate.config.json");
  if (!existsSync(file)) return {};
  let text: string;
  try {
    text = await readBoundedText(file, MAX_CONFIG_BYTES);
  } catch (error) {
    throw new DiffUsageError(`toolgate.config.json: cannot read the config: ${readFailure(error)}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new DiffUsageError(`toolgate.config.json: invalid JSON: ${(error as Error).message}`);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config))
    throw new DiffUsageError("toolgate.config.json: the config is a JSON object");
  const { schemas, refs, roots } = config as { schemas?: unknown; refs?: unknown; roots?: unknown };
  const out: { schemas?: string; refs?: Record<string, string>; roots?: string[] } = {};
  if (typeof schemas === "string") out.schemas = schemas;
  if (Array.isArray(roots)) out.roots = roots.filter((root): root is string => typeof root === "string");
  if (typeof refs === "object" && refs !== null && !Array.isArray(refs)) {
    out.refs = Object.fromEntries(
      Object.entries(refs).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  }
  return out;
}
