/**
 * A turn's counters in a store: the memory store of one process and the Redis store every process shares, held to
 * the same contract (a new call passes, the same call again is a re-call, the cap refuses past it, the context is
 * summed per unit), and for Redis, against a real `redis-server`: two processes' turns of one id count once, claims
 * made at once are allowed exactly up to the cap, and a turn's key expires and is bounded.
 */
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryTurnStore, Turn, type TurnStore } from "../../../runtime/index.js";
import { MAX_TURN_ARGUMENTS } from "../../../runtime/record/turn-store.js";
import { RedisTurnStore } from "../../../runtime/redis.js";
import { type RedisServer, startRedisServer } from "../../fixtures/redis-server.js";

let server: RedisServer;
let client: ReturnType<typeof createClient>;
let second: ReturnType<typeof createClient>;

beforeAll(async () => {
  server = await startRedisServer();
  client = createClient({ url: server.url });
  second = createClient({ url: server.url });
  await Promise.all([client.connect(), second.connect()]);
}, 30_000);
afterAll(async () => {
  await Promise.allSettled([client?.close(), second?.close()]);
  server?.stop();
});

let prefixes = 0;
const stores: Array<[string, () => TurnStore]> = [
  ["memory", () => new MemoryTurnStore()],
  ["redis", () => new RedisTurnStore({ client, prefix: `test:${++prefixes}:` })],
];

describe.each(stores)("the %s turn store", (_name, make) => {
  it("lets new arguments through, counts the same arguments again as a re-call, and refuses past the cap", async () => {
    const store = make();
    expect(await store.claimCall("t", "search", "h1", 1)).toEqual({
      allowed: true,
      recall: false,
      recalls: 0,
      limit: 1,
    });
    // Other arguments are another call, not a re-call: ordinary use never meets the cap.
    expect(await store.claimCall("t", "search", "h2", 1)).toMatchObject({ allowed: true, recall: false });
    expect(await store.claimCall("t", "search", "h1", 1)).toEqual({
      allowed: true,
      recall: true,
      recalls: 1,
      limit: 1,
    });
    expect(await store.claimCall("t", "search", "h1", 1)).toEqual({
      allowed: false,
      recall: true,
      recalls: 1,
      limit: 1,
    });
    expect(await store.claimCall("t", "search", "h2", 1)).toMatchObject({ allowed: false, recall: true });
    // Another tool, and another turn, count apart.
    expect(await store.claimCall("t", "fetch", "h1", 1)).toMatchObject({ allowed: true, recall: false });
    expect(await store.claimCall("u", "search", "h1", 1)).toMatchObject({ allowed: true, recall: false });
  });

  it("keeps hostile tool names apart from each other and from the context counters", async () => {
    const store = make();
    for (const tool of ["__proto__", "constructor", "bytes", "r:x", "a:h:x"]) {
      expect(await store.claimCall("t", tool, "h", 5)).toMatchObject({ allowed: true, recall: false });
      expect(await store.claimCall("t", tool, "h", 5)).toMatchObject({ allowed: true, recall: true, recalls: 1 });
    }
    expect(await store.context("t")).toEqual({ bytes: 0, tokens: 0 });
  });

  it("sums the context per unit", async () => {
    const store = make();
    expect(await store.context("t")).toEqual({ bytes: 0, tokens: 0 });
    await store.addContext("t", "bytes", 300);
    await store.addContext("t", "tokens", 20);
    expect(await store.addContext("t", "bytes", 200)).toEqual({ bytes: 500, tokens: 20 });
    expect(await store.context("other")).toEqual({ bytes: 0, tokens: 0 });
  });

  it("holds a Turn's cap and budget: the turn's cap is the lower of its own and the contract's", async () => {
    const store = make();
    const turn = new Turn({ id: "turn-a", store, recallLimit: 2, budget: { bytes: 1000 } });
    expect(await turn.claimCall("search", "h", 5)).toMatchObject({ allowed: true, recall: false });
    expect(await turn.claimCall("search", "h", 5)).toMatchObject({ allowed: true, recalls: 1, limit: 2 });
    expect(await turn.claimCall("search", "h", 5)).toMatchObject({ allowed: true, recalls: 2 });
    expect(await turn.claimCall("search", "h", 5)).toMatchObject({ allowed: false, recalls: 2 });
    expect(turn.report().recalls.search).toBe(2);
    expect(await turn.budgetSpent()).toBe(false);
    await turn.spend({ unit: "bytes", value: 999 });
    expect(await turn.budgetSpent()).toBe(false);
    await turn.spend({ unit: "bytes", value: 1 });
    expect(await turn.budgetSpent()).toBe(true);
    // A turn opened anew under the same id (another process, a replica) sees the same counts.
    const again = new Turn({ id: "turn-a", store, recallLimit: 2, budget: { bytes: 1000 } });
    expect(await again.claimCall("search", "h", 5)).toMatchObject({ allowed: false, recalls: 2 });
    expect(await again.budgetSpent()).toBe(true);
  });
});

describe("a Turn without a store", () => {
  it("counts in a store of its own", async () => {
    const turn = new Turn();
    expect(await turn.claimCall("search", "h", 1)).toMatchObject({ allowed: true, recall: false });
    expect(await turn.claimCall("search", "h", 1)).toMatchObject({ allowed: true, recall: true });
    expect(await turn.claimCall("search", "h", 1)).toMatchObject({ allowed: false });
    // No budget set: never spent.
    await turn.spend({ unit: "bytes", value: 1e9 });
    expect(await turn.budgetSpent()).toBe(false);
  });
});

describe("the memory turn store's bounds", () => {
  it("forgets a turn after its time to live and the least recently used turn past maxTurns", async () => {
    let now = 0;
    const store = new MemoryTurnStore({ maxTurns: 2, ttlMs: 1000, now: () => now });
    await store.claimCall("a", "x", "h", 0);
    await store.addContext("a", "bytes", 5);
    now = 999;
    expect(await store.claimCall("a", "x", "h", 0)).toMatchObject({ allowed: false });
    now = 1998;
    expect(await store.claimCall("a", "x", "h", 0)).toMatchObject({ allowed: false });
    now = 3000;
    expect(await store.context("a")).toEqual({ bytes: 0, tokens: 0 });
    expect(await store.claimCall("a", "x", "h", 0)).toMatchObject({ allowed: true, recall: false });
    await store.claimCall("b", "x", "h", 0);
    await store.claimCall("a", "x", "k", 0);
    await store.claimCall("c", "x", "h", 0);
    // b was the least recently used of three: forgotten; a is kept.
    expect(await store.claimCall("a", "x", "h", 0)).toMatchObject({ allowed: false });
    expect(await store.claimCall("b", "x", "h", 0)).toMatchObject({ allowed: true, recall: false });
  });
});

describe("the Redis turn store, shared", () => {
  it("counts one turn across two clients (two processes), and allows claims made at once exactly up to the cap", async () => {
    const one = new RedisTurnStore({ client, prefix: "shared:" });
    const two = new RedisTurnStore({ client: second, prefix: "shared:" });
    await one.claimCall("t", "search", "h", 3);
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).claimCall("t", "search", "h", 3)),
    );
    expect(claims.filter((claim) => claim.allowed)).toHaveLength(3);
    expect(claims.every((claim) => claim.recall)).toBe(true);
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).addContext("t", "bytes", 7)));
    expect(await two.context("t")).toEqual({ bytes: 70, tokens: 0 });
  });

  it("gives a turn's key a time to live, pushed back by each call, and bounds the arguments it remembers", async () => {
    const store = new RedisTurnStore({ client, prefix: "ttl:", ttlMs: 60_000 });
    await store.claimCall("t", "search", "h", 1);
    const ttl = await client.pTTL("ttl:t");
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const fields = Array.from({ length: MAX_TURN_ARGUMENTS + 50 }, (_, i) => `h${i}`);
    for (let i = 0; i < fields.length; i += 500) {
      await Promise.all(fields.slice(i, i + 500).map((hash) => store.claimCall("big", "search", hash, 1)));
    }
    expect(await client.hLen("ttl:big")).toBeLessThanOrEqual(MAX_TURN_ARGUMENTS);
    // Past the bound, new arguments pass and are not remembered: the bound never refuses a call.
    expect(await store.claimCall("big", "search", "h-new", 1)).toMatchObject({ allowed: true, recall: false });
    expect(await store.claimCall("big", "search", "h-new", 1)).toMatchObject({ allowed: true, recall: false });
  });

  it("refuses a ttl that is not a whole number of milliseconds", () => {
    expect(() => new RedisTurnStore({ client, ttlMs: 0 })).toThrow(TypeError);
    expect(() => new RedisTurnStore({ client, ttlMs: Number.NaN })).toThrow(TypeError);
  });
});
