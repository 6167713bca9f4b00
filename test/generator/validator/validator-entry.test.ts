/**
 * Generated validators load only what they call: the light run-time entries `@toolgate/runtime/validators` and
 * `@toolgate/runtime/formats`, never the gate behind `@toolgate/runtime`. A cold start loads every tool's validators,
 * so whatever the entries pull in is paid once per validator set, before the first result is checked.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as runtimeIndex from "../../../runtime/index.js";
import { codePointLength, jsonEqual } from "../../../runtime/validators.js";
import { ensureRuntimeBuilt } from "./load.js";

/** The source files a bundle of `entry` contains, relative to the repository root, `/`-separated. */
async function bundledInputs(entry: string): Promise<string[]> {
  const built = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(built.metafile.inputs).sort();
}

describe("the run-time entries of generated validators", () => {
  it("bundle the validators and the light entries, and nothing else of the runtime or of node_modules", async () => {
    await ensureRuntimeBuilt();
    const validators = (await readdir("generated", { recursive: true }))
      .map((file) => file.split(path.sep).join("/"))
      .filter((file) => file.endsWith("/validate.js") || file === "validators.js")
      .sort();
    expect(validators.length).toBeGreaterThanOrEqual(6);
    for (const file of validators) {
      const inputs = await bundledInputs(path.join("generated", file));
      const runtime = inputs.filter((input) => input.startsWith("runtime/dist/"));
      expect(runtime.length, file).toBeGreaterThan(0);
      for (const input of runtime)
        expect(["runtime/dist/validators.js", "runtime/dist/formats.js"], file).toContain(input);
      // Not even ajv-formats: its CommonJS module would pull Node's CommonJS loader into an ESM start.
      expect(
        inputs.filter((i) => i.startsWith("node_modules/")),
        file,
      ).toEqual([]);
    }
  });

  it("@toolgate/runtime/validators and @toolgate/runtime/formats import no module at all", async () => {
    await ensureRuntimeBuilt();
    expect(await bundledInputs("runtime/dist/validators.js")).toEqual(["runtime/dist/validators.js"]);
    expect(await bundledInputs("runtime/dist/formats.js")).toEqual(["runtime/dist/formats.js"]);
  });

  it("serve each tool's validate.js and the catalog with one function per result validator", async () => {
    const catalog = (await import("../../../generated/validators.js")) as Record<string, unknown>;
    const index = await import("../../../generated/index.js");
    const tool = await import("../../../generated/get_record/validate.js");
    expect(tool.validateResult).toBe(catalog.getRecordValidator);
    expect(index.outputValidators).toBe(catalog.outputValidators);
    expect(Object.values(catalog.outputValidators as object)).toContain(tool.validateResult);
    expect(Object.isFrozen(catalog.outputValidators)).toBe(true);
  });

  it("are the functions @toolgate/runtime exports under the same names", () => {
    expect(runtimeIndex.jsonEqual).toBe(jsonEqual);
    expect(typeof runtimeIndex.formatValidators["date-time"]).toBe("object");
  });

  it("count code points as JSON Schema does: a surrogate pair is one, a lone surrogate one", () => {
    // Lone surrogates included: a string in a parsed result may hold one (JSON allows "\ud800").
    const units = fc.oneof(
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: "binary" }),
      fc
        .array(fc.integer({ min: 0xd7f0, max: 0xe010 }), { maxLength: 12 })
        .map((codes) => String.fromCharCode(...codes)),
    );
    fc.assert(
      fc.property(units, (text) => {
        expect(codePointLength(text)).toBe([...text].length);
      }),
      { numRuns: 2000 },
    );
  });
});
