/**
 * The tools the proxy gates, from a contracts folder: the generator runs in memory, the generated TypeScript is
 * compiled to JavaScript (TypeScript's own `transpileModule`) into a cache folder inside the project's
 * `node_modules/.cache/toolgate/proxy/` (so the adapters find the project's `@toolgate/runtime`), and the catalog
 * is imported from there. Each tool comes with the schema of its view, which the host is told instead of the
 * server's output schema.
 *
 * The cache is written as every generator output is (`writeFileInside`: no folder on the way and no file may be a
 * symbolic link, each file renamed into place), and before anything is imported the folder is checked to hold
 * only what was just written: a planted link, a planted `node_modules` (which the adapters' `@toolgate/runtime`
 * would resolve to first) or any other file refuses the run, so nothing but the compiled contracts is ever loaded.
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ContractError } from "../contract/errors.js";
import { compareOutput } from "../emit/write.js";
import { isTemporaryFile, lstatIfAny, UnsafeOutputError, writeFileInside } from "../files.js";
import { type GenerateOptions, generate } from "../pipeline.js";
import type { ProxyTool } from "./serve.js";

/** The gated tools, by the names a server may call them. */
export interface ProxyCatalog {
  /**
   * The tool the server calls `name`: by the contract's name, or by its server name (`x-toolgate.mcp.name`) under
   * the contract of the server the proxy fronts (see {@link ProxyCatalogOptions.server}).
   */
  findTool(name: string): ProxyTool | undefined;
  /** The contracts' tool names, sorted. */
  names: readonly string[];
  /** The prefixes the folder's contracts were imported under (`toolgate import --prefix`), sorted. */
  prefixes: readonly string[];
  /** Where the compiled adapters are. */
  folder: string;
  /**
   * The catalog's identity: a hash of every compiled file, the name of its cache folder. Two catalogs compiled from
   * the same contracts have the same version, on any replica whose folders are laid out alike.
   */
  version: string;
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
  /**
   * The prefix the fronted server's tools were imported under (`toolgate import --prefix`): a tool the server
   * calls `read_file` is gated under `<server>_read_file`'s contract, and under no other server's. Absent, a
   * server's name finds no prefixed contract (the proxy cannot tell which server it fronts), as a framework
   * adapter with no server said finds none: the tool is ungated.
   */
  server?: string | undefined;
  remotes?: GenerateOptions["remotes"];
  roots?: GenerateOptions["roots"];
}

/**
 * The prefix `toolgate import --prefix` gave a contract (`<prefix>_<the server's name>`), or undefined for a contract
 * named as its server names the tool.
 */
function importPrefix(contract: string, serverName: string): string | undefined {
  const suffix = `_${serverName}`;
  return contract.length > suffix.length && contract.endsWith(suffix) ? contract.slice(0, -suffix.length) : undefined;
}

/** The proxy's compile cache, below the project's `node_modules`. */
const CACHE = ".cache/toolgate/proxy";

/**
 * Refuse a cache folder that holds anything but the files just written (and the folders they are in): a link, a
 * `node_modules` that would take the place of the project's `@toolgate/runtime`, a `package.json` of someone
 * else's. The folders between the project's `node_modules` and the cache folder may hold no `node_modules` either.
 * @throws {UnsafeOutputError} naming the first thing toolgate did not write
 */
export async function checkCacheFolder(
  modules: string,
  relative: string,
  written: ReadonlySet<string>,
  look: CacheLook = { readdir, lstat: lstatIfAny },
): Promise<void> {
  const parts = relative.split("/");
  for (let depth = 1; depth < parts.length; depth++) {
    const planted = path.join(modules, ...parts.slice(0, depth), "node_modules");
    if ((await lstatIfAny(planted)) !== undefined) throw notWritten(planted);
  }
  const folder = path.join(modules, ...parts);
  const folders = new Set([""]);
  for (const name of written) {
    const segments = name.split("/");
    for (let i = 1; i < segments.length; i++) folders.add(segments.slice(0, i).join("/"));
  }
  const pending = [""];
  while (pending.length > 0) {
    const inside = pending.pop() as string;
    for (const entry of await look.readdir(path.join(folder, ...inside.split("/")))) {
      const name = inside === "" ? entry : `${inside}/${entry}`;
      const stats = await look.lstat(path.join(folder, ...name.split("/")));
      if (stats === undefined) {
        // Gone since the listing: another replica's write in progress, renamed into place meanwhile (replicas
        // starting at once compile into the same folder). Anything else that vanishes was not toolgate's.
        if (isTemporaryFile(entry)) continue;
        throw notWritten(path.join(folder, ...name.split("/")));
      }
      if (stats.isDirectory() && folders.has(name)) pending.push(name);
      else if (!stats.isFile() || !(written.has(name) || isTemporaryFile(entry))) {
        throw notWritten(path.join(folder, ...name.split("/")));
      }
    }
  }
}

/** How {@link checkCacheFolder} looks at the folder: a listing, and what each entry is now (`undefined`: gone). */
export interface CacheLook {
  readdir(folder: string): Promise<string[]>;
  lstat(file: string): Promise<{ isDirectory(): boolean; isFile(): boolean } | undefined>;
}

/** The error for something in the compile cache that toolgate did not put there. */
function notWritten(file: string): UnsafeOutputError {
  return new UnsafeOutputError(
    `${file} is in the proxy's compile cache but toolgate did not write it: remove it (nothing was loaded)`,
  );
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
    // Each transpile is synchronous: a proxy reloading under traffic answers calls between files.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const hash = createHash("sha256");
  for (const [name, js] of compiled) hash.update(`${name}\0${js}\0`);
  // The compiled files are ES modules whatever the project's own package.json says.
  compiled.set("package.json", '{ "type": "module" }\n');
  const modules = path.join(options.projectRoot, "node_modules");
  const version = hash.digest("hex").slice(0, 16);
  const relative = `${CACHE}/${version}`;
  const folder = path.join(modules, ...relative.split("/"));
  for (const [name, js] of compiled) await writeFileInside(modules, `${relative}/${name}`, js);
  await checkCacheFolder(modules, relative, new Set(compiled.keys()));
  const index = (await import(pathToFileURL(path.join(folder, "index.js")).href)) as {
    catalog: Record<string, { adapter: ProxyTool["adapter"] }>;
  };

  const tools = new Map<string, ProxyTool>();
  const renamed: Array<{ serverName: string; prefix: string | undefined; tool: ProxyTool }> = [];
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
    const prefix = serverName === undefined ? undefined : importPrefix(summary.tool, serverName);
    if (serverName !== undefined) renamed.push({ serverName, prefix, tool });
  }
  const fronted = options.server;
  const byServerName = new Map<string, ProxyTool | null>();
  for (const { serverName, prefix, tool } of renamed) {
    // Another server's contract: its tool of the same name is not this server's. A contract renamed by hand, with
    // no prefix to tell its server, is found by its server name as written.
    if (prefix !== undefined && prefix !== fronted) continue;
    byServerName.set(serverName, byServerName.has(serverName) ? null : tool);
  }
  return {
    findTool: (name) => (tools.has(name) ? tools.get(name) : (byServerName.get(name) ?? undefined)),
    names: [...tools.keys()].sort(),
    prefixes: [...new Set(renamed.flatMap((entry) => (entry.prefix === undefined ? [] : [entry.prefix])))].sort(),
    folder,
    version,
    refused: {
      errors: result.refused?.errors ?? [],
      tools: new Set(result.refused?.tools ?? []),
      unnamed: result.refused?.unnamed ?? 0,
    },
  };
}
