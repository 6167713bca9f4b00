/**
 * `toolgate proxy --watch --reload-redis URL`: which catalog the replicas serve, agreed through one Redis key.
 *
 * The key (`--reload-key`, default `toolgate:catalog`) holds the version of the current catalog (`ProxyCatalog.version`,
 * a hash of the compiled contracts), and a message on the channel of the same name announces each new one. A replica
 * whose own folder changed and verified sets the key and announces its version; every replica that hears a version
 * serves it at once when it holds that catalog verified, or else loads its own folder again and serves it only if the
 * folder verifies as exactly that version (`CatalogReloader.follow`). A replica whose folder is behind keeps its
 * catalog and says so, until its folder catches up. A replica that starts sets the key only when none is set: a
 * restart does not move the others back. The last change any replica verified wins.
 *
 * The Redis client is node-redis (`redis`, the runtime's optional peer for its Redis spill store), loaded only here.
 */

/** The key (and channel) the replicas agree on the catalog through, unless `--reload-key` names another. */
export const DEFAULT_RELOAD_KEY = "toolgate:catalog";

/** A catalog version as `catalog.ts` writes it; anything else read from Redis is ignored. */
const VERSION = /^[0-9a-f]{16}$/;

/** The replicas' catalog version in Redis. */
export interface CatalogVersions {
  /** Sets the key to `version` and announces it. */
  publish(version: string): Promise<void>;
  close(): Promise<void>;
}

/** Where the version is kept, and what to do with one another replica announced. */
export interface CatalogVersionOptions {
  url: string;
  key?: string | undefined;
  /** The version this replica serves at start. */
  serving: string;
  /** A version the replicas serve (announced, or the key's value at start when it differs from `serving`). */
  follow(version: string): void;
  log(line: string): void;
}

/**
 * Connects to Redis, subscribes to the key's channel, and settles the version at start: the key is set to
 * `serving` when empty, and a different value is followed.
 */
export async function connectCatalogVersions(options: CatalogVersionOptions): Promise<CatalogVersions> {
  const { createClient } = await import("redis");
  const key = options.key ?? DEFAULT_RELOAD_KEY;
  let connected = false;
  // Reconnect after a drop, but a first connection that fails is an answer: the URL is wrong or Redis is down.
  const reconnectStrategy = (retries: number, cause: Error) =>
    connected ? Math.min(100 * 2 ** retries, 5_000) : cause;
  const client = createClient({ url: options.url, socket: { reconnectStrategy, connectTimeout: 5_000 } });
  const subscriber = client.duplicate();
  let lastError = "";
  const onError = (error: Error) => {
    // A client reconnecting reports the same error each try: said once until it changes.
    if (error.message === lastError) return;
    lastError = error.message;
    options.log(`toolgate proxy: Redis at --reload-redis: ${error.message}`);
  };
  client.on("error", onError);
  subscriber.on("error", onError);
  await Promise.all([client.connect(), subscriber.connect()]);
  connected = true;
  const heard = (message: string) => {
    if (VERSION.test(message)) options.follow(message);
    else options.log(`toolgate proxy: ignored a catalog version in Redis that is not one (${key})`);
  };
  await subscriber.subscribe(key, heard);
  await client.set(key, options.serving, { condition: "NX" });
  const agreed = await client.get(key);
  if (agreed !== null && agreed !== options.serving) heard(agreed);
  return {
    publish: async (version) => {
      await client.set(key, version);
      await client.publish(key, version);
    },
    close: async () => {
      await Promise.allSettled([subscriber.close(), client.close()]);
    },
  };
}
