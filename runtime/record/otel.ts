/**
 * An OpenTelemetry sink for gate events.
 *
 * The runtime never imports `@opentelemetry/api` itself (importing `@toolgate/runtime` must stay cheap, and the
 * package is optional): pass the API module, or a meter and tracer you already have. The shapes below are the few
 * members of `@opentelemetry/api` this sink uses, so any compatible version fits.
 */
import type { EventSink, GateEvent } from "./events.js";

/** Attribute values as OpenTelemetry accepts them. */
type Attributes = Record<string, string | number | boolean>;

/** The part of an OpenTelemetry `Meter` used here. */
export interface MeterLike {
  createCounter(
    name: string,
    options?: { description?: string; unit?: string },
  ): { add(value: number, attributes?: Attributes): void };
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string },
  ): { record(value: number, attributes?: Attributes): void };
}

/** The part of an OpenTelemetry `Span` used here. */
export interface SpanLike {
  addEvent(name: string, attributes?: Attributes): unknown;
}

/** The part of the `@opentelemetry/api` module used here. */
export interface OpenTelemetryApiLike {
  metrics: { getMeter(name: string, version?: string): MeterLike };
  trace: { getActiveSpan(): SpanLike | undefined };
}

/** What {@link openTelemetrySink} records into. */
export type OpenTelemetryTarget =
  | OpenTelemetryApiLike
  | { meter?: MeterLike | undefined; activeSpan?: (() => SpanLike | undefined) | undefined };

/** The attributes of an event, with OpenTelemetry's dotted names; codes and numbers only. */
function attributesOf(event: GateEvent): Attributes {
  const attributes: Attributes = {
    "toolgate.tool": event.tool,
    "toolgate.contract_version": event.contractVersion,
    "toolgate.code": event.code,
    "toolgate.stage": event.stage,
    "toolgate.raw_kind": event.rawKind,
  };
  if (event.policy !== undefined) attributes["toolgate.policy"] = event.policy;
  if (event.recall === true) attributes["toolgate.recall"] = true;
  return attributes;
}

/**
 * Records each event as OpenTelemetry metrics (`toolgate.admits` counter with tool, code, stage and policy;
 * `toolgate.raw_bytes` and `toolgate.view_size` histograms) and as an event `toolgate.admit` on the active span,
 * with the correlation id and sizes.
 *
 * ```ts
 * import * as otel from "@opentelemetry/api";
 * setDefaultSink(openTelemetrySink(otel));
 * ```
 */
export function openTelemetrySink(target: OpenTelemetryTarget): EventSink {
  const api = "metrics" in target ? target : undefined;
  const meter = api ? api.metrics.getMeter("toolgate") : "meter" in target ? target.meter : undefined;
  const activeSpan = api ? () => api.trace.getActiveSpan() : "activeSpan" in target ? target.activeSpan : undefined;
  const admits = meter?.createCounter("toolgate.admits", { description: "Tool results through the gate, by outcome" });
  const rawBytes = meter?.createHistogram("toolgate.raw_bytes", { description: "Raw result size", unit: "By" });
  const viewSize = meter?.createHistogram("toolgate.view_size", { description: "Rendered view size, in its unit" });
  return (event) => {
    const attributes = attributesOf(event);
    admits?.add(1, attributes);
    rawBytes?.record(event.sizes.rawBytes, attributes);
    if (event.sizes.viewSize !== undefined) {
      viewSize?.record(event.sizes.viewSize, { ...attributes, "toolgate.unit": event.sizes.unit ?? "bytes" });
    }
    const span = activeSpan?.();
    if (span !== undefined) {
      const spanAttributes: Attributes = { ...attributes, "toolgate.raw_bytes": event.sizes.rawBytes };
      if (event.correlationId !== undefined) spanAttributes["toolgate.correlation_id"] = event.correlationId;
      if (event.sizes.viewSize !== undefined) spanAttributes["toolgate.view_size"] = event.sizes.viewSize;
      if (event.flags !== undefined && event.flags.length > 0) spanAttributes["toolgate.flags"] = event.flags.join(",");
      span.addEvent("toolgate.admit", spanAttributes);
    }
  };
}
