/**
 * One agent turn's ledger of tool results: what each tool contributed, the per-turn limits, and the context used.
 *
 * The caller opens a `Turn` per agent turn and passes it to every `admit` (`ctx.turn`). At the end it reads
 * {@link Turn.report}: whether every expected result arrived complete, and if not which ones are partial, absent
 * or failed and why, so it can compact the context or stop with an answer that says what could not be read. Given
 * the model's window, {@link Turn.window} says after each admit how full it is, whether to compact (at 70% by
 * default, down to 40%), what each tool contributed, and when compacting did not help, that the turn should stop.
 */
import type { FailureCode, Omission, Outcome } from "../contract/types.js";
import { hostBuiltin } from "./provenance.js";
import { type CallClaim, type ContextTotals, MemoryTurnStore, type TurnStore } from "./turn-store.js";

export { type CallClaim, type ContextTotals, MemoryTurnStore, type TurnStore } from "./turn-store.js";

/** What one tool call contributed to the turn. */
export type ContributionStatus = "complete" | "partial" | "absent" | "failed";

/** Why a contribution is not complete, as codes. */
export type ContributionReason = FailureCode | "view_cut" | "summarize" | "spill" | "no_result";

/** One tool call's record in the turn. */
export interface Contribution {
  tool: string;
  correlationId?: string | undefined;
  status: ContributionStatus;
  /** Absent for `complete`. */
  reason?: ContributionReason | undefined;
  /** For `failed`: whether a retry of the same call may help. */
  retryable?: boolean | undefined;
  /** For `partial`: what the view left out. */
  omissions?: Omission[] | undefined;
  /** The continuation token, when the tool has more to give. */
  continuation?: string | undefined;
  /** The context this result (or a failure's note) takes, in its contract's unit; 0 for absent results. */
  contextUsed: { unit: "bytes" | "tokens"; value: number };
}

/** The turn's state at the time of asking. */
export interface TurnReport {
  turnId: string;
  /** True when every contribution is complete. */
  complete: boolean;
  contributions: Contribution[];
  /** The contributions that are not complete: what an answer must say it could not read. */
  unread: Contribution[];
  /** Context used by results, summed per unit. */
  contextUsed: { bytes: number; tokens: number };
  /**
   * Re-calls made per tool. An object without a prototype: `recalls[name]` is a count or `undefined` for any tool
   * name a server may choose (`constructor`, `__proto__`, `toString`), never an inherited member.
   */
  recalls: Record<string, number>;
  /** The turn's own context budget, when one was set, and whether the results are over it. */
  budget?: { bytes?: number | undefined; tokens?: number | undefined; over: boolean } | undefined;
}

/** Options of a {@link Turn}. */
export interface TurnOptions {
  /** The turn's id in your logs; by default one no other turn of this or any other process has. */
  id?: string | undefined;
  /**
   * A cap on re-calls per tool in this turn, on top of each contract's `recallLimit` (the lower one holds): one
   * number for every tool, or a number per tool name (an object, read by its own keys only, or a `Map`). A cap
   * that is not a finite number of zero or more (`NaN`, `Infinity`, a negative number, something other than a
   * number) sets no cap: the contract's limit holds. A fractional cap is rounded down.
   */
  recallLimit?: number | Readonly<Record<string, number>> | ReadonlyMap<string, number> | undefined;
  /** The context the turn's results may take, per unit: the report says when they are over it. */
  budget?: { bytes?: number | undefined; tokens?: number | undefined } | undefined;
  /**
   * The model's context window: after each admit, {@link Turn.window} (and `onWindow`) says how full it is, whether
   * compaction should run and what each tool contributed.
   */
  window?: TurnWindow | undefined;
  /** Called after each outcome is recorded, with the window's state (when a window is set). */
  onWindow?: ((state: WindowState) => void) | undefined;
  /**
   * Where {@link Turn.claimCall} and {@link Turn.spend} keep the turn's counters: one store every process shares
   * (`RedisTurnStore` of `@toolgate/runtime/redis`) makes every process that opens a turn of the same `id` count the
   * same turn. By default, a store of this turn's own.
   */
  store?: TurnStore | undefined;
}

/** The model's context window, and when to compact it. */
export interface TurnWindow {
  unit: "bytes" | "tokens";
  /** The window's size, in `unit`. */
  max: number;
  /** What the rest of the context already takes (system prompt, history), in `unit`; default 0. */
  reserved?: number | undefined;
  /** Compact once the window is this full (a fraction); default 0.7. */
  compactAt?: number | undefined;
  /** Compact down to this (a fraction); default 0.4. */
  aimAt?: number | undefined;
}

/** What one tool takes of the window. */
export interface ToolShare {
  tool: string;
  /** In the window's unit (estimated at 4 bytes a token where a contract counts in the other unit). */
  used: number;
  calls: number;
  /** Calls whose result is not complete (partial, failed, absent). */
  unread: number;
}

/** The window after an admit: how full it is and what to do about it. */
export interface WindowState {
  unit: "bytes" | "tokens";
  max: number;
  /** Reserved plus every result, less what compaction freed. */
  used: number;
  /** `used / max`. */
  ratio: number;
  /** True once `used` reaches `compactAt × max`: compaction should run now. */
  compact: boolean;
  /** How much compaction should free to get down to `aimAt × max`; 0 when it need not run. */
  free: number;
  /** True when some share was converted between bytes and tokens (an estimate). */
  estimated: boolean;
  /** Each tool's share, largest first: what to drop or summarize first. */
  byTool: ToolShare[];
  /**
   * Present when the turn already dropped or summarized (a compaction, or a result the gate summarized or
   * refused as oversize) and the window is still at or past `compactAt`: it cannot progress, so stop with a partial
   * answer that says what it could not read (`answer`, from {@link describeUnread}).
   */
  stop?: { reason: "cannot_progress"; answer: string; unread: Contribution[] } | undefined;
}

/** How much of the context was freed by compaction, and how. */
export interface Compaction {
  how: "dropped" | "summarized";
  /** What it freed, in the window's unit. */
  freed: number;
}

/** Bytes per token, to convert a contribution measured in the other unit (a rough, conservative estimate). */
const BYTES_PER_TOKEN = 4;

let turnCounter = 0;

/**
 * What makes this process's default turn ids its own: event files are appended to by many processes (every
 * `toolgate proxy` a host starts, every worker of an application), and `toolgate report` counts turns by id, so
 * `turn-1` of one process must not be `turn-1` of another. 64 random bits: two processes share it with a chance of
 * about one in 10¹⁹ per pair. Where no Web Crypto is available, time and `Math.random` stand in.
 */
const PROCESS_TOKEN = processToken();

function processToken(): string {
  const words = new Uint32Array(2);
  // `node:crypto`'s own generator where the host has it (the gate loads that module for its hashes anyway): Node's
  // global `crypto` is a lazy getter whose first read loads all of Web Crypto, about a millisecond at import.
  const nodeRandom = hostBuiltin<{ randomFillSync?: (array: Uint32Array) => Uint32Array }>("node:crypto");
  if (typeof nodeRandom?.randomFillSync === "function") nodeRandom.randomFillSync(words);
  else {
    const crypto = (globalThis as { crypto?: { getRandomValues?: (array: Uint32Array) => Uint32Array } }).crypto;
    if (typeof crypto?.getRandomValues === "function") crypto.getRandomValues(words);
    else {
      words[0] = Date.now() >>> 0;
      words[1] = Math.floor(Math.random() * 2 ** 32);
    }
  }
  return [...words].map((word) => word.toString(16).padStart(8, "0")).join("");
}

/** The ledger of one agent turn. Not shared across turns: open a new one per turn. */
export class Turn {
  /** An id for logs; defaults to `turn-<this process's random token>-<a per-process counter>`. */
  readonly id: string;
  readonly #contributions: Contribution[] = [];
  readonly #recalls = new Map<string, number>();
  readonly #argumentHashes = new Map<string, Set<string>>();
  readonly #recallLimit: TurnOptions["recallLimit"];
  readonly #budget: TurnOptions["budget"];
  readonly #window: TurnWindow | undefined;
  readonly #onWindow: TurnOptions["onWindow"];
  readonly #compactions: Compaction[] = [];
  #store: TurnStore | undefined;

  /** Opens a turn; see {@link TurnOptions}. */
  constructor(options: TurnOptions = {}) {
    turnCounter += 1;
    this.id = options.id ?? `turn-${PROCESS_TOKEN}-${turnCounter}`;
    this.#recallLimit = options.recallLimit;
    this.#budget = options.budget;
    const window = options.window;
    if (window !== undefined) {
      const fraction = (value: number | undefined, fallback: number) =>
        typeof value === "number" && value > 0 && value <= 1 ? value : fallback;
      if (!(Number.isFinite(window.max) && window.max > 0)) throw new TypeError("Turn: window.max must be above 0");
      const compactAt = fraction(window.compactAt, 0.7);
      this.#window = { ...window, compactAt, aimAt: Math.min(fraction(window.aimAt, 0.4), compactAt) };
    }
    this.#onWindow = options.onWindow;
    this.#store = options.store;
  }

  /** The turn's store: the one given, or (made at first use, since most turns never claim) one of its own. */
  get #counters(): TurnStore {
    this.#store ??= new MemoryTurnStore({ maxTurns: 1 });
    return this.#store;
  }

  /**
   * Claims a call of `tool` with arguments of `argumentsHash` before it is made, in the turn's store (see
   * {@link TurnOptions.store}): the same tool with the same arguments again is a re-call, allowed up to
   * {@link recallLimitFor} times in the turn and refused after (`allowed: false`: do not make the call).
   */
  async claimCall(tool: string, argumentsHash: string, contractLimit: number): Promise<CallClaim> {
    const claim = await this.#counters.claimCall(
      this.id,
      tool,
      argumentsHash,
      this.recallLimitFor(tool, contractLimit),
    );
    // Only the count is mirrored here (one number per tool): the arguments seen stay in the store, which bounds them.
    if (claim.recalls > this.recallsOf(tool)) this.#recalls.set(tool, claim.recalls);
    return claim;
  }

  /** Adds a result's context to the turn's totals in its store; answers the totals after. */
  async spend(used: { unit: "bytes" | "tokens"; value: number }): Promise<ContextTotals> {
    const value = Number.isFinite(used.value) && used.value > 0 ? Math.ceil(used.value) : 0;
    return this.#counters.addContext(this.id, used.unit, value);
  }

  /**
   * Whether the turn's results, as its store counts them, already take its budget (a budget unit reached counts):
   * false when the turn has no budget.
   */
  async budgetSpent(): Promise<boolean> {
    const budget = this.#budget;
    if (budget?.bytes === undefined && budget?.tokens === undefined) return false;
    const totals = await this.#counters.context(this.id);
    return (
      (budget.bytes !== undefined && totals.bytes >= budget.bytes) ||
      (budget.tokens !== undefined && totals.tokens >= budget.tokens)
    );
  }

  /**
   * Whether the turn sums tokens (a token budget or a token window): the gate then counts a result's tokens even
   * when its UTF-8 length alone showed it within its contract's budget, so the turn adds counts, not bounds.
   */
  get countsTokens(): boolean {
    return this.#budget?.tokens !== undefined || this.#window?.unit === "tokens";
  }

  /**
   * The re-calls `tool` may make in this turn: its contract's limit, or the turn's cap if lower. Always a whole
   * number of zero or more: a contract limit that is not one counts as 0, and a cap that is not one is no cap.
   */
  recallLimitFor(tool: string, contractLimit: number): number {
    const limit = wholeCount(contractLimit) ?? 0;
    const cap = wholeCount(capFor(this.#recallLimit, tool));
    return cap === undefined ? limit : Math.min(limit, cap);
  }

  /**
   * Declares a call the caller is about to make, so that it is reported `absent` if no outcome ever arrives
   * (the agent stopped, the call was skipped). The outcome, when it comes, replaces it.
   */
  expect(tool: string, correlationId?: string): void {
    this.#contributions.push({
      tool,
      correlationId,
      status: "absent",
      reason: "no_result",
      contextUsed: { unit: "bytes", value: 0 },
    });
  }

  /**
   * Records an outcome (admit does this when given the turn). Replaces the matching expected entry, if any.
   * `failureContext` is what a failure's short note takes in the context (admit measures it in the contract's unit).
   */
  record(
    outcome: Outcome<unknown, unknown>,
    failureContext?: { unit: "bytes" | "tokens"; value: number } | undefined,
  ): Contribution {
    const { tool, correlationId } = outcome.provenance;
    const contribution = contributionOf(outcome, failureContext);
    const expected = this.#contributions.findIndex(
      (entry) => entry.status === "absent" && entry.tool === tool && entry.correlationId === correlationId,
    );
    if (expected >= 0) this.#contributions[expected] = contribution;
    else this.#contributions.push(contribution);
    if (this.#onWindow !== undefined && this.#window !== undefined) {
      const state = this.window() as WindowState;
      try {
        this.#onWindow(state);
      } catch {
        // The caller's callback never changes an outcome.
      }
    }
    return contribution;
  }

  /**
   * Notes that the caller compacted the context (dropped results or summarized them) and how much it freed, in the
   * window's unit. A window still at `compactAt` after a compaction is one the turn cannot progress in.
   */
  compacted(compaction: Compaction): void {
    const freed = Number.isFinite(compaction.freed) && compaction.freed > 0 ? compaction.freed : 0;
    this.#compactions.push({ how: compaction.how, freed });
  }

  /** The window's state now: `undefined` when the turn has no window. */
  window(): WindowState | undefined {
    const window = this.#window;
    if (window === undefined) return undefined;
    const shares = new Map<string, ToolShare>();
    let estimated = false;
    let results = 0;
    for (const entry of this.#contributions) {
      let used = entry.contextUsed.value;
      if (entry.contextUsed.unit !== window.unit && used > 0) {
        estimated = true;
        used = window.unit === "tokens" ? Math.ceil(used / BYTES_PER_TOKEN) : used * BYTES_PER_TOKEN;
      }
      results += used;
      let share = shares.get(entry.tool);
      if (share === undefined) {
        share = { tool: entry.tool, used: 0, calls: 0, unread: 0 };
        shares.set(entry.tool, share);
      }
      share.used += used;
      share.calls += 1;
      if (entry.status !== "complete") share.unread += 1;
    }
    const freed = this.#compactions.reduce((sum, compaction) => sum + compaction.freed, 0);
    const used = Math.max(0, (window.reserved ?? 0) + results - freed);
    const compactAt = (window.compactAt as number) * window.max;
    const compact = used >= compactAt;
    const state: WindowState = {
      unit: window.unit,
      max: window.max,
      used,
      ratio: used / window.max,
      compact,
      free: compact ? Math.ceil(used - (window.aimAt as number) * window.max) : 0,
      estimated,
      byTool: [...shares.values()].sort((a, b) => b.used - a.used || (a.tool < b.tool ? -1 : 1)),
    };
    const gateCut = this.#contributions.some((entry) => entry.reason === "summarize" || entry.reason === "oversize");
    if (compact && (this.#compactions.length > 0 || gateCut)) {
      const report = this.report();
      state.stop = { reason: "cannot_progress", answer: describeUnread(report), unread: report.unread };
    }
    return state;
  }

  /** How many re-calls `tool` has made in this turn. */
  recallsOf(tool: string): number {
    return this.#recalls.get(tool) ?? 0;
  }

  /** Counts one re-call of `tool`. */
  countRecall(tool: string): void {
    this.#recalls.set(tool, this.recallsOf(tool) + 1);
  }

  /**
   * Notes that `tool` was called with arguments of this hash. Returns false when it was already called with the
   * same arguments in this turn (a re-call with the same arguments would return the same result).
   */
  noteArguments(tool: string, argumentsHash: string): boolean {
    let seen = this.#argumentHashes.get(tool);
    if (seen === undefined) {
      seen = new Set();
      this.#argumentHashes.set(tool, seen);
    }
    if (seen.has(argumentsHash)) return false;
    seen.add(argumentsHash);
    return true;
  }

  /** Whether `tool` was already called with arguments of this hash in this turn. */
  hasSeenArguments(tool: string, argumentsHash: string): boolean {
    return this.#argumentHashes.get(tool)?.has(argumentsHash) ?? false;
  }

  /** The turn so far. */
  report(): TurnReport {
    const contributions = this.#contributions.map((entry) => ({ ...entry }));
    const unread = contributions.filter((entry) => entry.status !== "complete");
    const contextUsed = { bytes: 0, tokens: 0 };
    for (const entry of contributions) contextUsed[entry.contextUsed.unit] += entry.contextUsed.value;
    const budget = this.#budget;
    return {
      turnId: this.id,
      complete: unread.length === 0,
      contributions,
      unread,
      contextUsed,
      recalls: countsByName(this.#recalls),
      ...(budget === undefined
        ? {}
        : {
            budget: {
              ...budget,
              over:
                (budget.bytes !== undefined && contextUsed.bytes > budget.bytes) ||
                (budget.tokens !== undefined && contextUsed.tokens > budget.tokens),
            },
          }),
    };
  }
}

/**
 * The turn's cap for `tool`. Tool names are chosen by servers, so a per-name table is read by its own keys only:
 * `caps[tool]` on a plain object would hand a tool named `constructor` or `toString` an inherited function.
 */
function capFor(caps: TurnOptions["recallLimit"], tool: string): unknown {
  if (caps === undefined || caps === null || typeof caps !== "object") return caps;
  if (caps instanceof Map) return caps.get(tool);
  return Object.hasOwn(caps, tool) ? (caps as Readonly<Record<string, unknown>>)[tool] : undefined;
}

/** `value` as a count of re-calls (a finite number ≥ 0, rounded down), or `undefined` when it is not one. */
function wholeCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/** Counts by tool name as an object without a prototype, so no name reads or sets an inherited member. */
function countsByName(counts: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const [name, count] of counts) out[name] = count;
  return out;
}

/** The contribution an outcome makes. */
function contributionOf(
  outcome: Outcome<unknown, unknown>,
  failureContext: { unit: "bytes" | "tokens"; value: number } | undefined,
): Contribution {
  const { tool, correlationId } = outcome.provenance;
  if (!outcome.ok) {
    return {
      tool,
      correlationId,
      status: "failed",
      reason: outcome.error.code,
      retryable: outcome.error.retryable,
      contextUsed: failureContext ?? { unit: "bytes", value: 0 },
    };
  }
  const contextUsed = { unit: outcome.contextUsed.unit, value: outcome.contextUsed.value };
  if (outcome.complete) return { tool, correlationId, status: "complete", contextUsed };
  const reason: ContributionReason =
    outcome.policy === "summarize" || outcome.policy === "spill" ? outcome.policy : "view_cut";
  return {
    tool,
    correlationId,
    status: "partial",
    reason,
    omissions: outcome.omissions,
    continuation: outcome.continuation,
    contextUsed,
  };
}

/** How a contribution that is not complete is told in plain words. */
function unreadLine(entry: Contribution): string {
  const call = entry.correlationId === undefined ? entry.tool : `${entry.tool} (${entry.correlationId})`;
  switch (entry.status) {
    case "absent":
      return `${call}: no result arrived`;
    case "failed":
      return `${call}: failed (${entry.reason}${entry.retryable ? ", a retry may help" : ""})`;
    case "partial": {
      const cut = (entry.omissions ?? []).map(
        (omission) => `${omission.count} ${omission.kind} at ${omission.path || "/"}`,
      );
      const how = entry.reason === "view_cut" ? "shown in part" : `shown as a ${entry.reason}`;
      return `${call}: ${how}${cut.length > 0 ? ` (${cut.join(", ")} left out)` : ""}`;
    }
    default:
      return call;
  }
}

/**
 * What a partial answer should admit it could not read, one line per contribution that is not complete; empty when
 * the turn is complete. Built from tool names, codes, counts and schema paths only: never tool output.
 */
export function describeUnread(report: TurnReport): string {
  return report.unread.map(unreadLine).join("\n");
}
