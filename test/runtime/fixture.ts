/**
 * A hand-made tool for the runtime tests: the spec a generated `adapter.ts` would pass to `defineTool`, with
 * validators compiled here by Ajv (the generated standalone ones are tested elsewhere).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "vitest";
import {
  type AdmitContext,
  defineTool,
  type GateEvent,
  type Outcome,
  project,
  type ResultSpec,
  type TextView,
  type ToolAdapter,
  type ToolSpec,
  toModelContent,
  type ValidateFunction,
  type ViewPlan,
} from "../../runtime/index.js";

/** The record the tool returns. */
export interface RecordResult {
  recordId: string;
  owner: string;
  status: "open" | "closed";
  title?: string;
  summary?: string;
  internalNotes?: string;
  items?: Array<{ id: number; label?: string }>;
  count?: number;
  nextCursor?: string;
}

/** The tool's arguments. */
export interface RecordInput {
  recordId: string;
  limit?: number;
}

export const outputSchema = {
  type: "object",
  properties: {
    recordId: { type: "string", maxLength: 64 },
    owner: { type: "string", maxLength: 64 },
    status: { enum: ["open", "closed"] },
    title: { type: "string", maxLength: 2000 },
    summary: { type: "string", maxLength: 100000 },
    internalNotes: { type: "string", maxLength: 1000 },
    items: {
      type: "array",
      maxItems: 2000,
      items: {
        type: "object",
        properties: { id: { type: "integer" }, label: { type: "string", maxLength: 500 } },
        required: ["id"],
        additionalProperties: false,
      },
    },
    count: { type: "integer" },
    nextCursor: { type: "string", maxLength: 200 },
  },
  required: ["recordId", "owner", "status"],
  additionalProperties: false,
} as const;

export const inputSchema = {
  type: "object",
  properties: { recordId: { type: "string", maxLength: 64 }, limit: { type: "integer", minimum: 1, maximum: 100 } },
  required: ["recordId"],
  additionalProperties: false,
} as const;

/** `internalNotes` is private: absent from the plan. */
export const viewPlan: ViewPlan = {
  kind: "object",
  properties: {
    recordId: { kind: "string", max: 64, overflow: "excerpt" },
    owner: { kind: "string", max: 64, overflow: "excerpt" },
    status: { kind: "value" },
    title: { kind: "string", max: 200, overflow: "excerpt" },
    summary: { kind: "string", max: 300, overflow: "omit" },
    items: {
      kind: "array",
      take: 5,
      items: {
        kind: "object",
        properties: { id: { kind: "value" }, label: { kind: "string", max: 100, overflow: "excerpt" } },
      },
    },
    count: { kind: "value" },
    nextCursor: { kind: "value" },
  },
};

const ajv = new Ajv2020({ ownProperties: true, allErrors: true, strict: false });

/** Compiles a schema the way the tests need it: a type guard leaving errors on `.errors`. */
export function compile<T>(schema: object): ValidateFunction<T> {
  return ajv.compile(schema) as unknown as ValidateFunction<T>;
}

export const validateResult = compile<RecordResult>(outputSchema);
export const validateInput = compile<RecordInput>(inputSchema);

/** The rules of a JSON-in-text result as the generator writes them when the contract names none. */
export const JSON_TEXT_RESULT: ResultSpec = {
  kind: "json_text",
  content: { maxBlocks: 16, text: { maxCount: 16 }, resourceLink: { maxCount: 32 } },
};

/** The rules of a structured result as the generator writes them when the contract names none. */
export const STRUCTURED_RESULT: ResultSpec = {
  kind: "structured",
  content: { maxBlocks: 16, text: { maxCount: 16 }, resourceLink: { maxCount: 32 } },
};

/** The spec, with test-chosen overrides. Defaults: 1 MiB ceiling, depth 12, a 2,000-byte budget, drop. */
export function recordSpec(overrides: Partial<ToolSpec<RecordResult, unknown, RecordInput>> = {}) {
  const spec: ToolSpec<RecordResult, unknown, RecordInput> = {
    name: "get_record",
    contract: { version: "2", sha256: "c".repeat(64), file: "schemas/get_record.tool.json" },
    validateResult,
    validateInput,
    view: { plan: viewPlan, continuation: "/nextCursor", maxStringChars: 2000 },
    buildView: (data) => project(data, overrides.view?.plan ?? viewPlan, { maxStringChars: 2000 }),
    limits: { maxBytes: 1024 * 1024, maxDepth: 12 },
    context: { unit: "bytes", max: 2000 },
    oversize: ["drop"],
    recallLimit: 1,
    summaryMax: 200,
    spillPreview: 2,
    retry: {},
    fields: [],
    exposeToolError: false,
    result: JSON_TEXT_RESULT,
    mcp: {},
    ...overrides,
  };
  return spec;
}

/** An adapter over {@link recordSpec}. */
export function recordTool(overrides: Partial<ToolSpec<RecordResult, unknown, RecordInput>> = {}) {
  return defineTool(recordSpec(overrides));
}

/** The rules of a text result as the generator writes them when the contract names none. */
export const TEXT_RESULT: ResultSpec = {
  kind: "text",
  text: { maxLines: 100_000, headShare: 0.67 },
  content: { maxBlocks: 16, text: { maxCount: 16 } },
};

/**
 * A tool that answers in text (`result.kind: "text"`): no output schema, no validator; `data` is the text. The view
 * is the gate's text view, so `buildView` must never be called. Defaults: 1 MiB ceiling, a 2,000-byte budget, drop.
 */
export function textSpec(overrides: Partial<ToolSpec<string, TextView>> = {}): ToolSpec<string, TextView> {
  return {
    name: "read_text",
    contract: { version: "1", sha256: "d".repeat(64), file: "schemas/read_text.tool.json" },
    view: { plan: { kind: "string", max: 2000, overflow: "excerpt" }, maxStringChars: 2000 },
    buildView: () => {
      throw new Error("a text result's view is the gate's");
    },
    limits: { maxBytes: 1024 * 1024, maxDepth: 1 },
    context: { unit: "bytes", max: 2000 },
    oversize: ["drop"],
    recallLimit: 1,
    summaryMax: 200,
    spillPreview: 2,
    retry: {},
    fields: [],
    exposeToolError: false,
    mcp: {},
    result: TEXT_RESULT,
    ...overrides,
  };
}

/** An adapter over {@link textSpec}. */
export function textTool(overrides: Partial<ToolSpec<string, TextView>> = {}) {
  return defineTool(textSpec(overrides));
}

/** A valid record, as JSON text. */
export function goodRecord(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { recordId: "r-1", owner: "acme", status: "open", title: "Quarterly report", count: 3, ...extra };
}

/** Admits with a sink that collects the events, and returns both. */
export async function admitCollecting<T, V, I>(
  tool: ToolAdapter<T, V, I>,
  raw: unknown,
  ctx: AdmitContext<T, V, I> = {},
): Promise<{ outcome: Outcome<T, V>; events: GateEvent[] }> {
  const events: GateEvent[] = [];
  const outcome = await tool.admit(raw, { correlationId: "corr-1", ...ctx, sink: (event) => events.push(event) });
  return { outcome, events };
}

/**
 * Asserts the acceptance rule for failures: the marker planted in the raw payload appears neither in what the
 * model sees, nor in any event, nor in the error and diagnostics (except the tool's own message, kept for the
 * caller on `tool_error`).
 */
export function expectNoLeak(outcome: Outcome<unknown, unknown>, events: GateEvent[], marker: string): void {
  expect(toModelContent(outcome)).not.toContain(marker);
  expect(JSON.stringify(events)).not.toContain(marker);
  if (!outcome.ok) {
    const { toolMessage: _kept, ...diagnostics } = outcome.diagnostics;
    expect(JSON.stringify({ error: outcome.error, diagnostics, provenance: outcome.provenance })).not.toContain(marker);
  }
}
