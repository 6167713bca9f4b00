/**
 * Where a {@link Turn}'s counters are kept: which arguments each tool was called with in the turn, its re-calls, and
 * the context its results took. A turn's own memory by default; one store shared by several processes (Redis:
 * `RedisTurnStore` of `@toolgate/runtime/redis`) lets each of them serve calls of the same turn and count them once.
 */
/** What {@link Turn.claimCall} answers: whether the call may go ahead, and the tool's re-calls in the turn. */
export interface CallClaim {
  /** False when the call is a re-call past the limit: it must not be made. */
  allowed: boolean;
  /** True when the turn already saw this tool called with these arguments: the call is a re-call. */
  recall: boolean;
  /** Re-calls of the tool counted in the turn, this one included when it was allowed. */
  recalls: number;
  /** The re-call limit the claim was held to. */
  limit: number;
}

/** The context a turn's results took, per unit. */
export interface ContextTotals {
  bytes: number;
  tokens: number;
}

/**
 * A turn's counters, kept where every process serving the turn reads them: which arguments each tool was called
 * with, its re-calls, and the context its results took. Each method is one atomic step of the store, so two
 * processes claiming the same re-call at once count two, and at most `limit` are allowed.
 */
export interface TurnStore {
  /**
   * Claims a call of `tool` with arguments of `argumentsHash` in turn `turnId`: arguments the turn has not seen pass
   * (and are remembered); arguments it has seen are a re-call, counted and allowed while fewer than `limit` were.
   */
  claimCall(turnId: string, tool: string, argumentsHash: string, limit: number): Promise<CallClaim>;
  /** Adds `value` to the turn's context used in `unit`, and answers the totals after. */
  addContext(turnId: string, unit: "bytes" | "tokens", value: number): Promise<ContextTotals>;
  /** The turn's context used, per unit (0 for a turn the store does not hold). */
  context(turnId: string): Promise<ContextTotals>;
}

/** The most argument hashes a store remembers per turn: past it, new arguments are not remembered (never refused). */
export const MAX_TURN_ARGUMENTS = 4096;

/**
 * A {@link TurnStore} in this process's memory: what one process shares between the turns it opens under one id.
 * Bounded: at most `maxTurns` turns (the least recently used one forgotten first), each forgotten `ttlMs` after
 * its last use, and {@link MAX_TURN_ARGUMENTS} argument hashes per turn.
 */
export class MemoryTurnStore implements TurnStore {
  readonly #turns = new Map<string, { fields: Map<string, number>; expires: number }>();
  readonly #maxTurns: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { maxTurns?: number; ttlMs?: number; now?: () => number } = {}) {
    this.#maxTurns = options.maxTurns ?? 10_000;
    this.#ttlMs = options.ttlMs ?? 30 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** The turn's counters, made the most recently used; a new turn's when it expired or was never opened. */
  #fields(turnId: string): Map<string, number> {
    const now = this.#now();
    let turn = this.#turns.get(turnId);
    if (turn !== undefined) this.#turns.delete(turnId);
    if (turn === undefined || turn.expires <= now) turn = { fields: new Map(), expires: 0 };
    turn.expires = now + this.#ttlMs;
    this.#turns.set(turnId, turn);
    for (const [id, held] of this.#turns) {
      if (this.#turns.size <= this.#maxTurns && held.expires > now) break;
      this.#turns.delete(id);
    }
    return turn.fields;
  }

  async claimCall(turnId: string, tool: string, argumentsHash: string, limit: number): Promise<CallClaim> {
    const fields = this.#fields(turnId);
    const seen = argumentsField(tool, argumentsHash);
    const made = fields.get(recallsField(tool)) ?? 0;
    if (!fields.has(seen)) {
      if (fields.size < MAX_TURN_ARGUMENTS) fields.set(seen, 1);
      return { allowed: true, recall: false, recalls: made, limit };
    }
    if (made >= limit) return { allowed: false, recall: true, recalls: made, limit };
    fields.set(recallsField(tool), made + 1);
    return { allowed: true, recall: true, recalls: made + 1, limit };
  }

  async addContext(turnId: string, unit: "bytes" | "tokens", value: number): Promise<ContextTotals> {
    const fields = this.#fields(turnId);
    fields.set(unit, (fields.get(unit) ?? 0) + value);
    return { bytes: fields.get("bytes") ?? 0, tokens: fields.get("tokens") ?? 0 };
  }

  async context(turnId: string): Promise<ContextTotals> {
    const turn = this.#turns.get(turnId);
    if (turn === undefined || turn.expires <= this.#now()) return { bytes: 0, tokens: 0 };
    return { bytes: turn.fields.get("bytes") ?? 0, tokens: turn.fields.get("tokens") ?? 0 };
  }
}

/**
 * The field a store keeps one tool's arguments under. The tool name comes last, after a separator no hash holds,
 * so no name a server chooses makes one tool's field another's, nor a counter's (`r:`, `bytes`, `tokens`).
 */
export function argumentsField(tool: string, argumentsHash: string): string {
  return `a:${argumentsHash}:${tool}`;
}

/** The field a store counts one tool's re-calls under. */
export function recallsField(tool: string): string {
  return `r:${tool}`;
}
