/**
 * The whole generator as one function: load → resolve → check → model → emit. (The CLI then writes or compares.)
 * Each stage is a module of its own; this file only runs them in order and gathers every contract's errors, so one
 * run reports all of them.
 */
import path from "node:path";
import { checkBounds, type Finding } from "./checks/index.js";
import { checkSchemaSafety } from "./checks/safety.js";
import { dialectMisuse, dialectOf } from "./dialect.js";
import { type EmittedFiles, emitCatalog, emitTool } from "./emit.js";
import { type ContractError, ContractErrors, collectContractErrors, duplicateToolError } from "./errors.js";
import { compareText, displayPath, findContracts, type LoadedContract, loadContract } from "./load.js";
import { modelTool, nameScopes, type ToolModel } from "./model.js";
import { toolgateVersion } from "./package.js";
import { inputsRead } from "./record.js";
import { type ResolveOptions, resolveSchema } from "./resolve.js";
import type { JsonSchema, ResolvedSchema } from "./schema.js";

/** What `generate` needs to know. */
export interface GenerateOptions {
  /** The folder holding `*.tool.json` contracts. */
  schemas: string;
  /** URI prefixes of referenced schemas served from local folders. */
  remotes?: ResolveOptions["remotes"];
  /** The folder whose files get stable URIs; the working directory by default. */
  projectRoot?: string;
  /** Folders besides the project root that local references may read (`roots` in the config). */
  roots?: ResolveOptions["roots"];
}

/** One tool's line in the summary. */
export interface ToolSummary {
  tool: string;
  file: string;
  folder: string;
  /** Checker findings, with pointers into the contract file. */
  findings: Finding[];
  maxBytes: number;
  derivedMaxBytes: number | null;
  context: ToolModel["context"];
}

/** The generated files, or every contract error found. */
export type GenerateResult =
  | {
      ok: true;
      files: EmittedFiles;
      tools: ToolSummary[];
      /** Every file read: the contracts and the local files they reference (absolute paths). */
      inputs: string[];
    }
  | { ok: false; errors: ContractError[]; tools: ToolSummary[] };

/** Generate the adapters of every contract in a folder. Never writes: see the write stage. */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const version = toolgateVersion();
  const resolveOptions: ResolveOptions = {
    projectRoot: options.projectRoot ?? process.cwd(),
    remotes: options.remotes ?? [],
    // The contracts folder is a root of its own: the user named it, and its contracts reference their neighbours.
    roots: [path.resolve(options.schemas), ...(options.roots ?? [])],
  };
  const errors: ContractError[] = [];
  const collect = (error: unknown) => collectContractErrors(errors, error);

  const contracts: LoadedContract[] = [];
  for (const file of await findContracts(options.schemas)) {
    try {
      contracts.push(
        await loadContract(file, options.schemas, [resolveOptions.projectRoot, ...(resolveOptions.roots ?? [])]),
      );
    } catch (error) {
      collect(error);
    }
  }
  const byName = new Map<string, LoadedContract>();
  for (const contract of contracts) {
    const other = byName.get(contract.name);
    if (other !== undefined) errors.push(duplicateToolError(contract.file, contract.name, other.file));
    byName.set(contract.name, contract);
  }
  // Names are handed out in tool-name order, so a clash is always suffixed on the same tool.
  contracts.sort((a, b) => compareText(a.name, b.name) || compareText(a.relativePath, b.relativePath));

  // Resolving and the safety check of every contract start at once: the pattern checker answers each pattern
  // after a round trip, and those round trips overlap. Everything after them runs in contract order, so names,
  // summaries and errors come out exactly as if each contract were handled to the end before the next.
  const prepared = contracts.map((contract) => settle(prepare(contract, resolveOptions)));
  const scopes = nameScopes();
  const tools: ToolModel[] = [];
  const summaries: ToolSummary[] = [];
  for (const [i, contract] of contracts.entries()) {
    try {
      const { result, input } = unwrap(await (prepared[i] as Promise<Settled<PreparedContract>>));
      const bounds = checkBounds(result.bundled, { dialect: result.dialect, formats: contract.settings.formats });
      const summary: ToolSummary = {
        tool: contract.name,
        file: contract.file,
        folder: "",
        findings: bounds.findings.map((f) => ({ ...f, pointer: `/outputSchema${f.pointer}` })),
        maxBytes: 0,
        derivedMaxBytes: bounds.maxBytes,
        context: { unit: "bytes", max: 0 },
      };
      summaries.push(summary);
      const tool = modelTool(contract, result, input, bounds, scopes);
      Object.assign(summary, { folder: tool.folder, maxBytes: tool.limits.maxBytes, context: tool.context });
      tools.push(tool);
    } catch (error) {
      collect(error);
    }
  }

  const files: EmittedFiles = new Map();
  for (const tool of tools) {
    try {
      for (const [name, content] of await emitTool(tool, version)) files.set(name, content);
    } catch (error) {
      collect(error);
    }
  }
  if (errors.length > 0) return { ok: false, errors, tools: summaries };
  const source = `${displayPath(path.resolve(options.schemas))}/`;
  // Every file the run read, with the hash of the content it parsed.
  const read = inputsRead(
    tools.flatMap((tool) => [
      [tool.contract.path, tool.contract.readSha256] as const,
      ...Object.entries(tool.result.files ?? {}),
      ...Object.entries(tool.input?.files ?? {}),
    ]),
  );
  const context = { schemas: path.resolve(options.schemas), remotes: resolveOptions.remotes, roots: options.roots };
  return {
    ok: true,
    files: emitCatalog(tools, version, source, files, { context, read }),
    tools: summaries,
    inputs: [...read.keys()].sort(compareText),
  };
}

/** A contract's schemas, resolved and found safe to compile. */
interface PreparedContract {
  result: ResolvedSchema;
  input: ResolvedSchema | undefined;
}

/** Resolve a contract's schemas and refuse what would hurt whoever runs the validator (ReDoS, absurd size). */
async function prepare(contract: LoadedContract, options: ResolveOptions): Promise<PreparedContract> {
  const result = await resolveOne(contract, contract.outputSchema, "/outputSchema", options);
  const input =
    contract.inputSchema === undefined
      ? undefined
      : await resolveOne(contract, contract.inputSchema, "/inputSchema", options);
  // Before anything compiles them.
  const unsafe = await checkSchemaSafety({
    file: contract.file,
    schemas: input ? [result, input] : [result],
    formats: contract.settings.formats,
  });
  if (unsafe.length > 0) throw new ContractErrors(unsafe);
  return { result, input };
}

/** A promise's outcome, held until its turn comes (a rejection waiting its turn is not an unhandled one). */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function unwrap<T>(settled: Settled<T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/** Dialect, dialect misuse and references of one schema of a contract. */
async function resolveOne(
  contract: LoadedContract,
  schema: JsonSchema,
  pointer: string,
  options: ResolveOptions,
): Promise<ResolvedSchema> {
  const dialect = dialectOf(schema, contract.file, pointer);
  const misuse = dialectMisuse(schema, dialect, contract.file, pointer);
  if (misuse.length > 0) throw new ContractErrors(misuse);
  return resolveSchema(schema, dialect, contract.path, pointer, options);
}
