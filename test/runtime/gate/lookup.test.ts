/**
 * `lookupTool(catalog, name)`: the adapter for a name the model chose, from the example catalog as generated. Own
 * keys only, so no member of `Object` is ever taken for a tool; the adapter's types are the union over the catalog,
 * so checked arguments are what `admit` takes, and unchecked ones are not (held by the project's type-check).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type * as Generated from "../../../generated/index.js";
import { type CatalogAdapter, lookupTool, type ToolCatalog } from "../../../runtime/index.js";
import { ensureBuilt } from "../../build.js";

const REPO = path.resolve(import.meta.dirname, "../../..");

let generated: typeof Generated;

beforeAll(async () => {
  // The generated adapters import the built runtime through the workspace link.
  await ensureBuilt();
  generated = await import("../../../generated/index.js");
});

describe("lookupTool", () => {
  it("finds each tool of the generated catalog under its own name, as the adapter the catalog exports", () => {
    const { catalog } = generated;
    for (const name of Object.keys(catalog) as Array<keyof typeof catalog>) {
      expect(lookupTool(catalog, name), name).toBe(catalog[name].adapter);
      expect(lookupTool(catalog, name)?.name).toBe(name);
    }
    expect(lookupTool(catalog, "get_record")).toBe(generated.getRecord);
  });

  it("finds nothing for a name the catalog does not declare: no member of Object, no near miss", () => {
    const names = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", ""];
    for (const name of [...names, "get_record ", "GET_RECORD", "get-record", "getRecord"]) {
      expect(lookupTool(generated.catalog, name), name).toBeUndefined();
    }
    // Inherited entries are not the catalog's, even when they look like tools.
    const inherited = Object.create({ get_record: { adapter: generated.getRecord } }) as ToolCatalog;
    expect(lookupTool(inherited, "get_record")).toBeUndefined();
    // What a model's parsed tool call may hold instead of a string.
    for (const name of [7, null, undefined, ["get_record"], { toString: () => "get_record" }]) {
      expect(lookupTool(generated.catalog, name as unknown as string)).toBeUndefined();
    }
  });

  it("finds a tool really named __proto__ or constructor, which the catalog keeps as own keys", () => {
    const { getRecord } = generated;
    const catalog: ToolCatalog = { ["__proto__"]: { adapter: getRecord }, constructor: { adapter: getRecord } };
    expect(Object.getPrototypeOf(catalog)).toBe(Object.prototype);
    expect(lookupTool(catalog, "__proto__")).toBe(getRecord);
    expect(lookupTool(catalog, "constructor")).toBe(getRecord);
    expect(lookupTool(Object.assign(Object.create(null), { get_record: { adapter: getRecord } }), "get_record")).toBe(
      getRecord,
    );
  });

  it("checks the model's arguments and admits the result through the tool it names", async () => {
    const tool = lookupTool(generated.catalog, "get_record");
    if (tool === undefined) throw new Error("get_record is in the catalog");
    const bad = tool.checkInput({ recordId: "rec_8Hq2LmZ0aP4xT9wK", verbose: true });
    expect(bad).toMatchObject({ ok: false, issues: [{ keyword: "additionalProperties", property: "verbose" }] });
    const input = tool.checkInput({ recordId: "rec_8Hq2LmZ0aP4xT9wK" });
    if (!input.ok) throw new Error(input.issues.map((issue) => issue.message).join("; "));
    const raw = await readFile(path.join(REPO, "test/fixtures/payloads/get_record/good.json"), "utf8");
    const outcome = await tool.admit(raw, { args: input.value, tenant: "tn_acme0042" });
    expect(outcome.ok).toBe(true);
    if (outcome.ok) {
      // The outcome is one of the catalog's tools' outcomes.
      const data:
        | Generated.GetRecordResult
        | Generated.QueryDatabaseResult
        | Generated.ReadFileResult
        | Generated.ReadGraphResult
        | Generated.SearchDocsResult = outcome.data;
      expect(data).toMatchObject({ recordId: "rec_8Hq2LmZ0aP4xT9wK" });
    }
    expect(outcome.provenance.tool).toBe("get_record");
    expect(outcome.provenance.argumentsHash).toMatch(/^[0-9a-f]{64}$/);
    const other = lookupTool(generated.catalog, "search_docs");
    const invalid = await other?.admit(raw);
    expect(invalid?.ok === false && invalid.error.code).toBe("schema_mismatch");
  });

  it("takes checked arguments only: what the model chose does not compile as admit's arguments", () => {
    const tool: CatalogAdapter<typeof Generated.catalog> | undefined = lookupTool(generated.catalog, "search_docs");
    const modelArgs: unknown = JSON.parse('{"query":"retries"}');
    const refused = [
      // @ts-expect-error: arguments the model chose are unknown until checked
      () => tool?.admit("{}", { args: modelArgs }),
      // @ts-expect-error: no tool of the catalog takes these
      () => tool?.admit("{}", { args: { recordId: 7 } }),
    ];
    expect(refused).toHaveLength(2);
    const input = tool?.checkInput(modelArgs);
    expect(input?.ok && input.value).toEqual({ query: "retries" });
  });
});
