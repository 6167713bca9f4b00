/**
 * Issue 12's acceptance property for `admit`, on example adapters generated from `schemas/` and on a text and a
 * content result (`kinds.ts`): for arbitrary JavaScript values (`fc.anything()`, in every wrapping a transport uses,
 * content blocks of every kind among them) and for hostile objects (throwing getters
 * on every key the gate reads, proxies with throwing traps, revoked proxies, self-resolving and never-settling
 * thenables, iterators that break the protocol, spin on empty chunks or stall, `toJSON` that throws or goes deep,
 * detached buffers), with a 500 ms signal:
 *
 * 1. `admit` resolves within 2 s (it never hangs), and never rejects;
 * 2. it resolves to exactly one outcome, with exactly one event whose code is the outcome's;
 * 3. nothing any hostile code threw (every error carries `HOSTILE_MARKER`) appears in the outcome: not in
 *    `error.message`, `toModelContent`, the diagnostics or the events;
 * 4. a failure shows none of the text the raw value offered as data (`TOOL_TEXT`) in its message, model content
 *    or events (the tool's own error text may sit in `diagnostics.toolMessage`, for the caller, and in a
 *    `tool_error`'s one `<tool_message>` line, cleaned, bounded and escaped, for the model).
 *
 * Several raw values are admitted at once per run, so the ones that wait for the signal share their 500 ms.
 */
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type GateEvent, type Outcome, parsedResult, toModelContent } from "../../runtime/index.js";
import { HOSTILE_MARKER, type HostileRecipe, hostileRaw, TOOL_TEXT } from "./hostile-raw.js";
import { besideToolMessage } from "./invariants.js";
import { kindsUnderTest } from "./kinds.js";
import { type AnyAdapter, adaptersOf, generateInto, REPO } from "./scratch.js";

let adapters: AnyAdapter[];

beforeAll(async () => {
  const folder = await generateInto(path.join(REPO, "schemas"), "admit-property");
  const all = await adaptersOf(folder);
  // Two JSON contracts, and a text and a content result (`kinds.ts`), whose readers take other paths through receive.
  adapters = [
    ...["search_docs", "get_record"].map((tool) => all.get(tool) as AnyAdapter),
    ...kindsUnderTest().map((subject) => subject.adapter),
  ];
}, 120_000);

/** `fc.anything()` with every kind of value it can make, delivered the ways a transport delivers a value. */
const anyValue = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});
const anyRaw: fc.Arbitrary<unknown> = fc.oneof(
  anyValue,
  anyValue.map((value) => parsedResult(value)),
  anyValue.map((value) => ({ content: [], structuredContent: value })),
  anyValue.map((value) => ({ content: [{ type: "text", text: value }], isError: value })),
  fc
    .array(
      fc.record(
        {
          type: fc.constantFrom("text", "image", "audio", "resource_link", "resource"),
          text: anyValue,
          data: anyValue,
          mimeType: anyValue,
          uri: anyValue,
          name: anyValue,
          resource: anyValue,
        },
        { requiredKeys: ["type"] },
      ),
      { maxLength: 5 },
    )
    .map((content) => ({ content })),
  anyValue.map((value) => Promise.resolve(value)),
  anyValue.map((value) => ({
    [Symbol.asyncIterator]: async function* () {
      yield value;
    },
  })),
);

/** Arbitrary values as recipes, like the hostile ones (fast-check made them, so it can print them). */
const anyRecipe: fc.Arbitrary<HostileRecipe> = anyRaw.map((raw) => ({
  name: "any value",
  make: () => raw,
  toString: () => fc.stringify(raw),
}));

/** What one admit did: its outcome and events, or how it broke the property. */
type Ran = { outcome: Outcome<unknown, unknown>; events: GateEvent[] } | { broke: string };

/** Admits with a 500 ms signal, racing a 2 s liveness bound. */
async function admitBounded(adapter: AnyAdapter, raw: unknown): Promise<Ran> {
  const events: GateEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<Ran>((resolve) => {
    timer = setTimeout(() => resolve({ broke: "did not settle within 2 s" }), 2000);
  });
  const admitted = adapter.admit(raw, { signal: AbortSignal.timeout(500), sink: (event) => events.push(event) }).then(
    (outcome): Ran => ({ outcome, events }),
    (error: unknown): Ran => ({ broke: `rejected: ${String(error instanceof Error ? error.message : error)}` }),
  );
  try {
    return await Promise.race([admitted, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every way one admit broke the property (empty when it kept it). */
function brokenBy(ran: Ran): string[] {
  if ("broke" in ran) return [ran.broke];
  const { outcome, events } = ran;
  if (outcome === null || typeof outcome !== "object" || typeof outcome.ok !== "boolean") return ["not an outcome"];
  const broken: string[] = [];
  if (events.length !== 1) broken.push(`${events.length} events`);
  else if (events[0]?.code !== (outcome.ok ? "ok" : outcome.error.code)) broken.push("event code differs");
  const content = toModelContent(outcome);
  const seen = JSON.stringify({ outcome, events });
  if (content.includes(HOSTILE_MARKER) || seen.includes(HOSTILE_MARKER)) broken.push("a thrown error's text leaked");
  if (!outcome.ok) {
    const { toolMessage: _kept, ...diagnostics } = outcome.diagnostics;
    // A tool error's words may reach the model in their one delimited line, and only there.
    const beside = besideToolMessage(outcome, content);
    broken.push(...beside.problems);
    const shown = JSON.stringify({ message: outcome.error.message, content: beside.rest, events, diagnostics });
    if (shown.includes(TOOL_TEXT)) broken.push("a failure shows the raw value's text");
  }
  return broken;
}

describe("admit, for arbitrary and hostile raw values", () => {
  it("resolves within 2 s to one outcome, never rejects, and leaks nothing a thrower said", {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.oneof(anyRecipe, hostileRaw), fc.nat()), { minLength: 1, maxLength: 8 }),
        async (cases) => {
          const results = await Promise.all(
            cases.map(([recipe, pick]) => admitBounded(adapters[pick % adapters.length] as AnyAdapter, recipe.make())),
          );
          const broken = results.flatMap((ran, index) => brokenBy(ran).map((what) => `case ${index}: ${what}`));
          expect(broken).toEqual([]);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("the property's checks catch a leak and a hang", () => {
    expect(brokenBy({ broke: "did not settle within 2 s" })).toEqual(["did not settle within 2 s"]);
    const leaky = {
      ok: false as const,
      error: { code: "transport_error" as const, retryable: true, message: HOSTILE_MARKER },
      diagnostics: { stage: "transport" as const },
      provenance: { tool: "t", contractVersion: "1", contractHash: "h", rawBytes: 0, receivedAt: "" },
    };
    const event = { code: "transport_error" } as GateEvent;
    expect(brokenBy({ outcome: leaky, events: [event] })).toEqual(["a thrown error's text leaked"]);
  });
});
