/**
 * generated/ is the golden output of schemas/: regenerating into a temporary folder must give the same bytes, and
 * the generated code must run where it will run: plain Node ESM without code generation from strings, and vitest.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";

const quiet = { out: () => {}, err: (line: string) => console.error(line) };

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

describe("generated/ is the golden output of schemas/", () => {
  let fresh: string;
  beforeAll(async () => {
    fresh = await mkdtemp(path.join(tmpdir(), "toolgate-golden-"));
    expect(await main(["generate", "--schemas", "schemas", "--out", fresh], quiet)).toBe(0);
  });

  it("regenerates byte for byte", async () => {
    const committed = await files("generated");
    expect(await files(fresh)).toEqual(committed);
    for (const file of committed) {
      expect(await readFile(path.join(fresh, file), "utf8"), file).toBe(
        await readFile(path.join("generated", file), "utf8"),
      );
    }
  });

  it("has validators that never require, never compile at run time, and never load the gate", async () => {
    const validators = (await files("generated")).filter((f) => /(^|\/)(validate|validators)\.js$/.test(f));
    expect(validators).toContain("validators.js");
    expect(validators.length).toBeGreaterThanOrEqual(6);
    for (const file of validators) {
      const code = await readFile(path.join("generated", file), "utf8");
      expect(code, file).not.toMatch(/\brequire\s*\(/);
      expect(code, file).not.toMatch(/new Function|\beval\s*\(/);
      // Only the light entries and the catalog's module: the whole of @toolgate/runtime would weigh on every start.
      const imported = [...code.matchAll(/^(?:import|export) .* from "([^"]+)";$/gm)].map((m) => m[1]);
      for (const module of imported) {
        expect(["@toolgate/runtime/validators", "@toolgate/runtime/formats", "../validators.js"], file).toContain(
          module,
        );
      }
    }
  });

  it("keeps every result validator in the catalog's validators.js, re-exported by each tool's validate.js", async () => {
    const catalog = await readFile(path.join("generated", "validators.js"), "utf8");
    for (const file of (await files("generated")).filter((f) => f.endsWith("/validate.js"))) {
      const code = await readFile(path.join("generated", file), "utf8");
      const reexport = /^export \{ (\w+) as validateResult \} from "\.\.\/validators\.js";$/m.exec(code);
      expect(reexport, file).not.toBeNull();
      expect(catalog).toContain(`export const ${reexport?.[1]} = (() => {`);
      expect(code, file).not.toMatch(/export const validateResult/);
    }
  });
});

describe("generated validators run under plain Node ESM and under vitest alike", () => {
  it("agree on the sample payloads, with code generation from strings forbidden", async () => {
    const validators = (await files("generated")).filter((f) => f.endsWith("/validate.js"));
    const cases: Array<{ module: string; payload: string }> = [];
    for (const file of validators) {
      const tool = file.split("/")[0] as string;
      const payloads = path.join("test", "fixtures", "payloads", tool);
      for (const name of (await readdir(payloads).catch(() => [])).filter((n) => n.endsWith(".json")).sort()) {
        cases.push({ module: path.resolve("generated", file), payload: path.resolve(payloads, name) });
      }
    }
    expect(cases.length).toBeGreaterThanOrEqual(10);
    const script = `
      import { readFileSync } from "node:fs";
      import { pathToFileURL } from "node:url";
      const cases = JSON.parse(process.argv[1]);
      const verdicts = [];
      for (const c of cases) {
        const { validateResult } = await import(pathToFileURL(c.module).href);
        verdicts.push(validateResult(JSON.parse(readFileSync(c.payload, "utf8"))));
      }
      process.stdout.write(JSON.stringify(verdicts));
    `;
    const output = execFileSync(
      process.execPath,
      ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script, JSON.stringify(cases)],
      { encoding: "utf8" },
    );
    const inNode = JSON.parse(output) as boolean[];
    const inVitest: boolean[] = [];
    for (const c of cases) {
      const { validateResult } = await import(pathToFileURL(c.module).href);
      inVitest.push(validateResult(JSON.parse(await readFile(c.payload, "utf8"))));
    }
    expect(inNode).toEqual(inVitest);
    // The samples are named for what they are: only invalid ones fail validation.
    cases.forEach((c, i) => {
      expect(inNode[i], path.basename(c.payload)).toBe(!path.basename(c.payload).startsWith("invalid"));
    });
  });
});
