/**
 * `watchCatalog(dir)`: for a long-lived agent, the generated catalog replaced while the process runs, opt-in.
 *
 * `dir` is a catalog as the application runs it: the generated folder compiled to JavaScript (ES modules, `index.js`
 * exporting `catalog`) with the `toolgate.lock.json` `toolgate generate` wrote beside it. The folder is watched with
 * `fs.watch`; once changes have settled for a debounce, the folder is verified against its lock and loaded, and only
 * a catalog that verifies replaces the current one, in one assignment. Code that reads `watch.current` once per call
 * finishes that call on the catalog it read. A folder that does not verify is refused with a
 * {@link CatalogRefusedError} naming the file and why, and the current catalog is kept. One load at a time; changes
 * during a load queue one more.
 *
 * Verifying: every file the lock's record names that is in the folder (the validators, which are JavaScript as
 * generated, or every file when the folder is the generated one) has the sha256 the lock records; the loaded catalog
 * has exactly the lock's tools, each index entry and each adapter built from the contract (sha256 and version) the
 * lock records, so an adapter left from an earlier build is refused by name.
 *
 * Loading: ES modules cannot be unloaded or loaded twice from one URL, so each verified folder is copied (regular
 * files only, a link refused) into a folder named by the hash of its content, below the nearest `node_modules`
 * (`node_modules/.cache/toolgate/catalog/<version>/`, where the adapters still find `@toolgate/runtime`), and imported
 * from there. Each version loaded stays in memory for the life of the process.
 */
import type { ToolAdapter } from "../gate/context.js";

/** One tool of a generated catalog (`generated/index.ts`'s `catalog`). */
export interface CatalogEntry {
  // biome-ignore lint/suspicious/noExplicitAny: any tool's adapter; the catalog's own types are the application's.
  adapter: ToolAdapter<any, any, any>;
  version: string;
  sha256: string;
}

/** A catalog that verified and was loaded. */
export interface WatchedCatalog {
  /** A hash of every file loaded: the same folder gives the same version. */
  version: string;
  /** The module's `catalog`: each tool's adapter by its name. */
  catalog: Readonly<Record<string, CatalogEntry>>;
  /** Where it was loaded from (the copy under the cache folder). */
  folder: string;
}

/** Options of {@link watchCatalog}. */
export interface CatalogWatchOptions {
  /** Where verified copies are loaded from; default `node_modules/.cache/toolgate/catalog` above `dir`. */
  cacheDir?: string | undefined;
  /** How long the folder must be quiet before a reload; default 250 ms. */
  debounceMs?: number | undefined;
  /** Called after each swap. */
  onSwap?: ((next: WatchedCatalog, previous: WatchedCatalog) => void) | undefined;
  /** Called for each refused reload; the current catalog is kept. */
  onRefuse?: ((error: CatalogRefusedError) => void) | undefined;
}

/** A watched catalog. */
export interface CatalogWatch {
  /** The catalog served now: read it once per call. */
  readonly current: WatchedCatalog;
  /** The adapter of `name` in the current catalog. */
  adapter(name: string): CatalogEntry["adapter"] | undefined;
  /** Verifies and loads the folder now (queued behind a load under way). */
  reload(): Promise<void>;
  /** Stops watching; a load under way finishes first. */
  close(): Promise<void>;
}

/** A folder that is not a catalog its lock vouches for: which file, and why. */
export class CatalogRefusedError extends Error {
  override readonly name = "CatalogRefusedError";
  constructor(
    /** The file, relative to the watched folder. */
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

const LOCK = "toolgate.lock.json";

/** What a catalog folder may hold that is loaded: JavaScript and JSON; declarations and sources are not. */
const LOADED = /\.(m?js|json)$/;

/** The lock's parts the watch reads: the record's output hashes and each tool's contract. */
interface LockParts {
  outputs: Record<string, string>;
  tools: Record<string, { sha256: string; version: string }>;
}

/** What the watch needs of Node, loaded when a watch starts: importing the runtime loads no file system. */
interface NodeParts {
  createHash: typeof import("node:crypto").createHash;
  watch: typeof import("node:fs").watch;
  fs: typeof import("node:fs/promises");
  path: typeof import("node:path");
  pathToFileURL: typeof import("node:url").pathToFileURL;
}

let node: NodeParts | undefined;

/** Node's modules the watch uses, loaded once. */
async function nodeParts(): Promise<NodeParts> {
  if (node !== undefined) return node;
  const [crypto, fsModule, fs, pathModule, url] = await Promise.all([
    import("node:crypto"),
    import("node:fs"),
    import("node:fs/promises"),
    import("node:path"),
    import("node:url"),
  ]);
  node = {
    createHash: crypto.createHash,
    watch: fsModule.watch,
    fs,
    path: pathModule.default,
    pathToFileURL: url.pathToFileURL,
  };
  return node;
}

/** sha256 hex of bytes. */
function sha256({ createHash }: NodeParts, bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The lock's record hashes and tools, or a refusal. */
function lockParts(text: string): LockParts {
  let lock: { record?: { outputs?: unknown }; tools?: unknown };
  try {
    lock = JSON.parse(text);
  } catch {
    throw new CatalogRefusedError(LOCK, "is not JSON (a write under way, or edited by hand)");
  }
  const outputs = lock?.record?.outputs;
  const tools = lock?.tools;
  if (typeof outputs !== "object" || outputs === null || typeof tools !== "object" || tools === null) {
    throw new CatalogRefusedError(LOCK, "has no record of the run that wrote it: run toolgate generate");
  }
  return { outputs: outputs as LockParts["outputs"], tools: tools as LockParts["tools"] };
}

/** Every regular file below `dir` (relative, `/`-separated), refusing a link or anything else. */
async function filesOf({ fs, path }: NodeParts, dir: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [""];
  while (pending.length > 0) {
    const inside = pending.pop() as string;
    for (const entry of await fs.readdir(path.join(dir, inside))) {
      const name = inside === "" ? entry : `${inside}/${entry}`;
      const stats = await fs.lstat(path.join(dir, name));
      if (stats.isDirectory()) pending.push(name);
      else if (stats.isFile()) files.push(name);
      else throw new CatalogRefusedError(name, "is not a regular file: a catalog is loaded from regular files only");
    }
  }
  return files.sort();
}

/** The verified copy of `dir` in `cacheDir`, and its version. */
async function snapshot(
  parts: NodeParts,
  dir: string,
  cacheDir: string,
): Promise<{ folder: string; version: string; lock: LockParts }> {
  const { fs, path, createHash } = parts;
  const files = await filesOf(parts, dir);
  if (!files.includes(LOCK)) throw new CatalogRefusedError(LOCK, "is missing: copy it beside the compiled catalog");
  if (!files.includes("index.js")) throw new CatalogRefusedError("index.js", "is missing: compile the catalog");
  const contents = new Map<string, Buffer>();
  for (const file of files) contents.set(file, await fs.readFile(path.join(dir, file)));
  const lock = lockParts((contents.get(LOCK) as Buffer).toString("utf8"));
  for (const [file, hash] of Object.entries(lock.outputs)) {
    const content = contents.get(file);
    if (content !== undefined && sha256(parts, content) !== hash) {
      throw new CatalogRefusedError(file, "is not the file the lock records (stale, or edited by hand)");
    }
  }
  const hash = createHash("sha256");
  const loaded = files.filter((file) => LOADED.test(file));
  for (const file of loaded)
    hash
      .update(`${file}\0`)
      .update(contents.get(file) as Buffer)
      .update("\0");
  const version = hash.digest("hex").slice(0, 16);
  const folder = path.join(cacheDir, version);
  if ((await fs.lstat(folder).catch(() => undefined)) === undefined) {
    const temporary = `${folder}.${process.pid}.${Date.now()}.tmp`;
    for (const file of loaded) {
      await fs.mkdir(path.dirname(path.join(temporary, file)), { recursive: true });
      await fs.writeFile(path.join(temporary, file), contents.get(file) as Buffer);
    }
    // The copies are ES modules whatever a package.json above the cache says.
    if (!contents.has("package.json"))
      await fs.writeFile(path.join(temporary, "package.json"), '{ "type": "module" }\n');
    await fs.rename(temporary, folder).catch(async (error: NodeJS.ErrnoException) => {
      await fs.rm(temporary, { recursive: true, force: true });
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  }
  for (const file of loaded) {
    const copy = await fs.readFile(path.join(folder, file)).catch(() => undefined);
    if (copy === undefined || !copy.equals(contents.get(file) as Buffer)) {
      throw new CatalogRefusedError(file, `its copy in ${folder} differs: remove that folder (nothing was loaded)`);
    }
  }
  return { folder, version, lock };
}

/** Loads the copy and checks its tools against the lock. */
async function load(parts: NodeParts, dir: string, cacheDir: string): Promise<WatchedCatalog> {
  const { folder, version, lock } = await snapshot(parts, dir, cacheDir);
  const index = parts.pathToFileURL(parts.path.join(folder, "index.js")).href;
  const module = (await import(index)) as { catalog?: unknown };
  const catalog = module.catalog as Record<string, CatalogEntry> | undefined;
  if (typeof catalog !== "object" || catalog === null) {
    throw new CatalogRefusedError("index.js", "exports no catalog: is it toolgate's generated index?");
  }
  const names = Object.keys(catalog).sort();
  const locked = Object.keys(lock.tools).sort();
  if (names.join("\0") !== locked.join("\0")) {
    throw new CatalogRefusedError("index.js", `serves ${names.join(", ")}, the lock ${locked.join(", ")}`);
  }
  for (const name of names) {
    const entry = catalog[name] as CatalogEntry;
    const contract = (lock.tools[name] as LockParts["tools"][string]).sha256;
    if (entry.sha256 !== contract) throw new CatalogRefusedError("index.js", `${name} is not the lock's contract`);
    if (entry.adapter?.spec?.contract?.sha256 !== contract) {
      throw new CatalogRefusedError(`${name}'s adapter`, "was built from another contract than the lock's");
    }
  }
  return { version, catalog, folder };
}

/** The cache below the nearest `node_modules` at or above `dir`. */
async function defaultCache({ fs, path }: NodeParts, dir: string): Promise<string> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const modules = path.join(at, "node_modules");
    if ((await fs.lstat(modules).catch(() => undefined))?.isDirectory()) {
      return path.join(modules, ".cache", "toolgate", "catalog");
    }
    if (path.dirname(at) === at) throw new Error(`no node_modules at or above ${dir}: pass cacheDir`);
  }
}

/**
 * Loads the catalog in `dir` and watches it (see the module comment).
 * @throws {CatalogRefusedError} when the folder does not verify at start
 */
export async function watchCatalog(dir: string, options: CatalogWatchOptions = {}): Promise<CatalogWatch> {
  const parts = await nodeParts();
  const cacheDir = options.cacheDir ?? (await defaultCache(parts, dir));
  await parts.fs.mkdir(cacheDir, { recursive: true });
  let current = await load(parts, dir, cacheDir);
  let running: Promise<void> | undefined;
  let queued = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const once = async () => {
    try {
      const next = await load(parts, dir, cacheDir);
      if (next.version === current.version) return;
      const previous = current;
      current = next;
      options.onSwap?.(next, previous);
    } catch (error) {
      const refused =
        error instanceof CatalogRefusedError ? error : new CatalogRefusedError(".", (error as Error).message);
      options.onRefuse?.(refused);
    }
  };
  const reload = (): Promise<void> => {
    if (closed) return Promise.resolve();
    queued = true;
    running ??= (async () => {
      while (queued && !closed) {
        queued = false;
        await once();
      }
    })().finally(() => {
      running = undefined;
    });
    return running;
  };
  const watcher = parts.watch(dir, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), options.debounceMs ?? 250);
  });
  watcher.on("error", (error) => options.onRefuse?.(new CatalogRefusedError(".", `cannot watch: ${error.message}`)));
  return {
    get current() {
      return current;
    },
    adapter: (name) => (Object.hasOwn(current.catalog, name) ? current.catalog[name]?.adapter : undefined),
    reload,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      watcher.close();
      await running;
    },
  };
}
