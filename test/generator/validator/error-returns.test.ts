/**
 * The first-error returns of Ajv's standalone code through one shared function (`error-returns.ts`): which
 * statements are rewritten, and that the errors the validators report are Ajv's own (the corpus and the JSON Schema
 * Test Suite are compared error by error with the schema compiled whole in `split.test.ts`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { FAIL_FUNCTION, withSharedFailures } from "../../../generator/validator/error-returns.js";
import { assertExportName } from "../../../generator/validator/esm-module.js";
import { emitValidators } from "./emit-module.js";
import { ensureRuntimeBuilt, importModule, resolved } from "./load.js";

beforeAll(ensureRuntimeBuilt);

describe("withSharedFailures", () => {
  it("turns an error array and `return false` into one call, the properties' code unchanged", () => {
    const code = [
      'function validate20(data, {instancePath=""}={}){',
      'if(typeof data !== "string"){',
      'validate20.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{type: "string"}}];',
      "return false;",
      "}",
      'if(data.length > 3){validate20.errors = [{instancePath:instancePath+"/a" + i0,schemaPath:"#/x",keyword:"maxLength",params:{limit: 3}}];return false;}',
      "return true;",
      "}",
    ].join("\n");
    const { code: rewritten, calls } = withSharedFailures(code);
    expect(calls).toBe(true);
    expect(rewritten).toBe(
      [
        'function validate20(data, {instancePath=""}={}){',
        'if(typeof data !== "string"){',
        'return fail(validate20, instancePath, "#/type", "type", {type: "string"});',
        "}",
        'if(data.length > 3){return fail(validate20, instancePath+"/a" + i0, "#/x", "maxLength", {limit: 3});}',
        "return true;",
        "}",
      ].join("\n"),
    );
  });

  it("leaves alone errors gathered for a composite keyword, other objects and other returns", () => {
    const code = [
      'const err0 = {instancePath,schemaPath:"#/anyOf/0/type",keyword:"type",params:{type: "string"}};',
      "if(vErrors === null){vErrors = [err0];}else {vErrors.push(err0);}",
      "validate20.errors = vErrors;",
      "return false;",
      'validate20.errors = [{schemaPath:"#/type",instancePath,keyword:"type",params:{}}];',
      "return false;",
      'validate20.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{}}];',
      "return errors === 0;",
      'validate20.errors = [{instancePath,schemaPath:"#/type",keyword:"type",params:{},message:"no"}];',
      "return false;",
    ].join("\n");
    expect(withSharedFailures(code)).toEqual({ code, calls: false });
  });
});

describe("a generated module", () => {
  it("declares the function once, after its imports, and reports Ajv's error objects through it", async () => {
    const schema = resolved({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", maxLength: 3 }, size: { type: "integer" } },
    });
    const emitted = emitValidators([
      { exportName: "first", schema, formats: "annotate" },
      { exportName: "second", schema: resolved({ type: "string", maxLength: 2 }), formats: "annotate" },
    ]);
    if ("refusals" in emitted) throw new Error(JSON.stringify(emitted.refusals));
    expect(emitted.code.split(FAIL_FUNCTION)).toHaveLength(2);
    expect(emitted.code.indexOf(FAIL_FUNCTION)).toBeLessThan(emitted.code.indexOf("export const first"));
    expect(emitted.code).not.toMatch(/validate\d+\.errors = \[\{/);
    const module = await importModule(emitted.code);
    const first = module.first;
    if (first === undefined) throw new Error("no validator");
    expect(first({ name: "abcd" })).toBe(false);
    expect(first.errors).toEqual([
      { instancePath: "/name", schemaPath: "#/properties/name/maxLength", keyword: "maxLength", params: { limit: 3 } },
    ]);
    expect(Object.keys((first.errors as object[])[0] as object)).toEqual([
      "instancePath",
      "schemaPath",
      "keyword",
      "params",
    ]);
    expect(first({ name: "abc" })).toBe(true);
    expect(first.errors).toBeNull();
  });

  it("declares no function when no validator reports an error", () => {
    const emitted = emitValidators([{ exportName: "any", schema: resolved(true), formats: "annotate" }]);
    expect("code" in emitted && emitted.code.includes(FAIL_FUNCTION)).toBe(false);
  });

  it("refuses to export a validator under the function's name", () => {
    expect(() => assertExportName("fail")).toThrow(/taken by the module's error function/);
  });
});
