/**
 * Hostile input: descriptions, property names, enum values, `$defs` keys and printer keywords an attacker
 * controls. The output must type-check, keep every property name exactly, add no statement and no JSDoc tag,
 * and hold no raw character that ends a line or reorders how code is displayed.
 */
import { Project } from "ts-morph";
import { beforeAll, describe, expect, it } from "vitest";
import { emitTypes, type TypeRequest } from "../../../generator/types/index.js";
import { literal, STRICT_OPTIONS, typeCheck } from "./typecheck.js";

const HOSTILE: Array<[string, string]> = [
  ["double quote", 'say "hi"'],
  ["single quote", "it's"],
  ["backslash", "back\\slash\\"],
  ["comment close", "*/ export const pwned = 1; /*"],
  ["comment open", "/* x"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: template syntax in a schema string is the point
  ["template", "${process.exit(1)}`"],
  ["line separator", "a\u2028b"],
  ["paragraph separator", "a\u2029b"],
  ["NUL", "nul\u0000byte"],
  ["newline", "two\nlines"],
  ["carriage return", "cr\rhere"],
  ["__proto__", "__proto__"],
  ["constructor", "constructor"],
  ["toString", "toString"],
  ["hasOwnProperty", "hasOwnProperty"],
  ["reserved word", "class"],
  ["another reserved word", "delete"],
  ["leading digit", "1x"],
  ["empty", ""],
  ["space", " "],
  ["non-ASCII", "größe"],
  ["CJK", "名前"],
  ["emoji", "🙂"],
  ["bidi override", "\u202eevil"],
  ["zero-width space", "a\u200bb"],
  ["lone surrogate", "lone\ud800"],
  ["JSDoc tag", "@deprecated"],
  ["ts-ignore", "@ts-ignore"],
  ["index signature text", "[k: string]"],
  ["closing brace", "} export const y = 2; {"],
  ["placeholder-like", "$$k0$"],
  ["printer's unit name", "ToolgateTypesUnit"],
];

/** An object with own keys exactly as given (a literal `__proto__` key would set the prototype instead). */
function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** A `$defs` key as a `#/…` reference token (RFC 6901, with `%` escaped for the URI fragment). */
function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1").replaceAll("%", "%25");
}

const names = HOSTILE.map(([, text]) => text);
const description = names.join("\n");

const schema = {
  type: "object",
  title: "*/ title",
  description,
  properties: objectOf([
    ...names.map((name): [string, unknown] => [name, { type: "string", description: name, default: name }]),
    ["literal", { enum: names, description }],
    ["typed", { tsType: "any; export const injected = 1", type: "string", tsEnumNames: ["x"] }],
    [
      "defs",
      {
        type: "array",
        items: {
          anyOf: names.map((name) => ({
            $ref: `#/$defs/${pointerToken(name)}`,
          })),
        },
      },
    ],
  ]),
  required: [...names, "literal"],
  additionalProperties: false,
  $defs: objectOf(names.map((name) => [name, { const: name, description: name }])),
};

describe("hostile input", () => {
  let output = "";
  beforeAll(async () => {
    output = await emitTypes([{ name: "T", schema: schema as TypeRequest["schema"] }]);
  });
  const instances = names.map(
    (value, n) =>
      `export const v${n}: T = ${literal(objectOf([...names.map((name): [string, unknown] => [name, name]), ["literal", value], ["defs", [value]]]))};`,
  );

  it("type-checks, with an instance that uses every hostile name and value", () => {
    expect(typeCheck({ "t.ts": `${output}\n${instances.join("\n")}\n` })).toEqual([]);
  });

  it("keeps every property name exactly and adds no statement", () => {
    const project = new Project({ useInMemoryFileSystem: true, compilerOptions: STRICT_OPTIONS });
    const file = project.createSourceFile("t.ts", output);
    const declared = file.getStatements().map((s) => s.getKindName());
    expect(declared.every((kind) => kind === "InterfaceDeclaration" || kind === "TypeAliasDeclaration")).toBe(true);
    expect(declared).toHaveLength(1 + names.length); // T, and one named type per `$defs` key
    const t = file.getInterfaceOrThrow("T");
    const properties = t
      .getType()
      .getProperties()
      .map((p) => p.getName());
    expect(new Set(properties)).toEqual(new Set([...names, "literal", "typed", "defs"]));
    expect(t.getProperties().filter((p) => !p.hasQuestionToken()).length).toBe(names.length + 1);
    expect(file.getText()).not.toContain("injected");
    expect(t.getPropertyOrThrow("typed").getTypeNodeOrThrow().getText()).toBe("string");
  });

  it("adds no JSDoc tag and no comment directive", () => {
    const project = new Project({ useInMemoryFileSystem: true, compilerOptions: STRICT_OPTIONS });
    const file = project.createSourceFile("t.ts", output);
    const docs = file
      .getStatements()
      .flatMap((s) =>
        "getJsDocs" in s ? (s as never as { getJsDocs(): Array<{ getTags(): unknown[] }> }).getJsDocs() : [],
      );
    const propertyDocs = file
      .getInterfaceOrThrow("T")
      .getProperties()
      .flatMap((p) => p.getJsDocs());
    expect(docs.length + propertyDocs.length).toBeGreaterThan(names.length);
    for (const doc of [...docs, ...propertyDocs]) expect(doc.getTags()).toEqual([]);
    // `@ts-ignore` / `@ts-expect-error` at a line start (after `*`) would silence errors below it
    expect(output).not.toMatch(/^[\s*/]*@ts-/m);
  });

  it("holds no raw line terminator other than \\n, control, bidi or invisible character, or lone surrogate", () => {
    expect(output).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
      /[\r\u2028\u2029\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/,
    );
    expect(output).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it("names every `$defs` type from its key, prefixed by the request name, without collision", () => {
    const typeNames = [...output.matchAll(/^export (?:interface|type) (\S+)/gm)].map((m) => m[1]);
    expect(new Set(typeNames).size).toBe(typeNames.length);
    for (const name of typeNames) expect(name).toMatch(/^T[A-Za-z0-9]*$/);
  });

  it.each(HOSTILE)("a description with %s is kept as comment text", async (_label, text) => {
    const out = await emitTypes([{ name: "D", schema: { type: "string", description: `before ${text} after` } }]);
    expect(out).toMatch(/^\/\*\*\n(?: \*.*\n)+ \*\/\nexport type D = string;\n$/);
  });

  it("every such description type-checks", async () => {
    const files: Record<string, string> = {};
    for (const [n, [, text]] of HOSTILE.entries()) {
      files[`d${n}.ts`] = await emitTypes([
        { name: "D", schema: { type: "string", description: `before ${text} after` } },
      ]);
    }
    expect(typeCheck(files)).toEqual([]);
  });
});
