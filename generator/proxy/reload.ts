/**
 * `toolgate proxy --watch`: the catalog replaced while the proxy runs. The contracts folder (or, with `--generated`,
 * the generated folder) is watched with `fs.watch`; a burst of changes settles for a debounce, then the catalog is
 * loaded again exactly as at start (generated in memory and, for a generated folder, compared byte for byte with
 * it, as `generate --check` does: `catalog.ts`). Only a catalog that verifies replaces the one served, in one
 * assignment: every call reads the catalog once when it starts (`serve.ts` looks its tool up once), so a call in
 * flight finishes on the catalog it began with, and every call that starts after the swap gets the new one. A
 * folder that does not verify (stale, or a contract the running catalog does not already refuse) is refused, each
 * reason named on stderr with its file, and the running catalog is kept.
 *
 * The work is bounded: one load at a time, and changes during a load queue exactly one more.
 */
import { type FSWatcher, watch } from "node:fs";
import { ContractError } from "../contract/errors.js";
import { type ProxyCatalog, ProxyContractsError, ProxyStaleError } from "./catalog.js";

/** How long the watched folders must be quiet before a reload starts: an editor's save or a generate run is a burst. */
export const DEFAULT_DEBOUNCE_MS = 250;

/** How many verified catalogs a proxy keeps at hand, so following a version it held before needs no compile. */
const HELD_CATALOGS = 4;

/** The most reasons one refused reload prints. */
const MAX_REASONS = 20;

/**
 * The catalog the proxy serves, which a reload replaces. `findTool` and `refused` read the catalog of the moment:
 * a caller that reads both without awaiting in between (as `serve.ts` does) reads one catalog.
 */
export class LiveCatalog {
  #current: ProxyCatalog;
  readonly #listeners = new Set<() => void>();

  constructor(initial: ProxyCatalog) {
    this.#current = initial;
  }

  /** The catalog served now. */
  get current(): ProxyCatalog {
    return this.#current;
  }

  /** The gated tool the server calls `name`, in the catalog served now. */
  readonly findTool = (name: string) => this.#current.findTool(name);

  /** Whether the catalog served now refused the contract of `name`. */
  readonly refused = { has: (name: string) => this.#current.refused.tools.has(name) };

  /** Calls `listener` after each swap; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Serves `next` from now on, then tells every listener. */
  swap(next: ProxyCatalog): void {
    this.#current = next;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // A host session that cannot be told keeps the new catalog all the same.
      }
    }
  }
}

/**
 * What started a reload: a change in a watched folder, or another replica's version to follow (`catalog-version.ts`),
 * which is served only once this replica's own folder verifies as that version.
 */
export type ReloadTrigger = "change" | "follow";

/** How a proxy reloads its catalog. */
export interface ReloaderOptions {
  live: LiveCatalog;
  /** Loads and verifies the catalog from the folders, as at start. */
  load(): Promise<ProxyCatalog>;
  /** The folders to watch (recursively). */
  folders: readonly string[];
  debounceMs?: number | undefined;
  log(line: string): void;
  /** Called after a change swapped in a new catalog (not after following one): the replicas' version is set here. */
  onChange?: ((catalog: ProxyCatalog) => Promise<void>) | undefined;
}

/** The reasons a load failed, one line each, naming the file. */
export function refusalReasons(error: unknown): string[] {
  if (error instanceof ProxyContractsError) return error.errors.map((contractError) => contractError.toString());
  if (error instanceof ProxyStaleError) return [error.message];
  if (error instanceof ContractError) return [error.toString()];
  return [error instanceof Error ? `${error.name}: ${error.message}` : String(error)];
}

/**
 * The contract errors of `next` that the served catalog does not have: at start a refused contract costs its own
 * tool only, but a reload must not take a tool away that is served now, nor refuse one anew.
 */
function newlyRefused(next: ProxyCatalog, current: ProxyCatalog): string[] {
  const known = new Set(current.refused.errors.map(String));
  return next.refused.errors.map(String).filter((error) => !known.has(error));
}

/** Watches the folders and replaces the live catalog with each verified one (see the module comment). */
export class CatalogReloader {
  readonly #options: ReloaderOptions;
  readonly #watchers: FSWatcher[] = [];
  readonly #held = new Map<string, ProxyCatalog>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #queued: ReloadTrigger | undefined;
  #wanted: string | undefined;
  #closed = false;

  constructor(options: ReloaderOptions) {
    this.#options = options;
    this.#hold(options.live.current);
  }

  /** Starts watching the folders. */
  start(): void {
    for (const folder of this.#options.folders) {
      const watcher = watch(folder, { recursive: true }, () => this.#changed());
      watcher.on("error", (error) => this.#options.log(`toolgate proxy: cannot watch ${folder}: ${error.message}`));
      this.#watchers.push(watcher);
    }
  }

  /** Stops watching; a reload under way finishes first. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers) watcher.close();
    await this.#running;
  }

  /** Settles when no reload is under way or queued. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /**
   * Serves `version` (another replica's): at once when this proxy holds it verified, else after its own folder is
   * loaded again and verifies as exactly that version. Until then the running catalog stays.
   */
  follow(version: string): Promise<void> {
    this.#wanted = version;
    if (version === this.#options.live.current.version) return Promise.resolve();
    const held = this.#held.get(version);
    if (held !== undefined) {
      this.#swap(held, "follow");
      return Promise.resolve();
    }
    return this.request("follow");
  }

  /** Queues a reload (one at a time; a request during a load queues one more). */
  request(trigger: ReloadTrigger): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#queued = this.#queued === "change" || trigger === "change" ? "change" : "follow";
    this.#running ??= (async () => {
      while (this.#queued !== undefined && !this.#closed) {
        const next = this.#queued;
        this.#queued = undefined;
        await this.#reload(next);
      }
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** A change in a watched folder: the reload starts once the folders are quiet for the debounce. */
  #changed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.request("change"), this.#options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }

  async #reload(trigger: ReloadTrigger): Promise<void> {
    const { live, log } = this.#options;
    const current = live.current;
    let next: ProxyCatalog;
    try {
      next = await this.#options.load();
    } catch (error) {
      this.#refuse(current, refusalReasons(error));
      return;
    }
    const added = newlyRefused(next, current);
    if (added.length > 0) {
      this.#refuse(current, added);
      return;
    }
    this.#hold(next);
    if (trigger === "follow" && next.version !== this.#wanted) {
      log(
        `toolgate proxy: the replicas serve catalog ${this.#wanted}, this folder verifies as ${next.version}: catalog ${current.version} is kept until it matches`,
      );
      return;
    }
    if (next.version === current.version) return;
    this.#swap(next, trigger);
    if (trigger === "change") {
      this.#wanted = next.version;
      await this.#options.onChange?.(next).catch((error: Error) => {
        log(`toolgate proxy: catalog ${next.version} is served here, but the replicas were not told: ${error.message}`);
      });
    }
  }

  #swap(next: ProxyCatalog, trigger: ReloadTrigger): void {
    const previous = this.#options.live.current.version;
    this.#options.live.swap(next);
    const how = trigger === "follow" ? " (the replicas' version)" : "";
    this.#options.log(
      `toolgate proxy: reloaded: catalog ${next.version}${how} gates ${next.names.length} tool(s), in place of ${previous}`,
    );
  }

  #refuse(current: ProxyCatalog, reasons: readonly string[]): void {
    const { log } = this.#options;
    log(`toolgate proxy: reload refused, catalog ${current.version} is kept:`);
    for (const reason of reasons.slice(0, MAX_REASONS)) log(`toolgate proxy:   ${reason}`);
    if (reasons.length > MAX_REASONS) log(`toolgate proxy:   and ${reasons.length - MAX_REASONS} more`);
  }

  #hold(catalog: ProxyCatalog): void {
    this.#held.delete(catalog.version);
    this.#held.set(catalog.version, catalog);
    for (const version of this.#held.keys()) {
      if (this.#held.size <= HELD_CATALOGS) break;
      this.#held.delete(version);
    }
  }
}
