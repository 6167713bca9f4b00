/**
 * What `toolgate generate --check` prints: the stale, missing and extra files and the verdict, nothing else (a
 * contract's warnings were already shown by generate); `--verbose` adds each tool and its warnings back.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../generator/cli/main.js";
import { ensureBuilt } from "../../build.js";

async function toolgate(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out, err };
}

/** A contract with two unbounded fields: generate warns about both, and needs the declared ceiling. */
const search = (description: string) => ({
  name: "search",
  description,
  outputSchema: {
    type: "object",
    properties: { hits: { type: "array", items: { type: "string" } } },
    required: ["hits"],
    additionalProperties: false,
  },
  "x-toolgate": { receive: { maxBytes: 65536 } },
});

let dir: string;
let schemas: string;
let out: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "toolgate-check-output-"));
  schemas = path.join(dir, "schemas");
  out = path.join(dir, "generated");
  await mkdir(schemas);
  await writeFile(path.join(schemas, "search.tool.json"), JSON.stringify(search("Search.")));
  const first = await toolgate("generate", "--schemas", schemas, "--out", out);
  expect(first.code).toBe(0);
  // generate itself names the tool and warns about each unbounded field.
  expect(first.out.filter((line) => line.startsWith("  warn "))).toHaveLength(2);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("generate --check", () => {
  it("prints only the stale files and the verdict", async () => {
    await writeFile(path.join(schemas, "search.tool.json"), JSON.stringify(search("Search, reworded.")));
    const check = await toolgate("generate", "--schemas", schemas, "--out", out, "--check");
    expect(check.code).toBe(1);
    expect(check.out).toEqual([]);
    expect(check.err.length).toBeGreaterThan(1);
    const verdict = check.err.at(-1);
    expect(verdict).toBe(`${check.err.length - 1} files out of date: run \`toolgate generate\`.`);
    for (const line of check.err.slice(0, -1)) expect(line).toMatch(/^(stale|missing|extra) {2,}\S/);
    expect(check.err).toContainEqual(expect.stringMatching(/^stale\s+\S*search\/adapter\.ts$/));
  });

  it("with --verbose, also prints each tool and its warnings", async () => {
    const check = await toolgate("generate", "--schemas", schemas, "--out", out, "--check", "--verbose");
    expect(check.code).toBe(1);
    expect(check.out[0]).toMatch(/^search → search\/ {2}ceiling 65536 B \(unbounded schema\)/);
    expect(check.out.filter((line) => line.startsWith("  warn "))).toEqual([
      expect.stringMatching(/search\.tool\.json#\/outputSchema\/properties\/hits: array without maxItems/),
      expect.stringMatching(/search\.tool\.json#\/outputSchema\/properties\/hits\/items: string without maxLength/),
    ]);
    expect(check.err.at(-1)).toMatch(/files out of date/);
  });

  it("prints one line when all is up to date, and still every contract error", async () => {
    expect((await toolgate("generate", "--schemas", schemas, "--out", out)).code).toBe(0);
    const fresh = await toolgate("generate", "--schemas", schemas, "--out", out, "--check");
    expect(fresh).toEqual({ code: 0, out: [expect.stringMatching(/is up to date/)], err: [] });

    await writeFile(path.join(schemas, "search.tool.json"), JSON.stringify({ ...search("x"), "x-toolgate": {} }));
    const broken = await toolgate("generate", "--schemas", schemas, "--out", out, "--check");
    expect(broken.code).toBe(1);
    expect(broken.out).toEqual([]);
    expect(broken.err).toEqual([
      expect.stringMatching(/^error \S*search\.tool\.json#\/x-toolgate\/receive\/maxBytes: the output schema is not/),
      "1 contract error: nothing written.",
    ]);
  });
});

describe("generate --check answered by the lock's record", () => {
  const CLI = path.resolve(import.meta.dirname, "../../../bin/toolgate.js");
  /**
   * Prints, as the process exits, the generator's compilers (Ajv, TypeScript, prettier) whose code was loaded (the
   * lock's record reads their package.json files for their versions, which loads none of their code).
   */
  const PROBE = `data:text/javascript,${encodeURIComponent(
    `import { createRequire } from "node:module";
process.on("exit", () => {
  const loaded = Object.keys(createRequire(process.argv[1]).cache).filter((f) => /node_modules\\/(ajv|ts-morph|@ts-morph|prettier|json-schema-to-typescript)\\/.*\\.[cm]?js$/.test(f));
  process.stderr.write("compilers: " + JSON.stringify([...new Set(loaded.map((f) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(f)[1]))].sort()) + "\\n");
});`,
  )}`;
  const run = promisify(execFile);
  const cli = async (...argv: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, ["--import", PROBE, CLI, ...argv]);
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  };
  const compilers = (stderr: string) => JSON.parse(/compilers: (.*)/.exec(stderr)?.[1] ?? "null") as string[] | null;
  let root: string;
  beforeAll(async () => {
    await ensureBuilt();
    root = await mkdtemp(path.join(tmpdir(), "toolgate-check-record-"));
    await mkdir(path.join(root, "schemas"));
    await writeFile(path.join(root, "schemas", "search.tool.json"), JSON.stringify(search("Search.")));
  }, 180_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("loads none of the compilers when the folder is up to date, and all of them when it is not", async () => {
    const folders = ["--schemas", path.join(root, "schemas"), "--out", path.join(root, "generated")];
    const generated = await cli("generate", ...folders);
    expect(generated.code).toBe(0);
    // The probe sees them: generate itself loads every compiler.
    expect(compilers(generated.stderr)).toEqual(
      expect.arrayContaining(["ajv", "json-schema-to-typescript", "ts-morph"]),
    );

    const fresh = await cli("generate", "--check", ...folders);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toMatch(/is up to date \(as its lock records/);
    expect(compilers(fresh.stderr)).toEqual([]);

    await writeFile(path.join(root, "schemas", "search.tool.json"), JSON.stringify(search("Search, reworded.")));
    const stale = await cli("generate", "--check", ...folders);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/stale\s+\S*search\/adapter\.ts/);
    expect(compilers(stale.stderr)).toEqual(expect.arrayContaining(["ajv", "ts-morph"]));
  }, 180_000);
});
