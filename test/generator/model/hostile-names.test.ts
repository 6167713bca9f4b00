/**
 * Tool names and descriptions are hostile input. Whatever they hold, the generated catalog must compile under
 * strict, keep every name exactly, give each tool its own identifiers and folder, and gate results as usual.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { writeOutput } from "../../../generator/emit/write.js";
import { generate } from "../../../generator/pipeline.js";

const WORK = path.resolve(".tmp", "hostile-names");

const hostile: Array<[string, { name: string; description: string }]> = [
  ["plain", { name: "get_record", description: "Look up one record." }],
  ["equal after case conversion (kebab)", { name: "get-record", description: "Same words, other separator." }],
  ["equal after case conversion (Pascal)", { name: "GetRecord", description: "Same words, other case." }],
  ["__proto__", { name: "__proto__", description: "Would set a prototype if written bare." }],
  ["constructor", { name: "constructor", description: "An Object.prototype member." }],
  ["toString", { name: "toString", description: "Another Object.prototype member." }],
  ["reserved word", { name: "delete", description: "A reserved word." }],
  ["another reserved word", { name: "class", description: "Another reserved word." }],
  ["quotes and backslashes", { name: 'say"hi\\', description: "He said \"stop\" \\ and 'left'." }],
  ["comment terminator", { name: "end*/here", description: "*/ process.exit(1); /*" }],
  ["template placeholder", { name: "tpl$" + "{x}", description: "$" + "{process.exit(1)} and `backticks`" }],
  ["line separators", { name: "line\u2028sep", description: "one\u2028two\u2029three\nfour" }],
  ["NUL", { name: "nul\u0000byte", description: "a\u0000b" }],
  ["non-ASCII", { name: "café_東京", description: "Ünïcödé — 東京 — 🧪" }],
  ["only non-ASCII", { name: "東京", description: "No ASCII letters at all." }],
  ["path traversal", { name: "../../etc/passwd", description: "A folder name must stay inside generated/." }],
  ["the catalog's own export", { name: "output_validators", description: "Named like the catalog's validator map." }],
  ["the catalog's validator module", { name: "validators", description: "Named like generated/validators.js." }],
];

function contract(name: string, description: string) {
  return {
    name,
    description,
    inputSchema: { type: "object", properties: { id: { type: "string", maxLength: 8 } }, additionalProperties: false },
    outputSchema: {
      type: "object",
      description,
      properties: { id: { type: "string", maxLength: 8, description } },
      required: ["id"],
      additionalProperties: false,
    },
  };
}

describe("hostile tool names and descriptions", () => {
  let catalog: Record<
    string,
    { adapter: { name: string; admit: (raw: unknown) => Promise<{ ok: boolean; provenance: { tool: string } }> } }
  >;

  beforeAll(async () => {
    await rm(WORK, { recursive: true, force: true });
    const schemas = path.join(WORK, "schemas");
    await mkdir(schemas, { recursive: true });
    for (const [i, [, { name, description }]] of hostile.entries()) {
      await writeFile(path.join(schemas, `tool${i}.tool.json`), JSON.stringify(contract(name, description)));
    }
    const result = await generate({ schemas });
    if (!result.ok) throw new Error(result.errors.map(String).join("\n"));
    await writeOutput(path.join(WORK, "generated"), result.files);
    catalog = (await import(pathToFileURL(path.join(WORK, "generated", "index.ts")).href)).catalog;
  });

  it("generates one folder per tool, all inside the output folder", async () => {
    const folders = (await readdir(path.join(WORK, "generated"), { withFileTypes: true })).filter((e) =>
      e.isDirectory(),
    );
    expect(folders).toHaveLength(hostile.length);
    expect(folders.map((f) => f.name).every((name) => /^[a-z0-9_]+$/.test(name))).toBe(true);
  });

  it("type-checks under strict", async () => {
    const config = path.join(WORK, "tsconfig.json");
    await writeFile(config, JSON.stringify({ extends: "../../tsconfig.json", include: ["generated/**/*.ts"] }));
    let output = "";
    try {
      execFileSync(process.execPath, [path.resolve("node_modules/typescript/bin/tsc"), "-p", config], {
        encoding: "utf8",
      });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe("");
  });

  it("keeps every name exactly as an own key of the catalog", () => {
    expect(Object.keys(catalog).sort()).toEqual(hostile.map(([, t]) => t.name).sort());
    expect(Object.getPrototypeOf(catalog)).toBe(Object.prototype);
    expect(Object.hasOwn(catalog, "__proto__")).toBe(true);
  });

  it.each(hostile)("%s: the adapter gates results under its own name", async (_label, { name }) => {
    const entry = catalog[name];
    expect(entry?.adapter.name).toBe(name);
    const ok = await entry?.adapter.admit(JSON.stringify({ id: "a1" }));
    expect(ok?.ok).toBe(true);
    expect(ok?.provenance.tool).toBe(name);
    const bad = await entry?.adapter.admit(JSON.stringify({ id: "too long for eight" }));
    expect(bad?.ok).toBe(false);
  });
});
