/**
 * `@toolgate/runtime/redis`: a spill store and a turn store in Redis, shared by every process that reaches the server
 * (spills read back anywhere, a turn's re-calls and context counted once). Its own
 * entry, so the main entry never imports the `redis` client (an optional peer dependency).
 */
export {
  type RedisSpillClient,
  RedisSpillStore,
  type RedisSpillStoreOptions,
} from "./policies/redis-spill-store.js";
export { type RedisTurnClient, RedisTurnStore, type RedisTurnStoreOptions } from "./policies/redis-turn-store.js";
