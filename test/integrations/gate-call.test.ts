/**
 * The call core every framework adapter shares: a tool found by the framework's name for it, each of the fixture's
 * four answers admitted to one outcome, and what the model reads of it (the checks every framework's test makes on
 * the prompt its model receives).
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  adaptersFor,
  callContext,
  findAdapter,
  gateCall,
  readBackCall,
  thrownByTool,
  UngatedToolError,
} from "../../runtime/integrations/gate-call.js";
import { Turn } from "../../runtime/record/turn.js";
import {
  ERROR_MARKER,
  expectModelSaw,
  type OrdersSetup,
  ordersCallResult,
  ordersSetup,
  ordersValue,
  spillHandle,
  TOOL,
  VARIANTS,
} from "./fixture.js";

let setup: OrdersSetup;
beforeAll(async () => {
  setup = await ordersSetup("gate-call");
});

describe("findAdapter", () => {
  it("finds a tool by its catalog name, and never by a member of Object", () => {
    expect(findAdapter(setup.catalog, TOOL)?.name).toBe(TOOL);
    for (const name of ["constructor", "__proto__", "toString", "missing"]) {
      expect(findAdapter(setup.catalog, name)).toBeUndefined();
    }
  });

  it("finds an imported tool by its server name only with its server, the prefix it was imported under", () => {
    const adapter = findAdapter(setup.catalog, TOOL);
    const prefixed = { spec: { ...adapter?.spec, mcp: { name: "list" } } };
    const erp = { spec: { ...adapter?.spec, mcp: { name: "list" } } };
    const catalog = { crm_list: { adapter: prefixed }, erp_list: { adapter: erp } };
    expect(findAdapter(catalog, "list", "crm")).toBe(prefixed);
    expect(findAdapter(catalog, "list", "erp")).toBe(erp);
    expect(findAdapter(catalog, "crm_list")).toBe(prefixed);
    // No server said, or a third server's tool of the same name: no contract, so the call is refused as ungated.
    expect(findAdapter(catalog, "list")).toBeUndefined();
    expect(findAdapter({ crm_list: { adapter: prefixed } }, "list")).toBeUndefined();
    expect(findAdapter(catalog, "list", "hr")).toBeUndefined();
  });
});

describe("gateCall", () => {
  for (const variant of VARIANTS) {
    it(`gives the model only the gated content of an MCP result (${variant})`, async () => {
      const adapter = findAdapter(setup.catalog, TOOL);
      if (adapter === undefined) throw new Error("no adapter");
      const call = { tool: TOOL, args: { customer: "acme", variant }, callId: `call-${variant}` };
      const gated = await gateCall(adapter, ordersCallResult("acme", variant), call, { readBack: setup.reader });
      expectModelSaw(gated.content, variant, "mcp");
      expect(gated.parts).toEqual([{ type: "text", text: gated.content }]);
      expect(gated.outcome.ok).toBe(variant === "ok" || variant === "large");
      expect(gated.outcome.provenance.correlationId).toBe(`call-${variant}`);
    });
  }

  it("turns a tool's own throw (an in-process tool) into a typed failure", async () => {
    const adapter = findAdapter(setup.catalog, TOOL);
    if (adapter === undefined) throw new Error("no adapter");
    const gated = await gateCall(adapter, Promise.reject(new Error(String(ordersValue("acme", "error")))), {
      tool: TOOL,
    });
    expect(gated.outcome.ok).toBe(false);
    expect(gated.content).toContain('error="transport_error"');
    expect(gated.content).not.toContain("UPSTREAM");
  });

  it("reads a spilled result back in the tenant and session it was spilled for", async () => {
    const adapter = findAdapter(setup.catalog, TOOL);
    if (adapter === undefined) throw new Error("no adapter");
    const options = { readBack: setup.reader, context: { tenant: "acme", session: "s1" } };
    const gated = await gateCall(adapter, ordersCallResult("acme", "large"), { tool: TOOL }, options);
    const handle = spillHandle(gated.content);
    const page = await readBackCall(
      setup.reader,
      { tool: "read_tool_result", args: { handle, pointer: "/orders" } },
      options,
    );
    expect(page.ok).toBe(true);
    expect(page.content).toContain("ord_0011");
    const other = await readBackCall(
      setup.reader,
      { tool: "read_tool_result", args: { handle, pointer: "/orders" } },
      { context: { tenant: "globex", session: "s1" } },
    );
    expect(other.ok).toBe(false);
    expect(other.content).not.toContain("ord_0011");
  });

  it("takes the call's context from a function of the call, and the framework's id and signal", () => {
    const turn = new Turn();
    const signal = new AbortController().signal;
    const ctx = callContext(
      { tool: TOOL, callId: "c1", args: { customer: "a" }, signal },
      { context: (call) => ({ turn, correlationId: call.tool === TOOL ? undefined : "x" }), readBack: setup.reader },
    );
    expect(ctx).toMatchObject({
      turn,
      correlationId: "c1",
      args: { customer: "a" },
      signal,
      readTool: "read_tool_result",
    });
    expect(ctx.spillStore).toBe(setup.store);
  });
});

describe("adaptersFor", () => {
  it("refuses a tool set with a tool the catalog has no contract for, naming every such tool", () => {
    expect(() => adaptersFor(setup.catalog, [TOOL, "send_email", "rm_rf"])).toThrowError(UngatedToolError);
    try {
      adaptersFor(setup.catalog, [TOOL, "send_email", "rm_rf"]);
    } catch (error) {
      expect((error as UngatedToolError).tools).toEqual(["send_email", "rm_rf"]);
      expect((error as Error).message).toContain('"send_email", "rm_rf"');
    }
  });

  it("leaves such tools out when told to hide or pass them", () => {
    for (const ungated of ["hide", "pass"] as const) {
      const found = adaptersFor(setup.catalog, [TOOL, "send_email"], { ungated });
      expect([...found.keys()]).toEqual([TOOL]);
    }
  });
});

describe("thrownByTool", () => {
  it("makes an in-process tool's throw its tool_error, with none of the thrown text", async () => {
    const adapter = findAdapter(setup.catalog, TOOL);
    if (adapter === undefined) throw new Error("no adapter");
    const hostile = new Proxy(new Error("x"), {
      get: () => {
        throw new Error("hostile");
      },
    });
    for (const error of [new Error(ERROR_MARKER), "a string", hostile]) {
      const gated = await gateCall(adapter, thrownByTool(error), { tool: TOOL });
      expect(gated.content).toMatch(/error="tool_error"/);
      expect(gated.content).not.toContain(ERROR_MARKER);
    }
    const stopped = await gateCall(adapter, thrownByTool(new DOMException("late", "TimeoutError")), { tool: TOOL });
    expect(stopped.content).toMatch(/error="timeout"/);
  });
});
