/**
 * The proxy's OpenTelemetry, read with the OpenTelemetry SDK's own in-memory exporters: a host's `tools/call`
 * carrying a W3C `traceparent` in `_meta` (SEP-414) becomes the proxy's SERVER span inside the host's trace, the
 * proxy's request to the server a CLIENT span under it whose context the server receives in `_meta`, and the
 * durations the MCP conventions' histograms, with the gate's verdict as attributes and its sizes on the span. A call
 * refused before it goes out has no CLIENT span and reaches no server. The positive control: with telemetry on, the
 * host still reads the gated result whole, and `_meta` keys that are no trace context reach the server as sent.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import * as otel from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadContracts, prepareContract } from "../../../generator/contract/index.js";
import { planContractView } from "../../../generator/model/view-plan.js";
import { viewSchema } from "../../../generator/model/view-schema.js";
import { type ProxyTool, type RunningProxy, startProxy } from "../../../generator/proxy/serve.js";
import { proxyTelemetry } from "../../../generator/proxy/telemetry.js";
import {
  contractFile,
  expectModelSaw,
  type OrdersSetup,
  ordersServerTransport,
  ordersSetup,
  TOOL,
} from "../../integrations/fixture.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const HOST_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const HOST_SPAN = "00f067aa0ba902b7";

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
let setup: OrdersSetup;
let host: Client;
let proxy: RunningProxy;
/** Every message the proxy sent the server. */
const toServer: JSONRPCMessage[] = [];

beforeAll(async () => {
  otel.trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }),
  );
  otel.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  setup = await ordersSetup("proxy-telemetry");
  const folder = path.dirname(contractFile);
  const [{ contract }] = (await loadContracts(folder, [REPO])) as unknown as [{ contract: never }];
  const prepared = await prepareContract(contract, { projectRoot: REPO, roots: [folder], remotes: [] });
  const plan = planContractView(prepared.result?.bundled ?? {}, prepared.settings, "list_orders.tool.json", []);
  const tool: ProxyTool = {
    adapter: setup.catalog[TOOL]?.adapter as ProxyTool["adapter"],
    viewSchema: viewSchema(plan),
    definition: { inputSchema: prepared.input?.root as Record<string, unknown> },
  };
  const upstream = await ordersServerTransport();
  const send = upstream.clientTransport.send.bind(upstream.clientTransport);
  upstream.clientTransport.send = (message, options) => {
    toServer.push(message);
    return send(message, options);
  };
  const [hostSide, proxySide] = InMemoryTransport.createLinkedPair();
  const started = startProxy({
    findTool: (name) => (name === TOOL ? tool : undefined),
    upstream: upstream.clientTransport,
    host: proxySide,
    telemetry: proxyTelemetry(otel, { hostTransport: "pipe", serverTransport: "pipe" }),
    log: () => undefined,
  });
  host = new Client({ name: "host", version: "1" });
  await host.connect(hostSide);
  proxy = await started;
});

afterAll(async () => {
  await host?.close();
  await proxy?.close();
  otel.trace.disable();
  otel.metrics.disable();
  otel.propagation.disable();
});

beforeEach(() => {
  spans.reset();
  toServer.length = 0;
});

/** The `_meta` of each `tools/call` the server was sent. */
function callsToServer(): Array<Record<string, unknown> | undefined> {
  return toServer
    .filter((message) => "method" in message && message.method === "tools/call")
    .map((message) => (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta);
}

/** The histogram points of `name` recorded so far, with their attributes and counts. */
async function histogram(name: string): Promise<Array<{ attributes: Record<string, unknown>; count: number }>> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
  expect(found?.descriptor.unit).toBe("s");
  return (found?.dataPoints ?? []).map((point) => ({
    attributes: point.attributes as Record<string, unknown>,
    count: (point.value as { count: number }).count,
  }));
}

/** The text the host received. */
function textOf(result: unknown): string {
  return ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("\n");
}

describe("proxy telemetry (--otel)", () => {
  it("puts the gate's span inside the host's trace and the server's inside the gate's, by _meta", async () => {
    const result = await host.callTool({
      name: TOOL,
      arguments: { customer: "acme", variant: "ok" },
      _meta: { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01`, "io.example/tag": "kept" },
    });
    // The positive control: the host reads the gated answer whole, as without telemetry.
    expectModelSaw(textOf(result), "ok");

    const finished = spans.getFinishedSpans();
    const server = finished.find((span) => span.kind === otel.SpanKind.SERVER);
    const client = finished.find((span) => span.kind === otel.SpanKind.CLIENT);
    expect(server?.name).toBe(`tools/call ${TOOL}`);
    expect(server?.spanContext().traceId).toBe(HOST_TRACE);
    expect(server?.parentSpanContext?.spanId).toBe(HOST_SPAN);
    expect(client?.spanContext().traceId).toBe(HOST_TRACE);
    expect(client?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(server?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": TOOL,
      "gen_ai.operation.name": "execute_tool",
      "network.transport": "pipe",
      "toolgate.code": "ok",
      // The fixture's view keeps the first orders of sixty: the model is told the view is not whole, and so is the span.
      "toolgate.complete": textOf(result).includes('complete="true"'),
    });
    expect(server?.attributes["toolgate.raw_bytes"]).toBeGreaterThan(0);
    expect(server?.attributes["toolgate.view_size"]).toBeGreaterThan(0);
    expect(server?.attributes["error.type"]).toBeUndefined();

    // The server was sent the CLIENT span's context, and the rest of the host's _meta as it was.
    const [meta] = callsToServer();
    expect(meta?.traceparent).toBe(`00-${HOST_TRACE}-${client?.spanContext().spanId}-01`);
    expect(meta?.["io.example/tag"]).toBe("kept");

    const served = await histogram("mcp.server.operation.duration");
    expect(served).toContainEqual({
      attributes: expect.objectContaining({
        "gen_ai.tool.name": TOOL,
        "toolgate.code": "ok",
        "mcp.method.name": "tools/call",
      }),
      count: 1,
    });
    // Sizes are span attributes only: a metric's attributes stay few in values.
    for (const point of served) expect(point.attributes["toolgate.raw_bytes"]).toBeUndefined();
    const sent = await histogram("mcp.client.operation.duration");
    expect(sent).toContainEqual({ attributes: expect.objectContaining({ "gen_ai.tool.name": TOOL }), count: 1 });
  });

  it("records the gate's failure as error.type, on the span and the metric", async () => {
    const result = await host.callTool({ name: TOOL, arguments: { customer: "acme", variant: "invalid" } });
    expectModelSaw(textOf(result), "invalid");
    const server = spans.getFinishedSpans().find((span) => span.kind === otel.SpanKind.SERVER);
    expect(server?.attributes).toMatchObject({ "toolgate.code": "schema_mismatch", "error.type": "schema_mismatch" });
    expect(server?.status.code).toBe(otel.SpanStatusCode.ERROR);
    // Without a traceparent from the host the proxy's span starts a trace, and the server is still given its context.
    const [meta] = callsToServer();
    expect(meta?.traceparent).toMatch(new RegExp(`^00-${server?.spanContext().traceId}-[0-9a-f]{16}-01$`));
    const served = await histogram("mcp.server.operation.duration");
    expect(served).toContainEqual({
      attributes: expect.objectContaining({ "error.type": "schema_mismatch" }),
      count: 1,
    });
  });

  it("traces a call refused before it goes out with no CLIENT span, and sends the server nothing", async () => {
    const result = await host.callTool({ name: TOOL, arguments: { customer: 42 } });
    expect(textOf(result)).toContain('error="invalid_arguments"');
    const finished = spans.getFinishedSpans();
    expect(finished.map((span) => span.kind)).toEqual([otel.SpanKind.SERVER]);
    expect(finished[0]?.attributes["error.type"]).toBe("invalid_arguments");
    expect(callsToServer()).toEqual([]);
  });
});
