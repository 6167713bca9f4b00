/**
 * One event per admit, to a pluggable sink; JSON lines and OpenTelemetry sinks; counters per tool.
 */
import * as otel from "@opentelemetry/api";
import { beforeEach, describe, expect, it } from "vitest";
import {
  EVENT_VERSION,
  type GateEvent,
  gateCounters,
  jsonLinesSink,
  openTelemetrySink,
  setDefaultSink,
  Turn,
  transportFailure,
} from "../../../runtime/index.js";
import { goodRecord, recordTool } from "../fixture.js";

beforeEach(() => {
  gateCounters.reset();
  setDefaultSink(undefined);
});

describe("events", () => {
  it("one event per admit with tool, contract version, code, stage, sizes and correlation id", async () => {
    const events: GateEvent[] = [];
    const tool = recordTool();
    const raw = JSON.stringify(goodRecord());
    await tool.admit(raw, { correlationId: "c-9", sink: (event) => events.push(event) });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      tool: "get_record",
      contractVersion: "2",
      code: "ok",
      stage: "done",
      rawKind: "string",
      correlationId: "c-9",
      policy: "direct",
      sizes: { rawBytes: raw.length, maxBytes: 1024 * 1024, budget: 2000, unit: "bytes" },
    });
    expect(events[0]?.sizes.viewSize).toBeGreaterThan(0);
  });

  it("each event carries the format's version and the id of the turn the call belongs to", async () => {
    const events: GateEvent[] = [];
    const tool = recordTool();
    const turn = new Turn({ id: "turn-7" });
    await tool.admit(JSON.stringify(goodRecord()), { turn, sink: (event) => events.push(event) });
    await tool.admit("{", { sink: (event) => events.push(event) });
    expect(events.map((event) => event.v)).toEqual([EVENT_VERSION, EVENT_VERSION]);
    expect(events[0]?.turn).toBe("turn-7");
    // A call without a turn is a turn of its own, with an id of its own.
    expect(events[1]?.turn).toEqual(expect.any(String));
    expect(events[1]?.turn).not.toBe("turn-7");
  });

  it("the default sink receives events of calls that name none; a throwing sink changes nothing", async () => {
    const events: GateEvent[] = [];
    setDefaultSink({ emit: (event) => events.push(event) });
    const tool = recordTool();
    await tool.admit("{");
    expect(events.map((event) => [event.code, event.stage])).toEqual([["invalid_json", "parse"]]);
    const outcome = await tool.admit(JSON.stringify(goodRecord()), {
      sink: () => {
        throw new Error("sink down");
      },
    });
    expect(outcome.ok).toBe(true);
  });

  it("the JSON-lines sink writes one parseable line per event", async () => {
    const lines: string[] = [];
    const sink = jsonLinesSink((line) => lines.push(line));
    const tool = recordTool();
    await tool.admit(JSON.stringify(goodRecord()), { sink });
    await tool.admit(transportFailure("timeout"), { sink });
    const text = lines.join("");
    expect(text.endsWith("\n")).toBe(true);
    const parsed = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as GateEvent);
    expect(parsed.map((event) => event.code)).toEqual(["ok", "timeout"]);
    const written: string[] = [];
    await tool.admit("{", { sink: jsonLinesSink({ write: (chunk: string) => written.push(chunk) }) });
    expect(JSON.parse(written[0] as string)).toMatchObject({ code: "invalid_json" });
  });

  it("counts rejects per tool and code, and the policy mix per tool", async () => {
    const tool = recordTool({ context: { unit: "bytes", max: 300 } });
    const items = Array.from({ length: 40 }, (_, id) => ({ id, label: "x".repeat(80) }));
    await tool.admit(JSON.stringify(goodRecord()));
    await tool.admit("{");
    await tool.admit("{");
    await tool.admit(transportFailure("timeout"));
    await tool.admit(JSON.stringify(goodRecord({ items })));
    expect(gateCounters.snapshot()).toEqual({
      admits: { get_record: 5 },
      rejects: { get_record: { invalid_json: 2, timeout: 1, oversize: 1 } },
      policies: { get_record: { direct: 1, drop: 1 } },
    });
  });
});

describe("OpenTelemetry sink", () => {
  it("records a counter, histograms and a span event, with codes and sizes only", async () => {
    const counted: Array<[number, Record<string, unknown>]> = [];
    const recorded: Array<[string, number]> = [];
    const spanEvents: Array<[string, Record<string, unknown>]> = [];
    const meter = {
      createCounter: () => ({
        add: (value: number, attributes?: Record<string, unknown>) => counted.push([value, attributes ?? {}]),
      }),
      createHistogram: (name: string) => ({ record: (value: number) => recorded.push([name, value]) }),
    };
    const span = {
      addEvent: (name: string, attributes?: Record<string, unknown>) => spanEvents.push([name, attributes ?? {}]),
    };
    const sink = openTelemetrySink({ meter, activeSpan: () => span });
    const raw = JSON.stringify(goodRecord());
    await recordTool().admit(raw, { sink, correlationId: "c-otel" });
    expect(counted).toEqual([
      [
        1,
        {
          "toolgate.tool": "get_record",
          "toolgate.contract_version": "2",
          "toolgate.code": "ok",
          "toolgate.stage": "done",
          "toolgate.raw_kind": "string",
          "toolgate.policy": "direct",
        },
      ],
    ]);
    expect(recorded.map(([name]) => name)).toEqual(["toolgate.raw_bytes", "toolgate.view_size"]);
    expect(recorded[0]?.[1]).toBe(raw.length);
    expect(spanEvents[0]?.[0]).toBe("toolgate.admit");
    expect(spanEvents[0]?.[1]).toMatchObject({ "toolgate.correlation_id": "c-otel", "toolgate.code": "ok" });
  });

  it("takes the @opentelemetry/api module itself (no SDK registered: no-op, no error)", async () => {
    const outcome = await recordTool().admit(JSON.stringify(goodRecord()), { sink: openTelemetrySink(otel) });
    expect(outcome.ok).toBe(true);
  });
});
