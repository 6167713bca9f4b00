/**
 * The report's measures, from a finished {@link Tally}: per tool and for all tools, the rates and the latency
 * percentiles; with labels, the recovered rate per tool and policy against clean turns. This is also the JSON
 * report's shape (`toolgate report --format json`).
 */
import { type Rate, rateOf } from "./interval.js";
import type { LineProblem } from "./read.js";
import { OVERSIZE_POLICIES, type OversizePolicyName, type Tally, type ToolTally } from "./tally.js";

/** One tool's measures (or all tools'). */
export interface ToolMeasures {
  tool: string;
  admits: number;
  /** Failures by code, codes in name order. */
  rejects: Record<string, number>;
  /** Failures of any code over admits. */
  rejectRate: number;
  /** Admits whose view was over budget (handled by a policy, or dropped) over admits. */
  oversize: number;
  oversizeRate: number;
  /** How the oversize admits were handled, each policy's count and share of them. */
  mix: Record<OversizePolicyName, { count: number; share: number | null }>;
  /** Summarize latency in ms (nearest-rank percentiles) and how many summaries came from the cache. */
  summarize: {
    n: number;
    p50: number | null;
    p95: number | null;
    max: number | null;
    cached: number;
    cacheHitRate: number | null;
  };
  recalls: number;
  turns: number;
  recallsPerTurn: number | null;
  /** Turns where the tool's result reached the model summarized or spilled (only in part). */
  partialTurns: number;
  /** Turns where a call of the tool failed: the model got a typed failure instead of data from it. */
  failedTurns: number;
}

/** A recovered rate: labelled turns correct among those that met the handling. */
export interface Recovered extends Rate {
  tool: string;
  policy: OversizePolicyName;
}

/** The recovered rates, when labels were given. */
export interface RecoveredMeasures {
  /** Labels read, and those whose turn or call appears in the trace. */
  labels: number;
  matched: number;
  /** Labelled turns with no oversize event. */
  clean: Rate;
  /** Labelled turns with an oversize event handled by the policy, any tool. */
  byPolicy: Record<OversizePolicyName, Rate>;
  /** Per tool and policy, for every pair met in a labelled turn. */
  byTool: Recovered[];
}

/** The whole report. */
export interface Report {
  files: string[];
  events: number;
  badLines: number;
  /** The first problems (file, line, reason); `badLines` counts all of them. */
  problems: LineProblem[];
  tools: ToolMeasures[];
  all: ToolMeasures;
  recovered?: RecoveredMeasures | undefined;
}

const share = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/** One tally's measures. */
export function toolMeasures(tally: ToolTally): ToolMeasures {
  const rejected = [...tally.rejects.values()].reduce((sum, n) => sum + n, 0);
  const latency = tally.latencies.summary([0.5, 0.95]);
  const mix = Object.fromEntries(
    OVERSIZE_POLICIES.map((p) => {
      const count = tally.mix.get(p) ?? 0;
      return [p, { count, share: share(count, tally.oversize) }];
    }),
  ) as ToolMeasures["mix"];
  return {
    tool: tally.tool,
    admits: tally.admits,
    rejects: Object.fromEntries([...tally.rejects].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
    rejectRate: share(rejected, tally.admits) ?? 0,
    oversize: tally.oversize,
    oversizeRate: share(tally.oversize, tally.admits) ?? 0,
    mix,
    summarize: {
      n: tally.latencies.n,
      p50: latency.at[0] ?? null,
      p95: latency.at[1] ?? null,
      max: latency.max,
      cached: tally.cached,
      cacheHitRate: share(tally.cached, tally.latencies.n),
    },
    recalls: tally.recalls,
    turns: tally.turns,
    recallsPerTurn: share(tally.recalls, tally.turns),
    partialTurns: tally.partialTurns,
    failedTurns: tally.failedTurns,
  };
}

/** The recovered rates of the labelled turns met in the trace. */
export function recoveredMeasures(tally: Tally, labels: ReadonlyMap<string, boolean>): RecoveredMeasures {
  const clean = { hits: 0, n: 0 };
  const byPolicy = new Map<OversizePolicyName, { hits: number; n: number }>();
  const byTool = new Map<string, { tool: string; policy: OversizePolicyName; hits: number; n: number }>();
  for (const [key, met] of tally.units) {
    const correct = labels.get(key) === true ? 1 : 0;
    if (met.size === 0) {
      clean.hits += correct;
      clean.n++;
      continue;
    }
    const policies = new Set<OversizePolicyName>();
    for (const pair of met) {
      const [policy, tool] = pair.split("\u0000") as [OversizePolicyName, string];
      policies.add(policy);
      const cell = byTool.get(pair) ?? { tool, policy, hits: 0, n: 0 };
      cell.hits += correct;
      cell.n++;
      byTool.set(pair, cell);
    }
    for (const policy of policies) {
      const cell = byPolicy.get(policy) ?? { hits: 0, n: 0 };
      cell.hits += correct;
      cell.n++;
      byPolicy.set(policy, cell);
    }
  }
  const order = (p: OversizePolicyName) => OVERSIZE_POLICIES.indexOf(p);
  return {
    labels: labels.size,
    matched: tally.units.size,
    clean: rateOf(clean.hits, clean.n),
    byPolicy: Object.fromEntries(
      OVERSIZE_POLICIES.map((p) => [p, rateOf(byPolicy.get(p)?.hits ?? 0, byPolicy.get(p)?.n ?? 0)]),
    ) as RecoveredMeasures["byPolicy"],
    byTool: [...byTool.values()]
      .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : order(a.policy) - order(b.policy)))
      .map((c) => ({ tool: c.tool, policy: c.policy, ...rateOf(c.hits, c.n) })),
  };
}
