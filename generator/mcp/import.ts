/**
 * `toolgate import`: MCP tool definitions become contract files.
 *
 *   toolgate import FILE... [--out DIR] [--prefix NAME] [--json-text NAME]... [--force]
 *   toolgate import --stdio "[NAME=value...] COMMAND ARGS" [--cwd DIR] [--out DIR] [--prefix NAME] [--json-text NAME]... [--force]
 *
 * A FILE holds a `tools/list` result (`{ tools, nextCursor? }`), a JSON-RPC response wrapping one, an array of tools
 * or one `Tool`. With `--stdio` the server is started and asked through the SDK client (see `mcp/server-tools.ts`).
 *
 * Decisions a user should know:
 * - One contract per tool, `<folder-safe name>.tool.json`, 2-space JSON. With `--prefix NAME` the tools of one server
 *   live under a name of their own, so two servers that both have a `read_file` live in one project: the contract
 *   is `<out>/NAME/<tool>.tool.json`, its `name` (the model-facing name, the catalog key, the generated folder) is
 *   `NAME_<tool>` (a tool already named `NAME_…` keeps its name rather than doubling the prefix, unless that would
 *   clash with another of the server's tools), and `x-toolgate.mcp.name` keeps the name the server knows, which the
 *   generated adapter exposes as `spec.mcp.name` for the call itself. Top-level keys in a fixed order (name,
 *   title, description, inputSchema, outputSchema, annotations, execution, icons, _meta, any other key sorted,
 *   `x-toolgate` last); the schemas are kept exactly as the server wrote them, so the contract's output schema
 *   hashes the same as the one the server advertises (the SDK validator provider looks validators up by it).
 * - Every tool is gated (`result-settings.ts`): one with an `outputSchema` as `structured`, one without as `text`
 *   (its text blocks, read under a 1 MiB ceiling, as prose for the model), or as `json_text` with `--json-text NAME`
 *   (its first text block parsed as JSON, against an output schema of the user's own, `{}` at first and kept on
 *   re-import). The import never calls a tool, so it cannot tell JSON from prose: the user says so. Every new
 *   contract allows each kind of content block under default bounds, and the report says what to tighten.
 *   Schemas the generator would refuse (an unsupported dialect, draft-07 `items: [..]` under 2020-12, a reference
 *   that cannot be resolved locally) are refused, with the generator's message: one contract the generator refuses
 *   would stop `toolgate generate` for the whole folder.
 * - The `x-toolgate` block gets defaults: `version: "1"`, when the output schema is not fully bounded (the
 *   generator then requires a declared ceiling) `receive.maxBytes` of {@link DEFAULT_RECEIVE_BYTES}, and for each
 *   string field without `maxLength` `view.strings[path].overflow: "lines"`, so a long file or log reaches the model
 *   as whole lines with a marked gap (`view-settings.ts`). Every unbounded field is listed so the user can bound it. An `x-toolgate` block sent by the server is ignored: the server does
 *   not get to set its own ceilings.
 * - An existing contract is never replaced silently. The same content is `unchanged`; a different one is refused
 *   unless `--force`, and even then the existing `x-toolgate` block (the user's settings) is kept. A tool already
 *   defined in another file of the folder is updated in that file.
 * - Exit code 0 when every tool was written or unchanged, 1 when any was refused (the others are still written),
 *   2 for a usage error or a server that could not be listed.
 * - Files are read bounded and only when regular (a FIFO or `/dev/zero` as FILE is refused), and a contract is
 *   written without following a symbolic link: a link in the contracts folder is refused in the report, the
 *   contracts folder being a link stops the import (`files.ts`).
 */
import { existsSync } from "node:fs";
import { lstat, stat } from "node:fs/promises";
import path from "node:path";
import type { Finding } from "../checks/index.js";
import { type Console, parseCommandArgs, reportUsage, UsageError } from "../cli/console.js";
import {
  CONTRACT_SUFFIX,
  compareText,
  displayPath,
  findContracts,
  type ShapeProblem,
  shapeProblem,
} from "../contract/load.js";
import type { ResultKind } from "../contract/x-toolgate.js";
import { checkWritablePath, readBoundedText, readFailure, UnsafeOutputError, writeFileInside } from "../files.js";
import { folderName, NameScope } from "../model/names.js";
import { isSchemaObject } from "../schema/guards.js";
import type { SchemaObject } from "../schema/shapes.js";
import {
  contractText,
  DEFAULT_RECEIVE_BYTES,
  hasCeiling,
  MAX_NAME_LENGTH,
  PREFIX_SHAPE,
  prefixedNames,
  settingsOf,
  withServerName,
} from "./contract-file.js";
import { gateDefinition, kindNote, withoutSettings } from "./result-settings.js";
import { checkSchemas } from "./schema-checks.js";
import { listServerTools, ServerListError, type ServerToolList } from "./server-tools.js";
import { importedSettings } from "./view-settings.js";

export { DEFAULT_RECEIVE_BYTES, PREFIX_SHAPE, prefixedName } from "./contract-file.js";

/** Where tool definitions come from and where the contracts go. */
export interface ImportOptions {
  /** The contracts folder. */
  out: string;
  /** Replace contracts whose definition changed (their `x-toolgate` block is kept). */
  force?: boolean;
  /** The folder whose files get stable URIs while schemas are resolved; the working directory by default. */
  projectRoot?: string;
  /** Contracts go to `<out>/<prefix>/`, named `<prefix>_<tool>`, the server's name kept in `x-toolgate.mcp.name`. */
  prefix?: string | undefined;
  /** Tools without an output schema that answer with JSON in text (by the server's name or the contract's). */
  jsonText?: readonly string[] | undefined;
}

/** A `--prefix` that cannot name a folder and the start of a tool name. */
export class PrefixError extends Error {
  override readonly name = "PrefixError";
}

/** One tool definition and where it came from (a file and index, or a server page), for the report. */
export interface ToolSource {
  definition: unknown;
  /** `tools.json#/tools/3`, `server#3`: shown when the tool has no usable name. */
  origin: string;
}

/** One tool written (or found unchanged): its contract file and what the user should bound. */
export interface ImportedTool {
  tool: string;
  /** The contract file, as shown to the user. */
  file: string;
  status: "written" | "replaced" | "unchanged";
  /** Unbounded parts of the output schema, with pointers into the contract file (`/outputSchema/...`). */
  findings: Finding[];
  /** Set when the import wrote the default receive ceiling because the output schema is unbounded (or absent). */
  defaultCeiling?: number | undefined;
  /** How the tool is gated (`x-toolgate.result.kind`). */
  kind: ResultKind;
  /** Things the user should know that did not stop the import. */
  notes: string[];
}

/** One tool that was not written, and why. */
export interface RefusedTool {
  /** The tool's name, or its origin when it has none. */
  tool: string;
  reason: string;
}

/** What an import did. */
export interface ImportReport {
  imported: ImportedTool[];
  refused: RefusedTool[];
  /** Notes about the input as a whole (e.g. a file that holds only one page of a paged list). */
  notes: string[];
}

/** A document that holds no tool definitions in any of the accepted shapes. */
export class ToolListShapeError extends Error {
  override readonly name = "ToolListShapeError";
}

/**
 * The tool definitions a parsed document holds: a `tools/list` result, a JSON-RPC response wrapping one, an array
 * of tools, or one `Tool`. `nextCursor` is returned when the document is one page of a longer list.
 */
export function toolsOfDocument(document: unknown, origin: string): { tools: ToolSource[]; nextCursor?: string } {
  if (Array.isArray(document)) {
    return { tools: document.map((definition, i) => ({ definition, origin: `${origin}#/${i}` })) };
  }
  if (!isSchemaObject(document))
    throw new ToolListShapeError(`${origin}: not a tool list, a JSON-RPC response or a tool`);
  if (Object.hasOwn(document, "jsonrpc") && (Object.hasOwn(document, "result") || Object.hasOwn(document, "error"))) {
    if (Object.hasOwn(document, "error")) {
      const error = document.error as { code?: unknown; message?: unknown } | null;
      throw new ToolListShapeError(
        `${origin}: the JSON-RPC response is an error (${String(error?.code)}: ${boundedText(String(error?.message))})`,
      );
    }
    return toolsOfDocument(document.result, `${origin}#/result`);
  }
  if (Object.hasOwn(document, "tools")) {
    if (!Array.isArray(document.tools)) throw new ToolListShapeError(`${origin}: \`tools\` is not an array`);
    const tools = document.tools.map((definition, i) => ({ definition, origin: `${origin}#/tools/${i}` }));
    return typeof document.nextCursor === "string" ? { tools, nextCursor: document.nextCursor } : { tools };
  }
  if (typeof document.name === "string") return { tools: [{ definition: document, origin }] };
  throw new ToolListShapeError(`${origin}: not a tool list, a JSON-RPC response or a tool (no \`tools\` or \`name\`)`);
}

/** Read tool definitions from files. A file that cannot be read or holds no tools is refused in the report. */
export async function readToolFiles(
  files: readonly string[],
): Promise<{ tools: ToolSource[]; refused: RefusedTool[]; notes: string[] }> {
  const tools: ToolSource[] = [];
  const refused: RefusedTool[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const shown = displayPath(path.resolve(file));
    let text: string;
    try {
      text = await readBoundedText(file);
    } catch (error) {
      refused.push({ tool: shown, reason: `cannot read the file: ${readFailure(error)}` });
      continue;
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      refused.push({ tool: shown, reason: `cannot read the file as JSON: ${(error as Error).message}` });
      continue;
    }
    try {
      const found = toolsOfDocument(document, shown);
      tools.push(...found.tools);
      if (found.nextCursor !== undefined) {
        notes.push(`${shown} is one page of a longer list (it has a nextCursor): use --stdio to read every page`);
      }
    } catch (error) {
      if (!(error instanceof ToolListShapeError)) throw error;
      // The message starts with the origin, which the report already shows as the "tool".
      const reason = error.message.startsWith(`${shown}: `) ? error.message.slice(shown.length + 2) : error.message;
      refused.push({ tool: shown, reason });
    }
  }
  return { tools, refused, notes };
}

/** Turn tool definitions into contract files in `options.out`. Never replaces a contract silently. */
export async function importTools(sources: readonly ToolSource[], options: ImportOptions): Promise<ImportReport> {
  const prefix = options.prefix;
  if (prefix !== undefined && !PREFIX_SHAPE.test(prefix)) {
    throw new PrefixError(
      `the prefix ${JSON.stringify(prefix)} is not a name: use 1 to 64 letters, digits, "_" or "-", starting with a letter or digit`,
    );
  }
  const out = path.resolve(options.out);
  // Where new contracts go: the contracts folder, or its folder for the prefix.
  const folder = prefix === undefined ? out : path.join(out, prefix);
  if (existsSync(out) && (await lstat(out)).isSymbolicLink()) {
    throw new UnsafeOutputError(
      `the contracts folder ${out} is a symbolic link: toolgate never writes through a link; pass the folder it points to as --out`,
    );
  }
  const report: ImportReport = { imported: [], refused: [], notes: [] };
  const existing = await existingContracts(out, folder);

  const accepted = acceptedDefinitions(sources, report, prefix, options.jsonText ?? [], existing.byName);
  const scope = new NameScope([...existing.files].map((file) => file.slice(0, -CONTRACT_SUFFIX.length)));
  const jsonText = new Set(options.jsonText ?? []);
  // The name the model sees (and the catalog key); the server's own name is kept for the call itself.
  for (const { name: serverName, modelName: name, definition: served } of accepted) {
    if (name.length > MAX_NAME_LENGTH) {
      report.refused.push({
        tool: name,
        reason: `with the prefix the name is ${name.length} characters, and a tool name has at most ${MAX_NAME_LENGTH}: choose a shorter prefix`,
      });
      continue;
    }
    const target =
      existing.byName.get(name) ?? path.join(folder, `${scope.claim(folderName(serverName))}${CONTRACT_SUFFIX}`);
    const shown = displayPath(target);
    const relative = path.relative(out, target).split(path.sep).join("/");
    try {
      await checkWritablePath(out, relative);
    } catch (error) {
      if (!(error instanceof UnsafeOutputError)) throw error;
      report.refused.push({ tool: name, reason: error.message });
      continue;
    }
    const notes: string[] = [];
    let previous: string | undefined;
    try {
      previous = existsSync(target) ? await readBoundedText(target) : undefined;
    } catch (error) {
      report.refused.push({ tool: name, reason: `cannot read ${shown}: ${readFailure(error)}` });
      continue;
    }
    const named = jsonText.has(serverName) || jsonText.has(name);
    const gated = gateDefinition(served, previous, previous === undefined ? undefined : settingsOf(previous), named);
    const { kind, definition } = gated;
    const previousSettings = gated.kept;
    const schemaProblems = await checkSchemas(
      definition,
      target,
      options.projectRoot ?? process.cwd(),
      out,
      previousSettings,
    );
    if ("reasons" in schemaProblems) {
      report.refused.push({ tool: name, reason: schemaProblems.reasons.join("; ") });
      continue;
    }
    notes.push(...gated.notes, ...schemaProblems.warnings);
    if (Object.hasOwn(served, "x-toolgate")) notes.push("the server's own x-toolgate block was ignored");
    const defaultCeiling =
      schemaProblems.maxBytes === null && previousSettings === undefined ? DEFAULT_RECEIVE_BYTES : undefined;
    const fresh = importedSettings(defaultCeiling, kind, schemaProblems.bundled);
    const settings = withServerName(previousSettings ?? fresh, name, serverName, prefix !== undefined);
    if (previousSettings === undefined) {
      const note = kindNote(kind, defaultCeiling);
      if (note !== undefined) notes.push(note);
    }
    if (schemaProblems.maxBytes === null && previousSettings !== undefined && !hasCeiling(previousSettings)) {
      notes.push(
        kind === "text"
          ? "the kept x-toolgate block declares no receive.maxBytes, which a text result needs"
          : "the output schema is not fully bounded and the kept x-toolgate block declares no receive.maxBytes",
      );
    }
    let text: string;
    try {
      text = contractText(definition, settings, name);
    } catch (error) {
      report.refused.push({ tool: name, reason: `cannot write the definition as JSON: ${(error as Error).message}` });
      continue;
    }
    const findings = schemaProblems.findings.map((f) => ({ ...f, pointer: `/outputSchema${f.pointer}` }));
    const entry: ImportedTool = { tool: name, file: shown, status: "written", findings, defaultCeiling, kind, notes };
    if (previous !== undefined) {
      if (previous === text) {
        report.imported.push({ ...entry, status: "unchanged", defaultCeiling: undefined });
        continue;
      }
      if (!options.force) {
        report.refused.push({
          tool: name,
          reason:
            `${shown} exists and differs from the server's definition: review the change, then pass --force to replace ` +
            "it (its x-toolgate block is kept); if it is another server's tool of the same name, import this server " +
            "with --prefix NAME instead",
        });
        continue;
      }
      entry.status = "replaced";
      if (previousSettings !== undefined) notes.push("the existing x-toolgate block was kept");
    }
    try {
      await writeFileInside(out, relative, text);
    } catch (error) {
      if (!(error instanceof UnsafeOutputError)) throw error;
      report.refused.push({ tool: name, reason: error.message });
      continue;
    }
    report.imported.push(entry);
  }
  return report;
}

/**
 * The definitions that can become contracts, in tool-name order (so a clash is always suffixed the same way), each
 * with the name the model will see (`modelName`, the server's `name` under a prefix, as the project's contracts
 * `existingNames` already call it); the others go to the report's refusals, and a `--json-text` name that names no
 * tool to its notes.
 */
function acceptedDefinitions(
  sources: readonly ToolSource[],
  report: ImportReport,
  prefix: string | undefined,
  jsonText: readonly string[],
  existingNames: ReadonlyMap<string, string>,
): Array<{ name: string; modelName: string; definition: SchemaObject }> {
  const accepted: Array<{ name: string; definition: SchemaObject }> = [];
  const names = new Set<string>();
  for (const source of sources) {
    const checked = checkDefinition(source);
    if ("reason" in checked) {
      report.refused.push(checked);
      continue;
    }
    if (names.has(checked.name)) {
      report.refused.push({ tool: checked.name, reason: "defined twice in the input: only the first is imported" });
      continue;
    }
    names.add(checked.name);
    accepted.push(checked);
  }
  accepted.sort((a, b) => compareText(a.name, b.name));
  const prefixed = prefix === undefined ? undefined : prefixedNames(prefix, [...names], existingNames);
  const named = accepted.map((tool) => ({ ...tool, modelName: prefixed?.get(tool.name) ?? tool.name }));
  for (const name of jsonText) {
    const known = named.some((tool) => tool.name === name || tool.modelName === name);
    if (!known) report.notes.push(`--json-text ${boundedText(name, 128)}: the input has no tool of that name`);
  }
  return named;
}

/** How `import` words a shape problem where its reader needs other advice than a contract file's author. */
const IMPORT_WORDING: Partial<Record<ShapeProblem["kind"], (problem: ShapeProblem) => string>> = {
  "not-an-object": () => "not a tool definition (a JSON object)",
  "not-a-schema": (problem) => `\`${problem.key}\` is not a JSON Schema`,
};

/** A definition's name and shape (the load stage's own check), or why it cannot become a contract. */
function checkDefinition(source: ToolSource): { name: string; definition: SchemaObject } | RefusedTool {
  const definition = source.definition;
  // The server's own x-toolgate block is ignored (the import writes its own), so it cannot choose the result kind.
  const problem = shapeProblem(withoutSettings(definition));
  if (problem === undefined) {
    const tool = definition as SchemaObject & { name: string };
    return { name: tool.name, definition: tool };
  }
  const reason = IMPORT_WORDING[problem.kind]?.(problem) ?? problem.message;
  // Until the name is known to be one, the tool is named by where it came from.
  const named = problem.kind !== "not-an-object" && problem.kind !== "name";
  return { tool: named ? String((definition as SchemaObject).name) : source.origin, reason };
}

/**
 * The contract files already in the contracts folder: the names of those in `folder` (where new ones go), and which
 * file defines each tool, anywhere below `out`.
 */
async function existingContracts(
  out: string,
  folder: string,
): Promise<{ files: Set<string>; byName: Map<string, string> }> {
  const files = new Set<string>();
  const byName = new Map<string, string>();
  if (!existsSync(out) || !(await stat(out)).isDirectory()) return { files, byName };
  for (const file of await findContracts(out)) {
    if (path.dirname(file) === folder) files.add(path.basename(file));
    try {
      const document = JSON.parse(await readBoundedText(file)) as unknown;
      if (isSchemaObject(document) && typeof document.name === "string" && !byName.has(document.name)) {
        byName.set(document.name, file);
      }
    } catch {
      // A broken contract names no tool; `toolgate generate` reports it.
    }
  }
  return { files, byName };
}

/** Text from a payload shown in a message: one line, bounded. */
function boundedText(text: string, max = 200): string {
  const line = text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, " ");
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** Where the CLI prints: its console. */
export type ImportConsole = Console;

const USAGE = `Usage:
  toolgate import FILE... [--out DIR] [--prefix NAME] [--json-text NAME]... [--force]
  toolgate import --stdio "[NAME=value...] COMMAND ARGS" [--cwd DIR] [--out DIR] [--prefix NAME] [--json-text NAME]... [--force]`;

/** `toolgate import …` (the arguments after `import`); resolves to the exit code. */
export async function runImport(argv: readonly string[], io: ImportConsole): Promise<number> {
  let parsed: ReturnType<typeof parseImportArgs>;
  try {
    parsed = parseImportArgs(argv);
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.stdio !== undefined && positionals.length > 0) return usage(io, "give FILE or --stdio, not both");
  if (values.stdio === undefined && positionals.length === 0) return usage(io, "no FILE and no --stdio given");
  if (values.cwd !== undefined && values.stdio === undefined)
    return usage(io, "--cwd is the server's folder: give it with --stdio");
  if (values.prefix !== undefined && !PREFIX_SHAPE.test(values.prefix)) {
    return usage(
      io,
      `--prefix ${JSON.stringify(values.prefix)}: use 1 to 64 letters, digits, "_" or "-", starting with a letter or digit`,
    );
  }
  let cwd: string | undefined;
  if (values.cwd !== undefined) {
    cwd = path.resolve(values.cwd);
    if (!existsSync(cwd) || !(await stat(cwd)).isDirectory()) return usage(io, `--cwd: no folder at ${cwd}`);
  }
  const out = path.resolve(values.out ?? "schemas");

  let sources: ToolSource[];
  const refused: RefusedTool[] = [];
  const notes: string[] = [];
  if (values.stdio !== undefined) {
    let listed: ServerToolList;
    try {
      listed = await listServerTools(values.stdio, { cwd });
    } catch (error) {
      io.err(`toolgate: cannot list the server's tools: ${boundedText((error as Error).message, 500)}`);
      const tail = error instanceof ServerListError ? error.stderrTail : [];
      if (tail.length > 0) {
        io.err(`the server's stderr, last ${tail.length} line${tail.length === 1 ? "" : "s"}:`);
        for (const line of tail) io.err(`  ${line}`);
      }
      return 2;
    }
    const who =
      listed.server === undefined
        ? "the server"
        : `${boundedText(listed.server.name, 80)} ${boundedText(listed.server.version, 40)}`;
    io.out(
      `${who}: ${listed.tools.length} tool${listed.tools.length === 1 ? "" : "s"} in ${listed.pages} page${listed.pages === 1 ? "" : "s"}`,
    );
    sources = listed.tools.map((definition, i) => ({ definition, origin: `tools/list#${i}` }));
  } else {
    const missing = positionals.find((file) => !existsSync(file));
    if (missing !== undefined) return usage(io, `no file at ${missing}`);
    const read = await readToolFiles(positionals);
    sources = read.tools;
    refused.push(...read.refused);
    notes.push(...read.notes);
  }

  const report = await importTools(sources, {
    out,
    force: values.force ?? false,
    prefix: values.prefix,
    jsonText: values["json-text"],
  });
  report.refused.unshift(...refused);
  report.notes.unshift(...notes);
  printReport(report, io);
  return report.refused.length > 0 ? 1 : 0;
}

/** The flags of `toolgate import`. */
export const IMPORT_OPTIONS = {
  out: { type: "string" },
  stdio: { type: "string" },
  cwd: { type: "string" },
  prefix: { type: "string" },
  "json-text": { type: "string", multiple: true },
  force: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parseImportArgs(argv: readonly string[]) {
  return parseCommandArgs(argv, IMPORT_OPTIONS);
}

/** A usage error of `import`: the message, then the command's usage. */
function usage(io: ImportConsole, message: string): number {
  return reportUsage(io, new UsageError(message, USAGE));
}

/** The report: one line per tool, its unbounded fields, then the refusals and the totals. */
export function printReport(report: ImportReport, io: ImportConsole): void {
  for (const note of report.notes) io.out(`note ${note}`);
  for (const tool of report.imported) {
    const bounded =
      tool.kind === "text"
        ? "gated as text"
        : tool.findings.length === 0
          ? "fully bounded"
          : `${tool.findings.length} unbounded field${tool.findings.length === 1 ? "" : "s"}`;
    io.out(`${tool.status.padEnd(9)} ${tool.file} (${boundedText(tool.tool, 128)}): ${bounded}`);
    for (const finding of tool.findings) io.out(`  warn ${tool.file}#${finding.pointer}: ${finding.message}`);
    if (tool.defaultCeiling !== undefined && tool.kind === "structured") {
      io.out(
        `  note x-toolgate.receive.maxBytes set to ${tool.defaultCeiling} because the output schema is not fully bounded: review it, or bound the fields above`,
      );
    }
    for (const note of tool.notes) io.out(`  note ${note}`);
  }
  for (const tool of report.refused) io.err(`refused   ${boundedText(tool.tool, 128)}: ${tool.reason}`);
  const count = (status: ImportedTool["status"]) => report.imported.filter((tool) => tool.status === status).length;
  io.out(
    `${count("written")} written, ${count("replaced")} replaced, ${count("unchanged")} unchanged, ${report.refused.length} refused.`,
  );
}
