/**
 * The proxy's OpenTelemetry, by the GenAI semantic conventions for MCP: each host `tools/call` is a SERVER span
 * `tools/call {tool}` whose parent is the trace context the host sent in `params._meta` (SEP-414: `traceparent`,
 * `tracestate`, `baggage`, unprefixed), and the call the proxy makes to the server a CLIENT span under it, whose
 * context is what the server receives in `_meta`. So the gate's span sits inside the host's trace, and the server's
 * inside the gate's. The durations are the conventions' histograms, `mcp.server.operation.duration` (the host's
 * request, as the proxy serves it) and `mcp.client.operation.duration` (the proxy's request to the server), in
 * seconds; the gate's verdict (`toolgate.code`, `toolgate.policy`, `toolgate.complete`) is an attribute of both the
 * span and the metric, its sizes (`toolgate.raw_bytes`, `toolgate.view_size`) of the span alone, where a value of
 * any size costs nothing in cardinality.
 *
 * The proxy imports `@opentelemetry/api` only under `--otel`; the SDK (exporters, the W3C propagator) is the one the
 * process registers. The shapes below are the few members of the API used here.
 */
import type { Outcome } from "@toolgate/runtime";

type Attributes = Record<string, string | number | boolean>;

/** The part of an OpenTelemetry `Span` used here. */
interface SpanLike {
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry `Context` used here (an opaque value passed back to the API). */
type ContextLike = object;

/** The part of the `@opentelemetry/api` module the proxy uses. */
export interface ProxyOtelApi {
  trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(
        name: string,
        options: { kind: number; attributes?: Attributes; startTime?: number },
        context?: ContextLike,
      ): SpanLike;
    };
    setSpan(context: ContextLike, span: SpanLike): ContextLike;
  };
  metrics: {
    getMeter(
      name: string,
      version?: string,
    ): {
      createHistogram(
        name: string,
        options?: { description?: string; unit?: string; advice?: { explicitBucketBoundaries?: number[] } },
      ): { record(value: number, attributes?: Attributes): void };
    };
  };
  propagation: {
    extract(
      context: ContextLike,
      carrier: Record<string, unknown>,
      getter?: {
        keys(carrier: Record<string, unknown>): string[];
        get(carrier: Record<string, unknown>, key: string): string | undefined;
      },
    ): ContextLike;
    inject(
      context: ContextLike,
      carrier: Record<string, unknown>,
      setter?: { set(carrier: Record<string, unknown>, key: string, value: string): void },
    ): void;
  };
  ROOT_CONTEXT: ContextLike;
  SpanKind: { SERVER: number; CLIENT: number };
  SpanStatusCode: { ERROR: number };
}

/** The keys of `params._meta` that carry trace context (SEP-414): written unprefixed, read only as strings. */
const TRACE_KEYS = ["traceparent", "tracestate", "baggage"] as const;

/**
 * The conventions' bucket boundaries for MCP operation durations, in seconds.
 */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Where the proxy runs, for `network.transport` and the like: `pipe` over stdio, `tcp` over HTTP. */
export interface ProxyTelemetryInfo {
  /** The host side: `pipe` (stdio) or `tcp` (`--listen`). */
  hostTransport: "pipe" | "tcp";
  /** The server side: `pipe` (a command) or `tcp` (`--url`). */
  serverTransport: "pipe" | "tcp";
}

/** One host `tools/call` as traced: what to send the server, and the ends of its two spans. */
export interface ToolCallTrace {
  /**
   * Starts the proxy's request to the server (its CLIENT span) and gives the `_meta` to send with it: the host's,
   * its trace context that of the CLIENT span. A call refused before it goes out never starts one.
   */
  upstreamMeta(): Record<string, unknown> | undefined;
  /** Records the proxy's request to the server when it settles (its CLIENT span and duration). */
  watchUpstream(request: Promise<unknown>): void;
  /**
   * Ends the call, once (a later call does nothing): the gate's verdict on the SERVER span and the duration metric,
   * or, for a call the gate gave no verdict on, the code of the refusal the host was answered with.
   */
  end(outcome: Outcome<unknown, unknown> | undefined, refusal?: string): void;
}

/** The proxy's telemetry: one {@link ToolCallTrace} per host `tools/call`. */
export interface ProxyTelemetry {
  toolCall(call: { name: string; meta: unknown; session: string; protocolVersion: string | undefined }): ToolCallTrace;
}

/** A carrier's own string value at `key`, never one from its prototype or a getter's throw. */
function ownString(carrier: Record<string, unknown>, key: string): string | undefined {
  try {
    if (!Object.hasOwn(carrier, key)) return undefined;
    const value = carrier[key];
    return typeof value === "string" && value.length <= 8192 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The trace context keys of the host's `_meta`, copied as plain strings (the rest of `_meta` is not read here). */
function traceCarrier(meta: unknown): Record<string, unknown> {
  const carrier: Record<string, unknown> = {};
  if (typeof meta !== "object" || meta === null) return carrier;
  for (const key of TRACE_KEYS) {
    const value = ownString(meta as Record<string, unknown>, key);
    if (value !== undefined) carrier[key] = value;
  }
  return carrier;
}

const GETTER = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => ownString(carrier, key),
};
const SETTER = {
  set: (carrier: Record<string, unknown>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/** The `error.type` of an upstream request that failed: its JSON-RPC code, or `_OTHER`. */
function upstreamErrorType(error: unknown): string {
  try {
    const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
    return typeof code === "number" && Number.isSafeInteger(code) ? String(code) : "_OTHER";
  } catch {
    return "_OTHER";
  }
}

/** Whether the server's answer is a `CallToolResult` with `isError` (`error.type` `tool_error`). */
function isToolError(answer: unknown): boolean {
  try {
    return typeof answer === "object" && answer !== null && (answer as { isError?: unknown }).isError === true;
  } catch {
    return false;
  }
}

/** The gate's verdict as attributes: the failure's code (also `error.type`) or the policy that fitted the view. */
function verdictAttributes(outcome: Outcome<unknown, unknown> | undefined, refusal: string | undefined): Attributes {
  if (outcome === undefined) {
    return refusal === undefined ? {} : { "toolgate.code": refusal, "error.type": refusal };
  }
  if (!outcome.ok) return { "toolgate.code": outcome.error.code, "error.type": outcome.error.code };
  const attributes: Attributes = { "toolgate.code": "ok", "toolgate.complete": outcome.complete };
  if (outcome.policy !== undefined) attributes["toolgate.policy"] = outcome.policy;
  return attributes;
}

/** The gate's sizes, for the span: what the server sent and what the host reads, in the contract's unit. */
function sizeAttributes(outcome: Outcome<unknown, unknown> | undefined): Attributes {
  if (outcome === undefined) return {};
  const attributes: Attributes = { "toolgate.raw_bytes": outcome.provenance.rawBytes };
  if (outcome.ok) {
    attributes["toolgate.view_size"] = outcome.contextUsed.value;
    attributes["toolgate.view_unit"] = outcome.contextUsed.unit;
  }
  return attributes;
}

/**
 * The proxy's telemetry over `api` (the `@opentelemetry/api` module): spans from its global tracer provider,
 * metrics from its meter provider, and its global propagator reading and writing `_meta`.
 */
export function proxyTelemetry(api: ProxyOtelApi, info: ProxyTelemetryInfo, version = "1"): ProxyTelemetry {
  const tracer = api.trace.getTracer("toolgate-proxy", version);
  const meter = api.metrics.getMeter("toolgate-proxy", version);
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  const serverDuration = meter.createHistogram("mcp.server.operation.duration", {
    description: "MCP request duration as observed on the receiver, the proxy serving the host",
    unit: "s",
    advice,
  });
  const clientDuration = meter.createHistogram("mcp.client.operation.duration", {
    description: "MCP request duration as observed on the sender, the proxy calling the server",
    unit: "s",
    advice,
  });
  return {
    toolCall({ name, meta, session, protocolVersion }) {
      const common: Attributes = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": name,
        "gen_ai.operation.name": "execute_tool",
        ...(protocolVersion === undefined ? {} : { "mcp.protocol.version": protocolVersion }),
      };
      const started = performance.now();
      const parent = api.propagation.extract(api.ROOT_CONTEXT, traceCarrier(meta), GETTER);
      const span = tracer.startSpan(
        `tools/call ${name}`,
        {
          kind: api.SpanKind.SERVER,
          attributes: { ...common, "mcp.session.id": session, "network.transport": info.hostTransport },
        },
        parent,
      );
      const serverContext = api.trace.setSpan(parent, span);
      let upstream: { span: SpanLike; started: number } | undefined;
      let upstreamEnded = false;
      let ended = false;
      const endUpstream = (errorType: string | undefined) => {
        if (upstream === undefined || upstreamEnded) return;
        upstreamEnded = true;
        const attributes: Attributes = {
          ...common,
          "network.transport": info.serverTransport,
          ...(errorType === undefined ? {} : { "error.type": errorType }),
        };
        if (errorType !== undefined) {
          upstream.span.setAttributes({ "error.type": errorType });
          upstream.span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        upstream.span.end();
        clientDuration.record((performance.now() - upstream.started) / 1000, attributes);
      };
      return {
        upstreamMeta() {
          const client = tracer.startSpan(
            `tools/call ${name}`,
            { kind: api.SpanKind.CLIENT, attributes: { ...common, "network.transport": info.serverTransport } },
            serverContext,
          );
          upstream = { span: client, started: performance.now() };
          // The host's `_meta` with its trace context replaced: the server's span is the CLIENT span's child.
          const base = typeof meta === "object" && meta !== null ? { ...(meta as Record<string, unknown>) } : {};
          for (const key of TRACE_KEYS) delete base[key];
          api.propagation.inject(api.trace.setSpan(serverContext, client), base, SETTER);
          return Object.keys(base).length === 0 ? undefined : base;
        },
        watchUpstream(request) {
          request.then(
            (answer) => endUpstream(isToolError(answer) ? "tool_error" : undefined),
            (error) => endUpstream(upstreamErrorType(error)),
          );
        },
        end(outcome, refusal) {
          if (ended) return; // the first end is the call's: the gate's verdict, or else the refusal
          ended = true;
          const now = performance.now();
          // A request the gate stopped waiting for (a timeout, an abort) ends with the call, as its failure.
          endUpstream(outcome?.ok === false ? outcome.error.code : "_OTHER");
          const verdict = verdictAttributes(outcome, refusal);
          span.setAttributes({ ...verdict, ...sizeAttributes(outcome) });
          if (verdict["error.type"] !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR });
          span.end();
          serverDuration.record((now - started) / 1000, {
            ...common,
            "network.transport": info.hostTransport,
            ...verdict,
          });
        },
      };
    },
  };
}
