/**
 * A turn store in Redis: every process that serves calls of one turn (replicas of `toolgate proxy` behind a
 * balancer, workers of an application) counts the turn's re-calls and context in one place, so the re-call cap and
 * the turn budget hold for the turn whichever process a call reaches, and a process that dies takes no count with
 * it. One hash per turn, `<prefix><turn id>`: a field per argument hash seen (`a:<sha256>:<tool>`), a re-call count
 * per tool (`r:<tool>`), and the context used per unit (`bytes`, `tokens`). Each step is one Lua script, atomic in
 * Redis: two replicas claiming the last re-call at once are told yes once. The key expires `ttlMs` after the turn's
 * last call, and holds at most {@link MAX_TURN_ARGUMENTS} argument hashes (past them, new arguments are not
 * remembered: a repeat of them is not recognised as a re-call, so the bound never refuses a call).
 *
 * Imported from `@toolgate/runtime/redis` only, with a connected node-redis client.
 */
import {
  argumentsField,
  type CallClaim,
  type ContextTotals,
  MAX_TURN_ARGUMENTS,
  recallsField,
  type TurnStore,
} from "../record/turn-store.js";

/** What the store needs of a Redis client: node-redis's `eval`. */
export interface RedisTurnClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of a {@link RedisTurnStore}. */
export interface RedisTurnStoreOptions {
  /** The connected client. */
  client: RedisTurnClient;
  /** What every key starts with; default `toolgate:turn:`. */
  prefix?: string | undefined;
  /** How long a turn's counters outlive its last call, in milliseconds; default 30 minutes. */
  ttlMs?: number | undefined;
}

/**
 * A claim: arguments not seen are remembered (while the hash holds fewer than the bound) and pass; seen ones are a
 * re-call, counted while fewer than the limit were. Answers `{allowed, recall, recalls}` as 0/1 integers.
 */
const CLAIM = `
local key, seen, made_field = KEYS[1], ARGV[1], ARGV[2]
local limit, ttl, bound = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local made = tonumber(redis.call('HGET', key, made_field) or '0')
if redis.call('HEXISTS', key, seen) == 0 then
  if redis.call('HLEN', key) < bound then redis.call('HSET', key, seen, 1) end
  redis.call('PEXPIRE', key, ttl)
  return {1, 0, made}
end
redis.call('PEXPIRE', key, ttl)
if made >= limit then return {0, 1, made} end
return {1, 1, redis.call('HINCRBY', key, made_field, 1)}
`;

/** Adds to one unit's total (when ARGV[2] is above 0) and answers both totals. */
const ADD = `
local key = KEYS[1]
if tonumber(ARGV[2]) > 0 then
  redis.call('HINCRBY', key, ARGV[1], ARGV[2])
  redis.call('PEXPIRE', key, tonumber(ARGV[3]))
end
local totals = redis.call('HMGET', key, 'bytes', 'tokens')
return {tonumber(totals[1] or '0'), tonumber(totals[2] or '0')}
`;

/** A turn's counters in Redis (see the module comment). */
export class RedisTurnStore implements TurnStore {
  readonly #client: RedisTurnClient;
  readonly #prefix: string;
  readonly #ttlMs: number;

  constructor(options: RedisTurnStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "toolgate:turn:";
    const ttl = options.ttlMs ?? 30 * 60_000;
    if (!(Number.isSafeInteger(ttl) && ttl > 0))
      throw new TypeError("RedisTurnStore: ttlMs must be a whole number above 0");
    this.#ttlMs = ttl;
  }

  async claimCall(turnId: string, tool: string, argumentsHash: string, limit: number): Promise<CallClaim> {
    const answer = await this.#client.eval(CLAIM, {
      keys: [this.#prefix + turnId],
      arguments: [
        argumentsField(tool, argumentsHash),
        recallsField(tool),
        String(limit),
        String(this.#ttlMs),
        String(MAX_TURN_ARGUMENTS),
      ],
    });
    const [allowed, recall, recalls] = integers(answer, 3);
    return { allowed: allowed === 1, recall: recall === 1, recalls, limit };
  }

  async addContext(turnId: string, unit: "bytes" | "tokens", value: number): Promise<ContextTotals> {
    const by = Number.isSafeInteger(value) && value > 0 ? value : 0;
    const answer = await this.#client.eval(ADD, {
      keys: [this.#prefix + turnId],
      arguments: [unit, String(by), String(this.#ttlMs)],
    });
    const [bytes, tokens] = integers(answer, 2);
    return { bytes, tokens };
  }

  async context(turnId: string): Promise<ContextTotals> {
    return this.addContext(turnId, "bytes", 0);
  }
}

/** A script's answer as `count` integers; throws when Redis answered something else (another script, a proxy). */
function integers<N extends 2 | 3>(
  answer: unknown,
  count: N,
): N extends 3 ? [number, number, number] : [number, number] {
  if (!Array.isArray(answer) || answer.length !== count) {
    throw new TypeError("RedisTurnStore: Redis answered a turn's script with something other than its counts");
  }
  return answer.map((item) => {
    const value = Number(item);
    if (!Number.isSafeInteger(value)) throw new TypeError("RedisTurnStore: a turn's count is not a whole number");
    return value;
  }) as never;
}
