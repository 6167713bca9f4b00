/**
 * What `toolgate generate --check` prints: the stale, missing and extra files and the verdict, nothing else (a
 * contract's warnings were already shown by generate); `--verbose` adds each tool and its warnings back.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../generator/cli/main.js";

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
