/**
 * `@toolgate/runtime/redis`: a spill store in Redis, shared by every process that reaches the server. Its own
 * entry, so the main entry never imports the `redis` client (an optional peer dependency).
 */
export {
  type RedisSpillClient,
  RedisSpillStore,
  type RedisSpillStoreOptions,
} from "./policies/redis-spill-store.js";
