/**
 * When the generator lets the validator stand in for the parse stage's depth and number pass
 * (`limits.validatorBounds`): only for a schema whose every valid value is within the contract's depth and holds
 * only numbers within ±(2^53 − 1). Each "no" below is a schema some valid value of which the pass would refuse, or
 * one the reader cannot prove; each "yes" one no valid value of which it could.
 */
import { describe, expect, it } from "vitest";
import { checkBounds } from "../../../generator/checks/index.js";
import { validatorBoundsValues } from "../../../generator/checks/safe-numbers.js";
import type { Dialect, JsonSchema } from "../../../generator/schema/shapes.js";

const SAFE = { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

function bounds(schema: JsonSchema, limit = 64, dialect: Dialect = "2020-12"): boolean {
  return validatorBoundsValues(schema, dialect, checkBounds(schema, { dialect }).maxDepth, limit);
}

const closed = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  additionalProperties: false,
});

describe("validatorBoundsValues", () => {
  it.each<[string, JsonSchema]>([
    ["a closed object of bounded numbers and strings", closed({ n: SAFE, s: { type: "string" } })],
    ["numbers bounded by exclusive limits", { type: "number", exclusiveMinimum: -10, exclusiveMaximum: 10 }],
    ["an array of closed objects", { type: "array", items: closed({ n: SAFE }) }],
    ["a tuple with every item past it refused", { type: "array", prefixItems: [SAFE], items: false }],
    ["an enum of safe literals, nested", { enum: [1, { a: [2, -3] }, "x", null] }],
    ["a const", { const: { a: 9007199254740991 } }],
    ["a type without numbers or containers", { type: ["string", "boolean", "null"] }],
    [
      "bounds split between allOf members, by type",
      { allOf: [{ type: ["object", "integer"], minimum: -1, maximum: 1 }, closed({ n: SAFE })] },
    ],
    [
      "anyOf where every alternative is safe",
      { anyOf: [closed({ n: SAFE }), { type: "string" }, { type: "number", minimum: 0, maximum: 1 }] },
    ],
    [
      "a $ref to a safe definition",
      { $defs: { n: SAFE }, type: "object", additionalProperties: { $ref: "#/$defs/n" } },
    ],
    [
      "the list_issues bench contract's shape",
      closed({
        totalCount: SAFE,
        issues: {
          type: "array",
          maxItems: 2000,
          items: closed({ id: SAFE, labels: { type: "array", items: { type: "string" } } }),
        },
      }),
    ],
  ])("yes: %s", (_, schema) => {
    expect(bounds(schema)).toBe(true);
  });

  it.each<[string, JsonSchema, number?, Dialect?]>([
    ["an integer with no maximum", closed({ n: { type: "integer", minimum: 0 } })],
    ["a maximum past 2^53 − 1", { type: "integer", minimum: 0, maximum: 2 ** 53 }],
    ["a minimum below −(2^53 − 1)", { type: "number", minimum: -(2 ** 60), maximum: 0 }],
    ["an object open to other members", { type: "object", properties: { n: SAFE } }],
    ["an array whose items are anything", { type: "array" }],
    ["a tuple whose later items are anything", { type: "array", prefixItems: [SAFE] }],
    ["the true schema", true],
    ["an empty schema", {}],
    ["an enum with an unsafe number", { enum: [1, 2 ** 60] }],
    ["anyOf with an open alternative", { anyOf: [closed({ n: SAFE }), { type: "number" }] }],
    ["uniqueItems, which compares items whole", { type: "array", items: SAFE, uniqueItems: true }],
    [
      "recursion, which bounds no depth",
      { $defs: { t: closed({ kids: { type: "array", items: { $ref: "#/$defs/t" } } }) }, $ref: "#/$defs/t" },
    ],
    ["nesting past the contract's limit", closed({ a: closed({ b: closed({ n: SAFE }) }) }), 2],
    [
      "unevaluatedProperties beside an allOf that evaluates an open member",
      { type: "object", allOf: [{ properties: { n: { type: "number" } } }], unevaluatedProperties: false },
    ],
    [
      "draft-07: a bound beside a $ref, which the $ref replaces",
      { definitions: { n: { type: "number" } }, $ref: "#/definitions/n", minimum: 0, maximum: 1 },
      64,
      "draft-07",
    ],
  ])("no: %s", (_, schema, limit = 64, dialect = "2020-12") => {
    expect(bounds(schema, limit, dialect)).toBe(false);
  });
});
