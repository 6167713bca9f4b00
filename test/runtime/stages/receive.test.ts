/**
 * The receive ceiling is enforced while reading: a stream over it is cancelled, and the gate reads at most the
 * ceiling plus one chunk. The "1 GiB" sources here produce their bytes lazily, so the tests stay cheap.
 */
import { describe, expect, it } from "vitest";
import { admitCollecting, expectNoLeak, goodRecord, recordTool } from "../fixture.js";

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const CHUNK = 64 * 1024;

/** Planted in every chunk: it must reach neither the model nor an event. */
const MARKER = "STREAMMARKER7f3a";

/** One chunk: the marker, then spaces. */
function markedChunk(): Uint8Array {
  const chunk = new Uint8Array(CHUNK).fill(0x20);
  chunk.set(new TextEncoder().encode(MARKER));
  return chunk;
}

/** A 1 GiB source that counts what was pulled from it and whether it was cancelled. */
function lazyGibibyte() {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.pulled >= GIB) {
          controller.close();
          return;
        }
        state.pulled += CHUNK;
        controller.enqueue(markedChunk());
      },
      cancel() {
        state.cancelled = true;
      },
    },
    // Pull only on demand, so "pulled" is exactly what the gate asked for.
    { highWaterMark: 0 },
  );
  return { stream, state };
}

describe("receive ceiling", () => {
  it("a 1 GiB stream against a 1 MiB ceiling: result_too_large, at most ceiling + one chunk read, cancelled", async () => {
    const { stream, state } = lazyGibibyte();
    const tool = recordTool({ limits: { maxBytes: MIB, maxDepth: 12 } });
    const { outcome, events } = await admitCollecting(tool, stream);
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("result_too_large");
    expectNoLeak(outcome, events, MARKER);
    expect(state.pulled).toBeLessThanOrEqual(MIB + CHUNK);
    expect(state.pulled).toBeGreaterThan(MIB);
    expect(state.cancelled).toBe(true);
    expect(outcome.provenance.rawBytes).toBe(state.pulled);
    expect(outcome.provenance.rawSha256).toBeUndefined();
    expect(outcome.ok || outcome.diagnostics.sizes).toEqual({ rawBytes: state.pulled, maxBytes: MIB });
  });

  it("the same stream inside a Response is cancelled the same way", async () => {
    const { stream, state } = lazyGibibyte();
    const outcome = await recordTool({ limits: { maxBytes: MIB, maxDepth: 12 } }).admit(new Response(stream));
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("result_too_large");
    expect(state.pulled).toBeLessThanOrEqual(MIB + CHUNK);
    expect(state.cancelled).toBe(true);
  });

  it("a Response declaring a Content-Length over the ceiling is refused before a byte is read", async () => {
    const { stream, state } = lazyGibibyte();
    const response = new Response(stream, { headers: { "content-length": String(GIB) } });
    const outcome = await recordTool({ limits: { maxBytes: MIB, maxDepth: 12 } }).admit(response);
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("result_too_large");
    expect(state.pulled).toBe(0);
    expect(state.cancelled).toBe(true);
  });

  it("a 1 GiB async iterable is returned (its finally runs) after at most ceiling + one chunk", async () => {
    const state = { pulled: 0, returned: false };
    async function* chunks() {
      try {
        while (state.pulled < GIB) {
          state.pulled += CHUNK;
          yield new Uint8Array(CHUNK);
        }
      } finally {
        state.returned = true;
      }
    }
    const outcome = await recordTool({ limits: { maxBytes: MIB, maxDepth: 12 } }).admit(chunks());
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("result_too_large");
    expect(state.pulled).toBeLessThanOrEqual(MIB + CHUNK);
    expect(state.returned).toBe(true);
  });

  it("a payload of exactly the ceiling is admitted; one byte more is not", async () => {
    const base = JSON.stringify(goodRecord({ title: "" }));
    const exact = JSON.stringify(goodRecord({ title: "x".repeat(200 - base.length) }));
    expect(exact.length).toBe(200);
    const tool = recordTool({ limits: { maxBytes: 200, maxDepth: 12 } });
    expect((await tool.admit(exact)).ok).toBe(true);
    const over = await tool.admit(`${exact} `);
    expect(over.ok ? "ok" : over.error.code).toBe("result_too_large");
  });

  it("an async iterable that throws mid-way is a transport_error; a TimeoutError a timeout", async () => {
    async function* failing(name: string) {
      yield "{";
      throw Object.assign(new Error("boom"), { name });
    }
    const tool = recordTool();
    const broken = await tool.admit(failing("Error"));
    expect(broken.ok ? "ok" : broken.error.code).toBe("transport_error");
    const late = await tool.admit(failing("TimeoutError"));
    expect(late.ok ? "ok" : late.error.code).toBe("timeout");
  });

  it("a chunk that is not bytes or text is a transport_error, and the iterable is returned", async () => {
    let returned = false;
    async function* objects() {
      try {
        yield { not: "bytes" };
      } finally {
        returned = true;
      }
    }
    const outcome = await recordTool().admit(objects());
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("transport_error");
    expect(returned).toBe(true);
  });

  it("a value of no known transport shape is refused, not guessed at", async () => {
    for (const raw of [goodRecord(), 42, null, undefined]) {
      const outcome = await recordTool().admit(raw);
      expect(outcome.ok ? "ok" : outcome.error.code).toBe("transport_error");
    }
  });
});

describe("a promise of a raw result", () => {
  it("is awaited, and its rejection is the transport failure", async () => {
    const tool = recordTool();
    const fetched = await tool.admit(Promise.resolve(new Response(JSON.stringify(goodRecord()))));
    expect(fetched.ok).toBe(true);
    const refused = await tool.admit(Promise.reject(new TypeError("fetch failed")));
    expect(refused.ok ? "ok" : refused.error.code).toBe("transport_error");
    const late = await tool.admit(Promise.reject(new DOMException("deadline", "TimeoutError")));
    expect(late.ok ? "ok" : late.error.code).toBe("timeout");
  });
});

describe("ctx.signal: the caller stops waiting", () => {
  const timeoutReason = () => new DOMException("the call took too long", "TimeoutError");

  it("a stream that stalls after its first chunk is cancelled as a timeout", async () => {
    const controller = new AbortController();
    let pulls = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(source) {
          pulls++;
          if (pulls === 1) {
            source.enqueue(new TextEncoder().encode('{"recordId":'));
            return;
          }
          // The tool stops sending; the caller gives up.
          controller.abort(timeoutReason());
          return new Promise<void>(() => undefined);
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const outcome = await recordTool().admit(stream, { signal: controller.signal });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("timeout");
    expect(outcome.ok || outcome.diagnostics.detail).toEqual({ reason: "aborted" });
    expect(outcome.provenance.rawBytes).toBe(12);
    expect(cancelled).toBe(true);
  });

  it("an async iterable stuck in a read ends as a transport_error when aborted without a timeout reason", async () => {
    const controller = new AbortController();
    async function* stuck() {
      yield "{";
      controller.abort();
      await new Promise(() => undefined);
    }
    const outcome = await recordTool().admit(stuck(), { signal: controller.signal });
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("transport_error");
  });

  it("a promise that never settles, and a signal aborted before the call", async () => {
    const controller = new AbortController();
    const pending = recordTool().admit(new Promise(() => undefined), { signal: controller.signal });
    controller.abort(timeoutReason());
    const outcome = await pending;
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("timeout");
    const early = await recordTool().admit(new ReadableStream({ pull: () => new Promise<void>(() => undefined) }), {
      signal: AbortSignal.abort(timeoutReason()),
    });
    expect(early.ok ? "ok" : early.error.code).toBe("timeout");
  });
});
