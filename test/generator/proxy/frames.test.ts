/**
 * The proxy's reader of the server's output: lines within the ceiling come out whole, however the bytes are
 * chunked; a line past it comes out as its size and the id it answers, and is never held whole.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Frame, LineFramer } from "../../../generator/proxy/frames.js";

const encode = (text: string) => new TextEncoder().encode(text);

/** Feeds `bytes` to a framer in chunks cut at `cuts`, and every frame it gives. */
function frames(framer: LineFramer, bytes: Uint8Array, cuts: number[] = []): Frame[] {
  const out: Frame[] = [];
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
    out.push(...framer.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(...framer.push(bytes.subarray(from)));
  return out;
}

describe("LineFramer", () => {
  it("gives every line within the ceiling whole, for any chunking", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme", maxLength: 30 }).map((s) => s.replace(/[\n\r]/g, " ")),
          {
            maxLength: 6,
          },
        ),
        fc.array(fc.nat({ max: 200 }), { maxLength: 8 }),
        (lines, cuts) => {
          const bytes = encode(lines.map((line) => `${line}\n`).join(""));
          const got = frames(new LineFramer(1000), bytes, cuts);
          expect(got).toEqual(lines.map((text) => ({ kind: "message", text })));
        },
      ),
    );
  });

  it("drops a trailing carriage return", () => {
    expect(frames(new LineFramer(100), encode('{"a":1}\r\n'))).toEqual([{ kind: "message", text: '{"a":1}' }]);
  });

  it("cuts a line past the ceiling to its size and the id that closes it, then goes on", () => {
    const framer = new LineFramer(64);
    const big = `{"result":{"content":[{"type":"text","text":"${"x".repeat(5000)}"}]},"jsonrpc":"2.0","id":7}`;
    const bytes = encode(`${big}\n{"jsonrpc":"2.0","id":8,"result":{}}\n`);
    const got = frames(framer, bytes, [10, 63, 64, 65, 2000, 4999]);
    expect(got).toEqual([
      { kind: "oversize", bytes: big.length, id: 7 },
      { kind: "message", text: '{"jsonrpc":"2.0","id":8,"result":{}}' },
    ]);
  });

  it("finds the id at the head when the tail has none, and a string id", () => {
    const big = `{"jsonrpc":"2.0","id":"call-9","result":{"text":"${"y".repeat(3000)}"}}`;
    expect(frames(new LineFramer(100), encode(`${big}\n`))).toEqual([
      { kind: "oversize", bytes: big.length, id: "call-9" },
    ]);
    const noId = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${"z".repeat(3000)}"}}`;
    expect(frames(new LineFramer(100), encode(`${noId}\n`))).toEqual([
      { kind: "oversize", bytes: noId.length, id: undefined },
    ]);
  });

  it("takes the last id, as JSON.parse does with a duplicate key", () => {
    const big = `{"jsonrpc":"2.0","id":1,"result":{"text":"${"w".repeat(3000)}"},"id":2}`;
    expect(frames(new LineFramer(100), encode(`${big}\n`))).toEqual([{ kind: "oversize", bytes: big.length, id: 2 }]);
  });

  it("never holds more than the ceiling of an unfinished line", () => {
    const framer = new LineFramer(1024);
    for (let i = 0; i < 200; i++) {
      framer.push(encode("a".repeat(10_000)));
      expect(framer.pending).toBeLessThanOrEqual(1024);
    }
    expect(framer.push(encode('","id":3}\n'))).toEqual([{ kind: "oversize", bytes: 2_000_009, id: 3 }]);
  });
});
