/**
 * Timing on a shared, noisy machine: contenders run interleaved (A B C, A B C, …) so a burst of load hits all of
 * them alike, every figure is the median of its repeats, and the spread (interquartile range relative to the
 * median) is printed beside it, so a reader can tell a real difference from noise.
 */
import { readFileSync } from "node:fs";

/**
 * The median, quartiles and relative spread of a list of samples, which are kept in the order they were taken.
 * @param {number[]} samples
 * @returns {{ median: number, p25: number, p75: number, min: number, max: number, spread: number, n: number, samples: number[] }}
 */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => {
    if (sorted.length === 0) return Number.NaN;
    const position = (sorted.length - 1) * q;
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
  };
  const median = at(0.5);
  const p25 = at(0.25);
  const p75 = at(0.75);
  return {
    median,
    p25,
    p75,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    spread: median === 0 ? 0 : (p75 - p25) / median,
    n: sorted.length,
    samples: [...samples],
  };
}

/**
 * How many times `a` took as long as `b`: the median of the per-round ratios when both ran in the same rounds of an
 * {@link interleave} (each pair was timed moments apart, so a burst of load on a shared machine cancels out), else
 * the ratio of the medians.
 * @param {ReturnType<typeof summarize>} a
 * @param {ReturnType<typeof summarize>} b
 */
export function ratio(a, b) {
  if (a.samples.length !== b.samples.length || a.samples.length === 0) return a.median / b.median;
  return summarize(a.samples.map((value, round) => value / b.samples[round])).median;
}

/**
 * Runs each contender `rounds` times, interleaved, and summarizes each one's samples.
 * A contender is an async function returning the number it measured (milliseconds, usually).
 * @template {string} K
 * @param {Record<K, () => Promise<number> | number>} contenders
 * @param {number} rounds
 * @returns {Promise<Record<K, ReturnType<typeof summarize>>>}
 */
export async function interleave(contenders, rounds) {
  const names = Object.keys(contenders);
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    // Rotate the order every round, so no contender always runs right after the same other one.
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      samples[name].push(await contenders[name]());
    }
  }
  return /** @type {Record<K, ReturnType<typeof summarize>>} */ (
    Object.fromEntries(names.map((name) => [name, summarize(samples[name])]))
  );
}

/**
 * Milliseconds per call of `work`, timed over enough calls to last about `targetMs` (calibrated once, then fixed),
 * so timer resolution never dominates. The result of every call is kept in a sink the optimizer cannot drop.
 * @param {() => unknown} work
 * @param {number} [targetMs]
 * @returns {() => number} one sample: milliseconds per call
 */
export function perCall(work, targetMs = 20) {
  let calls = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) keep(work());
    const elapsed = performance.now() - start;
    if (elapsed >= targetMs / 4 || calls >= 1 << 24) {
      calls = Math.max(1, Math.round((calls * targetMs) / Math.max(elapsed, 0.001)));
      break;
    }
    calls *= 4;
  }
  return () => {
    const start = performance.now();
    for (let i = 0; i < calls; i++) keep(work());
    return (performance.now() - start) / calls;
  };
}

/**
 * Like {@link perCall} for work that returns a promise.
 * @param {() => Promise<unknown>} work
 * @param {number} [targetMs]
 * @returns {Promise<() => Promise<number>>}
 */
export async function perCallAsync(work, targetMs = 20) {
  let calls = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) keep(await work());
    const elapsed = performance.now() - start;
    if (elapsed >= targetMs / 4 || calls >= 1 << 20) {
      calls = Math.max(1, Math.round((calls * targetMs) / Math.max(elapsed, 0.001)));
      break;
    }
    calls *= 4;
  }
  return async () => {
    const start = performance.now();
    for (let i = 0; i < calls; i++) keep(await work());
    return (performance.now() - start) / calls;
  };
}

/**
 * Milliseconds of CPU time the calling thread has run so far: the main thread's own run time from Linux's
 * `/proc/thread-self/schedstat` (nanoseconds), else the process's user + system time from `process.cpuUsage()`.
 * The thread's time, not the process's: the process's counts the compiler's and the collector's helper threads too,
 * which run when they please; and not wall time, which on a machine shared by many processes mostly measures how
 * long the thread waited for a core, a wait that does not depend on the code being timed.
 *
 * The thread's run time advances in steps: the kernel adds a running thread's time at each scheduler tick (4 ms on
 * this machine), not as it runs. `granularityMs` is the step, measured once; a sample must span many steps, or it is
 * off by up to a step (at 20 ms a sample, ±20%, and medians of such samples land a whole step apart from process to
 * process): {@link cpuSampleMs}.
 * @type {{ (): number, source: string, granularityMs: number }}
 */
export const threadCpuMs = (() => {
  try {
    readFileSync("/proc/thread-self/schedstat", "utf8");
    const clock = () => Number.parseInt(readFileSync("/proc/thread-self/schedstat", "utf8"), 10) / 1e6;
    return Object.assign(clock, {
      source: "main thread CPU time (/proc/thread-self/schedstat)",
      granularityMs: clockStep(clock),
    });
  } catch {
    const clock = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    return Object.assign(clock, { source: "process CPU time (process.cpuUsage)", granularityMs: clockStep(clock) });
  }
})();

/**
 * The step a clock advances by while the thread runs: the largest of the first five steps seen while spinning (at
 * most 100 ms of spinning; a step cut short by a switch away is smaller, never larger).
 * @param {() => number} clock milliseconds
 */
function clockStep(clock) {
  const steps = [];
  let last = clock();
  const until = performance.now() + 100;
  while (steps.length < 5 && performance.now() < until) {
    const now = clock();
    if (now !== last) {
      steps.push(now - last);
      last = now;
    }
  }
  return steps.length === 0 ? 1 : Math.max(...steps);
}

/** How long a CPU-time sample runs: 50 of the clock's steps, so a step is at most 2% of a sample; at least 20 ms. */
export const cpuSampleMs = Math.max(20, 50 * threadCpuMs.granularityMs);

/**
 * Like {@link perCallAsync}, timed in the main thread's CPU time ({@link threadCpuMs}): each sample is the CPU
 * milliseconds per call over enough calls to take about `targetMs` of it. The wall-clock milliseconds per call of the
 * same calls are kept beside it, sample by sample, in the sampler's `wall`.
 * @param {() => unknown} work
 * @param {number} [targetMs]
 * @returns {Promise<{ (): Promise<number>, wall: number[] }>}
 */
export async function cpuPerCallAsync(work, targetMs = cpuSampleMs) {
  let calls = 1;
  for (;;) {
    const start = threadCpuMs();
    for (let i = 0; i < calls; i++) keep(await work());
    const elapsed = threadCpuMs() - start;
    if (elapsed >= targetMs / 4 || calls >= 1 << 20) {
      calls = Math.max(1, Math.round((calls * targetMs) / Math.max(elapsed, 0.001)));
      break;
    }
    calls *= 4;
  }
  /** @type {number[]} */
  const wall = [];
  const sample = async () => {
    const startWall = performance.now();
    const start = threadCpuMs();
    for (let i = 0; i < calls; i++) keep(await work());
    const cpu = threadCpuMs() - start;
    wall.push((performance.now() - startWall) / calls);
    return cpu / calls;
  };
  return Object.assign(sample, { wall });
}

/**
 * Like {@link perCall}, timed in the main thread's CPU time, with the wall-clock figures kept beside it as in
 * {@link cpuPerCallAsync}.
 * @param {() => unknown} work
 * @param {number} [targetMs]
 * @returns {{ (): number, wall: number[] }}
 */
export function cpuPerCall(work, targetMs = cpuSampleMs) {
  let calls = 1;
  for (;;) {
    const start = threadCpuMs();
    for (let i = 0; i < calls; i++) keep(work());
    const elapsed = threadCpuMs() - start;
    if (elapsed >= targetMs / 4 || calls >= 1 << 24) {
      calls = Math.max(1, Math.round((calls * targetMs) / Math.max(elapsed, 0.001)));
      break;
    }
    calls *= 4;
  }
  /** @type {number[]} */
  const wall = [];
  const sample = () => {
    const startWall = performance.now();
    const start = threadCpuMs();
    for (let i = 0; i < calls; i++) keep(work());
    const cpu = threadCpuMs() - start;
    wall.push((performance.now() - startWall) / calls);
    return cpu / calls;
  };
  return Object.assign(sample, { wall });
}

let sinkValue;
/** Holds on to a value so a timed loop's result is observable and its work cannot be optimized away. */
function keep(value) {
  sinkValue = value;
}
/** The last value a timed loop produced (read once at the end, so the loops have an observable effect). */
export function lastKept() {
  return sinkValue;
}
