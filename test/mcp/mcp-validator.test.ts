import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../generator/schema/json.js";
import { isTransportFailure } from "../../runtime/contract/failure.js";
import type { ValidateFunction } from "../../runtime/contract/types.js";
import {
  type McpValidator,
  type McpValidatorProvider,
  mcpCallFailure,
  mcpValidatorProvider,
  outputSchemaSha256,
  sha256HexSync,
} from "../../runtime/integrations/mcp-validator.js";
import { repo } from "./fixture-catalog.js";

const nodeSha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("sha256HexSync", () => {
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
  ])("matches the FIPS 180-4 example for %j", (text, digest) => {
    expect(sha256HexSync(new TextEncoder().encode(text))).toBe(digest);
  });

  it("matches node:crypto at every padding boundary", () => {
    for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + 7) & 0xff);
      expect(sha256HexSync(bytes), `length ${length}`).toBe(nodeSha256(bytes));
    }
  });

  it("matches node:crypto on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => sha256HexSync(bytes) === nodeSha256(bytes)),
      { numRuns: 300 },
    );
  });
});

describe("outputSchemaSha256", () => {
  it("is the generator's hash of the canonical schema, for every output schema in the MCP corpus", async () => {
    const corpus = path.join(repo, "../shared/corpus/mcp-tools");
    const files = (await readdir(corpus, { recursive: true })).filter((name) => name.endsWith(".json")).sort();
    let compared = 0;
    for (const name of files) {
      const tool = JSON.parse(await readFile(path.join(corpus, name), "utf8"));
      if (typeof tool !== "object" || tool === null || tool.outputSchema === undefined) continue;
      const expected = createHash("sha256").update(canonicalJson(tool.outputSchema)).digest("hex");
      expect(outputSchemaSha256(tool.outputSchema), name).toBe(expected);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(45);
  });

  it("does not depend on key order or layout, and does depend on every value", () => {
    const a = { type: "object", properties: { x: { type: "string", maxLength: 5 } }, required: ["x"] };
    const b = JSON.parse('{"required":["x"],  "properties":{"x":{"maxLength":5,"type":"string"}},"type":"object"}');
    expect(outputSchemaSha256(b)).toBe(outputSchemaSha256(a));
    expect(outputSchemaSha256({ ...a, required: [] })).not.toBe(outputSchemaSha256(a));
  });

  it("is undefined for a schema that cannot be serialised", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.self = cyclic;
    expect(outputSchemaSha256(cyclic)).toBeUndefined();
  });
});

/** A hand-written stand-in for a generated validator: an object with a string `id`. */
const validateRecord: ValidateFunction<{ id: string }> = Object.assign(
  (data: unknown): data is { id: string } => {
    const ok = typeof data === "object" && data !== null && typeof (data as { id?: unknown }).id === "string";
    validateRecord.errors = ok
      ? null
      : [{ instancePath: "/id", schemaPath: "#/properties/id/type", keyword: "type", params: { type: "string" } }];
    return ok;
  },
  { errors: null },
);
const recordSchema = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };

describe("mcpValidatorProvider", () => {
  const provider = mcpValidatorProvider({ [outputSchemaSha256(recordSchema) as string]: validateRecord });

  it("is the SDK client's jsonSchemaValidator", () => {
    const sdk: jsonSchemaValidator = provider;
    expect(typeof sdk.getValidator).toBe("function");
  });

  it("answers a known schema (in any key order) from its precompiled validator", () => {
    const validate = provider.getValidator<{ id: string }>({
      required: ["id"],
      properties: { id: { type: "string" } },
      type: "object",
    });
    expect(validate({ id: "r-1" })).toEqual({ valid: true, data: { id: "r-1" }, errorMessage: undefined });
    const refused = validate({ id: 42, secret: "do-not-log" });
    expect(refused).toEqual({
      valid: false,
      data: undefined,
      errorMessage: "does not match the contract at /id (type)",
    });
  });

  it("fails closed on a schema it has no validator for, naming the schema's hash", () => {
    const other = { ...recordSchema, required: [] };
    const validate = provider.getValidator(other);
    const result = validate({ id: "r-1" });
    expect(result.valid).toBe(false);
    expect(result.errorMessage).toContain(outputSchemaSha256(other));
  });

  it("asks the fallback, when one is given, only for unknown schemas", () => {
    const asked: unknown[] = [];
    const fallback: McpValidatorProvider = {
      getValidator<T>(schema: unknown): McpValidator<T> {
        asked.push(schema);
        return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
      },
    };
    const withFallback = mcpValidatorProvider(
      { [outputSchemaSha256(recordSchema) as string]: validateRecord },
      { fallback },
    );
    expect(withFallback.getValidator(recordSchema)({ id: 1 }).valid).toBe(false);
    const unknown = { type: "object" };
    expect(withFallback.getValidator(unknown)({ anything: 1 }).valid).toBe(true);
    expect(asked).toEqual([unknown]);
  });
});

describe("mcpCallFailure", () => {
  it.each([
    [
      "a request timeout",
      Object.assign(new Error("Request timed out"), { name: "McpError", code: -32001 }),
      "timeout",
      "The MCP tool call timed out.",
    ],
    [
      "a JSON-RPC error",
      Object.assign(new Error("Invalid params: secret text"), { name: "McpError", code: -32602 }),
      "transport_error",
      "The MCP call failed with JSON-RPC error -32602.",
    ],
    [
      "a closed connection",
      Object.assign(new Error("Connection closed"), { code: -32000 }),
      "transport_error",
      "The MCP call failed with JSON-RPC error -32000.",
    ],
    ["anything else", new TypeError("boom"), "transport_error", "The MCP call failed."],
    [
      "an error whose code getter throws",
      Object.defineProperty(new Error("x"), "code", {
        get() {
          throw new Error("hostile getter");
        },
      }),
      "transport_error",
      "The MCP call failed.",
    ],
  ])("turns %s into a transport failure without the server's text", (_name, error, kind, message) => {
    const failure = mcpCallFailure(error);
    expect(isTransportFailure(failure)).toBe(true);
    expect(failure.kind).toBe(kind);
    expect(failure.message).toBe(message);
  });
});
