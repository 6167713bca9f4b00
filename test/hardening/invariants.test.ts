/**
 * The gate's invariants (see `invariants.ts`) over generated payloads, for every example contract in `schemas/`, and
 * over hostile raw values (throwing getters, proxies, hostile thenables and iterators, values that are not plain
 * data, detached buffers: `hostile-raw.ts`), a tenth as many.
 *
 * `npm test` runs {@link DEFAULT_RUNS} payloads per contract. `npm run fuzz` (`fuzz.mjs`) runs the same properties
 * long: `FUZZ_RUNS` payloads in all, split evenly over the contracts, one process per contract; `FUZZ_TOOLS` limits
 * a run to some contracts, `FUZZ_SEED` replays one.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type ContractUnderTest,
  judgeKindPayload,
  judgePayload,
  loadExampleContracts,
  undeclaredKeys,
} from "./invariants.js";
import { contentPayloadArbitrary, kindsUnderTest, SCRIPT_MARKER, textPayloadArbitrary } from "./kinds.js";
import { hostilePayloadArbitrary, MARKER, type Payload, payloadArbitrary } from "./payloads.js";
import type { AnyAdapter } from "./scratch.js";

/** Payloads per contract in the ordinary test run. */
const DEFAULT_RUNS = 5000;
const EXAMPLE_TOOLS = ["get_record", "query_database", "read_file", "read_graph", "search_docs"];
const fuzzRuns = Number(process.env.FUZZ_RUNS ?? 0);
const runsPerContract = fuzzRuns > 0 ? Math.ceil(fuzzRuns / EXAMPLE_TOOLS.length) : DEFAULT_RUNS;
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const tools = process.env.FUZZ_TOOLS === undefined ? EXAMPLE_TOOLS : process.env.FUZZ_TOOLS.split(",");
/** Hostile raw values per contract: a tenth of the payloads (each family is small; more would repeat it). */
const hostileRuns = Math.max(100, Math.ceil(runsPerContract / 10));
/** A long run may take hours; the ordinary one is bounded by the default test timeout. */
const timeout = fuzzRuns > 0 ? 24 * 60 * 60 * 1000 : 600_000;

let contracts: Map<string, ContractUnderTest>;

beforeAll(async () => {
  contracts = new Map((await loadExampleContracts()).map((contract) => [contract.tool, contract]));
});

describe("the invariant checks themselves", () => {
  it("the example contracts are the ones tested", () => {
    expect([...contracts.keys()].sort()).toEqual(EXAMPLE_TOOLS);
  });

  it("an undeclared or omitted key in a view is caught; declared keys are not", () => {
    const contract = contracts.get("get_record") as ContractUnderTest;
    const view = { recordId: "r", owner: { tenantId: "t", extra: 1 }, internalNotes: "x", tags: ["a"] };
    expect(undeclaredKeys(view, contract.schema, contract.omit).sort()).toEqual(["/internalNotes", "/owner/extra"]);
  });
});

/** A contract whose adapter is replaced by one that misbehaves in a given way. */
function misbehaving(admit: AnyAdapter["admit"]): ContractUnderTest {
  const real = contracts.get("search_docs") as ContractUnderTest;
  return { ...real, adapter: { ...real.adapter, admit } };
}

describe("the invariant checks catch a gate that breaks them", () => {
  const payload: Payload = { raw: "{}", text: "{}", made: ["probe"] };
  const real = () => contracts.get("search_docs") as ContractUnderTest;

  it("a throw, and a missing event", async () => {
    expect(
      (
        await judgePayload(
          misbehaving(() => Promise.reject(new Error("boom"))),
          payload,
        )
      ).violations,
    ).toEqual(["admit threw: boom"]);
    const silent = misbehaving((raw) => real().adapter.admit(raw));
    expect((await judgePayload(silent, payload)).violations).toContain("0 events for one admit");
  });

  it("payload text in a failure's message, and invalid data called ok", async () => {
    const leaky = misbehaving(async (raw, ctx) => {
      const outcome = await real().adapter.admit(raw, ctx);
      return outcome.ok ? outcome : { ...outcome, error: { ...outcome.error, message: `bad: ${MARKER}` } };
    });
    expect((await judgePayload(leaky, payload)).violations).toEqual(["a failure's message holds payload text"]);
    const lax = misbehaving(async (_raw, ctx) => {
      const valid = JSON.stringify({ query: "q", total: 0, hits: [] });
      const outcome = await real().adapter.admit(valid, ctx);
      return outcome.ok ? { ...outcome, data: { hits: "not an array" } } : outcome;
    });
    expect((await judgePayload(lax, payload)).violations).toEqual([
      "ok, but run-time Ajv finds the data invalid",
      "ok, but @cfworker/json-schema finds it invalid",
      "ok, but the data is not what JSON.parse makes of the payload",
    ]);
  });
});

describe.each(tools)("%s, for any payload", (tool) => {
  it(`keeps every invariant over ${runsPerContract} generated payloads`, { timeout }, async () => {
    const contract = contracts.get(tool) as ContractUnderTest;
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        payloadArbitrary(contract.schema, { maxBytes: contract.adapter.spec.limits.maxBytes }),
        async (payload: Payload) => {
          const { code, violations } = await judgePayload(contract, payload);
          // A violation fails the property; the counterexample shows the payload's recipe and what broke.
          expect({ made: payload.made, violations }).toEqual({ made: payload.made, violations: [] });
          codes.set(code, (codes.get(code) ?? 0) + 1);
        },
      ),
      { numRuns: runsPerContract, ...(seed === undefined ? {} : { seed }), endOnFailure: true },
    );
    const tally = Object.fromEntries([...codes].sort(([a], [b]) => (a < b ? -1 : 1)));
    console.info(`${tool}: ${runsPerContract} payloads, outcomes ${JSON.stringify(tally)}`);
    // The generator must reach both sides of the gate, and the stages that refuse (a tiny run may miss some).
    if (runsPerContract < 1000) return;
    const ok = [...codes].filter(([code]) => code.startsWith("ok")).reduce((sum, [, count]) => sum + count, 0);
    expect(ok).toBeGreaterThan(runsPerContract / 10);
    for (const code of ["invalid_json", "invalid_encoding", "schema_mismatch", "result_too_large"]) {
      expect(codes.get(code) ?? 0, code).toBeGreaterThan(0);
    }
  });

  it(`keeps every invariant over ${hostileRuns} hostile raw values`, { timeout }, async () => {
    const contract = contracts.get(tool) as ContractUnderTest;
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostilePayloadArbitrary, async (payload: Payload) => {
        const { code, violations } = await judgePayload(contract, payload);
        expect({ made: payload.made, violations }).toEqual({ made: payload.made, violations: [] });
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }),
      { numRuns: hostileRuns, ...(seed === undefined ? {} : { seed }), endOnFailure: true },
    );
    const tally = Object.fromEntries([...codes].sort(([a], [b]) => (a < b ? -1 : 1)));
    console.info(`${tool}: ${hostileRuns} hostile raw values, outcomes ${JSON.stringify(tally)}`);
    // None of them is a result, and none makes admit throw: each ends as a typed failure.
    expect(codes.get("ok") ?? 0).toBe(0);
  });
});

describe.each(kindsUnderTest())("$tool, a $kind result, for any payload", (subject) => {
  /** A fifth of the payloads a schema's contract gets: these payloads have fewer shapes. */
  const runs = Math.max(200, Math.ceil(runsPerContract / 5));

  it(`keeps every invariant over ${runs} generated payloads`, { timeout }, async () => {
    const codes = new Map<string, number>();
    const payloads = subject.kind === "text" ? textPayloadArbitrary : contentPayloadArbitrary;
    await fc.assert(
      fc.asyncProperty(payloads, async (payload: Payload) => {
        const { code, violations } = await judgeKindPayload(subject, payload);
        expect({ made: payload.made, violations }).toEqual({ made: payload.made, violations: [] });
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), endOnFailure: true },
    );
    const tally = Object.fromEntries([...codes].sort(([a], [b]) => (a < b ? -1 : 1)));
    console.info(`${subject.tool}: ${runs} payloads, outcomes ${JSON.stringify(tally)}`);
    // Both sides of the gate, and the refusals each kind has.
    const expected =
      subject.kind === "text"
        ? ["ok", "invalid_encoding", "result_too_large", "schema_mismatch"]
        : ["ok", "schema_mismatch", "result_too_large"];
    for (const code of expected) expect(codes.get(code) ?? 0, code).toBeGreaterThan(0);
  });

  it("the checks catch media data, a hidden link or a changed text reaching the model", async () => {
    const adapter = subject.adapter;
    const leaky = {
      ...subject,
      adapter: {
        ...adapter,
        admit: async (raw: unknown, ctx?: Parameters<typeof adapter.admit>[1]) => {
          const outcome = await adapter.admit(raw, ctx);
          if (!outcome.ok) return outcome;
          const view = { ...(outcome.view as object), text: `${SCRIPT_MARKER} iVBORw0KGgoAAAAA` };
          return { ...outcome, view, data: subject.kind === "text" ? "changed" : outcome.data };
        },
      },
    };
    const raw =
      subject.kind === "text"
        ? "some text"
        : { content: [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgoAAAAA" }] };
    const { violations } = await judgeKindPayload(leaky, { raw, text: "some text", made: ["probe"] });
    expect(violations).toContain("the model reads a link whose scheme runs code");
    if (subject.kind === "text") expect(violations).toContain("ok, but the data is not the text that was sent");
    else expect(violations).toContain("media data reaches the model as text");
  });
});
