/**
 * What a turn is to the proxy (`generator/proxy/turns.ts`): the turn a host names in `_meta`, the session's one turn
 * under `--turns session`, or none; and the refusals a turn gives before the server is called.
 */
import { describe, expect, it } from "vitest";
import { claimCall, SessionTurns, spend } from "../../../generator/proxy/turns.js";
import { MemoryTurnStore } from "../../../runtime/index.js";

/** The refusal's text. */
function textOf(result: { content: unknown[] } | undefined): string {
  if (result === undefined) throw new Error("expected a refusal");
  return (result.content[0] as { text: string }).text;
}

describe("the proxy's turns", () => {
  it("puts a call in the turn its host names, in the session's turn with --turns session, else in none", () => {
    const store = new MemoryTurnStore();
    const named = new SessionTurns({ store, scope: "named" }, "s1");
    expect(named.turnOf(undefined)).toBeUndefined();
    expect(named.turnOf({ other: 1 })).toBeUndefined();
    expect(named.turnOf({ "toolgate/turn": "t-1" })?.id).toBe("s1:t-1");
    expect(named.turnOf({ "toolgate/turn": 7 })?.id).toBe("s1:7");
    const session = new SessionTurns({ store, scope: "session" }, "s2");
    expect(session.turnOf(undefined)?.id).toBe("s2");
    // A name that is no turn id (too long, markup, not a string) is ignored: the call counts in the session's turn.
    for (const bad of ["x".repeat(129), "<b>", "", { id: 1 }, 1.5]) {
      expect(session.turnOf({ "toolgate/turn": bad })?.id).toBe("s2");
    }
    // An inherited member is not a name.
    expect(named.turnOf(Object.create({ "toolgate/turn": "t" }))).toBeUndefined();
  });

  it("lets ordinary calls through and refuses the same call past its cap, naming the counts", async () => {
    const turns = new SessionTurns({ store: new MemoryTurnStore(), scope: "session" }, "s");
    const turn = turns.turnOf(undefined);
    if (turn === undefined) throw new Error("expected a turn");
    for (let i = 0; i < 5; i++) expect(await claimCall(turn, "search", { q: `q${i}` }, 1)).toBeUndefined();
    expect(await claimCall(turn, "search", { q: "q0" }, 1)).toBeUndefined();
    const refused = await claimCall(turn, "search", { q: "q0" }, 1);
    expect(refused).toEqual({
      content: [
        {
          type: "text",
          text: '<tool_result tool="search" source="none" complete="false" error="recall_limit" retryable="false">\n<turn>{"recalls":1,"limit":1}</turn>\n</tool_result>',
        },
      ],
      isError: true,
    });
  });

  it("refuses a turn's calls once its results take the budget", async () => {
    const turns = new SessionTurns({ store: new MemoryTurnStore(), scope: "named", budget: { tokens: 100 } }, "s");
    const turn = turns.turnOf({ "toolgate/turn": "t" });
    if (turn === undefined) throw new Error("expected a turn");
    await spend(turn, { unit: "bytes", value: 10_000 });
    expect(await claimCall(turn, "search", {}, 1)).toBeUndefined();
    await spend(turn, { unit: "tokens", value: 100 });
    const refused = await claimCall(turn, "search", { q: "new" }, 1);
    expect(refused?.isError).toBe(true);
    expect(textOf(refused)).toContain('error="turn_budget"');
  });

  it("refuses the call, retryable, when the store cannot be reached", async () => {
    const broken = new MemoryTurnStore();
    broken.claimCall = () => Promise.reject(new Error("connection lost"));
    const turn = new SessionTurns({ store: broken, scope: "session" }, "s").turnOf(undefined);
    if (turn === undefined) throw new Error("expected a turn");
    const refused = await claimCall(turn, "a<b>", {}, 1);
    expect(textOf(refused)).toBe(
      '<tool_result tool="a_b_" source="none" complete="false" error="turn_unavailable" retryable="true"/>',
    );
  });
});
