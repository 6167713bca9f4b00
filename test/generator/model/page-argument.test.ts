/**
 * The input argument an `oversize` failure names as what to narrow: a numeric top-level property with a page-size
 * name, found in the bundled input schema, and emitted into the adapter's spec only where there is one.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pageArgumentOf } from "../../../generator/model/page-argument.js";
import type { ResolvedSchema } from "../../../generator/schema/shapes.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const input = (bundled: unknown) => ({ bundled }) as unknown as ResolvedSchema;

describe("pageArgumentOf", () => {
  it("finds a numeric page-size property, the first of the usual names", () => {
    expect(
      pageArgumentOf(input({ type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } } })),
    ).toBe("limit");
    expect(
      pageArgumentOf(input({ properties: { count: { type: "integer" }, per_page: { type: ["integer", "null"] } } })),
    ).toBe("per_page");
    expect(
      pageArgumentOf(
        input({
          $ref: "#/$defs/Args",
          $defs: { Args: { properties: { pageSize: { $ref: "#/$defs/N" } } }, N: { type: "number" } },
        }),
      ),
    ).toBe("pageSize");
  });

  it("finds none where the name is not a page size, the type is not a number, or there is no input", () => {
    expect(pageArgumentOf(input({ properties: { limit: { type: "string" } } }))).toBeUndefined();
    expect(pageArgumentOf(input({ properties: { amount: { type: "integer" } } }))).toBeUndefined();
    expect(pageArgumentOf(input({ properties: { constructor: { type: "integer" } } }))).toBeUndefined();
    expect(pageArgumentOf(input(true))).toBeUndefined();
    expect(pageArgumentOf(undefined)).toBeUndefined();
  });

  it("is emitted into the generated adapter of a contract whose input has one, and only there", async () => {
    const searchDocs = await readFile(path.join(repo, "generated/search_docs/adapter.ts"), "utf8");
    expect(searchDocs).toContain('  pageArgument: "limit",');
    const readGraph = await readFile(path.join(repo, "generated/read_graph/adapter.ts"), "utf8");
    expect(readGraph).not.toContain("pageArgument");
  });
});
