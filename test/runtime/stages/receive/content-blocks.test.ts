/**
 * A result's content blocks are read as the contract expects them. Invariants: a block of a kind the contract does
 * not name, one too many, a media type off the list, media over its bound or not strict base64, and text with a lone
 * surrogate are each refused with the block's index; what is admitted is a copy (a getter is read once) whose media
 * sizes are the decoded sizes; a URI is kept as data.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  base64Bytes,
  type ContentRules,
  firstLoneSurrogate,
  mediaTypeAllowed,
  readContentBlocks,
} from "../../../../runtime/stages/receive/content-blocks.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");

const rules: ContentRules = {
  maxBlocks: 4,
  text: { maxCount: 2 },
  image: { mimeTypes: ["image/png", "image/jpeg"], maxBytes: 64, maxCount: 1 },
  resourceLink: { maxCount: 1 },
};

describe("readContentBlocks", () => {
  it("admits text plus an image as parts, with the image's decoded size", () => {
    const read = readContentBlocks(
      [
        { type: "text", text: "a chart" },
        { type: "image", mimeType: "Image/PNG; charset=binary", data: PNG },
      ],
      rules,
    );
    expect(read).toEqual({
      ok: true,
      parts: [
        { type: "text", text: "a chart" },
        { type: "image", mimeType: "image/png", data: PNG, bytes: 16 },
      ],
    });
  });

  it.each([
    ["a kind the contract does not name", [{ type: "audio", mimeType: "audio/wav", data: "" }], "unexpected_block", 0],
    ["a media type off the list", [{ type: "image", mimeType: "image/svg+xml", data: PNG }], "media_type", 0],
    [
      "an image over its bound",
      [{ type: "image", mimeType: "image/png", data: "A".repeat(400) }],
      "block_too_large",
      0,
    ],
    [
      "media that is not strict base64",
      [{ type: "image", mimeType: "image/png", data: "AAA A===" }],
      "invalid_base64",
      0,
    ],
    ["padding in the middle", [{ type: "image", mimeType: "image/png", data: "AA==AAAA" }], "invalid_base64", 0],
    [
      "one image too many",
      [
        { type: "image", mimeType: "image/png", data: PNG },
        { type: "image", mimeType: "image/png", data: PNG },
      ],
      "too_many_blocks",
      1,
    ],
    [
      "more blocks than allowed in all",
      Array.from({ length: 5 }, () => ({ type: "text", text: "x" })),
      "too_many_blocks",
      4,
    ],
    [
      "a lone surrogate in text",
      [
        { type: "text", text: "ok" },
        { type: "text", text: "\ud800" },
      ],
      "lone_surrogate",
      1,
    ],
    ["a text block without text", [{ type: "text" }], "malformed_block", 0],
    ["not a block", [null], "malformed_block", 0],
    ["a link without a name", [{ type: "resource_link", uri: "file:///a" }], "malformed_block", 0],
  ])("refuses %s", (_label, content, problem, index) => {
    expect(readContentBlocks(content, rules)).toEqual({ ok: false, problem, index });
  });

  it("keeps a javascript: link as data, never followed", () => {
    const read = readContentBlocks([{ type: "resource_link", uri: "javascript:alert(1)", name: "x" }], rules);
    expect(read).toEqual({
      ok: true,
      parts: [
        {
          type: "resource_link",
          uri: "javascript:alert(1)",
          name: "x",
          mimeType: undefined,
          title: undefined,
          description: undefined,
        },
      ],
    });
  });

  it("reads every property of a block once, and keeps a copy", () => {
    let reads = 0;
    const block = {
      type: "text",
      get text() {
        reads++;
        return reads === 1 ? "first" : "second";
      },
    };
    const read = readContentBlocks([block], rules);
    expect(read).toEqual({ ok: true, parts: [{ type: "text", text: "first" }] });
    expect(reads).toBe(1);
  });

  it("bounds embedded resources by their text or decoded blob", () => {
    const withResources: ContentRules = { maxBlocks: 2, resource: { maxCount: 2, maxBytes: 8 } };
    expect(
      readContentBlocks([{ type: "resource", resource: { uri: "mem://a", text: "12345678" } }], withResources).ok,
    ).toBe(true);
    expect(
      readContentBlocks([{ type: "resource", resource: { uri: "mem://a", text: "123456789" } }], withResources),
    ).toEqual({ ok: false, problem: "block_too_large", index: 0 });
    expect(
      readContentBlocks([{ type: "resource", resource: { uri: "mem://a", blob: "AAAAAAAAAAAA" } }], withResources),
    ).toEqual({ ok: false, problem: "block_too_large", index: 0 });
    expect(
      readContentBlocks([{ type: "resource", resource: { uri: "mem://a", text: "a", blob: "AAAA" } }], withResources),
    ).toEqual({ ok: false, problem: "malformed_block", index: 0 });
  });
});

describe("readContentBlocks with text blocks left unchecked", () => {
  const block = fc.constantFrom<unknown>(
    { type: "text", text: "plain" },
    { type: "text", text: "half \ud800 a pair" },
    { type: "text", text: "\udc00" },
    { type: "text", text: "a whole 😀 pair" },
    { type: "image", mimeType: "image/png", data: PNG },
    { type: "image", mimeType: "image/gif", data: PNG },
    { type: "audio", mimeType: "audio/wav", data: "" },
    { type: "resource_link", uri: "file:///a", name: "a" },
    { type: "text" },
  );

  it("finds the same first problem, at the same block, once the unchecked texts are checked", () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), (content) => {
        const scanned = readContentBlocks(content, rules);
        const deferred = readContentBlocks(content, rules, true);
        if (!deferred.ok) {
          expect(deferred).toEqual(scanned);
          return;
        }
        const texts = deferred.parts.filter((part) => part.type === "text");
        expect(deferred.unchecked?.length).toBe(texts.length);
        const surrogate = firstLoneSurrogate(deferred.parts, deferred.unchecked ?? []);
        expect(surrogate ?? { ok: true, parts: deferred.parts }).toEqual(scanned);
      }),
      { numRuns: 1000 },
    );
  });

  it("scans only the texts nobody vouches for", () => {
    const content = [
      { type: "text", text: "\ud800 vouched for, wrongly, to show it is not scanned" },
      { type: "text", text: "then \udc00 one that is" },
    ];
    const read = readContentBlocks(content, rules, true);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(firstLoneSurrogate(read.parts, read.unchecked ?? [], (_, ordinal) => ordinal === 0)).toEqual({
      ok: false,
      problem: "lone_surrogate",
      index: 1,
    });
    // A positive control: good texts pass whole, in order.
    const good = readContentBlocks(
      [
        { type: "text", text: "a" },
        { type: "text", text: "b 😀" },
      ],
      rules,
      true,
    );
    expect(good.ok && firstLoneSurrogate(good.parts, good.unchecked ?? [])).toBeUndefined();
    expect(good.ok && good.parts).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b 😀" },
    ]);
  });
});

describe("base64Bytes", () => {
  it("is the decoded length of every strict base64 string, and -1 for anything else", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(base64Bytes(Buffer.from(bytes).toString("base64"))).toBe(bytes.length);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const strict = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text);
        expect(base64Bytes(text) >= 0).toBe(strict);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe("mediaTypeAllowed", () => {
  it("matches exact types and top-level wildcards, ignoring case and parameters", () => {
    expect(mediaTypeAllowed("image/png", ["image/*"])).toBe(true);
    expect(mediaTypeAllowed("IMAGE/Png;x=1", ["image/png"])).toBe(true);
    expect(mediaTypeAllowed("image/png", ["audio/*"])).toBe(false);
    expect(mediaTypeAllowed("image/*", ["image/png"])).toBe(false);
    expect(mediaTypeAllowed("image", ["image/*"])).toBe(false);
    expect(mediaTypeAllowed("text/html", ["image/*", "text/plain"])).toBe(false);
  });
});
