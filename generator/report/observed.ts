/**
 * The "would have" count of observe mode: events marked `mode: "observe"` record what enforcement would have done
 * while the caller got the original result, so they are counted here, apart from what the gate did. Per tool, how
 * many calls were observed and how many of them enforcement would have refused (by failure code), shortened,
 * spilled, summarized or answered from a narrower re-call: the decision to turn enforcement on, in numbers.
 */
import type { TraceEvent } from "./read.js";

/** What enforcement would have done with an observed result that it would not have passed whole. */
export const WOULD_HAVE = ["refused", "shortened", "spilled", "summarized", "recalled"] as const;
export type WouldHave = (typeof WOULD_HAVE)[number];

/** The policy of a success that reached the model only in part, and the words the report uses for it. */
const BY_POLICY: Readonly<Record<string, WouldHave>> = {
  shorten: "shortened",
  spill: "spilled",
  summarize: "summarized",
  recall: "recalled",
};

/** One "would have" row: a tool, what enforcement would have done, and to how many of the tool's observed calls. */
export interface WouldHaveRow {
  tool: string;
  wouldHave: WouldHave;
  /** The failure code for `refused`; `ok` for a success shortened, spilled, summarized or re-called. */
  code: string;
  calls: number;
  /** The tool's observed calls. */
  observed: number;
  /** `calls` over `observed`. */
  share: number;
}

/** What observe mode saw: observed events, and the rows, by tool, then in {@link WOULD_HAVE} order, then by code. */
export interface ObservedMeasures {
  events: number;
  wouldHave: WouldHaveRow[];
}

/** What enforcement would have done with an observed event, or undefined when it would have passed it whole. */
export function wouldHave(event: TraceEvent): { wouldHave: WouldHave; code: string } | undefined {
  if (event.code !== "ok") return { wouldHave: "refused", code: event.code };
  const policy = event.policy === undefined ? undefined : BY_POLICY[event.policy];
  return policy === undefined ? undefined : { wouldHave: policy, code: "ok" };
}

/** Counts observed events as they stream by; memory grows with tools and codes, never with events. */
export class ObservedTally {
  events = 0;
  readonly #observed = new Map<string, number>();
  /** Per tool, the count of each `wouldHave\0code`. */
  readonly #counts = new Map<string, Map<string, number>>();

  /** Counts one event marked `mode: "observe"`. */
  add(event: TraceEvent): void {
    this.events++;
    this.#observed.set(event.tool, (this.#observed.get(event.tool) ?? 0) + 1);
    const would = wouldHave(event);
    if (would === undefined) return;
    let counts = this.#counts.get(event.tool);
    if (counts === undefined) {
      counts = new Map();
      this.#counts.set(event.tool, counts);
    }
    const key = `${would.wouldHave}\u0000${would.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  /** The rows: tools in name order, each tool's rows in {@link WOULD_HAVE} order and then by code. */
  measures(): ObservedMeasures {
    const rows: WouldHaveRow[] = [];
    for (const tool of [...this.#counts.keys()].sort(byName)) {
      const observed = this.#observed.get(tool) ?? 0;
      const counts = this.#counts.get(tool) ?? new Map<string, number>();
      const toolRows = [...counts].map(([key, calls]) => {
        const [would, code] = key.split("\u0000") as [WouldHave, string];
        return { tool, wouldHave: would, code, calls, observed, share: calls / observed };
      });
      toolRows.sort(
        (a, b) => WOULD_HAVE.indexOf(a.wouldHave) - WOULD_HAVE.indexOf(b.wouldHave) || byName(a.code, b.code),
      );
      rows.push(...toolRows);
    }
    return { events: this.events, wouldHave: rows };
  }
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
