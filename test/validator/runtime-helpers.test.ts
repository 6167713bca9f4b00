/**
 * The run-time helpers generated validators import from `toolgate/runtime` in place of Ajv's modules.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { describe, expect, it } from "vitest";
import { formatValidators, jsonEqual } from "../../runtime/validation.js";

describe("jsonEqual", () => {
  it.each([
    ["equal numbers", 1, 1, true],
    ["1 and 1.0 are one number", 1, 1.0, true],
    ["number and string", 1, "1", false],
    ["null and object", null, {}, false],
    ["null and null", null, null, true],
    ["false and 0", false, 0, false],
    ["array and object with index keys", [1], { 0: 1 }, false],
    ["arrays of different length", [1, 2], [1, 2, 3], false],
    ["arrays in another order", [1, 2], [2, 1], false],
    ["objects with keys in another order", { a: 1, b: [2] }, { b: [2], a: 1 }, true],
    ["objects with a missing key", { a: 1 }, { b: 1 }, false],
    ["objects with an undefined-looking key", { a: undefined }, { b: undefined }, false],
    ["nested difference", { a: [{ b: [1, { c: "x" }] }] }, { a: [{ b: [1, { c: "y" }] }] }, false],
    ["non-ASCII strings", "é", "é", true],
    ["composed and decomposed strings are different code units", "é", "e\u0301", false],
  ])("%s", (_name, left, right, equal) => {
    expect(jsonEqual(left, right)).toBe(equal);
    expect(jsonEqual(right, left)).toBe(equal);
  });

  it("compares a parsed __proto__ key as an own property, not as the prototype", () => {
    const withKey = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    expect(jsonEqual(withKey, {})).toBe(false);
    expect(jsonEqual(withKey, JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true);
    expect(jsonEqual(withKey, JSON.parse('{"__proto__": {"x": 2}}'))).toBe(false);
  });

  it("compares values nested far deeper than the call stack allows", () => {
    const depth = 100_000;
    const deep = (leaf: number) => JSON.parse(`${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`) as unknown;
    expect(jsonEqual(deep(1), deep(1))).toBe(true);
    expect(jsonEqual(deep(1), deep(2))).toBe(false);
  });
});

describe("formatValidators", () => {
  it("is ajv-formats' full set, which the generated code indexes by format name", () => {
    expect(formatValidators).toBe(fullFormats);
    expect(Object.keys(formatValidators)).toEqual(expect.arrayContaining(["date-time", "email", "uri", "uuid"]));
  });
});
