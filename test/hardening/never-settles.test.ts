/**
 * Issue 12, class 3: `admit` always settles, in bounded time. A producer that never answers, answers at once
 * forever (in microtasks, where no timer can run) or never acknowledges a `cancel()`/`return()` cannot hold a call:
 * the caller's signal ends it as `timeout`, and without one the contract's `receive.timeoutMs` does, while a
 * producer of empty chunks is refused (`empty_chunks`) and the event loop keeps turning meanwhile.
 *
 * Times here are liveness bounds only (the "within about a second"), generous against a loaded machine.
 */
import { describe, expect, it } from "vitest";
import { effectiveSettings } from "../../generator/diff/snapshot.js";
import { MAX_EMPTY_CHUNKS } from "../../runtime/stages/receive/received.js";
import { goodRecord, recordTool } from "../runtime/fixture.js";

const good = JSON.stringify(goodRecord());

/** Admits `raw` and returns its code, reason and how long the call took. */
async function timed(raw: unknown, options: { signalMs?: number; timeoutMs?: number; maxBytes?: number } = {}) {
  const tool = recordTool({
    limits: { maxBytes: options.maxBytes ?? 1024 * 1024, maxDepth: 12, timeoutMs: options.timeoutMs },
  });
  const started = performance.now();
  const outcome = await tool.admit(
    raw,
    options.signalMs === undefined ? {} : { signal: AbortSignal.timeout(options.signalMs) },
  );
  const ms = performance.now() - started;
  return {
    code: outcome.ok ? "ok" : outcome.error.code,
    reason: outcome.ok ? undefined : outcome.diagnostics.detail?.reason,
    ms,
  };
}

/** A thenable that resolves with itself, forever. */
function selfResolving(): PromiseLike<unknown> {
  // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the shape under test.
  const thenable: object = Object.defineProperty({}, "then", {
    value: (resolve: (value: unknown) => void) => resolve(thenable),
  });
  return thenable as PromiseLike<unknown>;
}

/** An async iterable of empty chunks that answers at once, forever. */
function emptyChunks(kind: "bytes" | "strings" = "bytes"): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.resolve({ done: false, value: kind === "bytes" ? new Uint8Array(0) : "" }),
    }),
  };
}

/** A web stream that enqueues an empty chunk on every pull. */
function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ pull: (controller) => controller.enqueue(new Uint8Array(0)) });
}

describe("with the caller's signal (500 ms), everything ends as timeout within about a second", () => {
  it("a self-resolving thenable (the issue's example)", async () => {
    const { code, reason, ms } = await timed(selfResolving(), { signalMs: 500 });
    expect({ code, reason }).toEqual({ code: "timeout", reason: "aborted" });
    expect(ms).toBeLessThan(2000);
  });

  it("an iterable and a ReadableStream of zero-length chunks (the issue's example)", async () => {
    for (const raw of [emptyChunks(), emptyChunks("strings"), emptyStream()]) {
      const { code, reason, ms } = await timed(raw, { signalMs: 500 });
      expect({ code, reason }).toEqual({ code: "timeout", reason: "aborted" });
      expect(ms).toBeLessThan(2000);
    }
  });

  it("a stream stalled in a read whose cancel() never settles (the issue's example)", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull: () => new Promise<void>(() => undefined),
        cancel: () => {
          cancelled = true;
          return new Promise<void>(() => undefined);
        },
      },
      { highWaterMark: 0 },
    );
    const { code, ms } = await timed(stream, { signalMs: 500 });
    expect(code).toBe("timeout");
    expect(ms).toBeLessThan(2000);
    expect(cancelled).toBe(true);
  });

  it("an iterable stalled in a read whose return() never settles", async () => {
    const stalled = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise(() => undefined),
        return: () => new Promise(() => undefined),
      }),
    };
    const { code, ms } = await timed(stalled, { signalMs: 500 });
    expect(code).toBe("timeout");
    expect(ms).toBeLessThan(2000);
  });

  it("a stream of one-byte chunks that answers at once lets the signal's timer run", async () => {
    const stream = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new Uint8Array([0x20])) });
    const { code, ms } = await timed(stream, { signalMs: 300, maxBytes: 1024 ** 3 });
    expect(code).toBe("timeout");
    expect(ms).toBeLessThan(2000);
  });
});

describe("a cancel() or return() that never settles does not hold a refusal", () => {
  it("a non-2xx Response whose body's cancel never settles (the issue's example) ends at once as its status", async () => {
    const body = new ReadableStream({ cancel: () => new Promise<void>(() => undefined) });
    const { code, reason, ms } = await timed(new Response(body, { status: 500 }));
    expect({ code, reason }).toEqual({ code: "transport_error", reason: "http_status" });
    expect(ms).toBeLessThan(1000);
  });

  it("a stream over the ceiling whose cancel never settles is result_too_large, promptly", async () => {
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(64 * 1024)),
      cancel: () => new Promise<void>(() => undefined),
    });
    const { code, ms } = await timed(stream, { maxBytes: 100_000 });
    expect(code).toBe("result_too_large");
    expect(ms).toBeLessThan(1000);
  });

  it("an iterable over the ceiling, or with an unsupported chunk, whose return never settles", async () => {
    const iterable = (value: unknown) => ({
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: false, value }),
        return: () => new Promise(() => undefined),
      }),
    });
    const over = await timed(iterable(new Uint8Array(64 * 1024)), { maxBytes: 100_000 });
    expect(over.code).toBe("result_too_large");
    expect(over.ms).toBeLessThan(1000);
    const odd = await timed(iterable({ not: "a chunk" }));
    expect({ code: odd.code, reason: odd.reason }).toEqual({ code: "transport_error", reason: "unsupported_chunk" });
    expect(odd.ms).toBeLessThan(1000);
  });
});

describe("without a signal", () => {
  it("a producer of empty chunks is refused as empty_chunks, and the event loop keeps turning", async () => {
    for (const raw of [emptyChunks(), emptyStream()]) {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      const { code, reason, ms } = await timed(raw);
      clearInterval(ticker);
      expect({ code, reason }).toEqual({ code: "transport_error", reason: "empty_chunks" });
      expect(ms).toBeLessThan(5000);
      // The producer was slowed, not spun: timers ran while it was read.
      expect(ticks).toBeGreaterThan(5);
    }
  });

  it("empty chunks among real ones are read as nothing", async () => {
    async function* sparse() {
      for (const char of good) {
        yield new Uint8Array(0);
        yield char;
        yield "";
      }
    }
    expect((await timed(sparse())).code).toBe("ok");
    // Up to the bound in a row is still a stream making progress.
    async function* patient() {
      for (let i = 0; i < MAX_EMPTY_CHUNKS; i++) yield new Uint8Array(0);
      yield good;
    }
    expect((await timed(patient())).code).toBe("ok");
  });

  it("receive.timeoutMs ends a promise, a thenable or a stream that never settles as timeout", async () => {
    const stalled = new ReadableStream({ pull: () => new Promise<void>(() => undefined) }, { highWaterMark: 0 });
    for (const raw of [new Promise(() => undefined), selfResolving(), stalled]) {
      const { code, reason, ms } = await timed(raw, { timeoutMs: 300 });
      expect({ code, reason }).toEqual({ code: "timeout", reason: "deadline" });
      expect(ms).toBeLessThan(2000);
    }
  });

  it("a shorter caller's signal wins over the contract's limit, and a longer one loses to it", async () => {
    const never = () => new Promise(() => undefined);
    expect(await timed(never(), { timeoutMs: 5000, signalMs: 100 })).toMatchObject({
      code: "timeout",
      reason: "aborted",
    });
    expect(await timed(never(), { timeoutMs: 100, signalMs: 5000 })).toMatchObject({
      code: "timeout",
      reason: "deadline",
    });
  });

  it("the generated adapters carry the default time limit", async () => {
    const { getRecord } = await import("../../generated/get_record/adapter.js");
    expect(getRecord.spec.limits.timeoutMs).toBe(30_000);
  });

  it("toolgate diff sees a changed time limit, and writing the default out is no change", () => {
    const receive = (settings: object) => effectiveSettings(settings).receive;
    expect(receive({ receive: { timeoutMs: 5000 } })).not.toEqual(receive({}));
    expect(receive({ receive: { timeoutMs: 30_000 } })).toEqual(receive({}));
  });
});
