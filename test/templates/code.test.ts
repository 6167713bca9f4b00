import { describe, expect, it } from "vitest";
import { camelCase, folderName, NameScope, pascalCase } from "../../generator/model/names.js";
import { access, commentText, ident, jsdoc, literal, propertyKey, quote, ts, typeKey } from "../../templates/code.js";

/** Evaluate an expression the way a module would, without eval: through JSON where it is JSON. */
function roundTrip(code: string): unknown {
  return JSON.parse(code.replaceAll("\\u2028", "\u2028").replaceAll("\\u2029", "\u2029"));
}

const hostile: Array<[string, string]> = [
  ["double quote", 'say "hi"'],
  ["single quote", "it's"],
  ["backslash", "C:\\temp\\"],
  ["comment end", "*/ process.exit(1) /*"],
  ["template", "$" + "{process.exit(1)}`"],
  ["line separators", "a\u2028b\u2029c"],
  ["NUL and controls", "a\u0000b\u001fc"],
  ["newline", "line 1\nline 2\r\n"],
  ["non-ASCII", "naïve 東京 🧪"],
];

describe("ts tagged template", () => {
  it.each(hostile)("a string with %s becomes a literal that keeps its meaning", (_name, text) => {
    const code = ts`const x = ${text};`.text;
    expect(code.startsWith("const x = ")).toBe(true);
    const expression = code.slice("const x = ".length, -1);
    expect(roundTrip(expression)).toBe(text);
    expect(expression).not.toMatch(/[\u2028\u2029\n\r]/);
  });

  it("writes objects with sorted keys and quotes keys that are not identifiers", () => {
    expect(literal({ b: 1, a: [true, null], "a-b": "x", __proto__x: 1 }).text).toBe(
      '{ __proto__x: 1, a: [true, null], "a-b": "x", b: 1 }',
    );
  });

  it("writes __proto__ as a computed key so an object literal never sets a prototype", () => {
    expect(propertyKey("__proto__").text).toBe('["__proto__"]');
    expect(typeKey("__proto__").text).toBe('"__proto__"');
    expect(access("__proto__").text).toBe(".__proto__");
    expect(access("a b").text).toBe('["a b"]');
  });

  it("refuses a non-identifier where an identifier goes", () => {
    expect(() => ident("a-b")).toThrow(/not an identifier/);
    expect(() => ident("1x")).toThrow(/not an identifier/);
    expect(ident("getRecord").text).toBe("getRecord");
  });

  it("keeps hostile text inside comments", () => {
    expect(commentText("end */ here")).toBe("end *\\/ here");
    expect(commentText("a\u2028b")).toBe("a\\u2028b");
    expect(jsdoc("one */ two\nthree").text).toBe("/**\n * one *\\/ two\n * three\n */\n");
    expect(quote("\u2028").text).toBe('"\\u2028"');
  });
});

describe("names", () => {
  const cases: Array<[string, { pascal: string; camel: string; folder: string }]> = [
    ["get_record", { pascal: "GetRecord", camel: "getRecord", folder: "get_record" }],
    ["get-record", { pascal: "GetRecord", camel: "getRecord", folder: "get_record" }],
    ["listIssues", { pascal: "ListIssues", camel: "listIssues", folder: "list_issues" }],
    ["HTTPRequest", { pascal: "HttpRequest", camel: "httpRequest", folder: "http_request" }],
    ["1password", { pascal: "T1password", camel: "t1password", folder: "1password" }],
    ["delete", { pascal: "Delete", camel: "deleteTool", folder: "delete" }],
    ["constructor", { pascal: "Constructor", camel: "constructorTool", folder: "constructor" }],
    ["__proto__", { pascal: "Proto", camel: "proto", folder: "proto" }],
    ["../../etc/passwd", { pascal: "EtcPasswd", camel: "etcPasswd", folder: "etc_passwd" }],
    ["café crème", { pascal: "CafeCreme", camel: "cafeCreme", folder: "cafe_creme" }],
    ["東京", { pascal: "Tool", camel: "tool", folder: "tool" }],
    ['a"b*/c', { pascal: "ABC", camel: "aBC", folder: "a_b_c" }],
  ];
  it.each(cases)("%s", (name, want) => {
    expect({ pascal: pascalCase(name), camel: camelCase(name), folder: folderName(name) }).toEqual(want);
  });

  it("suffixes names that are equal after case conversion, case-insensitively", () => {
    const scope = new NameScope(["index"]);
    expect([
      scope.claim("getRecord"),
      scope.claim("getRecord"),
      scope.claim("GetRecord"),
      scope.claim("Index"),
    ]).toEqual(["getRecord", "getRecord_2", "GetRecord_3", "Index_2"]);
  });
});
