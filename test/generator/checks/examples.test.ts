/**
 * The example contracts in schemas/ and their sample payloads in test/fixtures/payloads/<tool>/.
 *
 * Each contract must be a usable MCP Tool with a valid x-toolgate block; each tool's payloads must be what their
 * names say (good, hostile and oversize valid; invalid refused; malformed not JSON), oversize must really be over
 * the context budget once the view is made (so the policy chain has to act) and good within it, and the checker's
 * bounds must hold every valid payload. The checker's report per example is printed for review.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, describe, expect, it } from "vitest";
import { type BoundsReport, checkBounds } from "../../../generator/checks/index.js";
import { DEFAULTS, type XToolgate } from "../../../generator/contract/x-toolgate.js";
import { planView, runtimePlan } from "../../../generator/model/view-plan.js";
import type { JsonSchema, SchemaObject } from "../../../generator/schema/shapes.js";
import type { ContextBudget, Outcome } from "../../../runtime/contract/types.js";
import { measureText } from "../../../runtime/stages/measure.js";
import { toModelContent } from "../../../runtime/stages/model-content.js";
import { project } from "../../../runtime/stages/project.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const schemasDir = path.join(repo, "schemas");
const payloadsDir = path.join(repo, "test/fixtures/payloads");

interface Contract {
  name: string;
  description: string;
  inputSchema: SchemaObject;
  outputSchema: SchemaObject;
  "x-toolgate"?: XToolgate;
}

const files = readdirSync(schemasDir)
  .filter((f) => f.endsWith(".tool.json"))
  .sort();
const contracts = files.map((file) => ({
  file,
  contract: JSON.parse(readFileSync(path.join(schemasDir, file), "utf8")) as Contract,
}));

function payload(tool: string, name: string): unknown {
  return JSON.parse(readFileSync(path.join(payloadsDir, tool, name), "utf8"));
}

function compile(schema: SchemaObject): ValidateFunction {
  const draft07 = typeof schema.$schema === "string" && schema.$schema.includes("draft-07");
  const options = { strict: false, allErrors: true, validateFormats: true };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  addFormats.default(ajv);
  return ajv.compile(schema);
}

/** Every string in a value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  }
  return [];
}

function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Math.max(0, ...(Array.isArray(value) ? value : Object.values(value)).map(depthOf));
}

const DEFAULT_BUDGET: ContextBudget = { ...DEFAULTS.context };

/** The text the model would see for a valid result rendered directly (no oversize policy), and its size. */
async function renderedView(contract: Contract, data: unknown): Promise<{ size: number; within: boolean }> {
  const settings = contract["x-toolgate"] ?? {};
  const view = settings.view ?? {};
  const maxStringChars = view.maxStringChars ?? 2000;
  const plan = runtimePlan(planView(contract.outputSchema, view, maxStringChars, contract.name));
  const projection = project(data, plan, { maxStringChars });
  const budget: ContextBudget = { ...DEFAULT_BUDGET, ...settings.context };
  const success = {
    ok: true,
    data,
    view: projection.view,
    complete: projection.complete,
    omissions: projection.omissions,
    provenance: {
      tool: contract.name,
      contractVersion: settings.version ?? "1",
      contractHash: "0".repeat(64),
      rawSha256: "0".repeat(64),
      rawBytes: 0,
      receivedAt: "2026-01-01T00:00:00.000Z",
    },
    contextUsed: { unit: budget.unit, value: 0, budget: budget.max },
  } satisfies Outcome<unknown, unknown>;
  // Counted to the end (not stopped at the budget) so the report shows how far over an oversize view is.
  const measured = await measureText(toModelContent(success), budget, Number.MAX_SAFE_INTEGER);
  return { size: measured.value, within: measured.value <= budget.max };
}

const printed: string[] = [];

describe("the example contracts", () => {
  it("are the five documented examples", () => {
    expect(contracts.map((c) => c.contract.name)).toEqual([
      "get_record",
      "query_database",
      "read_file",
      "read_graph",
      "search_docs",
    ]);
  });

  const publishedSchema = JSON.parse(readFileSync(path.join(schemasDir, "x-toolgate.schema.json"), "utf8"));
  const validateSettings = compile(publishedSchema);

  describe.each(contracts)("$file", ({ file, contract }) => {
    const tool = contract.name;
    const settings = contract["x-toolgate"] ?? {};
    const report: BoundsReport = checkBounds(contract.outputSchema as JsonSchema);
    const validateResult = compile(contract.outputSchema);

    it("is an MCP Tool named after its file, with an object input schema", () => {
      expect(file).toBe(`${tool}.tool.json`);
      expect(contract.description.length).toBeGreaterThan(20);
      expect(contract.inputSchema.type).toBe("object");
      expect(typeof contract.outputSchema).toBe("object");
    });

    it("has an x-toolgate block valid against the published schema", () => {
      expect(contract["x-toolgate"]).toBeDefined();
      const ok = validateSettings(settings);
      expect(validateSettings.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });

    it("has a bounded input schema", () => {
      const input = checkBounds(contract.inputSchema as JsonSchema);
      expect(input.findings).toEqual([]);
      expect(input.maxBytes).not.toBeNull();
    });

    it("declares a receive ceiling when the output schema is not fully bounded, and never one below the bound", () => {
      printed.push(
        `${tool}: maxBytes ${report.maxBytes ?? "null"}, maxDepth ${report.maxDepth ?? "null"}, ` +
          `receive.maxBytes ${settings.receive?.maxBytes ?? "(derived)"}, findings ${
            report.findings.length === 0
              ? "none"
              : report.findings.map((f) => `/outputSchema${f.pointer} ${f.kind}: ${f.message}`).join("; ")
          }`,
      );
      if (report.maxBytes === null) expect(settings.receive?.maxBytes).toBeGreaterThan(0);
      else if (settings.receive?.maxBytes !== undefined) {
        expect(settings.receive.maxBytes).toBeGreaterThanOrEqual(report.maxBytes);
      }
    });

    it.each(["good.json", "hostile.json", "oversize.json"])("accepts %s, within the bounds", (name) => {
      const data = payload(tool, name);
      const ok = validateResult(data);
      expect(validateResult.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
      const ceiling = settings.receive?.maxBytes ?? (report.maxBytes as number);
      expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThanOrEqual(ceiling);
      const maxDepth = settings.receive?.maxDepth ?? report.maxDepth;
      expect(depthOf(data)).toBeLessThanOrEqual(maxDepth as number);
    });

    it("refuses invalid.json", () => {
      expect(validateResult(payload(tool, "invalid.json"))).toBe(false);
    });

    it("has a malformed.txt that is not JSON", () => {
      const text = readFileSync(path.join(payloadsDir, tool, "malformed.txt"), "utf8");
      expect(() => JSON.parse(text)).toThrow(SyntaxError);
    });

    it("has a hostile.json with bidi controls, invisible characters, a closing delimiter and instructions", () => {
      const text = strings(payload(tool, "hostile.json")).join("\n");
      expect(text).toMatch(/[\u202a-\u202e\u2066-\u2069]/u);
      expect(text).toMatch(/[\u200b\u2060\ufeff]|[\u{e0000}-\u{e007f}]/u);
      expect(text).toContain("</tool_result>");
      expect(text).toMatch(/ignore (all )?previous instructions|new instructions|SYSTEM OVERRIDE/i);
    });

    it("renders good.json within the context budget, and oversize.json over it", async () => {
      const good = await renderedView(contract, payload(tool, "good.json"));
      const over = await renderedView(contract, payload(tool, "oversize.json"));
      printed.push(
        `${tool}: rendered view good ${good.size}, oversize ${over.size} ${settings.context?.unit ?? "tokens"} (budget ${settings.context?.max ?? DEFAULT_BUDGET.max})`,
      );
      expect(good.within).toBe(true);
      expect(over.within).toBe(false);
    });
  });

  it("search_docs/good.json is a realistic page of dozens of hits", () => {
    const good = payload("search_docs", "good.json") as { hits: unknown[] };
    expect(good.hits.length).toBeGreaterThanOrEqual(40);
  });

  afterAll(() => {
    console.log(printed.sort().join("\n"));
  });
});
