/**
 * Counting a trace as it streams by: per tool (and for all tools together) admits, rejects per code, oversize
 * events and how each was handled, summarize latencies and cache hits, re-calls, and the turns the tool took part
 * in and where its contribution was partial or failed; with labels, which labelled turns met which oversize
 * handling. Memory grows with tools, turns and labels, never with events.
 */
import { Latencies } from "./interval.js";
import { callKey, type Labels, turnKey } from "./labels.js";
import type { TraceEvent } from "./read.js";

/** How an oversize event was handled: the policies of a contract's chain, `drop` being the refusal. */
export const OVERSIZE_POLICIES = ["drop", "summarize", "spill", "recall", "shorten"] as const;
export type OversizePolicyName = (typeof OVERSIZE_POLICIES)[number];

/** The counts of one tool, or of all tools. */
export interface ToolTally {
  tool: string;
  admits: number;
  rejects: Map<string, number>;
  oversize: number;
  mix: Map<OversizePolicyName, number>;
  latencies: Latencies;
  cached: number;
  recalls: number;
  turns: number;
  partialTurns: number;
  failedTurns: number;
}

/** Bits of one tool's state in one turn: it took part, its contribution was partial, a call of it failed. */
const SEEN = 1;
const PARTIAL = 2;
const FAILED = 4;
/** Slots packed into one small integer per turn (3 bits each); tools past them go to a second map. */
const PACKED_SLOTS = 10;

/**
 * Which tools took part in which turn and how. Slot 0 is all tools, slot i + 1 the i-th tool seen. A turn costs one
 * map entry with a small integer for its first nine tools; a tenth and later tool's state is kept in a second map.
 */
class TurnBits {
  readonly #packed = new Map<string, number>();
  readonly #spilled = new Map<string, number>();

  /**
   * Sets `bits` for slot 0 (all tools) and for `slot` in the turn, with one look-up for both; returns the bits that
   * were not set before, slot 0's in the low three bits and the slot's above them.
   */
  mark(turn: string, slot: number, bits: number): number {
    const word = this.#packed.get(turn) ?? 0;
    let next = word | bits;
    let fresh = bits & ~word;
    if (slot < PACKED_SLOTS) {
      const shift = slot * 3;
      next |= bits << shift;
      fresh |= (bits & ~(word >> shift)) << 3;
    } else {
      const key = `${slot}\u0000${turn}`;
      const before = this.#spilled.get(key) ?? 0;
      if ((before | bits) !== before) this.#spilled.set(key, before | bits);
      fresh |= (bits & ~before) << 3;
    }
    if (next !== word) this.#packed.set(turn, next);
    return fresh & 63;
  }
}

function newTally(tool: string): ToolTally {
  return {
    tool,
    admits: 0,
    rejects: new Map(),
    oversize: 0,
    mix: new Map(),
    latencies: new Latencies(),
    cached: 0,
    recalls: 0,
    turns: 0,
    partialTurns: 0,
    failedTurns: 0,
  };
}

/** How an event's oversize result was handled, or undefined when its result was not over budget. */
export function oversizeHandling(event: TraceEvent): OversizePolicyName | undefined {
  const policy = event.policy;
  if ((OVERSIZE_POLICIES as readonly unknown[]).includes(policy)) return policy as OversizePolicyName;
  return event.code === "oversize" ? "drop" : undefined;
}

/** Re-calls an event reports: its count, or one for `recall: true` from a writer that did not count them. */
function recallsOf(event: TraceEvent): number {
  if (typeof event.recalls === "number" && event.recalls >= 0) return event.recalls;
  return event.recall === true ? 1 : 0;
}

/** The running counts of a trace. */
export class Tally {
  readonly all = newTally("all tools");
  readonly #tools = new Map<string, { tally: ToolTally; slot: number }>();
  readonly #turns = new TurnBits();
  readonly #labels: Labels;
  /** Labelled turns (or calls) met in the trace: the oversize handlings met there, as `policy\0tool`. */
  readonly units = new Map<string, Set<string>>();

  constructor(labels: Labels = new Map()) {
    this.#labels = labels;
  }

  /** Every tool's counts, by name. */
  tools(): ToolTally[] {
    return [...this.#tools.values()]
      .map((t) => t.tally)
      .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }

  /** Counts one event. */
  add(event: TraceEvent): void {
    let entry = this.#tools.get(event.tool);
    if (entry === undefined) {
      entry = { tally: newTally(event.tool), slot: this.#tools.size + 1 };
      this.#tools.set(event.tool, entry);
    }
    const handling = oversizeHandling(event);
    const failed = event.code !== "ok";
    const partial = !failed && (event.policy === "summarize" || event.policy === "spill");
    const bits = SEEN | (partial ? PARTIAL : 0) | (failed ? FAILED : 0);
    count(this.all, event, handling);
    count(entry.tally, event, handling);
    // A call without a turn is its own turn.
    const fresh = event.turn === undefined ? bits | (bits << 3) : this.#turns.mark(event.turn, entry.slot, bits);
    countTurn(this.all, fresh & 7);
    countTurn(entry.tally, fresh >> 3);
    if (this.#labels.size > 0) this.#label(event, handling);
  }

  /** Notes the event in the labelled turn (and call) it belongs to. */
  #label(event: TraceEvent, handling: OversizePolicyName | undefined): void {
    for (const key of [
      event.turn === undefined ? undefined : turnKey(event.turn),
      event.correlationId === undefined ? undefined : callKey(event.correlationId),
    ]) {
      if (key === undefined || !this.#labels.has(key)) continue;
      let met = this.units.get(key);
      if (met === undefined) {
        met = new Set();
        this.units.set(key, met);
      }
      if (handling !== undefined) met.add(`${handling}\u0000${event.tool}`);
    }
  }
}

/** Counts a turn's first sight of a tally's tool, and its first partial and failed result there. */
function countTurn(tally: ToolTally, fresh: number): void {
  if (fresh & SEEN) tally.turns++;
  if (fresh & PARTIAL) tally.partialTurns++;
  if (fresh & FAILED) tally.failedTurns++;
}

function count(tally: ToolTally, event: TraceEvent, handling: OversizePolicyName | undefined): void {
  tally.admits++;
  if (event.code !== "ok") tally.rejects.set(event.code, (tally.rejects.get(event.code) ?? 0) + 1);
  if (handling !== undefined) {
    tally.oversize++;
    tally.mix.set(handling, (tally.mix.get(handling) ?? 0) + 1);
  }
  if (event.summarize !== undefined) {
    tally.latencies.add(event.summarize.ms);
    if (event.summarize.cached) tally.cached++;
  }
  tally.recalls += recallsOf(event);
}
