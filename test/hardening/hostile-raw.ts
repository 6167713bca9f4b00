/**
 * Hostile raw values for `admit`, as fast-check arbitraries: what a broken transport, a hostile in-process tool or
 * a hostile server's objects can hand the gate. Every thrown error (from a getter, a trap, a `then`, an iterator,
 * a `toJSON`) carries {@link HOSTILE_MARKER}, so a test can tell whether any of it reached a place it must not (the
 * outcome's message, the model's content, the events, the diagnostics); text the hostile values offer as data
 * carries {@link TOOL_TEXT}, which must not reach a failure's message, model content or events either.
 *
 * Used by the property test (`admit.property.test.ts`) and by the invariant properties that `npm run fuzz` runs
 * long (`payloads.ts` mixes them in).
 */
import fc from "fast-check";

/** Planted in everything a hostile value throws. */
export const HOSTILE_MARKER = "Hx7hostile";
/** Planted in text a hostile value offers as data (a block's text, a getter's answer). */
export const TOOL_TEXT = "Tt4tooltext";

/** An error whose message (and name, stack) is the marker's. */
function markedError(): Error {
  const error = new Error(`${HOSTILE_MARKER} thrown`);
  error.name = `${HOSTILE_MARKER}Error`;
  return error;
}

/** Throws the marked error. */
function boom(): never {
  throw markedError();
}

/** The keys a hostile getter is planted on: every one the gate may read on some raw shape. */
const TOUCHED_KEYS = [
  "then",
  "content",
  "structuredContent",
  "isError",
  "body",
  "status",
  "ok",
  "headers",
  "bodyUsed",
  "getReader",
  "locked",
  "next",
  "return",
  "done",
  "value",
  "type",
  "text",
  "name",
  "toJSON",
  "value",
] as const;

/** A JSON-ish value, sometimes holding the marker. */
const someValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(`${TOOL_TEXT} text`),
  fc.constant({ recordId: "r-1", owner: "acme", status: "open" }),
);

/** A base shape that some raw kind has, before anything hostile is planted on it. */
const baseShape: fc.Arbitrary<() => Record<PropertyKey, unknown>> = fc.constantFrom(
  () => ({}),
  () => ({ content: [{ type: "text", text: TOOL_TEXT }] }),
  () => ({ content: [], structuredContent: { a: TOOL_TEXT } }),
  () => ({ isError: true, content: [{ type: "text", text: TOOL_TEXT }] }),
  () => ({ status: 200, ok: true, headers: { get: () => null }, body: null, bodyUsed: false }),
  () => ({ status: 500, ok: false, headers: { get: () => null }, body: { cancel: boom }, bodyUsed: false }),
  () => ({ getReader: () => ({ read: boom, cancel: boom, releaseLock: boom }), locked: false }),
  () => ({ [Symbol.asyncIterator]: () => ({ next: boom }) }),
  () => ({ [Symbol.for("toolgate.parsedResult")]: true, value: { a: 1 } }),
  () => ({ [Symbol.for("toolgate.transportFailure")]: true, kind: "timeout", message: TOOL_TEXT }),
);

/**
 * How to make one hostile raw value. The arbitraries make recipes, not the values themselves: fast-check looks at
 * what it generates (to clone it, to print a counterexample), and a hostile value would throw at it.
 */
export interface HostileRecipe {
  name: string;
  make: () => unknown;
  toString(): string;
}

function recipe(name: string, make: () => unknown): HostileRecipe {
  return { name, make, toString: () => name };
}

/** An object of some raw shape with getters that throw (or answer with text) planted on some keys. */
const withThrowingGetters: fc.Arbitrary<HostileRecipe> = fc
  .tuple(baseShape, fc.uniqueArray(fc.constantFrom(...TOUCHED_KEYS), { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([make, keys, throws]) =>
    recipe(`${throws ? "throwing" : "answering"} getters on ${keys.join(", ")} of ${make.toString()}`, () => {
      const target = make();
      for (const key of keys) {
        Object.defineProperty(target, key, {
          get: throws ? boom : () => `${TOOL_TEXT} getter`,
          enumerable: true,
          configurable: true,
        });
      }
      return target;
    }),
  );

/** A proxy over some raw shape whose chosen traps throw, or a revoked proxy. */
const proxies: fc.Arbitrary<HostileRecipe> = fc.oneof(
  fc
    .tuple(
      baseShape,
      fc.subarray(["get", "has", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor", "apply"] as const, {
        minLength: 1,
      }),
    )
    .map(([make, traps]) =>
      recipe(`a proxy whose ${traps.join(", ")} throw, over ${make.toString()}`, () => {
        return new Proxy(make(), Object.fromEntries(traps.map((trap) => [trap, boom])));
      }),
    ),
  baseShape.map((make) =>
    recipe(`a revoked proxy of ${make.toString()}`, () => {
      const { proxy, revoke } = Proxy.revocable(make(), {});
      revoke();
      return proxy;
    }),
  ),
  fc.boolean().map((structured) =>
    recipe(`a revoked proxy deep in ${structured ? "structured content" : "a parsed result"}`, () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      const value = { recordId: "r-1", owner: proxy };
      return structured
        ? { content: [], structuredContent: value }
        : { [Symbol.for("toolgate.parsedResult")]: true, value };
    }),
  ),
);

/** A thenable whose `then` is the given function. */
function thenable(then: (resolve: (value: unknown) => void, reject: (error: unknown) => void) => unknown): object {
  // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the shape under test.
  return Object.defineProperty({}, "then", { value: then, enumerable: true });
}

/** Thenables that throw, reject with hostile errors or call back twice: each settles at once. */
const promptThenables: fc.Arbitrary<HostileRecipe> = fc.oneof(
  fc.constant(recipe("a thenable whose then throws", () => thenable(boom))),
  fc.constant(
    recipe("a rejection whose name getter throws", () =>
      thenable((_, reject) => reject(Object.defineProperty(markedError(), "name", { get: boom }))),
    ),
  ),
  fc.constant(
    recipe("a rejection with a hostile proxy", () =>
      thenable((_, reject) => reject(new Proxy({}, { get: boom, getPrototypeOf: boom }))),
    ),
  ),
  someValue.map((value) =>
    recipe(`a thenable calling back twice with ${JSON.stringify(value)}`, () =>
      thenable((resolve, reject) => {
        resolve(value);
        reject(markedError());
      }),
    ),
  ),
  fc.constant(
    recipe("a rejected promise", () => {
      const rejected = Promise.reject(markedError());
      rejected.catch(() => undefined);
      return rejected;
    }),
  ),
);

/** Thenables that never settle (one resolving with itself, one that never calls back), and the prompt ones. */
const thenables: fc.Arbitrary<HostileRecipe> = fc.oneof(
  promptThenables,
  fc.constant(
    recipe("a thenable resolving with itself", () => {
      const self: object = thenable((resolve) => resolve(self));
      return self;
    }),
  ),
  fc.constant(recipe("a thenable that never settles", () => thenable(() => undefined))),
);

/** What an iterator's `next()` answers, by name: each ends a read at once. */
const PROMPT_NEXT_ANSWERS: ReadonlyArray<readonly [string, () => unknown]> = [
  ["null", () => Promise.resolve(null)],
  ["a number", () => Promise.resolve(42)],
  ["a throw", boom],
  ["a rejection", () => Promise.reject(markedError())],
  ["an object chunk", () => Promise.resolve({ done: false, value: { [TOOL_TEXT]: true } })],
  ["a step whose done getter throws", () => Promise.resolve(Object.defineProperty({}, "done", { get: boom }))],
  ["a thenable of a lone surrogate", () => thenable((resolve) => resolve({ done: false, value: "\uD800" }))],
];

/** Answers of `next()` that keep a read going until the signal or a bound ends it. */
const SLOW_NEXT_ANSWERS: ReadonlyArray<readonly [string, () => unknown]> = [
  ["empty bytes forever", () => Promise.resolve({ done: false, value: new Uint8Array(0) })],
  ["empty strings forever", () => Promise.resolve({ done: false, value: "" })],
  ["nothing, ever", () => new Promise(() => undefined)],
];

/** What an iterator's `return()` does, by name: each settles at once. */
const PROMPT_RETURN_ANSWERS: ReadonlyArray<readonly [string, () => unknown]> = [
  ["throws", boom],
  ["returns nothing", () => undefined],
];

/** Async iterables whose `next()` and `return()` answer as given. */
function iteratorsOf(
  nexts: ReadonlyArray<readonly [string, () => unknown]>,
  returns: ReadonlyArray<readonly [string, () => unknown]>,
): fc.Arbitrary<HostileRecipe> {
  return fc.tuple(fc.constantFrom(...nexts), fc.constantFrom(...returns)).map(([[nextName, next], [stopName, stop]]) =>
    recipe(`an iterator answering ${nextName}, whose return ${stopName}`, () => ({
      [Symbol.asyncIterator]: () => ({ next, return: stop }),
    })),
  );
}

/** Async iterables that break the protocol, spin, stall, or never acknowledge `return()`. */
const iterators: fc.Arbitrary<HostileRecipe> = iteratorsOf(
  [...PROMPT_NEXT_ANSWERS, ...SLOW_NEXT_ANSWERS],
  [...PROMPT_RETURN_ANSWERS, ["never settles", () => new Promise(() => undefined)]],
);

/** A value nested 20,000 arrays deep. */
function deep(): unknown {
  let value: unknown = TOOL_TEXT;
  for (let i = 0; i < 20_000; i++) value = [value];
  return value;
}

/** Values that are not plain data, by name. */
const NOT_PLAIN: ReadonlyArray<readonly [string, () => unknown]> = [
  ["a non-enumerable toJSON that throws", () => Object.defineProperty({ a: 1 }, "toJSON", { value: boom })],
  ["a toJSON going 20,000 deep", () => Object.defineProperty({ a: 1 }, "toJSON", { value: deep })],
  [
    "an array whose iterator hides a 20,000-deep item",
    () => Object.defineProperty([deep()], Symbol.iterator, { value: [][Symbol.iterator].bind([]) }),
  ],
  ["a throwing getter", () => Object.defineProperty({}, "recordId", { get: boom, enumerable: true })],
  ["a lone surrogate", () => ({ recordId: `${TOOL_TEXT}\uDC00` })],
  ["an integer past 2^53", () => ({ recordId: 2 ** 53 + 2 })],
];

/** Parsed values that are not plain data, as structured content or as an in-process value. */
const parsedValues: fc.Arbitrary<HostileRecipe> = fc
  .tuple(fc.constantFrom(...NOT_PLAIN), fc.boolean())
  .map(([[name, make], structured]) =>
    recipe(`${name} as ${structured ? "structured content" : "a parsed result"}`, () =>
      structured
        ? { content: [], structuredContent: make() }
        : { [Symbol.for("toolgate.parsedResult")]: true, value: make() },
    ),
  );

/** Bytes whose memory is gone. */
const buffers: fc.Arbitrary<HostileRecipe> = fc.constantFrom("ArrayBuffer", "DataView", "Uint8Array").map((kind) =>
  recipe(`a detached ${kind}`, () => {
    const buffer = new TextEncoder().encode(`{"${TOOL_TEXT}":1}`).buffer;
    const view = kind === "DataView" ? new DataView(buffer) : kind === "Uint8Array" ? new Uint8Array(buffer) : buffer;
    structuredClone(buffer, { transfer: [buffer] });
    return view;
  }),
);

/** Any hostile raw value's recipe, of every family above. */
export const hostileRaw: fc.Arbitrary<HostileRecipe> = fc.oneof(
  withThrowingGetters,
  proxies,
  thenables,
  iterators,
  parsedValues,
  buffers,
);

/**
 * Recipes of hostile raw values that end at once by themselves (none waits for a signal, the time limit or a
 * bound on empty chunks): for the invariant properties and the long fuzz run, which pass no signal.
 */
export const promptHostileRaw: fc.Arbitrary<HostileRecipe> = fc.oneof(
  withThrowingGetters,
  proxies,
  promptThenables,
  iteratorsOf(PROMPT_NEXT_ANSWERS, PROMPT_RETURN_ANSWERS),
  parsedValues,
  buffers,
);
