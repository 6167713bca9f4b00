/**
 * `@toolgate/runtime/ai-sdk` is cheap to add to an app: bundled and minified with esbuild, an app that gates its AI
 * SDK tools with `gateTools` is under 10 KB larger than the same app using the runtime and its generated catalog
 * directly. The AI SDK (and every other framework) is external: the adapter never imports it.
 */
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRuntimeBuilt, generateCatalog, scratchFolder } from "../mcp/fixture-catalog.js";
import { contractFile, TOOL } from "./fixture.js";

/** App A: looks a tool up in the generated catalog, admits an in-process value, renders it for the model. */
const APP_A = `
import { lookupTool, parsedResult, toModelContent } from "@toolgate/runtime";
import { catalog } from "./generated/index.js";

export async function answer(name, value) {
  const adapter = lookupTool(catalog, name);
  return adapter === undefined ? undefined : toModelContent(await adapter.admit(parsedResult(value)));
}
`;

/** App B: A, and its AI SDK tools gated. */
const APP_B = `${APP_A}
import { gateTools } from "@toolgate/runtime/ai-sdk";

export const tools = (aiTools) => gateTools(aiTools, catalog);
`;

const EXTERNAL = [
  "ai",
  "ai/*",
  "@ai-sdk/*",
  "@modelcontextprotocol/*",
  "@openai/agents",
  "@langchain/*",
  "@anthropic-ai/*",
  "@mastra/*",
  "gpt-tokenizer/*",
  "@opentelemetry/*",
  "redis",
  "node:*",
];

/** The minified bundle of `source` (an app in `dir`), and the paths it took in. */
async function bundle(dir: string, name: string, source: string): Promise<{ bytes: number; inputs: string[] }> {
  const entry = path.join(dir, `${name}.ts`);
  await writeFile(entry, source);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    external: EXTERNAL,
    logLevel: "silent",
  });
  const bytes = result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
  return { bytes, inputs: Object.keys(result.metafile.inputs) };
}

let a: { bytes: number; inputs: string[] };
let b: { bytes: number; inputs: string[] };

beforeAll(async () => {
  await ensureRuntimeBuilt();
  const dir = await scratchFolder("ai-sdk-bundle");
  await generateCatalog(path.dirname(contractFile), path.join(dir, "generated"));
  a = await bundle(dir, "app-a", APP_A);
  b = await bundle(dir, "app-b", APP_B);
  return () => rm(dir, { recursive: true, force: true });
});

describe("the AI SDK adapter's cost in an app's bundle", () => {
  it("adds under 10 KB minified beyond the runtime the app already uses", () => {
    const added = b.bytes - a.bytes;
    console.log(`${TOOL} app: ${a.bytes} bytes; with gateTools: ${b.bytes} bytes (+${added})`);
    expect(a.inputs.some((input) => input.endsWith("runtime/dist/index.js"))).toBe(true);
    expect(b.inputs.some((input) => input.endsWith("runtime/dist/ai-sdk.js"))).toBe(true);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(10_240);
  });

  it("takes in no framework package", () => {
    expect(b.inputs.filter((input) => input.includes("node_modules/") && !input.includes("@toolgate"))).toEqual([]);
  });
});
