/**
 * The whole generator as one function: the front door (load → resolve, `contract.ts`) → safety → check → model → emit. (The CLI then writes or compares.)
 * Each stage is a module of its own; this file only runs them in order and gathers every contract's errors, so one
 * run reports all of them.
 */
import path from "node:path";
import { checkBounds, type Finding } from "./checks/index.js";
import { checkSchemaSafety } from "./checks/safety.js";
import { type ContractError, ContractErrors, collectContractErrors } from "./contract/errors.js";
import { duplicateError, loadContracts, type PreparedContract, prepareContract } from "./contract/index.js";
import { compareText, displayPath, type LoadedContract } from "./contract/load.js";
import type { ResolveOptions } from "./contract/resolve.js";
import { type EmittedFiles, emitCatalog, emitTool } from "./emit/index.js";
import { inputsRead } from "./lock/record.js";
import { modelTool, nameScopes, type ToolModel } from "./model/index.js";
import { NO_SCHEMA_BOUNDS } from "./model/result-kind.js";
import { textViewSchema, viewSchema } from "./model/view-schema.js";
import { toolgateVersion } from "./package.js";
import { isSchemaObject } from "./schema/guards.js";
import type { SchemaObject } from "./schema/shapes.js";

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
  /**
   * Leave a refused contract out and generate the others, naming it in the result's `refused` (`toolgate proxy`
   * serves every other tool). Off by default: `generate` writes nothing while any contract has an error.
   */
  skipRefused?: boolean | undefined;
}

/** The contracts a run with `skipRefused` left out: their errors, and the tool names they would have gated. */
export interface RefusedContracts {
  errors: ContractError[];
  /** The contract name and the server's name (`x-toolgate.mcp.name`) of each refused contract that loaded. */
  tools: string[];
  /** Contract files refused before their tool's name was known (they did not load). */
  unnamed: number;
}

/** One tool's line in the summary. */
export interface ToolSummary {
  tool: string;
  file: string;
  folder: string;
  /** Checker findings, with pointers into the contract file. */
  findings: Finding[];
  /** How a schema was read that the user should know (pointers into the contract file); never a refusal. */
  warnings?: Array<{ pointer: string; message: string }> | undefined;
  maxBytes: number;
  derivedMaxBytes: number | null;
  /** How the tool answers (`x-toolgate.result.kind`). */
  kind?: ToolModel["resultKind"]["kind"] | undefined;
  context: ToolModel["context"];
  /** The JSON Schema of the tool's view: what a host reading gated results receives (`toolgate proxy` lists it). */
  viewSchema?: SchemaObject | undefined;
  /** The tool as the contract defines it, which `toolgate proxy` lists in place of what the server says now. */
  definition?: ContractDefinition | undefined;
}

/**
 * A tool's reviewed definition: the contract's title, description and annotations, and the input schema the
 * adapter's `checkInput` holds arguments to (with `x-toolgate.refineInput`, and self-contained when it referenced
 * other files). What the server lists after review (a new argument, a flipped hint) never replaces it.
 */
export interface ContractDefinition {
  title?: string | undefined;
  description?: string | undefined;
  /** Absent when the contract declares none: the contract then says nothing of the arguments. */
  inputSchema?: SchemaObject | undefined;
  annotations?: Record<string, unknown> | undefined;
}

/** The definition of a prepared contract, as {@link ContractDefinition} says. */
function contractDefinition(ready: PreparedContract): ContractDefinition {
  const { document, description } = ready.contract;
  const { title, annotations } = document as { title?: unknown; annotations?: unknown };
  const input = ready.input;
  const inputSchema =
    input === undefined ? undefined : Object.keys(input.documents).length === 0 ? input.root : input.bundled;
  return {
    ...(typeof title === "string" ? { title } : {}),
    ...(description === undefined ? {} : { description }),
    ...(isSchemaObject(inputSchema) ? { inputSchema } : {}),
    ...(isSchemaObject(annotations) ? { annotations: annotations as Record<string, unknown> } : {}),
  };
}

/** The generated files, or every contract error found. */
export type GenerateResult =
  | {
      ok: true;
      files: EmittedFiles;
      tools: ToolSummary[];
      /** Every file read: the contracts and the local files they reference (absolute paths). */
      inputs: string[];
      /** With `skipRefused`: the contracts left out, when any were. */
      refused?: RefusedContracts | undefined;
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
  const refusedTools: string[] = [];
  const refuse = (contract: LoadedContract) => {
    refusedTools.push(contract.name);
    if (contract.settings.mcp?.name !== undefined) refusedTools.push(contract.settings.mcp.name);
  };

  const loaded = await loadContracts(options.schemas, [resolveOptions.projectRoot, ...(resolveOptions.roots ?? [])]);
  const contracts = loaded.flatMap((entry) => (entry.contract === undefined ? [] : [entry.contract]));
  // Every load error in file order, then every duplicate tool in file order.
  errors.push(...loaded.flatMap((entry) => entry.errors), ...loaded.flatMap((entry) => duplicateError(entry) ?? []));
  // Names are handed out in tool-name order, so a clash is always suffixed on the same tool.
  contracts.sort((a, b) => compareText(a.name, b.name) || compareText(a.relativePath, b.relativePath));

  // Resolving and the safety check of every contract start at once: the pattern checker answers each pattern
  // after a round trip, and those round trips overlap. Everything after them runs in contract order, so names,
  // summaries and errors come out exactly as if each contract were handled to the end before the next.
  const prepared = contracts.map((contract) => settle(prepareSafe(contract, resolveOptions)));
  const scopes = nameScopes();
  const tools: ToolModel[] = [];
  const summaries: ToolSummary[] = [];
  for (const [i, contract] of contracts.entries()) {
    try {
      const ready = unwrap(await (prepared[i] as Promise<Settled<PreparedContract>>));
      const { result, settings } = ready;
      // A text or content result has no schema to bound: its ceiling is declared (see model/result-kind.ts).
      const bounds =
        result === undefined
          ? NO_SCHEMA_BOUNDS
          : checkBounds(result.bundled, { dialect: result.dialect, formats: settings.formats });
      const summary: ToolSummary = {
        tool: contract.name,
        file: contract.file,
        folder: "",
        findings: bounds.findings.map((f) => ({ ...f, pointer: `/outputSchema${f.pointer}` })),
        warnings: [...(result?.warnings ?? []), ...(ready.input?.warnings ?? [])],
        maxBytes: 0,
        derivedMaxBytes: bounds.maxBytes,
        kind: settings.result.kind,
        context: { unit: "bytes", max: 0 },
      };
      summaries.push(summary);
      const tool = modelTool(ready, bounds, scopes);
      Object.assign(summary, {
        folder: tool.folder,
        maxBytes: tool.limits.maxBytes,
        context: tool.context,
        viewSchema: tool.result === undefined ? textViewSchema() : viewSchema(tool.view.plan),
        definition: contractDefinition(ready),
      });
      tools.push(tool);
    } catch (error) {
      collect(error);
      refuse(contract);
    }
  }

  const files: EmittedFiles = new Map();
  const emitted: ToolModel[] = [];
  // Every tool's emit starts at once, so their types are formatted in one pass (`types/print.ts`); their files and
  // errors are taken in tool order, as if each tool were emitted to the end before the next.
  const emits = tools.map((tool) => settle(emitTool(tool, version)));
  for (const [i, tool] of tools.entries()) {
    try {
      for (const [name, content] of unwrap(await (emits[i] as Promise<Settled<EmittedFiles>>)))
        files.set(name, content);
      emitted.push(tool);
    } catch (error) {
      collect(error);
      refuse(tool.contract);
    }
  }
  if (errors.length > 0 && !options.skipRefused) return { ok: false, errors, tools: summaries };
  const unnamed = loaded.filter((entry) => entry.contract === undefined).length;
  const refused =
    errors.length > 0 ? { errors, tools: [...new Set(refusedTools)].sort(compareText), unnamed } : undefined;
  tools.splice(0, tools.length, ...emitted);
  const source = `${displayPath(path.resolve(options.schemas))}/`;
  // Every file the run read, with the hash of the content it parsed.
  const read = inputsRead(
    tools.flatMap((tool) => [
      [tool.contract.path, tool.contract.readSha256] as const,
      ...Object.entries(tool.result?.files ?? {}),
      ...Object.entries(tool.input?.files ?? {}),
    ]),
  );
  const context = { schemas: path.resolve(options.schemas), remotes: resolveOptions.remotes, roots: options.roots };
  return {
    ok: true,
    files: emitCatalog(tools, version, source, files, { context, read }),
    tools: summaries,
    inputs: [...read.keys()].sort(compareText),
    refused,
  };
}

/**
 * A contract through the front door, then refused if it would hurt whoever runs the validator (ReDoS, absurd size):
 * before anything compiles it.
 */
async function prepareSafe(contract: LoadedContract, options: ResolveOptions): Promise<PreparedContract> {
  const prepared = await prepareContract(contract, options);
  const { result, advertised, input } = prepared;
  const unsafe = await checkSchemaSafety({
    file: contract.file,
    // The advertised schema is compiled too (for the MCP client's validator), without the overlay's bounds.
    schemas: [result, advertised, input].filter((schema) => schema !== undefined),
    formats: contract.settings.formats,
  });
  if (unsafe.length > 0) throw new ContractErrors(unsafe);
  return prepared;
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
