/**
 * One event per admitted payload, to a pluggable sink, and the counters operators watch.
 *
 * Events carry codes, numbers, the tool's name and the caller's correlation id: never payload text, instance
 * paths or messages, so a log pipeline can keep them without handling tool output.
 */

import type { FailureCode, GateFlag, GateStage } from "../contract/types.js";
import type { RawKind } from "../stages/receive/received.js";

/** How an admit's view was brought within budget: `direct` (it fit), a policy, or `drop` (an `oversize` failure). */
export type PolicyMix = "direct" | "summarize" | "spill" | "recall" | "shorten" | "drop";

/** What the `summarize` policy measured: numbers and a flag only, never the summary. */
export interface SummarizeFacts {
  /** Milliseconds from asking for the summary to having it (the hook's run, or the cache lookup), to 0.1 ms. */
  ms: number;
  /** True when the summary came from the cache (same hook, same raw sha256). */
  cached: boolean;
}

/**
 * The version of {@link GateEvent}'s format, written in every event as `v`. Version 2 added `mode`: an event with
 * `mode: "observe"` records what enforcement would have done, not what the caller got. Every version 1 event was
 * enforced.
 */
export const EVENT_VERSION = 2;

/** What one admit did. */
export interface GateEvent {
  /**
   * The event format's version: readers such as `toolgate report` refuse a line of a version they do not know.
   * Written as {@link EVENT_VERSION}; a reader meets version 1 in older files.
   */
  v: typeof EVENT_VERSION | 1;
  tool: string;
  contractVersion: string;
  /** `ok`, or the failure code. */
  code: "ok" | FailureCode;
  /** The stage that decided the outcome. */
  stage: GateStage;
  /** What the transport delivered. */
  rawKind: RawKind;
  /**
   * The payload's bytes and ceiling; for a view, its size in the budget's unit, and `exact: false` when that size is
   * an upper bound on the tokens rather than their count (the outcome's `contextUsed.exact`).
   */
  sizes: {
    rawBytes: number;
    maxBytes: number;
    viewSize?: number;
    budget?: number;
    unit?: "bytes" | "tokens";
    exact?: false;
  };
  correlationId?: string | undefined;
  /** The id of the `Turn` the call belongs to (`ctx.turn.id`; a call without one is its own turn). */
  turn?: string | undefined;
  /** For successes and `oversize` failures: how the budget was met. */
  policy?: PolicyMix | undefined;
  flags?: GateFlag[] | undefined;
  /** True when the outcome came from a `recall` (a re-call with narrowed arguments); sizes are then the re-call's. */
  recall?: boolean | undefined;
  /**
   * How many re-calls this admit made (each narrowed call counted, however deep), present when it made any. A reader
   * of an event without it counts one re-call for `recall: true`.
   */
  recalls?: number | undefined;
  /** When the `summarize` policy ran: how long the summary took and whether it came from the cache. */
  summarize?: SummarizeFacts | undefined;
  /**
   * `observe` when the gate ran in observe mode: `code`, `stage`, `policy` and `sizes` are the outcome enforcement
   * would have given, and the caller got the original result. Absent, the gate enforced.
   */
  mode?: "observe" | undefined;
  /** ISO 8601 time the payload was received. */
  receivedAt: string;
}

/** Receives gate events. A sink that throws never changes an outcome: the error is swallowed. */
export type EventSink = { emit(event: GateEvent): void } | ((event: GateEvent) => void);

/** Delivers an event to a sink; a sink failure (sync or async) must not turn a good call into a bad one. */
export function deliver(sink: EventSink | undefined, event: GateEvent): void {
  if (sink === undefined) return;
  try {
    const result: unknown = typeof sink === "function" ? sink(event) : sink.emit(event);
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // Observability is best effort by design; see the function comment.
  }
}

/** Sends each event to every sink. */
export function fanOut(...sinks: EventSink[]): EventSink {
  return (event) => {
    for (const sink of sinks) deliver(sink, event);
  };
}

/**
 * Writes each event as one JSON line. `out` is a function taking the line or anything with a `write` method
 * (`process.stdout`, a file stream).
 */
export function jsonLinesSink(out: ((line: string) => unknown) | { write(chunk: string): unknown }): EventSink {
  const write = typeof out === "function" ? out : (line: string) => out.write(line);
  return (event) => {
    write(`${JSON.stringify(event)}\n`);
  };
}

/**
 * A snapshot of {@link GateCounters}: counts by tool, then by failure code or policy. Every level is an object
 * without a prototype (read it with `Object.hasOwn`, `Object.entries` or `?.`; it serialises as usual).
 */
export interface CounterSnapshot {
  admits: Record<string, number>;
  rejects: Record<string, Partial<Record<FailureCode, number>>>;
  policies: Record<string, Partial<Record<PolicyMix, number>>>;
}

/** Counts admits, rejects per tool and code, and the policy mix per tool. Usable as a sink. */
export class GateCounters {
  readonly #admits = new Map<string, number>();
  readonly #rejects = new Map<string, Map<FailureCode, number>>();
  readonly #policies = new Map<string, Map<PolicyMix, number>>();

  /** Counts one event. */
  emit(event: GateEvent): void {
    this.#admits.set(event.tool, (this.#admits.get(event.tool) ?? 0) + 1);
    if (event.code !== "ok") bump(this.#rejects, event.tool, event.code);
    if (event.policy !== undefined) bump(this.#policies, event.tool, event.policy);
  }

  /**
   * The counts so far, as objects keyed by tool name. They have no prototype: a server names its tools, and
   * `admits[name]` must be a count or `undefined` for every name (`constructor`, `__proto__`, `toString`), never
   * an inherited member.
   */
  snapshot(): CounterSnapshot {
    const nested = <K extends string>(map: Map<string, Map<K, number>>) => {
      const out: Record<string, Partial<Record<K, number>>> = Object.create(null);
      for (const [tool, counts] of map) out[tool] = byKey(counts) as Partial<Record<K, number>>;
      return out;
    };
    return {
      admits: byKey(this.#admits),
      rejects: nested(this.#rejects),
      policies: nested(this.#policies),
    };
  }

  /** Starts counting from zero. */
  reset(): void {
    this.#admits.clear();
    this.#rejects.clear();
    this.#policies.clear();
  }
}

/** A map's entries as an object without a prototype, so no key reads or sets an inherited member. */
function byKey<K extends string>(map: ReadonlyMap<K, number>): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const [key, count] of map) out[key] = count;
  return out;
}

function bump<K>(map: Map<string, Map<K, number>>, tool: string, key: K): void {
  let counts = map.get(tool);
  if (counts === undefined) {
    counts = new Map();
    map.set(tool, counts);
  }
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** The process-wide counters: every admit is counted here, whatever sink its events go to. */
export const gateCounters = new GateCounters();

let defaultSink: EventSink | undefined;

/** Sets the sink for admits whose context names none (`undefined`: events are only counted). */
export function setDefaultSink(sink: EventSink | undefined): void {
  defaultSink = sink;
}

/** The sink for admits whose context names none. */
export function getDefaultSink(): EventSink | undefined {
  return defaultSink;
}
