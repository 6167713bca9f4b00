/**
 * `assembleModule` parses only the sections whose text could spell `require` or a `__proto__` key, and rewrites a
 * body it met before once: the module must come out as if every section had been parsed, and each body rewritten.
 */
import { describe, expect, it } from "vitest";
import { assembleModule, ownPrototypeKeys, type StandaloneValidator } from "../../../generator/validator/esm-module.js";

/** Standalone code in Ajv's shape: the export line, a schema literal written as `literal`, and a function reading it. */
function standalone(exportName: string, literal: string, extra = ""): StandaloneValidator {
  return {
    exportName,
    code: [
      '"use strict";',
      `export const ${exportName} = validate10;`,
      `const schema11 = ${literal};`,
      `function validate10(data){${extra}return data === schema11;}`,
    ].join("\n"),
  };
}

describe("assembleModule", () => {
  // Every way a key can spell `__proto__`: as written, and through each kind of escape a string allows.
  const spellings = [
    '{"__proto__":1}',
    '{"\\u005f_proto__":1}',
    '{"\\x5f_proto__":1}',
    '{"\\_\\_proto\\_\\_":1}',
    '{"__pro\\\nto__":1}',
    '{"\\u{5f}_proto__":1}',
  ];

  it.each(spellings)("leaves no %s key for the module parsed whole to find", (literal) => {
    // A plain section before and after, so each rewrite lands where the whole module has it.
    const code = assembleModule([
      standalone("validateA", '{"a":"\\\\u"}'),
      standalone("validateB", literal),
      standalone("validateC", '{"b":"\\n\\"\\\\"}'),
    ]);
    expect(code).toContain('["__proto__"]');
    expect(ownPrototypeKeys(code)).toBe(code);
  });

  it("keeps sections that cannot spell either name as they are", () => {
    const code = assembleModule([standalone("validateA", '{"required":["x"],"p":"^\\\\d\\\\u$"}')]);
    expect(code).toContain('const schema11 = {"required":["x"],"p":"^\\\\d\\\\u$"};');
  });

  it("gives a body met twice the same rewrite under each export", () => {
    const body = '{"__proto__":{"a":"b"}}';
    const code = assembleModule([standalone("validateA", body), standalone("validateB", body)]);
    const [a, b] = code.split("export const validateB");
    expect(a?.replace("validateA", "validateB")).toContain(b?.slice(0, 40));
    expect(code.match(/\["__proto__"\]/g)?.length).toBe(2);
  });

  it("reports a surviving require with its line in the whole module", () => {
    const validators = [standalone("validateA", "{}"), standalone("validateB", "{}", "const r = require;\n")];
    // validateA's section and the blank line after it come first (six lines): the section alone would say line 3.
    expect(() => assembleModule(validators)).toThrow(/still calls require\(\) \(line 9\)/);
  });
});
