/**
 * `checkInput` before a call: valid arguments come back typed, invalid ones with issues a person or the model can act
 * on (a short message, the keyword, the property a `required` or `additionalProperties` rule is about), bounded and
 * cleaned like every diagnostic, and never holding a value of the arguments. The example contracts' generated input
 * validators are the ones checked, and a real Ajv for the keywords they do not use.
 */
import { randomUUID } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { validateInput as getRecordInput } from "../../../generated/get_record/validate.js";
import { validateInput as queryDatabaseInput } from "../../../generated/query_database/validate.js";
import { validateInput as searchDocsInput } from "../../../generated/search_docs/validate.js";
import { defineTool, type InputIssue, type ValidateFunction } from "../../../runtime/index.js";
import { MAX_ISSUES, MAX_MESSAGE_CHARS, MAX_PROPERTY_CHARS } from "../../../runtime/stages/issues.js";
import { codePointLength } from "../../../runtime/text/hygiene.js";
import { compile, recordSpec } from "../fixture.js";

/** An adapter whose arguments are checked by `validate`. */
function toolWith<I>(validate: ValidateFunction<I>) {
  return defineTool({ ...recordSpec(), validateInput: validate as ValidateFunction<never> });
}

/** The issues `validate` reports for `args` through `checkInput`. */
function issuesOf(validate: ValidateFunction<unknown>, args: unknown): InputIssue[] {
  const check = toolWith(validate).checkInput(args);
  if (check.ok) throw new Error("the arguments passed");
  return check.issues;
}

const RECORD_ID = "rec_01HV3K8Q2M7XZ9PA";

describe("checkInput with a generated input validator", () => {
  it("passes valid arguments through, typed as the tool's input", () => {
    const tool = toolWith(getRecordInput);
    const args = { recordId: RECORD_ID };
    const check = tool.checkInput(args);
    expect(check).toEqual({ ok: true, value: args });
  });

  it("names the missing property of a required rule", () => {
    expect(issuesOf(getRecordInput, {})).toEqual([
      {
        instancePath: "",
        schemaPath: "#/required",
        keyword: "required",
        property: "recordId",
        message: 'missing required property "recordId"',
      },
    ]);
    expect(issuesOf(queryDatabaseInput, { maxRows: 5 })).toMatchObject([{ property: "sql" }]);
  });

  it("names the property an additionalProperties rule refuses", () => {
    expect(issuesOf(getRecordInput, { recordId: RECORD_ID, limit: 5 })).toEqual([
      {
        instancePath: "",
        schemaPath: "#/additionalProperties",
        keyword: "additionalProperties",
        property: "limit",
        message: 'unexpected property "limit"',
      },
    ]);
  });

  it("says what each rule asks, from the rule and never from the value", () => {
    const marker = `MARK${randomUUID().replaceAll("-", "")}`;
    const cases: Array<[ValidateFunction<unknown>, unknown, string, string]> = [
      [getRecordInput, { recordId: 7 }, "type", "must be string"],
      [getRecordInput, { recordId: marker.slice(0, 20) }, "pattern", 'must match the pattern "^rec_[0-9A-Za-z]{16}$"'],
      [getRecordInput, { recordId: `rec_${marker}` }, "maxLength", "must be at most 20 characters long"],
      [searchDocsInput, { query: "" }, "minLength", "must be at least 1 character long"],
      [searchDocsInput, { query: "q", limit: 500 }, "maximum", "must be <= 100"],
      [searchDocsInput, { query: "q", limit: 0 }, "minimum", "must be >= 1"],
      [searchDocsInput, { query: "q", section: marker }, "enum", "must be one of the allowed values"],
      [queryDatabaseInput, { sql: "s", params: Array(40).fill(1) }, "maxItems", "must have at most 32 items"],
      [queryDatabaseInput, { sql: "s", params: [{ marker }] }, "anyOf", "must match one of the alternatives"],
    ];
    for (const [validate, args, keyword, message] of cases) {
      const issues = issuesOf(validate, args);
      expect(issues.at(-1), JSON.stringify(args)).toMatchObject({ keyword, message });
      expect(JSON.stringify(issues)).not.toContain(marker.slice(0, 20));
    }
  });

  it("cleans and bounds a property name the model chose", () => {
    const name = `\u202Eevil\u0000${"x".repeat(500)}"quoted"`;
    const [issue] = issuesOf(getRecordInput, { recordId: RECORD_ID, [name]: 1 });
    expect(issue?.keyword).toBe("additionalProperties");
    const property = issue?.property ?? "";
    expect(property.startsWith("\\u{202E}evil\\u{0}x")).toBe(true);
    expect(codePointLength(property)).toBeLessThanOrEqual(MAX_PROPERTY_CHARS);
    expect(property.endsWith("…")).toBe(true);
    const message = issue?.message ?? "";
    expect(message).toMatch(/^unexpected property "\\u\{202E\}evil\\u\{0\}x+…"$/);
    expect(codePointLength(message)).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    for (const char of ["\u0000", "\u202E"]) expect(`${property}${message}`).not.toContain(char);
  });

  it("escapes a quote in a property name, so the message shows where the name ends", () => {
    const [issue] = issuesOf(getRecordInput, { recordId: RECORD_ID, 'a" or "b': 1 });
    expect(issue?.property).toBe('a" or "b');
    expect(issue?.message).toBe('unexpected property "a\\" or \\"b"');
  });
});

describe("checkInput messages for keywords the examples do not use", () => {
  const cases: Array<[object, unknown, string, string]> = [
    [{ type: ["string", "null"] }, 1, "type", "must be string or null"],
    [{ const: "x" }, "y", "const", "must be the allowed value"],
    [{ multipleOf: 5 }, 7, "multipleOf", "must be a multiple of 5"],
    [{ exclusiveMaximum: 3 }, 3, "exclusiveMaximum", "must be < 3"],
    [{ maxProperties: 1 }, { a: 1, b: 2 }, "maxProperties", "must have at most 1 property"],
    [{ minProperties: 2 }, { a: 1 }, "minProperties", "must have at least 2 properties"],
    [{ uniqueItems: true }, [1, 2, 1], "uniqueItems", "must not repeat an item (items 0 and 2 are equal)"],
    [{ not: {} }, 1, "not", "must not match the excluded schema"],
    [{ oneOf: [{}, {}] }, 1, "oneOf", "must match exactly one alternative"],
    [{ anyOf: [{ type: "string" }, { type: "null" }] }, 1, "anyOf", "must match one of the alternatives"],
    [{ contains: { const: 1 } }, [2], "contains", "must contain a matching item"],
    [
      { dependentRequired: { card: ["billing"] } },
      { card: 1 },
      "dependentRequired",
      'missing property "billing", required with "card"',
    ],
    [{ propertyNames: { maxLength: 3 } }, { long: 1 }, "propertyNames", 'property name "long" is not allowed'],
    [{ unevaluatedProperties: false }, { x: 1 }, "unevaluatedProperties", 'unexpected property "x"'],
    [{ prefixItems: [{}], items: false }, [1, 2], "items", "must have at most 1 item"],
  ];

  it.each(cases)("%j on %j: %s", (schema, value, keyword, message) => {
    const issues = issuesOf(compile({ $schema: "https://json-schema.org/draft/2020-12/schema", ...schema }), value);
    expect(issues.find((issue) => issue.keyword === keyword)?.message).toBe(message);
  });

  it("names the format a string breaks", () => {
    const ajv = new Ajv2020({ allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile({ format: "date-time" }) as unknown as ValidateFunction<unknown>;
    expect(issuesOf(validate, "now")).toMatchObject([{ keyword: "format", message: 'must be a valid "date-time"' }]);
  });

  it("names an unknown keyword in a bounded message", () => {
    const validate: ValidateFunction<never> = Object.assign(() => false, {
      errors: [{ instancePath: "/a", schemaPath: "#/x", keyword: `custom\u202E${"k".repeat(300)}`, params: {} }],
    }) as unknown as ValidateFunction<never>;
    const [issue] = issuesOf(validate, {});
    expect(issue?.message).toMatch(/^breaks the rule "custom\\u\{202E\}k+…"$/);
    expect(codePointLength(issue?.keyword ?? "")).toBeLessThanOrEqual(64);
  });

  it("reports at most MAX_ISSUES issues of a validator reporting every error", () => {
    const open = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`extra${i}`, i]));
    const issues = issuesOf(compile({ type: "object", additionalProperties: false }), open);
    expect(issues).toHaveLength(MAX_ISSUES);
    expect(issues.map((issue) => issue.property)).toEqual(Object.keys(open).slice(0, MAX_ISSUES));
  });

  it("refuses arguments nested past what the validator can follow, with a message", () => {
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const issues = issuesOf(compile({ $id: "deep", items: { $ref: "deep" } }), deep);
    expect(issues).toEqual([
      { instancePath: "", schemaPath: "", keyword: "maxDepth", message: "is nested too deeply to check" },
    ]);
  });
});
