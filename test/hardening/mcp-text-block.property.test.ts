/**
 * An MCP structured result with one text block of the same value is received from that text
 * (`runtime/stages/receive/text-block.ts`): `data` is its parse, compared with `structuredContent`, and the hash is
 * the text's. Every result must end as it ends the copy's way, which a result with the same text block twice still
 * takes: the same code, data, view, flags and diagnostics, and, where the text is `JSON.stringify` of the value, the
 * same hash. Only a text written otherwise (indented) is hashed as written.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import * as hashThread from "../../runtime/record/hash-thread.js";
import { hashThreadReady } from "../fixtures/hash-thread.js";
import { goodRecord, recordTool, STRUCTURED_RESULT } from "../runtime/fixture.js";

const tool = recordTool({ result: STRUCTURED_RESULT, limits: { maxBytes: 4 * 1024 * 1024, maxDepth: 12 } });

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

async function admit(structured: unknown, texts: string[]) {
  return tool.admit(
    { content: texts.map((text) => ({ type: "text", text })), structuredContent: structured },
    { correlationId: "c", now: () => new Date(0) },
  );
}

/** An outcome without what only the number of text blocks changes (the parts), and optionally without the hash. */
function comparable(outcome: Awaited<ReturnType<typeof admit>>, hashed: boolean) {
  const { parts: _parts, ...rest } = outcome as typeof outcome & { parts?: unknown };
  const copy = structuredClone(rest) as unknown as Record<string, unknown> & {
    provenance: Record<string, unknown>;
    diagnostics?: { sizes?: Record<string, unknown> };
  };
  if (!hashed) {
    delete copy.provenance.rawSha256;
    delete copy.provenance.rawBytes;
    delete copy.diagnostics?.sizes?.rawBytes;
    delete (copy as { contextUsed?: unknown }).contextUsed;
  }
  return copy;
}

const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom("café 🚀", "\uD800", "a\uDC00", "<b>&amp;</b>", "\u2028", "__proto__", "") },
);
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 2 ** 53, -(2 ** 53) - 2, 1e21, 9007199254740991),
);
const record = fc
  .record(
    {
      recordId: text,
      owner: text,
      status: fc.constantFrom("open", "closed", "open", "other"),
      title: text,
      count: fc.oneof({ weight: 4, arbitrary: fc.integer() }, { weight: 1, arbitrary: number }),
      items: fc.array(
        fc.record(
          { id: fc.oneof({ weight: 6, arbitrary: fc.integer() }, { weight: 1, arbitrary: number }), label: text },
          { requiredKeys: ["id"] },
        ),
        {
          maxLength: 4,
        },
      ),
      extra: fc.option(fc.jsonValue({ maxDepth: 3 }), { freq: 4 }),
    },
    { requiredKeys: ["recordId", "owner", "status"] },
  )
  .map((value) => {
    const { extra, ...rest } = value;
    return extra === undefined || extra === null ? rest : { ...rest, extra };
  });
let deep: unknown = 1;
for (let i = 0; i < 20; i++) deep = [deep];
const value = fc.oneof(
  { weight: 6, arbitrary: record },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constant(goodRecord({ items: [{ id: 1, label: deep }] })) },
  { weight: 1, arbitrary: fc.constant({ ["__proto__"]: 1, ...goodRecord() }) },
);

/**
 * The value without its last property or item, where it has one, and without the last property of its last object
 * item (`items`): what the caller's value holds beyond that text must show as a difference.
 */
function lessAtTheEnd(structured: unknown): unknown {
  if (Array.isArray(structured)) return structured.slice(0, -1);
  if (typeof structured !== "object" || structured === null) return structured;
  const entries = Object.entries(structured);
  const items = (structured as { items?: unknown }).items;
  if (Array.isArray(items) && items.length > 0 && typeof items.at(-1) === "object" && items.at(-1) !== null) {
    const last = Object.entries(items.at(-1) as object).slice(0, -1);
    return { ...structured, items: [...items.slice(0, -1), Object.fromEntries(last)] };
  }
  return Object.fromEntries(entries.slice(0, -1));
}

/**
 * The text block beside a value: its JSON, indented, another value's, the value's with less at its end, not JSON, or
 * JSON cut short.
 */
const beside = (structured: unknown) =>
  fc.oneof(
    fc.constant(JSON.stringify(structured) ?? "null"),
    fc.constant(JSON.stringify(lessAtTheEnd(structured)) ?? "null"),
    fc.constant(JSON.stringify(structured, null, 2) ?? "null"),
    record.map((other) => JSON.stringify(other)),
    fc.constant("not json"),
    fc.constant((JSON.stringify(structured) ?? "null").slice(0, -1)),
  );

describe("an MCP structured result received from its text block", () => {
  beforeAll(() => hashThreadReady(hashThread));

  it("ends as the copy's way ends it, on every value and text", async () => {
    let admitted = 0;
    await fc.assert(
      fc.asyncProperty(
        value.chain((structured) => fc.tuple(fc.constant(structured), beside(structured))),
        async ([structured, block]) => {
          const one = await admit(structured, [block]);
          const twice = await admit(structured, [block, block]);
          const compact = block === JSON.stringify(structured);
          expect(comparable(one, compact)).toEqual(comparable(twice, compact));
          if (one.ok) admitted++;
        },
      ),
      { numRuns: 1500 },
    );
    // Not a comparison of refusals alone: many results are admitted (most from their text block).
    expect(admitted).toBeGreaterThan(150);
  });

  it("hashes an indented text as written, and keeps the structured value's data", async () => {
    const record = goodRecord({ items: [{ id: 2, label: "café 🚀" }] });
    const indented = JSON.stringify(record, null, 2);
    const outcome = await admit(record, [indented]);
    expect(outcome.ok && outcome.data).toEqual(record);
    expect(outcome.provenance.rawSha256).toBe(sha256(indented));
    expect(outcome.provenance.rawBytes).toBe(Buffer.byteLength(indented));
    expect(outcome.ok && outcome.flags).toBe(undefined);
  });

  it("reads each property of the caller's object once, and a disagreeing one is flagged as before", async () => {
    let reads = 0;
    const record = goodRecord();
    const watched = Object.defineProperty({ ...record }, "owner", {
      get: () => {
        reads++;
        return "acme";
      },
      enumerable: true,
    });
    const outcome = await admit(watched, [JSON.stringify(record)]);
    expect(outcome.ok && outcome.data).toEqual(record);
    expect(reads).toBe(1);
    const disagreeing = await admit(goodRecord(), [JSON.stringify(goodRecord({ owner: "other" }))]);
    expect(disagreeing.ok && disagreeing.flags).toEqual(["mcp_text_mismatch"]);
    expect(disagreeing.ok && disagreeing.data.owner).toBe("acme");
  });

  it("refuses a large text with a lone surrogate as its block, as the copy's way does", async () => {
    const record = goodRecord({ summary: `${"x".repeat(40_000)}\uD800` });
    // Written raw, as no JSON writer would: `JSON.stringify` escapes it, and the parse then refuses the escape.
    const block = JSON.stringify(record).replace("\\ud800", "\uD800");
    expect(block).toContain("\uD800");
    expect(hashThread.hashTextLater(block)).toBeDefined();
    const one = await admit({ ...record, filler: 1 }, [block]);
    const same = await admit(record, [block]);
    const twice = await admit(record, [block, block]);
    expect(comparable(same, true)).toEqual(comparable(twice, true));
    expect(same.ok || [same.error.code, same.diagnostics.detail]).toEqual([
      "invalid_encoding",
      { reason: "lone_surrogate", block: 0 },
    ]);
    expect(one.ok || one.error.code).toBe("invalid_encoding");
  });

  it("admits a large agreeing result whole from its text, its hash the text's (taken on the thread)", async () => {
    const record = goodRecord({ summary: "é".repeat(60_000) });
    const block = JSON.stringify(record);
    const jobs = hashThread.threadJobs();
    const outcome = await admit(record, [block]);
    expect(outcome.ok && outcome.data).toEqual(record);
    expect(outcome.provenance.rawSha256).toBe(sha256(block));
    expect(hashThread.threadJobs()).toBe(jobs + 1);
  });
});
