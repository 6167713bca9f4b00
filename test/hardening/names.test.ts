/**
 * Names a server (or a contract, or a payload) chooses are never looked up on a plain object: a tool named
 * `constructor`, `toString`, `valueOf`, `__proto__` or `hasOwnProperty` must not read an inherited member of
 * `Object.prototype` where the gate expects its own entry, nor set a prototype where it stores one.
 *
 * The promise each test holds to: re-calls through `recall` never exceed the contract's limit (or the turn's cap, when
 * lower) whatever the tool is called and whatever the turn's cap table holds; counters and reports answer
 * `undefined` for a name they never saw and the count for one they did; the contract diff reports a key that is on
 * one side only as absent on the other.
 */
import { describe, expect, it } from "vitest";
import { diffTool } from "../../generator/diff/contract-diff.js";
import type { ToolSnapshot } from "../../generator/diff/snapshot.js";
import {
  GateCounters,
  type GateEvent,
  gateCounters,
  ownedByTenant,
  type ToolSpec,
  Turn,
  type TurnOptions,
} from "../../runtime/index.js";
import { goodRecord, type RecordInput, type RecordResult, recordTool } from "../runtime/fixture.js";

/**
 * `record[name]`, the plain lookup a caller writes with a tool name in hand (a function, so that TypeScript and the
 * linter see a string key, not `Object`'s own members).
 */
function lookup<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return record[name];
}

/** Every name here is a member of `Object.prototype` (or its accessor). */
const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "__proto__", "hasOwnProperty"] as const;

/** A result whose view is far over a 300-byte budget, however many times it is fetched again. */
function bigRecord(items = 40): string {
  return JSON.stringify(
    goodRecord({ items: Array.from({ length: items }, (_, id) => ({ id, label: "x".repeat(80) })) }),
  );
}

const tight: Partial<ToolSpec<RecordResult, unknown, RecordInput>> = { context: { unit: "bytes", max: 300 } };

/**
 * Admits an over-budget result of a tool called `name` whose contract allows `contractLimit` re-calls, with a
 * recall hook that always asks for new arguments and a `ctx.call` that always returns an over-budget result again:
 * only the limit stops the re-calls. Stops itself at 50 so that a broken limit fails the test instead of hanging it.
 */
async function recallsMade(name: string, contractLimit: number, turnOptions?: TurnOptions) {
  const tool = recordTool({ ...tight, name, oversize: ["recall", "drop"], recallLimit: contractLimit });
  const turn = new Turn(turnOptions);
  let calls = 0;
  const outcome = await tool.admit(bigRecord(), {
    turn,
    args: { recordId: "r-0", limit: 40 },
    hooks: { recall: () => (calls < 50 ? { recordId: `r-${calls + 1}`, limit: 40 } : undefined) },
    call: () => {
      calls++;
      return bigRecord();
    },
  });
  return { calls, outcome, turn };
}

describe("re-calls of a tool whose name is an Object.prototype member", () => {
  for (const name of PROTOTYPE_NAMES) {
    it(`${name}: a cap table for other tools leaves the contract's limit of 1 in force`, async () => {
      // The example: the cap table names another tool, and `caps[name]` used to be an inherited function.
      const { calls, outcome, turn } = await recallsMade(name, 1, { recallLimit: { search_docs: 3 } });
      expect(calls).toBe(1);
      expect(outcome.ok ? "ok" : outcome.error.code).toBe("oversize");
      expect(outcome.ok || outcome.diagnostics.detail?.recall).toBe("limit_reached");
      expect(turn.recallsOf(name)).toBe(1);
      expect(turn.recallLimitFor(name, 1)).toBe(1);
    });
  }

  it("without a turn, and with a turn without caps, the contract's limit holds too", async () => {
    expect((await recallsMade("constructor", 2)).calls).toBe(2);
    expect((await recallsMade("toString", 2, {})).calls).toBe(2);
  });

  it("a cap set for the tool by its own name applies, in a table or a Map", async () => {
    expect((await recallsMade("constructor", 3, { recallLimit: { constructor: 1 } })).calls).toBe(1);
    // A `__proto__` key written in JSON is an own key of the parsed object, and counts as the tool's cap.
    const fromJson = JSON.parse('{"__proto__": 0}') as Record<string, number>;
    expect((await recallsMade("__proto__", 3, { recallLimit: fromJson })).calls).toBe(0);
    expect((await recallsMade("valueOf", 3, { recallLimit: new Map([["valueOf", 2]]) })).calls).toBe(2);
    // A table whose prototype holds a cap does not cap: only own keys are read.
    const inherited = Object.create({ hasOwnProperty: 0 }) as Record<string, number>;
    expect((await recallsMade("hasOwnProperty", 1, { recallLimit: inherited })).calls).toBe(1);
  });

  it("a cap that is not a count of zero or more sets no cap; a fractional one is rounded down", async () => {
    for (const cap of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, "3" as unknown as number]) {
      expect((await recallsMade("get_record", 2, { recallLimit: cap })).calls).toBe(2);
      expect((await recallsMade("get_record", 2, { recallLimit: { get_record: cap } })).calls).toBe(2);
    }
    expect((await recallsMade("get_record", 3, { recallLimit: 1.9 })).calls).toBe(1);
  });

  it("a contract limit that is not a count of zero or more allows no re-call", async () => {
    for (const limit of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      const { calls, outcome } = await recallsMade("get_record", limit);
      expect(calls).toBe(0);
      expect(outcome.ok || outcome.diagnostics.detail?.recall).toBe("limit_reached");
    }
    expect(new Turn().recallLimitFor("t", 2.5)).toBe(2);
  });
});

describe("reports and counters keyed by tool name", () => {
  it("Turn.report().recalls holds own counts only, for any name", async () => {
    const { turn } = await recallsMade("constructor", 1);
    const { recalls } = turn.report();
    expect(lookup(recalls, "constructor")).toBe(1);
    for (const name of ["toString", "valueOf", "__proto__", "hasOwnProperty"])
      expect(lookup(recalls, name)).toBeUndefined();
    expect(Object.keys(recalls)).toEqual(["constructor"]);
    expect(JSON.parse(JSON.stringify(recalls))).toEqual({ constructor: 1 });

    const proto = (await recallsMade("__proto__", 1)).turn.report().recalls;
    expect(Object.hasOwn(proto, "__proto__")).toBe(true);
    expect(lookup(proto, "__proto__")).toBe(1);
    expect(JSON.stringify(proto)).toBe('{"__proto__":1}');
  });

  it("GateCounters counts a tool named __proto__ as its own entry and sets no prototype", async () => {
    const counters = new GateCounters();
    const event = (tool: string, code: GateEvent["code"]): GateEvent => ({
      v: 1,
      tool,
      contractVersion: "1",
      code,
      stage: code === "ok" ? "policy" : "parse",
      rawKind: "string",
      sizes: { rawBytes: 1, maxBytes: 10 },
      policy: code === "ok" ? "direct" : undefined,
      receivedAt: new Date(0).toISOString(),
    });
    counters.emit(event("__proto__", "ok"));
    counters.emit(event("__proto__", "invalid_json"));
    counters.emit(event("constructor", "ok"));
    const snapshot = counters.snapshot();
    expect(Object.keys(snapshot.admits).sort()).toEqual(["__proto__", "constructor"]);
    expect(Object.hasOwn(snapshot.admits, "__proto__")).toBe(true);
    expect(lookup(snapshot.admits, "__proto__")).toBe(2);
    expect(lookup(snapshot.admits, "constructor")).toBe(1);
    expect(lookup(snapshot.admits, "toString")).toBeUndefined();
    expect(lookup(snapshot.rejects, "constructor")).toBeUndefined();
    expect(lookup(snapshot.rejects, "__proto__")?.invalid_json).toBe(1);
    expect(lookup(lookup(snapshot.rejects, "__proto__") ?? {}, "toString")).toBeUndefined();
    expect(lookup(snapshot.policies, "valueOf")).toBeUndefined();
    // Written out as JSON, since `{ __proto__: … }` in an object literal would set a prototype.
    expect(JSON.stringify(snapshot)).toBe(
      JSON.stringify(
        JSON.parse(
          '{"admits":{"__proto__":2,"constructor":1},"rejects":{"__proto__":{"invalid_json":1}},' +
            '"policies":{"__proto__":{"direct":1},"constructor":{"direct":1}}}',
        ),
      ),
    );
  });

  it("the process-wide counters answer undefined for a name they never saw", async () => {
    gateCounters.reset();
    await recordTool({ name: "constructor" }).admit(JSON.stringify(goodRecord()));
    const snapshot = gateCounters.snapshot();
    expect(lookup(snapshot.admits, "constructor")).toBe(1);
    expect(lookup(snapshot.admits, "toString")).toBeUndefined();
    expect(lookup(snapshot.policies, "constructor")?.direct).toBe(1);
    expect(lookup(lookup(snapshot.policies, "constructor") ?? {}, "valueOf")).toBeUndefined();
  });
});

describe("payload and contract keys named after Object.prototype members", () => {
  it("ownedByTenant passes a record without the field, and checks one that has it", async () => {
    const hook = ownedByTenant("/constructor");
    const info = { tool: "t", tenant: "acme", args: undefined, correlationId: undefined };
    expect(hook({ recordId: "r" }, info)).toEqual([]);
    expect(hook(JSON.parse('{"constructor":"evil"}'), info)).toEqual([{ path: "/constructor", rule: "tenant" }]);
    expect(ownedByTenant("/__proto__/x")({}, info)).toEqual([]);
  });

  /** A tool as the diff sees it, with this contract document and these settings. */
  function snapshot(document: Record<string, unknown>, settings: Record<string, unknown> = {}): ToolSnapshot {
    return {
      name: "t",
      file: "t.tool.json",
      sha256: "",
      document,
      result: { dialect: "2020-12", bundled: { type: "object" } },
      settings,
      formatsAsserted: false,
      viewFields: [],
    } as unknown as ToolSnapshot;
  }

  it("the contract diff shows a key on one side only as absent on the other", () => {
    // A top-level `__proto__` key removed: the other side has none, not `Object.prototype` (`{}`).
    const removed = diffTool(snapshot(JSON.parse('{"__proto__":1}')), snapshot({}));
    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatchObject({ pointer: "/__proto__", before: 1 });
    expect(removed[0]).not.toHaveProperty("after");

    // MCP annotations named after prototype members, added.
    const annotations = JSON.parse('{"constructor":true,"toString":false}');
    const added = diffTool(snapshot({ annotations: {} }), snapshot({ annotations }));
    expect(added.map((c) => c.pointer)).toEqual(["/annotations/constructor", "/annotations/toString"]);
    for (const change of added) expect(change).not.toHaveProperty("before");

    // Settings keyed by names the contract chooses (`fields` paths), added and removed.
    const fields = JSON.parse('{"fields":{"__proto__":{"kind":"text"},"valueOf":{"kind":"opaque"}}}');
    const settingsAdded = diffTool(snapshot({}, { fields: {} }), snapshot({}, fields));
    expect(settingsAdded.map((c) => [c.pointer, Object.hasOwn(c, "before"), c.after])).toEqual([
      ["/x-toolgate/fields/__proto__", false, { kind: "text" }],
      ["/x-toolgate/fields/valueOf", false, { kind: "opaque" }],
    ]);
    const settingsRemoved = diffTool(snapshot({}, fields), snapshot({}, { fields: {} }));
    expect(settingsRemoved.map((c) => [c.pointer, c.before, Object.hasOwn(c, "after")])).toEqual([
      ["/x-toolgate/fields/__proto__", { kind: "text" }, false],
      ["/x-toolgate/fields/valueOf", { kind: "opaque" }, false],
    ]);
  });
});
