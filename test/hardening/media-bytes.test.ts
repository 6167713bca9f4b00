/**
 * A media block is admitted only when its bytes are of the type it declares: its first bytes are the type's file
 * signature. An SVG, an HTML page or a program declared `image/png` is refused, in a content block (a typed
 * `schema_mismatch`, reason `media_mismatch`, naming the block) and in media lifted out of a structured result (left
 * out of the view and reported as an `omitted` omission, never described as the type it claimed). Beside each
 * refusal, real PNG, JPEG, WAV and MP3 data still reach the model as media parts.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolAdapter } from "../../runtime/gate/context.js";
import {
  type ContentPart,
  defineTool,
  type Outcome,
  type TextView,
  type ToolSpec,
  toModelContent,
  toModelParts,
} from "../../runtime/index.js";
import { ensureRuntimeBuilt, generateCatalog, scratchFolder } from "../mcp/fixture-catalog.js";
import { admitCollecting, expectNoLeak, textSpec } from "../runtime/fixture.js";

const b64 = (bytes: Buffer | string) =>
  (typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes).toString("base64");

/** A 1×1 PNG (the MCP specification's `ImageContent` example). */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** The start of a JFIF JPEG: SOI, APP0 `JFIF`, then a few bytes of a segment. */
const JPEG = b64(
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0xff, 0xd9]),
);
/** A WAV file: RIFF header, `fmt ` chunk, and a short `data` chunk. */
const WAV = b64(
  `RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x08\x00\x00\x00${"\x00".repeat(8)}`,
);
/** An MP3 file beginning with its ID3v2 tag. */
const MP3 = b64(`ID3\x04\x00\x00\x00\x00\x00\x00${"\x00".repeat(6)}`);

const MARKER = "HOSTILEm3d1a";
/** An SVG that runs script when opened, an HTML page, an ELF and a PE (Windows) executable's first bytes. */
const SVG = b64(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert('${MARKER}')"><rect/></svg>`);
const HTML = b64(`<!doctype html><html><body><script>fetch('//x/${MARKER}')</script></body></html>`);
const ELF = b64(`\x7fELF\x02\x01\x01\x00${"\x00".repeat(8)}${MARKER}`);
const PE = b64(`MZ\x90\x00\x03\x00\x00\x00${MARKER}`);

const CONTENT = {
  kind: "content" as const,
  content: {
    maxBlocks: 4,
    image: { mimeTypes: ["image/png", "image/jpeg", "image/*"], maxBytes: 4096, maxCount: 2 },
    audio: { mimeTypes: ["audio/wav", "audio/mpeg"], maxBytes: 4096, maxCount: 2 },
  },
};

/** A screenshot-like tool: only the blocks matter. `mimeTypes` replaces the image list. */
function contentTool(mimeTypes?: readonly string[]) {
  const result =
    mimeTypes === undefined
      ? CONTENT
      : { ...CONTENT, content: { ...CONTENT.content, image: { ...CONTENT.content.image, mimeTypes } } };
  return defineTool<ContentPart[], TextView, unknown>({
    ...(textSpec() as unknown as ToolSpec<ContentPart[], TextView>),
    name: "screenshot",
    result,
  });
}

/** The outcome's code, and its `detail.reason` and `detail.block` when it failed. */
function verdict(outcome: Outcome<unknown, unknown>): unknown[] {
  if (outcome.ok) return ["ok"];
  const detail = outcome.diagnostics.detail ?? {};
  return [outcome.error.code, detail.reason, detail.block].filter((part) => part !== undefined);
}

describe("content blocks: the bytes are the declared type", () => {
  it("admits real PNG, JPEG, WAV and MP3 blocks as media parts (positive control)", async () => {
    const content = [
      { type: "image", mimeType: "image/png", data: PNG },
      { type: "image", mimeType: "image/jpeg", data: JPEG },
      { type: "audio", mimeType: "audio/wav", data: WAV },
      { type: "audio", mimeType: "audio/mpeg", data: MP3 },
    ];
    const outcome = await contentTool().admit({ content });
    expect(verdict(outcome)).toEqual(["ok"]);
    const parts = toModelParts(outcome).slice(1);
    expect(parts).toEqual(content.map(({ type, mimeType, data }) => ({ type, data, mimeType })));
    expect(toModelContent(outcome)).toContain('<media type="image/png" bytes="70"/>');
  });

  it.each([
    ["an SVG declared image/png", "image", "image/png", SVG],
    ["an HTML page declared image/png", "image", "image/png", HTML],
    ["an ELF executable declared image/png", "image", "image/png", ELF],
    ["a PE executable declared image/jpeg", "image", "image/jpeg", PE],
    ["an HTML page declared audio/wav", "audio", "audio/wav", HTML],
    ["an ELF executable declared audio/mpeg", "audio", "audio/mpeg", ELF],
    ["a PNG declared image/jpeg", "image", "image/jpeg", PNG],
    ["an SVG declared image/svg+xml, admitted only through image/*", "image", "image/svg+xml", SVG],
    ["an HTML page declared image/gif under image/*", "image", "image/gif", HTML],
  ])("refuses %s as media_mismatch, naming the block", async (_, type, mimeType, data) => {
    const content = [
      { type: "image", mimeType: "image/png", data: PNG },
      { type, mimeType, data },
    ];
    const { outcome, events } = await admitCollecting(contentTool(), { content });
    expect(verdict(outcome)).toEqual(["schema_mismatch", "media_mismatch", 1]);
    expectNoLeak(outcome, events, MARKER);
    expect(toModelParts(outcome)).toEqual([{ type: "text", text: toModelContent(outcome) }]);
  });

  it("admits a type it has no signature for only when the contract names it exactly", async () => {
    const svg = { content: [{ type: "image", mimeType: "image/svg+xml", data: SVG }] };
    expect(verdict(await contentTool(["image/*"]).admit(svg))).toEqual(["schema_mismatch", "media_mismatch", 0]);
    expect(verdict(await contentTool(["image/png", "image/svg+xml"]).admit(svg))).toEqual(["ok"]);
  });
});

describe("media lifted out of a structured result", () => {
  let scratch = "";
  let media: ToolAdapter<unknown, unknown, unknown>;
  beforeAll(async () => {
    await ensureRuntimeBuilt();
    scratch = await scratchFolder("media-bytes");
    const contracts = path.join(scratch, "schemas");
    await mkdir(contracts, { recursive: true });
    const contract = {
      name: "get_asset",
      inputSchema: { type: "object" },
      outputSchema: {
        type: "object",
        properties: {
          name: { type: "string", maxLength: 64 },
          thumbnail: {
            type: "object",
            properties: { type: { const: "image" }, data: { type: "string" }, mimeType: { type: "string" } },
            required: ["type", "data", "mimeType"],
          },
          sound: { type: "string", contentEncoding: "base64", contentMediaType: "audio/wav" },
        },
        required: ["name"],
        additionalProperties: false,
      },
      "x-toolgate": {
        version: "1",
        receive: { maxBytes: 1_048_576 },
        result: {
          kind: "structured",
          content: {
            maxBlocks: 4,
            image: { mimeTypes: ["image/png", "image/jpeg"], maxBytes: 4096, maxCount: 1 },
            audio: { mimeTypes: ["audio/wav"], maxBytes: 4096, maxCount: 1 },
          },
        },
      },
    };
    await writeFile(path.join(contracts, "get_asset.tool.json"), JSON.stringify(contract));
    const { index } = await generateCatalog(contracts, path.join(scratch, "generated"));
    media = (index.catalog as Record<string, { adapter: typeof media }>).get_asset?.adapter as typeof media;
  }, 120_000);
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it("hands on a real PNG and WAV as media parts, with the rest of the result whole (positive control)", async () => {
    const value = { name: "logo", thumbnail: { type: "image", data: PNG, mimeType: "image/png" }, sound: WAV };
    const outcome = await media.admit({ content: [], structuredContent: value });
    expect(verdict(outcome)).toEqual(["ok"]);
    expect(outcome.ok && outcome.view).toMatchObject({
      name: "logo",
      thumbnail: { type: "image", mimeType: "image/png", bytes: 70 },
      sound: { type: "audio", mimeType: "audio/wav" },
    });
    expect(toModelParts(outcome).slice(1)).toEqual([
      { type: "audio", data: WAV, mimeType: "audio/wav" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]);
  });

  it.each([
    ["an SVG", SVG],
    ["an HTML page", HTML],
    ["an ELF executable", ELF],
  ])("leaves out %s declared image/png or audio/wav: not described, not handed on", async (_, data) => {
    const value = { name: "logo", thumbnail: { type: "image", data, mimeType: "image/png" }, sound: data };
    const outcome = await media.admit({ content: [], structuredContent: value });
    if (!outcome.ok) throw new Error(outcome.error.code);
    expect(outcome.view).toEqual({ name: "logo" });
    expect(toModelParts(outcome)).toHaveLength(1);
    const omitted = outcome.omissions.filter((omission) => omission.kind === "omitted").map((o) => o.path);
    expect(omitted.sort()).toEqual(["/sound", "/thumbnail"]);
    expect(JSON.stringify(outcome.parts ?? [])).not.toContain(data.slice(0, 16));
    expect(toModelContent(outcome)).not.toContain(MARKER);
  });
});
