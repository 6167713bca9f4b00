/**
 * A server schema without `$schema` written in draft-07's forms (the tuple `items: [...]` older converters emit, which
 * the MCP SDK v1's draft-07 Ajv reads as a tuple) is read as written, as draft-07, with a warning naming the file and
 * the tuple's pointer: imported, generated, and validated as a tuple. The two corpus tools that carry one (Sentry's
 * uptime monitors) are the cases.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readDialect } from "../../../generator/contract/dialect.js";
import { importTools } from "../../../generator/mcp/import.js";
import { generate } from "../../../generator/pipeline.js";
import { generateInto, importGenerated, REPO, SCRATCH } from "../../hardening/scratch.js";

const SENTRY = path.resolve(REPO, "../shared/corpus/mcp-tools/sentry-mcp");
const TOOLS = ["create_uptime_monitor", "update_uptime_monitor"];
const TUPLE = "/inputSchema/properties/headers/items/items";

type Validator = ((value: unknown) => boolean) & { errors?: Array<{ keyword: string }> | null };

describe("an undeclared draft-07 tuple", () => {
  it.each([
    ["a tuple and nothing newer", { type: "array", items: [{ type: "string" }] }, "draft-07"],
    ["a tuple beside prefixItems", { type: "array", items: [{}], prefixItems: [{}] }, "2020-12"],
    ["a tuple beside $defs", { $defs: { a: { type: "string" } }, items: [{ $ref: "#/$defs/a" }] }, "2020-12"],
    ["no tuple", { type: "array", items: { type: "string" } }, "2020-12"],
  ])("%s is read as %s", (_name, schema, dialect) => {
    expect(readDialect(schema, "t.tool.json", "/inputSchema").dialect).toBe(dialect);
  });

  it("the Sentry uptime monitors import, with a warning naming file and pointer, generate, and validate the tuple", async () => {
    const out = path.join(SCRATCH, "draft07-tuples", "schemas");
    const sources = await Promise.all(
      TOOLS.map(async (tool) => ({
        definition: JSON.parse(await readFile(path.join(SENTRY, `${tool}.json`), "utf8")),
        origin: tool,
      })),
    );
    const report = await importTools(sources, { out, force: true });
    expect(report.refused).toEqual([]);
    expect(report.imported.map((entry) => entry.tool)).toEqual(TOOLS);
    for (const entry of report.imported) {
      const warning = entry.notes.find((note) => note.startsWith(`#${TUPLE}:`));
      expect(warning, entry.tool).toContain("read as draft-07, as the MCP SDK v1 validates it");
    }

    // generate warns of the same tuple, by file and pointer, and refuses nothing.
    const generated = await generate({ schemas: out, projectRoot: REPO });
    expect(generated.ok ? [] : generated.errors.map(String)).toEqual([]);
    for (const summary of generated.tools) {
      expect(summary.file).toMatch(/uptime_monitor\.tool\.json$/);
      expect(summary.warnings?.map((warning) => warning.pointer)).toEqual([TUPLE]);
    }

    const folder = await generateInto(out);
    const { validateInput } = await importGenerated<{ validateInput: Validator }>(
      folder,
      "create_uptime_monitor/validate.js",
    );
    const call = {
      organizationSlug: "acme",
      projectSlug: "web",
      name: "Home page",
      url: "https://example.com/",
      intervalSeconds: 60,
    };
    // Legitimate arguments pass, with and without headers as [name, value] pairs.
    expect(validateInput(call)).toBe(true);
    expect(validateInput({ ...call, headers: [["Accept", "application/json"]] })).toBe(true);
    // The tuple is checked as a tuple: a value that is not a string is refused where draft-07 reads it.
    expect(validateInput({ ...call, headers: [["Accept", 5]] })).toBe(false);
    expect(validateInput.errors?.[0]).toMatchObject({ keyword: "type", instancePath: "/headers/0/1" });
    expect(validateInput({ ...call, headers: ["Accept: application/json"] })).toBe(false);
  });
});
