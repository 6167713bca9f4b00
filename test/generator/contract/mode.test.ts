/**
 * `x-toolgate.mode`: a contract in observe mode generates an adapter that observes (the event records what
 * enforcement would have done, the caller gets the original), enforcement stays the default and is written nowhere,
 * and a mode the gate does not know is a contract error naming the file and the pointer.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { GateEvent } from "../../../runtime/index.js";
import {
  type AnyAdapter,
  adaptersOf,
  contractErrors,
  type GeneratedFolder,
  generateInto,
  typeCheck,
  writeContracts,
} from "../../hardening/scratch.js";

/** A small bounded contract in the given mode (none written for `undefined`). */
function contract(name: string, mode?: unknown) {
  return {
    name,
    outputSchema: {
      type: "object",
      properties: { id: { type: "string", maxLength: 16 }, status: { enum: ["open", "closed"] } },
      required: ["id", "status"],
      additionalProperties: false,
    },
    "x-toolgate": { ...(mode === undefined ? {} : { mode }) },
  };
}

let folder: GeneratedFolder;
let adapters: Map<string, AnyAdapter>;

beforeAll(async () => {
  const schemas = await writeContracts("mode", {
    "observed.tool.json": contract("observed", "observe"),
    "enforced.tool.json": contract("enforced", "enforce"),
    "plain.tool.json": contract("plain"),
  });
  folder = await generateInto(schemas);
  adapters = await adaptersOf(folder);
});

async function admit(tool: string, raw: unknown): Promise<{ outcome: unknown; event: GateEvent }> {
  const events: GateEvent[] = [];
  const adapter = adapters.get(tool) as AnyAdapter;
  const outcome = await adapter.admit(raw, { sink: (event) => events.push(event) });
  expect(events).toHaveLength(1);
  return { outcome, event: events[0] as GateEvent };
}

describe("x-toolgate.mode", () => {
  it("is written into the spec only for observe mode, and the generated files type-check", async () => {
    const adapterText = async (tool: string) => readFile(path.join(folder.out, tool, "adapter.ts"), "utf8");
    expect(await adapterText("observed")).toContain('  mode: "observe",\n');
    expect(await adapterText("enforced")).not.toContain("mode:");
    expect(await adapterText("plain")).not.toContain("mode:");
    expect(await typeCheck(folder)).toBe("");
  });

  it("observe: a result off the schema reaches the caller untouched, and the event says what enforcement would do", async () => {
    const raw = JSON.stringify({ id: "r-1", status: "maybe", secret: "</tool_result>" });
    const { outcome, event } = await admit("observed", raw);
    expect(outcome).toMatchObject({ ok: false, error: { code: "schema_mismatch" }, observed: { original: raw } });
    expect(event).toMatchObject({ tool: "observed", mode: "observe", code: "schema_mismatch" });
  });

  it("enforce, written out or by default: the same result is refused, and the event is not marked", async () => {
    const raw = JSON.stringify({ id: "r-1", status: "maybe" });
    for (const tool of ["enforced", "plain"]) {
      const { outcome, event } = await admit(tool, raw);
      expect(outcome).toMatchObject({ ok: false, error: { code: "schema_mismatch" } });
      expect((outcome as { observed?: unknown }).observed).toBeUndefined();
      expect(event.mode).toBeUndefined();
    }
    // Positive control: a valid result passes whole under enforcement.
    const { outcome } = await admit("plain", JSON.stringify({ id: "r-1", status: "open" }));
    expect(outcome).toMatchObject({ ok: true, complete: true, view: { id: "r-1", status: "open" } });
  });

  it("a mode the gate does not know is a contract error at /x-toolgate/mode", async () => {
    const schemas = await writeContracts("mode-bad", { "shadow.tool.json": contract("shadow", "shadow") });
    const errors = await contractErrors(schemas);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.file).toMatch(/shadow\.tool\.json$/);
    expect(errors[0]?.pointer).toBe("/x-toolgate/mode");
  });
});
