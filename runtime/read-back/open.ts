/**
 * Opening a spilled value for a read: the store's verified entry (loaded once and kept for the next pages, within
 * bounds), then the checks every read makes on it, whether it came from the store or from what was kept: not
 * expired, and spilled for the reader's tenant and session.
 */
import { type SpillStore, SpillStoreError } from "../policies/spill-store.js";
import { type Loaded, load } from "./select.js";
import type { ReadBackContext, ReadBackErrorCode } from "./types.js";

/** Loaded values kept between pages, newest last. */
export interface LoadedCache {
  entries: Map<string, Loaded>;
  maxEntries: number;
  maxChars: number;
}

type Opened = { ok: true; loaded: Loaded } | { ok: false; code: ReadBackErrorCode; message: string };

/** An entry past its time to live, by the store's clock (the store refused it) or the reader's (a kept one). */
const expired: Opened = { ok: false, code: "expired", message: "this spilled result has expired: call the tool again" };

function keep(cache: LoadedCache, handle: string, loaded: Loaded): void {
  cache.entries.set(handle, loaded);
  let chars = 0;
  for (const entry of cache.entries.values()) chars += entry.record.json.length;
  // Oldest first out, past either bound; the one just loaded stays (it is being read).
  for (const [key, entry] of cache.entries) {
    if (cache.entries.size <= cache.maxEntries && chars <= cache.maxChars) break;
    if (key === handle) continue;
    cache.entries.delete(key);
    chars -= entry.record.json.length;
  }
}

/** The value under `handle` for this reader, or the typed reason it cannot be read. */
/** A handle nobody spilled, or one spilled for another tenant or session: the same answer. */
const unknown: Opened = { ok: false, code: "unknown_handle", message: "no spilled result has this handle" };

export async function openRecord(
  store: SpillStore,
  cache: LoadedCache,
  handle: string,
  ctx: ReadBackContext,
): Promise<Opened> {
  let loaded = cache.entries.get(handle);
  if (loaded === undefined) {
    let record: Awaited<ReturnType<NonNullable<SpillStore["read"]>>>;
    try {
      record = await (store.read as NonNullable<SpillStore["read"]>).call(store, handle);
    } catch (error) {
      if (error instanceof SpillStoreError && error.code === "tampered") {
        return { ok: false, code: "tampered", message: "the stored result is not the one spilled; it is not shown" };
      }
      if (error instanceof SpillStoreError && error.code === "expired") return expired;
      return { ok: false, code: "store_failed", message: "the spill store could not be read; a retry may help" };
    }
    if (record === undefined) return unknown;
    try {
      loaded = load(record);
    } catch {
      return { ok: false, code: "tampered", message: "the stored result does not hold what its index says" };
    }
    keep(cache, handle, loaded);
  } else {
    // Newest last: a read makes it the last to go.
    cache.entries.delete(handle);
    cache.entries.set(handle, loaded);
  }
  const { meta } = loaded.record;
  // Another tenant's or session's entry is answered as one nobody spilled: the answer must not confirm that a handle
  // (or, with a guessed value, a result) exists for someone else.
  if (meta.tenant !== ctx.tenant || (meta.session !== undefined && meta.session !== ctx.session)) return unknown;
  const now = (ctx.now ?? Date.now)();
  if (meta.expiresAt !== undefined && now >= meta.expiresAt) {
    cache.entries.delete(handle);
    return expired;
  }
  return { ok: true, loaded };
}
