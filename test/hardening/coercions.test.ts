/**
 * Issue 12, class 14 (and 16a): one rule per case, the same for every way a value arrives (a string, bytes, string
 * chunks, byte chunks, MCP text, MCP structured content, an in-process value), and no silent coercion:
 * - text is text however it is cut: string chunks are joined as strings, so a surrogate pair split across two chunks
 *   is its character, and a surrogate left alone anywhere is `invalid_encoding`, raw or written as a JSON escape,
 *   in a value or in a key;
 * - an integer past 2^53 − 1 is `invalid_json` (`unsafe_integer`) however it is written (`9007199254740993`,
 *   `9007199254740993.0`, `9.007199254740993e15`), since `JSON.parse` would round it; a literal with a fraction is a
 *   float by the writer's choice and is kept;
 * - a tool's error text is read only up to the receive ceiling before anything cleans it.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Outcome, parsedResult } from "../../runtime/index.js";
import { parsedValueJson } from "../../runtime/text/json.js";
import { goodRecord, recordTool, STRUCTURED_RESULT } from "../runtime/fixture.js";

const structured = () => recordTool({ result: STRUCTURED_RESULT });

/** Every way the gate receives the JSON text `text` of a value (`value`, when it has one, for the parsed forms). */
function deliveries(text: string, value?: unknown): Array<[string, () => unknown, "text" | "structured"]> {
  const bytes = new TextEncoder().encode(text);
  const ways: Array<[string, () => unknown, "text" | "structured"]> = [
    ["a string", () => text, "text"],
    ["bytes", () => bytes, "text"],
    ["one string chunk per character", () => chunksOf([...text]), "text"],
    ["string chunks cut between UTF-16 units", () => chunksOf(text.match(/[\s\S]{1,3}/g) ?? []), "text"],
    ["byte chunks of one byte", () => chunksOf([...bytes].map((byte) => new Uint8Array([byte]))), "text"],
    ["an MCP text block", () => ({ content: [{ type: "text", text }] }), "text"],
    ["a Response", () => new Response(bytes), "text"],
  ];
  if (value !== undefined) {
    ways.push(
      ["MCP structured content", () => ({ content: [], structuredContent: value }), "structured"],
      ["an in-process value", () => parsedResult(value), "text"],
    );
  }
  return ways;
}

/** An async iterable of the given chunks. */
async function* chunksOf(chunks: readonly unknown[]) {
  for (const chunk of chunks) yield chunk;
}

function verdict(outcome: Outcome<unknown, unknown>): string {
  return outcome.ok ? "ok" : `${outcome.error.code}/${outcome.diagnostics.detail?.reason ?? ""}`;
}

/** The verdict for every delivery of a value, as `{ way: verdict }`. */
async function verdicts(text: string, value?: unknown): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const [way, raw, kind] of deliveries(text, value)) {
    found[way] = verdict(await (kind === "structured" ? structured() : recordTool()).admit(raw()));
  }
  return found;
}

/** `{ way: expected }` for every delivery. */
function everywhere(expected: string, text: string, value?: unknown): Record<string, string> {
  return Object.fromEntries(deliveries(text, value).map(([way]) => [way, expected]));
}

describe("surrogates: one rule for every delivery", () => {
  it("a surrogate pair split across string chunks is its character (the issue's example)", async () => {
    const text = JSON.stringify(goodRecord({ title: "😀 grin" }));
    const at = text.indexOf("😀") + 1;
    const outcome = await recordTool().admit(chunksOf([text.slice(0, at), text.slice(at)]));
    expect(outcome.ok && outcome.data.title).toBe("😀 grin");
    expect(await verdicts(text, goodRecord({ title: "😀 grin" }))).toEqual(
      everywhere("ok", text, goodRecord({ title: "😀 grin" })),
    );
  });

  it("a lone surrogate in string chunks is invalid_encoding, as in one string (the issue's example)", async () => {
    const text = JSON.stringify(goodRecord()).replace('"r-1"', '"r-\uD800"');
    expect(await verdicts(text)).toEqual({
      ...everywhere("invalid_encoding/lone_surrogate", text),
      // Bytes cannot hold a lone surrogate: the encoder wrote U+FFFD, and the text is then valid.
      bytes: "ok",
      "byte chunks of one byte": "ok",
      "a Response": "ok",
    });
    // At the very end of the chunks, and before a binary chunk.
    expect(verdict(await recordTool().admit(chunksOf([JSON.stringify(goodRecord()), "\uD83D"])))).toBe(
      "invalid_encoding/lone_surrogate",
    );
    expect(verdict(await recordTool().admit(chunksOf(['{"recordId":"\uD83D', new TextEncoder().encode('"}')])))).toBe(
      "invalid_encoding/lone_surrogate",
    );
  });

  it("a lone surrogate inside structured content is invalid_encoding (the issue's example)", async () => {
    const value = goodRecord({ title: "half \uDC00 a pair" });
    const outcome = await structured().admit({ content: [], structuredContent: value });
    expect(verdict(outcome)).toBe("invalid_encoding/lone_surrogate");
  });

  it("in a key, at any depth, and written as a JSON escape: the same", async () => {
    const inKey = { ...goodRecord(), items: [{ id: 1, "\uD800": 1 }] };
    expect(verdict(await structured().admit({ content: [], structuredContent: inKey }))).toBe(
      "invalid_encoding/lone_surrogate",
    );
    expect(verdict(await recordTool().admit(parsedResult(inKey)))).toBe("invalid_encoding/lone_surrogate");
    for (const sequence of ["\\ud800", "\\uDFFF", "\\udc00\\ud800", "x\\uD83D"]) {
      const inValue = `{"recordId":"r${sequence}","owner":"acme","status":"open"}`;
      expect(verdict(await recordTool().admit(inValue)), sequence).toBe("invalid_encoding/lone_surrogate");
      const asKey = `{"recordId":"r","owner":"acme","status":"open","items":[{"id":1,"${sequence}":2}]}`;
      expect(verdict(await recordTool().admit(asKey)), sequence).toBe("invalid_encoding/lone_surrogate");
    }
    // A pair written as two escapes is one character; an escaped backslash before "ud800" is no escape at all.
    const pair = await recordTool().admit('{"recordId":"\\ud83d\\ude00","owner":"acme","status":"open"}');
    expect(pair.ok && pair.data.recordId).toBe("😀");
    const literal = await recordTool().admit('{"recordId":"\\\\ud800","owner":"acme","status":"open"}');
    expect(literal.ok && literal.data.recordId).toBe("\\ud800");
  });
});

describe("bytes are read as they were when they arrived", () => {
  it("a producer that reuses one buffer for every chunk, and changes it after the last", async () => {
    const text = JSON.stringify(goodRecord({ title: "reused buffers" }));
    const encoded = new TextEncoder().encode(text);
    const buffer = new Uint8Array(8);
    async function* reusing() {
      for (let at = 0; at < encoded.length; at += buffer.length) {
        const piece = encoded.subarray(at, at + buffer.length);
        buffer.set(piece);
        yield buffer.subarray(0, piece.length);
      }
      buffer.fill(0x20);
    }
    const outcome = await recordTool().admit(reusing());
    expect(outcome.ok && outcome.data.title).toBe("reused buffers");
    const expected = createHash("sha256").update(encoded).digest("hex");
    expect(outcome.provenance.rawSha256).toBe(expected);
  });
});

describe("integers past 2^53 − 1: one rule however they are written", () => {
  const withCount = (literal: string) => `{"recordId":"r","owner":"acme","status":"open","count":${literal}}`;

  it("9007199254740993.0 and 9.007199254740993e15 are refused like 9007199254740993 (the issue's example)", async () => {
    for (const literal of ["9007199254740993", "9007199254740993.0", "9.007199254740993e15"]) {
      expect(await verdicts(withCount(literal)), literal).toEqual(
        everywhere("invalid_json/unsafe_integer", withCount(literal)),
      );
    }
  });

  it("other spellings of an integer past the bound, negative ones, and the bound itself", async () => {
    const refused = ["90071992547409930e-1", "-9.007199254740993E+15", "9007199254740992.000", "1e20", "-1.5e300"];
    for (const literal of refused) {
      expect(verdict(await recordTool().admit(withCount(literal))), literal).toBe("invalid_json/unsafe_integer");
    }
    for (const literal of ["9007199254740991.0", "9.007199254740991e15", "-9007199254740991e0", "1.5e-7", "12.5"]) {
      expect(verdict(await recordTool({ validateResult: anyCount }).admit(withCount(literal))), literal).toBe("ok");
    }
  });

  it("already parsed values past the bound are refused as their text would be", async () => {
    for (const count of [2 ** 53, -(2 ** 53), 1e21, Number.MAX_VALUE]) {
      const value = { ...goodRecord(), count };
      expect(verdict(await structured().admit({ content: [], structuredContent: value })), String(count)).toBe(
        "invalid_json/unsafe_integer",
      );
      expect(verdict(await recordTool().admit(parsedResult(value))), String(count)).toBe("invalid_json/unsafe_integer");
    }
  });

  it("too large for a double stays number_overflow", async () => {
    expect(verdict(await recordTool().admit(withCount("1e400")))).toBe("invalid_json/number_overflow");
  });
});

/** A validator that takes any number as `count`, so float literals reach the outcome. */
const anyCount = Object.assign(
  (data: unknown): data is never => typeof (data as { count?: unknown }).count === "number",
  { errors: null },
);

describe("a tool's error text is bounded by the receive ceiling before it is cleaned (16a)", () => {
  it("60 MB of error text: only blocks up to the ceiling are read", async () => {
    const megabyte = "\u200B".repeat(512 * 1024) + "e".repeat(512 * 1024);
    let reads = 0;
    const block = {
      type: "text",
      get text() {
        reads++;
        return megabyte;
      },
    };
    const content = Array.from({ length: 60 }, () => block);
    const tool = recordTool({ limits: { maxBytes: 2 * 1024 * 1024, maxDepth: 12 }, exposeToolError: true });
    const started = performance.now();
    const outcome = await tool.admit({ isError: true, content });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(verdict(outcome)).toBe("tool_error/is_error");
    expect(reads).toBeLessThanOrEqual(3);
    expect(outcome.ok || [...(outcome.diagnostics.toolMessage ?? "")].length).toBeLessThanOrEqual(500);
    expect(outcome.ok || outcome.modelMessage).not.toContain("\u200B");
    expect(outcome.ok || outcome.provenance.rawSha256).toBeUndefined();
  });

  it("error text under the ceiling is hashed and cleaned as before", async () => {
    const outcome = await recordTool({ exposeToolError: true }).admit({
      isError: true,
      content: [{ type: "text", text: "no\u200Bsuch record" }],
    });
    expect(outcome.ok || outcome.modelMessage).toBe("nosuch record");
    expect(outcome.ok || outcome.provenance.rawSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("an already parsed value is written as JSON.stringify writes it", () => {
  it("for any JSON value with whole code points and safe numbers, the same text", () => {
    // The invariant: the gate's own writer (no toJSON, one read per property) changes nothing for plain data.
    const plain = fc
      .jsonValue({ maxDepth: 6, stringUnit: "binary" })
      .filter((value) => !/\\ud[89a-f]|e\+|\d{16,}/i.test(JSON.stringify(value)));
    fc.assert(
      fc.property(plain, (value) => {
        expect(parsedValueJson(value, 100, 1 << 30)).toEqual({ ok: true, text: JSON.stringify(value) });
      }),
      { numRuns: 2000 },
    );
  });
});
