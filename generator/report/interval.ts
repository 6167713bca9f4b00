/**
 * The statistics behind the report's figures: a rate with its Wilson score interval, and exact percentiles of the
 * summarize latencies, kept as counts per 0.1 ms (the precision events record) so memory grows with the number of
 * distinct latencies, not of events.
 */

/** A share of successes with the count behind it and its 95% Wilson score interval; `rate` is null when n = 0. */
export interface Rate {
  /** Successes (for a recovered rate: turns labelled correct). */
  hits: number;
  n: number;
  rate: number | null;
  /** The 95% interval's bounds; null when n = 0. */
  low: number | null;
  high: number | null;
}

/** The normal quantile of a two-sided 95% interval. */
const Z = 1.959963984540054;

/**
 * `hits` out of `n` as a {@link Rate}. The Wilson score interval (Wilson 1927) stays inside [0, 1] and behaves at
 * small n and at rates near 0 or 1, where the normal approximation does not.
 */
export function rateOf(hits: number, n: number): Rate {
  if (n === 0) return { hits, n, rate: null, low: null, high: null };
  const p = hits / n;
  const z2 = Z * Z;
  const centre = p + z2 / (2 * n);
  const margin = Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const scale = 1 + z2 / n;
  return {
    hits,
    n,
    rate: p,
    low: Math.max(0, (centre - margin) / scale),
    high: Math.min(1, (centre + margin) / scale),
  };
}

/** A latency distribution, counted per 0.1 ms. */
export class Latencies {
  readonly #counts = new Map<number, number>();
  #n = 0;

  /** Counts one latency in milliseconds (rounded to 0.1 ms, as events record it; a negative one counts as 0). */
  add(ms: number): void {
    const tenths = Math.max(0, Math.round(ms * 10));
    this.#counts.set(tenths, (this.#counts.get(tenths) ?? 0) + 1);
    this.#n++;
  }

  get n(): number {
    return this.#n;
  }

  /**
   * The nearest-rank percentiles (the smallest latency with at least q of them at or below it) for each q, and
   * the largest; null for each when nothing was counted.
   */
  summary(qs: readonly number[]): { at: Array<number | null>; max: number | null } {
    if (this.#n === 0) return { at: qs.map(() => null), max: null };
    const sorted = [...this.#counts].sort((a, b) => a[0] - b[0]);
    const at = qs.map((q) => {
      const rank = Math.max(1, Math.ceil(q * this.#n));
      let seen = 0;
      for (const [tenths, count] of sorted) {
        seen += count;
        if (seen >= rank) return tenths / 10;
      }
      return (sorted.at(-1)?.[0] ?? 0) / 10;
    });
    return { at, max: (sorted.at(-1)?.[0] ?? 0) / 10 };
  }
}
