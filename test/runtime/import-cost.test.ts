/**
 * `@toolgate/runtime` stays cheap to import: the tokenizer, OpenTelemetry and Node's file system are loaded only
 * when a contract or a sink needs them, and the runtime never pulls in build-time code.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe("runtime imports", () => {
  it("loads gpt-tokenizer and node modules only through dynamic import, and no build-time code", async () => {
    const result = await build({
      entryPoints: ["runtime/index.ts"],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      external: ["gpt-tokenizer/*", "@opentelemetry/*", "node:*"],
      logLevel: "silent",
    });
    const inputs = Object.entries(result.metafile.inputs);
    // Build-time code (the generator, the templates) never reaches the runtime.
    expect(inputs.map(([path]) => path).filter((path) => /^(generator|templates)\//.test(path))).toEqual([]);
    const imports = inputs.flatMap(([from, input]) => input.imports.map((entry) => ({ from, ...entry })));
    const external = imports.filter((entry) => entry.external);
    expect(external.length).toBeGreaterThan(0);
    for (const entry of external) expect([entry.path, entry.kind]).toEqual([entry.path, "dynamic-import"]);
    expect(external.map((entry) => entry.path)).toContain("gpt-tokenizer/encoding/o200k_base");
    expect(imports.some((entry) => entry.path.includes("@opentelemetry"))).toBe(false);
  });
});
