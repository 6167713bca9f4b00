/**
 * `limits.validatorBounds`: where the generator proved that the validator accepts only values within the contract's
 * depth and with safe numbers, a value it accepts skips the parse stage's pass. Every payload must end as it ends
 * without that: valid ones admitted whole, too-deep ones `schema_mismatch` (too_deep), unsafe integers and overflows
 * `invalid_json`, escaped lone surrogates `invalid_encoding`, and what a deep value with an escaped lone surrogate
 * is refused for decided by depth first, as before.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkBounds } from "../../../generator/checks/index.js";
import { validatorBoundsValues } from "../../../generator/checks/safe-numbers.js";
import { defineTool, project, type ViewPlan } from "../../../runtime/index.js";
import * as hashThread from "../../../runtime/record/hash-thread.js";
import { hashThreadReady } from "../../fixtures/hash-thread.js";
import { compile, recordSpec } from "../fixture.js";

const SAFE = { type: "integer", minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
const schema = {
  type: "object",
  properties: {
    n: SAFE,
    s: { type: "string", maxLength: 200 },
    items: {
      type: "array",
      maxItems: 50,
      items: {
        type: "object",
        properties: { id: SAFE, tags: { type: "array", items: { type: "string" } } },
        additionalProperties: false,
      },
    },
  },
  required: ["n"],
  additionalProperties: false,
};
const MAX_DEPTH = 4;
const plan: ViewPlan = { kind: "value" };

function tool(validatorBounds: boolean) {
  const spec = recordSpec({
    validateResult: compile(schema),
    view: { plan, maxStringChars: 2000 },
    buildView: (data) => project(data, plan, { maxStringChars: 2000 }),
    limits: { maxBytes: 1024 * 1024, maxDepth: MAX_DEPTH, ...(validatorBounds ? { validatorBounds: true } : {}) },
    context: { unit: "bytes", max: 1_000_000 },
  });
  return defineTool(spec as never);
}

const bounded = tool(true);
const plain = tool(false);

async function outcomeOf(adapter: ReturnType<typeof tool>, text: string) {
  return adapter.admit(text, { correlationId: "c", now: () => new Date(0) });
}

const nested = (depth: number, inner: string) => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const numbers = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom(
    "9007199254740991",
    "9007199254740993",
    "-9007199254740993",
    "1e20",
    "1e999",
    "-1e999",
    "9007199254740993.5",
    "1.5",
    "0.1e1",
    "2e0",
  ),
);
const LONE_HALVES = ['"\\uD800"', '"a\\udc00b"'];
const TOO_LONG = `"${"x".repeat(300)}"`;
const strings = fc.oneof(
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text)),
  fc.constantFrom(...LONE_HALVES, '"\\uD83D\\uDE00"', TOO_LONG),
);
const item = fc
  .tuple(numbers, fc.array(strings, { maxLength: 3 }), fc.integer({ min: 0, max: 8 }))
  .map(
    ([id, tags, depth]) => `{"id":${id},"tags":${depth === 0 ? `[${tags.join(",")}]` : nested(depth, tags[0] ?? "1")}}`,
  );
const payload = fc
  .tuple(
    numbers,
    strings,
    fc.array(item, { maxLength: 4 }),
    fc.option(fc.tuple(fc.integer({ min: 1, max: 200 }), fc.oneof(numbers, strings)), { nil: undefined }),
    fc.constantFrom("", " ", "\uFEFF"),
  )
  .map(([n, s, items, extra, lead]) => {
    const members = [`"n":${n}`, `"s":${s}`, `"items":[${items.join(",")}]`];
    if (extra !== undefined) members.push(`"extra":${nested(extra[0], extra[1])}`);
    return `${lead}{${members.join(",")}}`;
  });

describe("limits.validatorBounds", () => {
  it("is what the generator derives for this schema and depth", () => {
    expect(validatorBoundsValues(schema, "2020-12", checkBounds(schema).maxDepth, MAX_DEPTH)).toBe(true);
  });

  it("gives every payload the outcome it has without it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          payload,
          payload.map((text) => text.slice(0, -1)),
        ),
        async (text) => {
          expect(await outcomeOf(bounded, text)).toEqual(await outcomeOf(plain, text));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("admits a valid payload whole, and refuses the bad ones for what they are", async () => {
    const valid = '{"n":9007199254740991,"s":"café 🚀","items":[{"id":-3,"tags":["a","b"]}]}';
    const admitted = await outcomeOf(bounded, valid);
    expect(admitted.ok && admitted.data).toEqual(JSON.parse(valid));
    const reasons = async (text: string) => {
      const outcome = await outcomeOf(bounded, text);
      return outcome.ok
        ? "ok"
        : `${outcome.error.code}/${outcome.diagnostics.detail?.reason ?? outcome.diagnostics.stage}`;
    };
    expect(await reasons('{"n":9007199254740993}')).toBe("invalid_json/unsafe_integer");
    expect(await reasons('{"n":1e999}')).toBe("invalid_json/number_overflow");
    expect(await reasons(`{"n":1,"extra":${nested(100_000, "1")}}`)).toBe("schema_mismatch/too_deep");
    expect(await reasons(`{"n":1,"extra":${nested(10, '"\\uD800"')}}`)).toBe("schema_mismatch/too_deep");
    expect(await reasons('{"n":1,"s":"\\uD800"}')).toBe("invalid_encoding/lone_surrogate");
    expect(await reasons('{"n":1.5}')).toBe("schema_mismatch/validate");
  });

  it("gives a large payload, hashed on the helper thread, the outcome it has without it, as text and as bytes", async () => {
    // The thread tells whether such a payload holds `\u`; an escaped lone surrogate in it is then refused when the
    // hash settles instead of at parse, with the same failure, and no hook sees the value.
    await hashThreadReady(hashThread);
    const tags = (count: number, tag: string) => Array.from({ length: count }, () => tag).join(",");
    const large = fc
      .tuple(
        strings,
        fc.constantFrom('"plain words"', '"\\uD83D\\uDE00 pair"', '"a \\\\u0041 backslash"', '"caf\\u00e9"'),
        // As often without a late half as with one, so that both answers come up in every run.
        fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: undefined, freq: 1 }),
      )
      .map(([s, tag, at]) => {
        const many = tags(3_000, tag);
        const list = at === undefined ? many : `${tags(at, tag)},"\\udc00 late",${many}`;
        const bad = at !== undefined || LONE_HALVES.includes(s) || s === TOO_LONG;
        return { text: `{"n":1,"s":${s},"items":[{"id":2,"tags":[${list}]}]}`, bad };
      });
    let refused = 0;
    let admitted = 0;
    let hooked = 0;
    const hooks = {
      semantic: () => {
        hooked++;
        return true;
      },
    };
    await fc.assert(
      fc.asyncProperty(large, fc.boolean(), async ({ text, bad }, asBytes) => {
        expect(text.length).toBeGreaterThanOrEqual(hashThread.MIN_UNITS);
        const raw = asBytes ? new TextEncoder().encode(text) : text;
        const jobs = hashThread.threadJobs();
        const ctx = { correlationId: "c", now: () => new Date(0) };
        const outcome = await bounded.admit(raw, ctx);
        expect(hashThread.threadJobs()).toBe(jobs + 1);
        expect(outcome).toEqual(await plain.admit(raw, ctx));
        // A payload with an escaped half anywhere, or a string over its length, is refused; any other is admitted.
        expect(outcome.ok).toBe(!bad);
        if (outcome.ok) {
          // The positive control: an ordinary large result reaches the caller whole (what the model reads of one is
          // the generated read_graph adapter's test).
          admitted++;
          expect(outcome.data).toEqual(JSON.parse(text));
        } else {
          refused++;
          const before = hooked;
          expect(await bounded.admit(raw, { ...ctx, hooks })).toEqual(outcome);
          expect(hooked).toBe(before);
        }
      }),
      { numRuns: 60 },
    );
    // Both answers were met: escaped halves refused, pairs, escaped backslashes and plain text admitted.
    expect(refused).toBeGreaterThan(0);
    expect(admitted).toBeGreaterThan(0);
    expect(admitted + refused).toBe(60);
  }, 60_000);
});
