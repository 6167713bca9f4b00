/**
 * Every wait for the transport ends: with the caller's signal, or the contract's time limit. A foreign thenable is
 * never handed to `await`; the gate calls its `then` itself, once per hop, at most {@link MAX_THENABLE_HOPS} hops.
 */
import { codeForThrown } from "../../contract/failure.js";
import { MAX_THENABLE_HOPS, type NotReceived, type RawKind, refused, STOP_GRACE_MS } from "./received.js";

/** The bounds on every wait for the transport in one receive. */
export interface Waiting {
  signal: AbortSignal | undefined;
  /** `Date.now()` past which waiting ends. */
  deadline: number;
  timeoutMs: number;
}

/** Why a wait ended before what it waited for: the caller's signal, or the contract's time limit. */
const ABORTED: unique symbol = Symbol("aborted");
const EXPIRED: unique symbol = Symbol("expired");
export type Stopped = typeof ABORTED | typeof EXPIRED;

/**
 * Waits for `pending`, a promise of the gate's own that never rejects, unless the signal aborts or the deadline
 * passes first. The listener and the timer are removed as soon as one of them wins.
 */
export function within<T>(pending: Promise<T>, waiting: Waiting): Promise<T | Stopped> {
  const { signal } = waiting;
  if (signal?.aborted) return Promise.resolve(ABORTED);
  const left = waiting.deadline - Date.now();
  if (left <= 0) return Promise.resolve(EXPIRED);
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (value: T | Stopped): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = (): void => finish(ABORTED);
    timer = setTimeout(() => finish(EXPIRED), left);
    signal?.addEventListener("abort", onAbort, { once: true });
    pending.then(finish, () => finish(ABORTED));
  });
}

/** A promise that never settles: what the gate waits on when a producer will never answer. */
export function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** A promise of the next turn of the event loop (a macrotask, after any timers that are due). */
export function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate === undefined ? setTimeout(resolve, 0) : immediate(resolve)));
}

/** A promise resolved after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How a foreign promise-like settled. */
type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The `then` of a value that has one (a thenable), else `undefined`. Reading it may throw (a getter, a proxy). */
export function thenOf(value: unknown): ((...args: unknown[]) => unknown) | undefined {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return undefined;
  const then = (value as { then?: unknown }).then;
  return typeof then === "function" ? (then as (...args: unknown[]) => unknown) : undefined;
}

/**
 * Calls a thenable's `then` once, with callbacks of the gate's own: the first call of either wins, a throw is a
 * rejection. The outcome is boxed, so the gate's promise never adopts the value (which may be another thenable).
 */
function callThen(thenable: unknown, then: (...args: unknown[]) => unknown): Promise<Settled> {
  return new Promise((resolve) => {
    let done = false;
    const onValue = (value: unknown): void => {
      if (done) return;
      done = true;
      resolve({ ok: true, value });
    };
    const onError = (error: unknown): void => {
      if (done) return;
      done = true;
      resolve({ ok: false, error });
    };
    try {
      Reflect.apply(then, thenable, [onValue, onError]);
    } catch (error) {
      onError(error);
    }
  });
}

/**
 * What a value settles to, following thenables that resolve with thenables, at most {@link MAX_THENABLE_HOPS}
 * hops: past that the chain never settles, and the wait ends with the signal or the deadline, without spinning.
 * A value that is not a thenable settles to itself.
 */
export async function settle(value: unknown, waiting: Waiting): Promise<Settled | Stopped> {
  let current = value;
  for (let hops = 0; ; hops++) {
    let then: ((...args: unknown[]) => unknown) | undefined;
    try {
      then = thenOf(current);
    } catch (error) {
      return { ok: false, error };
    }
    if (then === undefined) return { ok: true, value: current };
    const step = await within(hops < MAX_THENABLE_HOPS ? callThen(current, then) : never(), waiting);
    if (typeof step === "symbol" || !step.ok) return step;
    current = step.value;
  }
}

/** The refusal for a wait that the signal or the deadline ended. */
export function stoppedRefusal(kind: RawKind, stopped: Stopped, waiting: Waiting, bytesRead: number): NotReceived {
  if (stopped === EXPIRED) {
    return refused(kind, "timeout", "transport", bytesRead, { reason: "deadline", timeoutMs: waiting.timeoutMs });
  }
  return refused(kind, codeForThrown(waiting.signal?.reason), "transport", bytesRead, { reason: "aborted" });
}

/**
 * Asks a producer to stop (`cancel()`, `return()`) and waits for it to acknowledge, at most {@link STOP_GRACE_MS}
 * and never past the wait's end: a producer whose acknowledgement never comes must not hold the call. Never throws.
 */
export async function stopProducer(stop: () => unknown, waiting: Waiting): Promise<void> {
  let stopping: unknown;
  try {
    stopping = stop();
  } catch {
    return;
  }
  const grace = { ...waiting, deadline: Math.min(waiting.deadline, Date.now() + STOP_GRACE_MS) };
  await settle(stopping, grace);
}
