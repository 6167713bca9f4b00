/**
 * Every unbounded field in one pass: what import (and generate) lists is everything there is to bound. Fixing each
 * listed field once leaves a fully bounded schema, for hand-written shapes and for the tools of real MCP servers.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBounds, type Finding } from "../../../generator/checks/index.js";
import { importTools } from "../../../generator/mcp/import.js";
import { listServerTools } from "../../../generator/mcp/server-tools.js";
import { generate } from "../../../generator/pipeline.js";
import { pointerTokens } from "../../../generator/schema/pointer.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const resolve = createRequire(import.meta.url).resolve;
let scratch: string;

beforeAll(async () => {
  await mkdir(path.join(repo, ".tmp"), { recursive: true });
  scratch = await mkdtemp(path.join(repo, ".tmp", "mcp-unbounded-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

type Schema = Record<string, unknown>;

/** The fix a finding asks for, made at its pointer: what a user does with the report. */
function fix(schema: Schema, findings: readonly Finding[]): Schema {
  const copy = structuredClone(schema);
  // Deepest first: closing an object replaces the schema its unknown keys had, which a deeper fix may be inside.
  const deepestFirst = [...findings].sort((a, b) => b.pointer.length - a.pointer.length);
  for (const finding of deepestFirst) {
    let node: unknown = copy;
    for (const token of pointerTokens(finding.pointer) ?? []) node = (node as Record<string, unknown>)[token];
    const at = node as Schema;
    if (finding.kind === "string-without-maxLength") at.maxLength = 100;
    else if (finding.kind === "array-without-maxItems") at.maxItems = 10;
    else if (finding.kind === "object-open") at.additionalProperties = false;
    else throw new Error(`no fix written for ${finding.kind} at ${finding.pointer}`);
  }
  return copy;
}

const pointers = (schema: Schema) => checkBounds(schema).findings.map((f) => `${f.pointer} ${f.kind}`);

const string = { type: "string" };
const records = {
  type: "object",
  properties: {
    items: {
      type: "array",
      items: {
        type: "object",
        properties: { title: string, tags: { type: "array", items: string } },
        required: ["title"],
        additionalProperties: false,
      },
    },
    meta: { type: "object", properties: { source: string } },
    extra: { type: "object", additionalProperties: { type: "array", items: string }, maxProperties: 3 },
    counts: { type: "object", additionalProperties: { type: "integer" } },
  },
  required: ["items"],
  additionalProperties: false,
};

describe("checkBounds lists the fields below an unbounded parent", () => {
  it("an unbounded array of objects with unbounded strings: the array and every string", () => {
    expect(pointers(records)).toEqual([
      "/properties/counts object-open",
      // maxProperties bounds how many keys, not how long their names are.
      "/properties/extra object-open",
      "/properties/extra/additionalProperties array-without-maxItems",
      "/properties/extra/additionalProperties/items string-without-maxLength",
      "/properties/items array-without-maxItems",
      "/properties/items/items/properties/tags array-without-maxItems",
      "/properties/items/items/properties/tags/items string-without-maxLength",
      "/properties/items/items/properties/title string-without-maxLength",
      "/properties/meta object-open",
      "/properties/meta/properties/source string-without-maxLength",
    ]);
  });

  it("one round of fixes leaves nothing to bound", () => {
    const fixed = fix(records, checkBounds(records).findings);
    expect(checkBounds(fixed)).toMatchObject({ findings: [], maxBytes: expect.any(Number) });
  });

  it("a finding at one place is listed once, with the message for the fix that closes it", () => {
    const open = { type: "object", properties: { a: string }, additionalProperties: { type: "object" } };
    const found = checkBounds(open).findings;
    expect(found.map((f) => [f.pointer, f.kind])).toEqual([
      ["", "object-open"],
      ["/additionalProperties", "object-open"],
      ["/properties/a", "string-without-maxLength"],
    ]);
    expect(found[0]?.message).toMatch(/add maxProperties, or close it/);
  });
});

describe("real servers: bounding what import lists bounds the tool", () => {
  it.each([
    ["memory", () => resolve("@modelcontextprotocol/server-memory/dist/index.js"), [] as string[]],
    ["filesystem", () => resolve("@modelcontextprotocol/server-filesystem/dist/index.js"), [repo]],
  ])("%s server", async (_name, server, args) => {
    const listed = await listServerTools(["node", server(), ...args].map((w) => JSON.stringify(w)).join(" "));
    const out = path.join(scratch, _name);
    const report = await importTools(
      listed.tools.map((definition, i) => ({ definition, origin: `tools/list#${i}` })),
      { out },
    );
    expect(report.refused).toEqual([]);
    let nested = 0;
    for (const tool of report.imported) {
      const contract = JSON.parse(await readFile(path.join(repo, tool.file), "utf8"));
      const findings = tool.findings.map((f) => ({ ...f, pointer: f.pointer.replace(/^\/outputSchema/, "") }));
      // What import reports is what the checker finds, all of it.
      expect(findings).toEqual(checkBounds(contract.outputSchema).findings);
      nested += findings.filter((f) => findings.some((g) => g !== f && f.pointer.startsWith(`${g.pointer}/`))).length;
      expect(checkBounds(fix(contract.outputSchema, findings)).findings, tool.tool).toEqual([]);
    }
    // These servers' arrays hold objects with unbounded strings: one pass names them too.
    expect(nested).toBeGreaterThan(0);

    // generate prints the same list for each tool.
    const generated = await generate({ schemas: out, projectRoot: repo });
    expect(generated.ok).toBe(true);
    for (const tool of generated.tools) {
      const imported = report.imported.find((t) => t.tool === tool.tool);
      expect(tool.findings).toEqual(imported?.findings);
    }
    expect((await readdir(out)).length).toBe(report.imported.length);
  });
});
