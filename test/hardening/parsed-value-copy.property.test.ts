/**
 * A value that arrived already parsed (MCP `structuredContent`, `parsedResult`) is received by a one-pass copy
 * whose text is the native `JSON.stringify` of the copy, instead of the careful writer followed by a parse of its
 * text. The writer's path (`receiveWrittenValue`) is kept, and is the oracle here: on payloads generated from the
 * example contracts (valid, mutated with hostile keys, edge numbers, lone surrogates, deep and long values), on
 * `fc.anything()` and on hostile shapes (proxies listing keys out of order, getters, `__proto__` and index keys,
 * polluted prototypes), both paths receive the same text, hash and refusal, the copy equals `JSON.parse` of the
 * text, and `admit` gives the same outcome (data, view, omissions, provenance) as for that text.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../generator/schema/shapes.js";
import type { Outcome, SpillStore } from "../../runtime/index.js";
import { type HashedText, hashTextNow } from "../../runtime/record/provenance.js";
import { receiveCallToolResult } from "../../runtime/stages/receive/mcp-result.js";
import { receiveParsedValue, receiveWrittenValue } from "../../runtime/stages/receive/parsed-value.js";
import type { PendingText, ReceiveLimits } from "../../runtime/stages/receive/received.js";
import { copyParsedValue } from "../../runtime/stages/receive/value-copy.js";
import { DEFAULT_CONTENT_RULES, DEFAULT_TEXT_RULE } from "../../runtime/stages/result-kind.js";
import { canonicalJson } from "../../runtime/text/json.js";
import { mutatedValue, valueArbitrary } from "./payloads.js";
import { type AnyAdapter, adaptersOf, generateInto, REPO } from "./scratch.js";

interface Subject {
  tool: string;
  adapter: AnyAdapter;
  schema: JsonSchema;
}

let subjects: Subject[];

beforeAll(async () => {
  const folder = await generateInto(path.join(REPO, "schemas"), "parsed-value-copy");
  const adapters = await adaptersOf(folder);
  subjects = [];
  for (const summary of folder.result.tools) {
    const adapter = adapters.get(summary.tool) as AnyAdapter;
    if (adapter.spec.validateResult === undefined) continue;
    const contract = JSON.parse(await readFile(path.resolve(REPO, summary.file), "utf8"));
    subjects.push({ tool: summary.tool, adapter, schema: contract.outputSchema as JsonSchema });
  }
}, 120_000);

/** Whether two values are the same JSON data: same types, prototypes, own keys in the same order, same scalars. */
function sameJson(a: unknown, b: unknown): boolean {
  const pairs: Array<[unknown, unknown]> = [[a, b]];
  for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
    const [x, y] = pair;
    if (x === null || typeof x !== "object" || y === null || typeof y !== "object") {
      if (!Object.is(x, y)) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y) || Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    const keys = Object.keys(x);
    const others = Object.keys(y);
    if (keys.length !== others.length || keys.some((key, i) => key !== others[i])) return false;
    for (const key of keys) {
      const own = Object.getOwnPropertyDescriptor(x, key);
      const other = Object.getOwnPropertyDescriptor(y, key);
      pairs.push([own?.value, other?.value]);
    }
  }
  return true;
}

/**
 * A spill store whose handle is the spilled value's own sha256: the same value spills under the same handle on both
 * paths, so a preview that fits by a token or two fits on both or on neither (a random handle takes more or fewer
 * tokens, which would make the comparison below depend on chance instead of on the two receivers).
 */
const contentAddressed: SpillStore = {
  async put(entry) {
    return { handle: `spill_${entry.sha256.slice(0, 32)}`, bytes: Buffer.byteLength(entry.json) };
  },
  async get() {
    return undefined;
  },
};

/** An MCP result read as structured content, with the default rules for the blocks beside it. */
const STRUCTURED = {
  kind: "structured" as const,
  content: DEFAULT_CONTENT_RULES.structured,
  text: DEFAULT_TEXT_RULE,
};

/**
 * A received payload with its hash settled, as the gate settles it (`Admission.settle`): whether a large text was
 * hashed on the helper thread or at once, the received payload is the same.
 */
function settled<R>(received: R): R {
  const pending = (received as { hashing?: PendingText }).hashing;
  if (pending === undefined) return received;
  const { hashing: _, ...rest } = received as R & { hashing?: PendingText };
  return { ...rest, hashed: withoutFinding(pending.hash.settle()) } as R;
}

/** A received payload's hash, settled. */
function hashOf(received: {
  hashed?: HashedText | undefined;
  hashing?: PendingText | undefined;
}): HashedText | undefined {
  return withoutFinding(received.hashed ?? received.hashing?.hash.settle());
}

/**
 * A hash without the helper thread's own finding of `\u` in the payload, which only its answers carry (the hash
 * thread's tests hold it to the payload): what is compared here is the hash itself.
 */
function withoutFinding(hashed: HashedText | undefined): HashedText | undefined {
  if (hashed === undefined) return undefined;
  const { escapes: _, ...hash } = hashed;
  return hash;
}

/** Counts how often the copy was taken, so a run that never takes it fails instead of passing unexamined. */
const taken = { copied: 0, written: 0, pieced: 0 };

/** Receives `value` both ways and checks they agree; returns whether the copy was taken. */
function receiveBothWays(make: () => unknown, limits: ReceiveLimits): void {
  const fast = receiveParsedValue("mcp_structured", make(), limits);
  const careful = receiveWrittenValue("mcp_structured", make(), limits);
  if (fast.ok && fast.parsed !== undefined) {
    taken.copied++;
    expect(careful.ok).toBe(true);
    if (!careful.ok) return;
    expect(fast.text).toBe(careful.text);
    expect(hashOf(fast)).toEqual(hashOf(careful));
    expect(sameJson(fast.parsed.value, JSON.parse(careful.text))).toBe(true);
  } else {
    taken.written++;
    expect(settled(fast)).toEqual(settled(careful));
  }
  // The same copy with its text written in pieces and never joined (what a result of 8 Mi units or more takes):
  // the same hash and length, the same data, the same refusal; a text block equal to the text is found equal.
  const texts = careful.ok ? [careful.text, `${careful.text} `, ""] : [];
  const pieced = receiveParsedValue("mcp_structured", make(), { ...limits, piecesFrom: 0 }, texts);
  if (pieced.ok && pieced.parsed !== undefined) {
    taken.pieced++;
    expect(careful.ok).toBe(true);
    if (!careful.ok) return;
    expect(pieced.text).toBe("");
    expect(hashOf(pieced)).toEqual(hashOf(careful));
    expect(pieced.parsed.pieces?.same).toEqual([true, false, careful.text === ""]);
    expect(sameJson(pieced.parsed.value, JSON.parse(careful.text))).toBe(true);
  } else expect(settled(pieced)).toEqual(settled(careful));
}

/** Objects made at once by `make`, since fast-check must not hold a proxy or a getter it would trip over. */
const hostileShapes: fc.Arbitrary<{ name: string; make: () => unknown }> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((inner) => ({
    name: "a proxy listing index keys after a name",
    make: () => new Proxy({ b: inner, 1: "one", 0: "zero" }, { ownKeys: () => ["b", "1", "0"] }),
  })),
  fc.jsonValue({ maxDepth: 3 }).map((inner) => ({
    name: "a proxy listing keys in the ordinary order",
    make: () => new Proxy({ 0: inner, a: [inner] }, {}),
  })),
  fc.jsonValue({ maxDepth: 3 }).map((inner) => ({
    name: "an enumerable getter",
    make: () => Object.defineProperty({ plain: 1 }, "got", { get: () => inner, enumerable: true }),
  })),
  fc.jsonValue({ maxDepth: 3 }).map((inner) => ({
    name: "own __proto__, constructor and index keys",
    make: () => JSON.parse(`{"10":1,"__proto__":${JSON.stringify(inner)},"constructor":"c","2":[],"x":-0}`),
  })),
  fc.integer({ min: 1, max: 80 }).map((depth) => ({
    name: `nested ${depth} deep`,
    make: () => {
      let value: unknown = "leaf";
      for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value };
      return value;
    },
  })),
  fc.constantFrom("\uD800", "a\uDC00b", "\\ud800 as text", "😀").map((text) => ({
    name: `a key and a string ${JSON.stringify(text)}`,
    make: () => ({ [text]: text, list: [text] }),
  })),
  fc.jsonValue({ maxDepth: 3 }).map((inner) => ({
    name: "an enumerable symbol-keyed member beside JSON members",
    make: () => ({ [Symbol("tag")]: { inner }, plain: inner, list: [{ [Symbol.for("x")]: 1, inner }] }),
  })),
  fc.constant({
    name: "a getter that throws",
    make: () =>
      Object.defineProperty({}, "bad", {
        get() {
          throw new Error("no");
        },
        enumerable: true,
      }),
  }),
);

describe("the copy of a value that arrived parsed", () => {
  it("receives what the careful writer receives, on every contract's generated and mutated values", () => {
    for (const { adapter, schema } of subjects) {
      const values = valueArbitrary(schema).chain((value) =>
        fc.oneof(
          fc.constant(value),
          mutatedValue(value).map((mutated) => mutated.value),
        ),
      );
      fc.assert(
        fc.property(values, (value) => receiveBothWays(() => value, adapter.spec.limits)),
        { numRuns: 150 },
      );
    }
    // Both paths were exercised: most generated values are copied, and the mutations reach the writer.
    expect(taken.copied).toBeGreaterThan(taken.written);
    expect(taken.written).toBeGreaterThan(0);
    expect(taken.pieced).toBeGreaterThan(0);
  });

  it("reads an MCP result the same with the text in pieces: hash, data, parts and a text block's mismatch flag", () => {
    for (const { adapter, schema } of subjects) {
      // Structured results, under the default block rules; a text block beside the value is what is compared.
      const limits = { ...adapter.spec.limits, result: STRUCTURED };
      const values = valueArbitrary(schema).chain((value) =>
        fc.oneof(
          fc.constant(value),
          mutatedValue(value).map((mutated) => mutated.value),
        ),
      );
      // Beside the value: its own JSON, the same value indented or with keys sorted, another value, or prose.
      const besides = (value: unknown) => [
        JSON.stringify(value) ?? "null",
        JSON.stringify(value, null, 2) ?? "null",
        JSON.stringify(JSON.parse(canonicalJson(value))),
        JSON.stringify({ other: value }),
        "Found the results below.",
      ];
      fc.assert(
        fc.property(values, fc.integer({ min: 0, max: 4 }), fc.boolean(), (value, pick, both) => {
          let texts: string[];
          try {
            const all = besides(value);
            texts = both ? [all[4] as string, all[pick] as string] : [all[pick] as string];
          } catch {
            texts = ["not JSON"];
          }
          const content = texts.map((text) => ({ type: "text", text }));
          const result = { content, structuredContent: value };
          const whole = receiveCallToolResult(result, content, limits);
          const pieced = receiveCallToolResult(result, content, { ...limits, piecesFrom: 0 });
          if (!whole.ok || whole.text === undefined || whole.parsed === undefined) {
            expect(settled(pieced)).toEqual(settled(whole));
            return;
          }
          expect(pieced.ok).toBe(true);
          if (!pieced.ok || pieced.text === undefined || pieced.parsed === undefined) return;
          expect(pieced.flags).toEqual(whole.flags);
          expect(hashOf(pieced)).toEqual(hashOf(whole));
          expect(pieced.parts).toEqual(whole.parts);
          expect(sameJson(pieced.parsed.value, whole.parsed.value)).toBe(true);
        }),
        { numRuns: 100 },
      );
    }
  });

  it("hashes a large structured result in pieces, the same as its whole text, and keeps no text", () => {
    // Past 8 Mi units of JSON, the default: a result the size of what servers page through.
    const row = (i: number) => ({ id: i, name: `row ${i} Grüße 東京 😀`, tags: ["a", "b"], note: "x".repeat(200) });
    const value = { total: 50_000, rows: Array.from({ length: 50_000 }, (_, i) => row(i)), next: "c2Vl" };
    const text = JSON.stringify(value);
    expect(text.length).toBeGreaterThan(12 * 1024 * 1024);
    const limits = { maxDepth: 8, maxBytes: 64 * 1024 * 1024, result: STRUCTURED };
    // Two text blocks: a result with one of the same value is received from it (text-block.ts), not copied.
    const content = [
      { type: "text", text },
      { type: "text", text },
    ];
    const received = receiveCallToolResult({ content, structuredContent: value }, content, limits);
    expect(received.ok).toBe(true);
    if (!received.ok || received.text === undefined) return;
    // Not kept: compared as a boolean, so a failure does not print 12 MB.
    expect(received.text === "").toBe(true);
    expect(received.parsed?.pieces?.same).toEqual([true, true]);
    expect(received.flags).toEqual([]);
    expect(hashOf(received)).toEqual(hashTextNow(text));
    expect(received.parsed?.value).toEqual(value);
    // With one, the text block is the payload: the same hash, the same value.
    const one = [{ type: "text", text }];
    const fromText = receiveCallToolResult({ content: one, structuredContent: value }, one, limits);
    expect(fromText.ok && fromText.text === text).toBe(true);
    if (fromText.ok && fromText.text !== undefined) {
      expect(hashOf(fromText)).toEqual(hashTextNow(text));
      expect(fromText.parsed?.value).toEqual(value);
    }
    // A text block with one value changed is flagged, as for a whole text.
    const changed = [{ type: "text", text: text.replace('"total":50000', '"total":50001') }];
    const flagged = receiveCallToolResult({ content: changed, structuredContent: value }, changed, limits);
    expect(flagged.ok && flagged.flags).toEqual(["mcp_text_mismatch"]);
  });

  it("receives what the careful writer receives, on any value and on hostile shapes, near every bound", () => {
    const anyValue = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withSparseArray: true,
      withUnicodeString: true,
    });
    const limits = fc.record({ maxDepth: fc.integer({ min: 1, max: 64 }), maxBytes: fc.integer({ min: 2, max: 400 }) });
    fc.assert(
      fc.property(anyValue, limits, (value, bounds) => receiveBothWays(() => value, bounds)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(hostileShapes, limits, (shape, bounds) => receiveBothWays(shape.make, bounds)),
      { numRuns: 500 },
    );
  });

  it("admits with the outcome the value's JSON text gets: data, view, omissions and provenance", async () => {
    const now = () => new Date(0);
    for (const { tool, adapter, schema } of subjects) {
      const values = fc.oneof(
        { weight: 3, arbitrary: valueArbitrary(schema) },
        { weight: 1, arbitrary: valueArbitrary(schema, schema, 0, true) },
        {
          weight: 2,
          arbitrary: valueArbitrary(schema).chain((value) => mutatedValue(value).map((mutated) => mutated.value)),
        },
      );
      await fc.assert(
        fc.asyncProperty(values, async (value) => {
          const written = receiveWrittenValue("mcp_structured", value, adapter.spec.limits);
          fc.pre(written.ok);
          if (!written.ok) return;
          const context = { now, correlationId: `${tool}-call`, spillStore: contentAddressed };
          const fromValue: Outcome<unknown, unknown> = await adapter.admit(
            { content: [], structuredContent: value },
            context,
          );
          const fromText: Outcome<unknown, unknown> = await adapter.admit(written.text, context);
          expect(JSON.stringify(fromValue)).toBe(JSON.stringify(fromText));
          if (fromValue.ok && fromText.ok) {
            expect(sameJson(fromValue.data, fromText.data)).toBe(true);
            expect(sameJson(fromValue.view, fromText.view)).toBe(true);
          }
        }),
        { numRuns: 60 },
      );
    }
  });
});

describe("data of a value that arrived parsed", () => {
  it("is a private copy: the caller's object is read once and later changes to it do not reach data", async () => {
    const subject = subjects.find(({ tool }) => tool === "search_docs") as Subject;
    const sample = valueArbitrary(subject.schema).filter(
      (v) => v !== null && typeof v === "object" && !Array.isArray(v),
    );
    const [value] = fc.sample(sample, { numRuns: 1, seed: 7 });
    let reads = 0;
    const watched = new Proxy(value as object, {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const outcome = await subject.adapter.admit({ content: [], structuredContent: watched });
    const keys = Object.keys(value as object).length;
    // Every own key once, and the prototype is read through its own trap, never through `get`.
    expect(reads).toBe(keys);
    if (!outcome.ok) return;
    expect(outcome.data).not.toBe(value);
    const before = JSON.stringify(outcome.data);
    for (const key of Object.keys(value as object)) (value as Record<string, unknown>)[key] = "changed";
    expect(JSON.stringify(outcome.data)).toBe(before);
  });

  it("never runs a setter added to Object.prototype, and copies what the writer writes", () => {
    let ran = false;
    Object.defineProperty(Object.prototype, "polluted", {
      configurable: true,
      set() {
        ran = true;
      },
    });
    try {
      const limits = { maxDepth: 8, maxBytes: 1000 };
      const value = { polluted: 1, list: [{ polluted: 2 }] };
      const received = receiveParsedValue("mcp_structured", value, limits);
      const written = receiveWrittenValue("mcp_structured", value, limits);
      expect(ran).toBe(false);
      // The copy's own keys are defined and written as its own: the setter is never reached, and the copy is used.
      expect(received.ok && received.parsed !== undefined).toBe(true);
      expect(received.ok && received.text).toBe('{"polluted":1,"list":[{"polluted":2}]}');
      expect(written.ok && written.text).toBe('{"polluted":1,"list":[{"polluted":2}]}');
      expect(received.ok && hashOf(received)).toEqual(written.ok && hashOf(written));
      const copied = received.ok ? (received.parsed?.value as { list: Array<Record<string, unknown>> }) : undefined;
      expect(Object.hasOwn(copied ?? {}, "polluted") && Object.hasOwn(copied?.list[0] ?? {}, "polluted")).toBe(true);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });

  it("gives way to the writer while a prototype holds a toJSON, which JSON.stringify would call", () => {
    for (const prototype of [Object.prototype, Array.prototype]) {
      let called = false;
      Object.defineProperty(prototype, "toJSON", {
        configurable: true,
        writable: true,
        value() {
          called = true;
          return "replaced";
        },
      });
      const limits = { maxDepth: 8, maxBytes: 1000 };
      const value = { list: ["a", { items: [1, 2] }] };
      try {
        const received = receiveParsedValue("mcp_structured", value, limits);
        expect(settled(received)).toEqual(settled(receiveWrittenValue("mcp_structured", value, limits)));
        expect(received.ok && received.parsed === undefined && received.text).toBe('{"list":["a",{"items":[1,2]}]}');
        expect(called).toBe(false);
      } finally {
        delete (prototype as unknown as Record<string, unknown>).toJSON;
      }
      const again = receiveParsedValue("mcp_structured", value, limits);
      expect(again.ok && again.parsed !== undefined && again.text).toBe('{"list":["a",{"items":[1,2]}]}');
    }
  });

  it("gives up while Object.prototype holds an index, which push would reach, and copies again once it holds none", () => {
    // A short array has its indexes looked up one by one, a long one has the prototype's names listed: both kinds.
    for (const [index, value] of [
      ["1", { list: ["a", "b", "c"] }],
      ["70", { list: Array.from({ length: 100 }, (_, i) => i) }],
    ] as const) {
      let ran = false;
      Object.defineProperty(Object.prototype, index, {
        configurable: true,
        set() {
          ran = true;
        },
      });
      const limits = { maxDepth: 8, maxBytes: 1000 };
      try {
        // Only the copy is asked here; the writer, which the gate takes meanwhile, has a test of its own below.
        expect(copyParsedValue(value, limits.maxDepth, limits.maxBytes)).toBeUndefined();
        expect(ran).toBe(false);
      } finally {
        delete (Object.prototype as unknown as Record<string, unknown>)[index];
      }
      const again = receiveParsedValue("mcp_structured", value, limits);
      expect(again.ok && again.parsed !== undefined && again.text).toBe(JSON.stringify(value));
    }
  });

  it("writes the right text while a prototype holds an index accessor, which neither the copy nor the writer reaches", () => {
    // The copy gives way, and the writer keeps its open containers in a list, never in an array of its own: an
    // index setter would otherwise take the caller's containers and its getter answer with others.
    const decoy = { container: ["decoy"], keys: undefined, count: 1, next: 0, depth: 1, parent: undefined };
    const value = { list: ["a", { items: [1, 2] }], nested: [[[]]] };
    const limits = { maxDepth: 8, maxBytes: 1000 };
    for (const prototype of [Object.prototype, Array.prototype] as object[]) {
      // Recorded in a string: an array's own push would reach these accessors too.
      let reached = "";
      for (const index of ["0", "1"]) {
        Object.defineProperty(prototype, index, {
          configurable: true,
          get() {
            reached += `get ${index};`;
            return decoy;
          },
          set() {
            reached += `set ${index};`;
          },
        });
      }
      try {
        const received = receiveParsedValue("mcp_structured", value, limits);
        expect(received.ok && received.parsed === undefined && received.text).toBe(JSON.stringify(value));
        expect(reached).toBe("");
      } finally {
        delete (prototype as Record<string, unknown>)["0"];
        delete (prototype as Record<string, unknown>)["1"];
        if (prototype === Array.prototype) (Array.prototype as unknown[]).length = 0;
      }
    }
  });

  it("gives way to the writer while Array.prototype holds an index, and copies again once it holds none", () => {
    // Any index there is one `push` could reach (a setter would run for every array the runtime fills): the copy
    // must not vouch for its arrays then.
    Object.defineProperty(Array.prototype, "0", { configurable: true, writable: true, value: "inherited" });
    const limits = { maxDepth: 8, maxBytes: 1000 };
    const value = { list: ["a", { items: [1, 2] }] };
    try {
      const received = receiveParsedValue("mcp_structured", value, limits);
      expect(settled(received)).toEqual(settled(receiveWrittenValue("mcp_structured", value, limits)));
      expect(received.ok && received.parsed === undefined && received.text).toBe('{"list":["a",{"items":[1,2]}]}');
    } finally {
      delete (Array.prototype as unknown as Record<string, unknown>)["0"];
      // Deleting an index leaves the length it raised; the prototype is plain once the length is 0 again.
      (Array.prototype as unknown[]).length = 0;
    }
    const again = receiveParsedValue("mcp_structured", value, limits);
    expect(again.ok && again.parsed !== undefined && again.text).toBe('{"list":["a",{"items":[1,2]}]}');
  });
});
