/**
 * The tools the proxy gates, from a contracts folder: the generator runs in memory, the generated TypeScript is
 * compiled to JavaScript (TypeScript's own `transpileModule`) into a cache folder inside the project's
 * `node_modules/.cache/toolgate/proxy/` (so the adapters find the project's `@toolgate/runtime`), and the catalog
 * is imported from there. Each tool comes with the schema of its view, which the host is told instead of the
 * server's output schema.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ContractError } from "../contract/errors.js";
import { compareOutput } from "../emit/write.js";
import { type GenerateOptions, generate } from "../pipeline.js";
import type { ProxyTool } from "./serve.js";

/** The gated tools, by the names a server may call them. */
export interface ProxyCatalog {
  /** The tool the server calls `name`: by the contract's name, or its server name (`x-toolgate.mcp.name`). */
  findTool(name: string): ProxyTool | undefined;
  /** The contracts' tool names, sorted. */
  names: readonly string[];
  /** Where the compiled adapters are. */
  folder: string;
  /**
   * Contracts the generator refused, left out so the proxy serves every other tool: their errors, and the names
   * (contract and server) the proxy hides and refuses by name, even with `--allow-ungated`. Empty when none was.
   */
  refused: { errors: readonly ContractError[]; tools: ReadonlySet<string>; unnamed: number };
}

/** Every contract error of the folder, when the generator refused it. */
export class ProxyContractsError extends Error {
  constructor(readonly errors: readonly ContractError[]) {
    super(errors.map((error) => error.toString()).join("\n"));
    this.name = "ProxyContractsError";
  }
}

/** A generated folder that is not what its contracts generate now: the proxy would gate with other code. */
export class ProxyStaleError extends Error {
  constructor(
    readonly folder: string,
    readonly files: readonly string[],
  ) {
    super(
      `${folder} is not what its contracts generate (${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""}): run toolgate generate`,
    );
    this.name = "ProxyStaleError";
  }
}

/** Where the proxy's tools come from: a contracts folder, or a generated folder (and the contracts its lock names). */
export interface ProxyCatalogOptions {
  /** The contracts folder; with `generated`, the folder its lock names when this is absent. */
  schemas?: string | undefined;
  /** A generated folder: the proxy gates with exactly its adapters, refusing it when its contracts generate others. */
  generated?: string | undefined;
  projectRoot: string;
  remotes?: GenerateOptions["remotes"];
  roots?: GenerateOptions["roots"];
}

/** The contracts folder a generated folder's lock was made from, relative to the working directory it records. */
async function lockedContracts(generated: string, projectRoot: string): Promise<string> {
  let contracts: unknown;
  try {
    const lock = JSON.parse(await readFile(path.join(generated, "toolgate.lock.json"), "utf8"));
    contracts = lock?.record?.contracts;
  } catch {
    contracts = undefined;
  }
  if (typeof contracts !== "string") throw new ProxyStaleError(generated, ["toolgate.lock.json"]);
  return path.resolve(projectRoot, contracts);
}

/**
 * Generates the contracts in memory (with `generated`, checked byte for byte against that folder, as
 * `generate --check` does), compiles the adapters into the cache, and loads them.
 */
export async function loadProxyCatalog(options: ProxyCatalogOptions): Promise<ProxyCatalog> {
  const schemas =
    options.schemas ??
    (options.generated === undefined ? "schemas" : await lockedContracts(options.generated, options.projectRoot));
  const result = await generate({
    schemas,
    projectRoot: options.projectRoot,
    remotes: options.remotes ?? [],
    roots: options.roots,
    // A folder of contracts is served whole but for the refused ones; a generated folder is exactly what a run
    // that refused nothing wrote, so there a refusal means it is stale and stops the proxy.
    skipRefused: options.generated === undefined,
  });
  if (!result.ok) throw new ProxyContractsError(result.errors.filter((e) => e instanceof ContractError));
  if (options.generated !== undefined) {
    const stale = await compareOutput(options.generated, result.files);
    const files = [...stale.changed, ...stale.missing, ...stale.extra];
    if (files.length > 0) throw new ProxyStaleError(options.generated, files);
  }
  const { ts } = await import("ts-morph");
  const compiled = new Map<string, string>();
  for (const [name, content] of [...result.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (name.endsWith(".d.ts") || !/\.(ts|js)$/.test(name)) continue;
    const js = name.endsWith(".ts")
      ? ts.transpileModule(content, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          fileName: name,
        }).outputText
      : content;
    compiled.set(name.replace(/\.ts$/, ".js"), js);
  }
  const hash = createHash("sha256");
  for (const [name, js] of compiled) hash.update(`${name}\0${js}\0`);
  const folder = path.join(
    options.projectRoot,
    "node_modules",
    ".cache",
    "toolgate",
    "proxy",
    hash.digest("hex").slice(0, 16),
  );
  for (const [name, js] of compiled) {
    const file = path.join(folder, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, js);
  }
  // The compiled files are ES modules whatever the project's own package.json says.
  await writeFile(path.join(folder, "package.json"), '{ "type": "module" }\n');
  const index = (await import(pathToFileURL(path.join(folder, "index.js")).href)) as {
    catalog: Record<string, { adapter: ProxyTool["adapter"] }>;
  };

  const tools = new Map<string, ProxyTool>();
  const byServerName = new Map<string, ProxyTool | null>();
  for (const summary of result.tools) {
    const adapter = index.catalog[summary.tool]?.adapter;
    if (adapter === undefined || summary.viewSchema === undefined) continue;
    const tool: ProxyTool = {
      adapter,
      viewSchema: summary.viewSchema as Record<string, unknown>,
      definition: summary.definition ?? {},
    };
    tools.set(summary.tool, tool);
    const serverName = adapter.spec.mcp?.name;
    // Two contracts for one server name (two servers' tools imported with prefixes): only the contract name is sure.
    if (serverName !== undefined) byServerName.set(serverName, byServerName.has(serverName) ? null : tool);
  }
  return {
    findTool: (name) => (tools.has(name) ? tools.get(name) : (byServerName.get(name) ?? undefined)),
    names: [...tools.keys()].sort(),
    folder,
    refused: {
      errors: result.refused?.errors ?? [],
      tools: new Set(result.refused?.tools ?? []),
      unnamed: result.refused?.unnamed ?? 0,
    },
  };
}
