/**
 * Issue 12, class 2: `admit` never rejects, whatever a transport or a hostile in-process value hands it. Every touch
 * of the raw value (property reads, getters, `then`, iterators, `toJSON`, proxies, typed arrays' buffers) is inside
 * the gate's guard and ends in a typed failure, and nothing the hostile code says (its error messages, planted with
 * {@link MARKER}) reaches the outcome's message, the model's content, the events or the diagnostics.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type Outcome, parsedResult } from "../../runtime/index.js";
import { admitCollecting, expectNoLeak, goodRecord, recordTool, STRUCTURED_RESULT } from "../runtime/fixture.js";

const MARKER = "HOSTILEq9x";
const good = JSON.stringify(goodRecord());

/** An error whose message is the marker: if it surfaced anywhere, the test would see it. */
function boom(): never {
  throw new Error(`${MARKER} thrown by the raw value`);
}

/** A thenable whose `then` is the given function (defined, so no object literal spells a `then` key). */
function thenable(then: (resolve: (value: unknown) => void, reject: (error: unknown) => void) => unknown): object {
  // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the shape under test.
  return Object.defineProperty({}, "then", { value: then, enumerable: true });
}

/** A getter that throws the marker. */
const throwing = { get: boom, enumerable: true, configurable: true };

/** Admits `raw`, checks there is one event and no leak, and returns `[code, detail.reason]`. */
async function codeOf(raw: unknown, tool = recordTool()): Promise<[string, unknown]> {
  const { outcome, events } = await admitCollecting(tool, raw);
  expect(events).toHaveLength(1);
  expectNoLeak(outcome, events, MARKER);
  return reasonOf(outcome);
}

function reasonOf(outcome: Outcome<unknown, unknown>): [string, unknown] {
  return outcome.ok ? ["ok", undefined] : [outcome.error.code, outcome.diagnostics.detail?.reason];
}

/** A node-fetch v2 `Response`, by shape: its body is a Node `Readable`, with neither `getReader` nor `cancel`. */
function nodeFetchResponse(status: number, body: Readable) {
  return {
    status,
    ok: status >= 200 && status < 300,
    bodyUsed: false,
    headers: { get: (_name: string) => null },
    body,
  };
}

describe("node-fetch v2 responses: a Node stream body", () => {
  it("a 200 is read as the stream it is (the issue's example)", async () => {
    const raw = nodeFetchResponse(200, Readable.from([Buffer.from(good.slice(0, 10)), Buffer.from(good.slice(10))]));
    expect(await codeOf(raw)).toEqual(["ok", undefined]);
  });

  it("a 500 whose body has no cancel is a transport_error, and the body is destroyed (the issue's example)", async () => {
    const body = Readable.from([Buffer.from(`${MARKER} internal error`)]);
    expect(await codeOf(nodeFetchResponse(500, body))).toEqual(["transport_error", "http_status"]);
    expect(body.destroyed).toBe(true);
  });

  it("a body over the ceiling is refused while reading and destroyed", async () => {
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(64 * 1024, 0x20));
    const body = Readable.from(chunks);
    const tool = recordTool({ limits: { maxBytes: 100_000, maxDepth: 12 } });
    expect(await codeOf(nodeFetchResponse(200, body), tool)).toEqual(["result_too_large", "over_ceiling"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.destroyed).toBe(true);
  });

  it("a body that errors half way is a transport_error without its message", async () => {
    async function* failing() {
      yield Buffer.from(good.slice(0, 5));
      boom();
    }
    expect(await codeOf(nodeFetchResponse(200, Readable.from(failing())))).toEqual(["transport_error", "read_failed"]);
  });

  it("a body that is neither a stream nor iterable is refused", async () => {
    const raw = { ...nodeFetchResponse(200, Readable.from([])), body: { [MARKER]: true } };
    expect(await codeOf(raw)).toEqual(["transport_error", "unsupported_body"]);
  });
});

describe("bytes whose memory is gone or shared", () => {
  const detached = () => {
    const buffer = new TextEncoder().encode(good).buffer;
    structuredClone(buffer, { transfer: [buffer] });
    return buffer;
  };

  it("a detached ArrayBuffer and a DataView over one (the issue's examples)", async () => {
    expect(await codeOf(detached())).toEqual(["transport_error", "detached_buffer"]);
    const buffer = new TextEncoder().encode(good).buffer;
    const view = new DataView(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    expect(await codeOf(view)).toEqual(["transport_error", "detached_buffer"]);
  });

  it("a Uint8Array over a detached buffer, delivered alone or as a stream's chunk", async () => {
    const buffer = new TextEncoder().encode(good).buffer;
    const bytes = new Uint8Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    expect(await codeOf(bytes)).toEqual(["transport_error", "detached_buffer"]);
    async function* chunks() {
      yield new TextEncoder().encode(good.slice(0, 4));
      yield bytes;
    }
    expect(await codeOf(chunks())).toEqual(["transport_error", "detached_buffer"]);
  });

  it("bytes over shared memory are copied before they are hashed and decoded", async () => {
    const source = new TextEncoder().encode(good);
    const shared = new Uint8Array(new SharedArrayBuffer(source.byteLength));
    shared.set(source);
    const { outcome } = await admitCollecting(recordTool(), shared);
    expect(outcome.ok).toBe(true);
    shared.fill(0x20);
    expect(outcome.ok && outcome.data.recordId).toBe("r-1");
  });

  it("a proxy of a Uint8Array is not bytes", async () => {
    const proxy = new Proxy(new TextEncoder().encode(good), {});
    expect(await codeOf(proxy)).toEqual(["transport_error", "unsupported_raw"]);
  });
});

describe("iterators that break the protocol", () => {
  /** An async iterable whose iterator's `next` is the given function. */
  const iterable = (next: () => unknown, extra: Record<string, unknown> = {}) => ({
    [Symbol.asyncIterator]: () => ({ next, ...extra }),
  });

  it("next() resolving null (the issue's example), or a number", async () => {
    expect(await codeOf(iterable(async () => null))).toEqual(["transport_error", "invalid_step"]);
    expect(await codeOf(iterable(async () => 42))).toEqual(["transport_error", "invalid_step"]);
  });

  it("next() throwing at once, rejecting, or not a function", async () => {
    expect(await codeOf(iterable(boom))).toEqual(["transport_error", "read_failed"]);
    expect(await codeOf(iterable(() => Promise.reject(new Error(MARKER))))).toEqual(["transport_error", "read_failed"]);
    expect(await codeOf({ [Symbol.asyncIterator]: () => ({ next: MARKER }) })).toEqual([
      "transport_error",
      "invalid_iterator",
    ]);
  });

  it("a step whose done or value getter throws", async () => {
    const step = Object.defineProperty({}, "done", throwing);
    expect(await codeOf(iterable(async () => step))).toEqual(["transport_error", "hostile_raw"]);
  });

  it("a chunk type no transport delivers, with a return() that throws", async () => {
    expect(await codeOf(iterable(async () => ({ done: false, value: { [MARKER]: 1 } }), { return: boom }))).toEqual([
      "transport_error",
      "unsupported_chunk",
    ]);
  });
});

describe("MCP results and proxies", () => {
  const structuredTool = () => recordTool({ result: STRUCTURED_RESULT });

  it("a throwing getter on content, isError or structuredContent (the issue's example)", async () => {
    expect(await codeOf(Object.defineProperty({}, "content", throwing))).toEqual(["transport_error", "hostile_raw"]);
    const isError = Object.defineProperty({ content: [] }, "isError", throwing);
    expect(await codeOf(isError)).toEqual(["transport_error", "hostile_raw"]);
    const structured = Object.defineProperty({ content: [] }, "structuredContent", throwing);
    expect(await codeOf(structured, structuredTool())).toEqual(["transport_error", "hostile_raw"]);
  });

  it("a throwing getter on a content block's text, or deep inside structuredContent", async () => {
    const block = Object.defineProperty({ type: "text" }, "text", throwing);
    expect(await codeOf({ content: [block] })).toEqual(["transport_error", "hostile_raw"]);
    const value = { ...goodRecord(), owner: Object.defineProperty({}, "name", throwing) };
    expect(await codeOf({ content: [], structuredContent: value }, structuredTool())).toEqual([
      "invalid_json",
      "not_json",
    ]);
  });

  it("a Proxy as the result (the issue's example), a revoked one, and one that lies about what it is", async () => {
    const trap = new Proxy({}, { get: boom, has: boom, getPrototypeOf: boom, ownKeys: boom });
    expect(await codeOf(trap)).toEqual(["transport_error", "hostile_raw"]);
    const { proxy, revoke } = Proxy.revocable({ content: [{ type: "text", text: good }] }, {});
    revoke();
    expect(await codeOf(proxy)).toEqual(["transport_error", "hostile_raw"]);
    // A getter that answers differently each time it is read: the gate reads `content` once.
    let reads = 0;
    const fickle = Object.defineProperty({}, "content", {
      get: () => (reads++ === 0 ? [{ type: "text", text: good }] : MARKER),
    });
    expect(await codeOf(fickle)).toEqual(["ok", undefined]);
  });

  it("a proxy as structured content is read once per property, and its traps cannot throw past the gate", async () => {
    let reads = 0;
    const counted = new Proxy(goodRecord(), {
      get(target, key, receiver) {
        if (typeof key === "string") reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const { outcome } = await admitCollecting(structuredTool(), { content: [], structuredContent: counted });
    expect(outcome.ok).toBe(true);
    expect(reads).toBe(Object.keys(goodRecord()).length);
    const hostile = new Proxy(goodRecord(), { ownKeys: boom });
    expect(await codeOf({ content: [], structuredContent: hostile }, structuredTool())).toEqual([
      "invalid_json",
      "not_json",
    ]);
  });
});

describe("thenables and rejections", () => {
  it("a throwing then getter (the issue's example), a then that throws, and a then that rejects", async () => {
    // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the shape under test.
    expect(await codeOf(Object.defineProperty({}, "then", throwing))).toEqual(["transport_error", "hostile_raw"]);
    expect(await codeOf(thenable(boom))).toEqual(["transport_error", "thrown"]);
    expect(await codeOf(thenable((_, reject) => reject(new Error(MARKER))))).toEqual(["transport_error", "thrown"]);
  });

  it("a rejection whose name getter throws (the issue's example), or that is a revoked proxy", async () => {
    const error = Object.defineProperty(new Error(MARKER), "name", throwing);
    expect(await codeOf(Promise.reject(error))).toEqual(["transport_error", "thrown"]);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(await codeOf(Promise.reject(proxy))).toEqual(["transport_error", "thrown"]);
  });

  it("a thenable that calls back twice, or resolves with another thenable", async () => {
    const twice = thenable((resolve, reject) => {
      resolve(good);
      reject(new Error(MARKER));
      resolve(MARKER);
    });
    expect(await codeOf(twice)).toEqual(["ok", undefined]);
    const nested = thenable((resolve) => resolve(thenable((inner) => inner(good))));
    expect(await codeOf(nested)).toEqual(["ok", undefined]);
  });

  it("a forged transport failure carries no message of its own to the model", async () => {
    const forged = {
      [Symbol.for("toolgate.transportFailure")]: true,
      kind: "transport_error",
      message: `${MARKER} forged`,
    };
    expect(await codeOf(forged)).toEqual(["transport_error", "unsupported_raw"]);
    const frozen = Object.freeze({ ...forged, message: { toString: () => MARKER } });
    expect(await codeOf(frozen)).toEqual(["transport_error", "unsupported_raw"]);
  });
});

describe("parsedResult: a value that must be plain JSON data", () => {
  /** A value nested `depth` arrays deep. */
  const deep = (depth: number) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it("a non-enumerable toJSON that throws is never called (the issue's example)", async () => {
    const value = Object.defineProperty(goodRecord(), "toJSON", { value: boom, enumerable: false });
    const { outcome } = await admitCollecting(recordTool(), parsedResult(value));
    expect(outcome.ok && outcome.data).toEqual(goodRecord());
  });

  it("a toJSON returning a value 20,000 deep is never called (the issue's example)", async () => {
    const value = Object.defineProperty(goodRecord(), "toJSON", { value: () => deep(20_000), enumerable: false });
    expect(await codeOf(parsedResult(value))).toEqual(["ok", undefined]);
    // On an array, and inherited from a class: not plain data, refused without calling it.
    const array = Object.defineProperty([{ id: 1 }], "toJSON", { value: () => deep(20_000) });
    expect(await codeOf(parsedResult({ ...goodRecord(), items: array }))).toEqual(["ok", undefined]);
    class Sneaky {
      toJSON() {
        return deep(20_000);
      }
    }
    expect(await codeOf(parsedResult({ ...goodRecord(), owner: new Sneaky() }))).toEqual(["invalid_json", "not_json"]);
  });

  it("an enumerable toJSON function is a function, not JSON", async () => {
    expect(await codeOf(parsedResult({ ...goodRecord(), toJSON: () => MARKER }))).toEqual(["invalid_json", "not_json"]);
  });

  it("an array whose Symbol.iterator lies about a 20,000-deep item (the issue's example)", async () => {
    const liar = [deep(20_000)];
    // Yields nothing: a guard that trusted it would see an empty array.
    Object.defineProperty(liar, Symbol.iterator, { value: [][Symbol.iterator].bind([]) });
    expect(await codeOf(parsedResult({ ...goodRecord(), items: liar }))).toEqual(["schema_mismatch", "too_deep"]);
    expect(await codeOf(parsedResult(liar))).toEqual(["schema_mismatch", "too_deep"]);
  });

  it("a getter that shows a shallow value first and a deep one after is read once", async () => {
    let reads = 0;
    const value = Object.defineProperty({ ...goodRecord() }, "items", {
      get: () => (reads++ === 0 ? [] : deep(20_000)),
      enumerable: true,
    });
    const { outcome } = await admitCollecting(recordTool(), parsedResult(value));
    expect(outcome.ok && outcome.data.items).toEqual([]);
    expect(reads).toBe(1);
  });

  it("a revoked proxy and a proxy whose traps throw, anywhere in the value", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(await codeOf(parsedResult({ ...goodRecord(), owner: proxy }))).toEqual(["invalid_json", "not_json"]);
    expect(await codeOf(parsedResult(new Proxy([], { get: boom })))).toEqual(["invalid_json", "not_json"]);
  });
});

describe("the outermost net", () => {
  it("anything that throws past every stage's guard is one transport_error with one event and no message of its own", async () => {
    const tool = recordTool({ buildView: boom });
    const { outcome, events } = await admitCollecting(tool, good);
    expect(reasonOf(outcome)).toEqual(["transport_error", "unexpected_throw"]);
    expect(events).toHaveLength(1);
    expect(events[0]?.code).toBe("transport_error");
    expectNoLeak(outcome, events, MARKER);
  });

  it("a context whose getters throw is the same", async () => {
    const ctx = Object.defineProperty({}, "hooks", throwing);
    const outcome = await recordTool().admit(good, ctx);
    expect(reasonOf(outcome)).toEqual(["transport_error", "unexpected_throw"]);
  });
});
