/**
 * The validator stage reuses one Ajv instance per dialect and option set (`compilerFor`). Reuse must not change one
 * byte of output: every schema compiles, through the shared instance and in any order, to exactly the standalone
 * code a new instance gives it, or fails with exactly the same error. Schemas that share an `$id`, anchors, dynamic
 * references, remote documents, formats asserted and not, other dialects and a boolean schema are all among them.
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import { describe, expect, it } from "vitest";
import type { ResolvedSchema } from "../../../generator/schema/shapes.js";
import {
  compilerFor,
  createCompiler,
  type FormatMode,
  readsEvaluatedLocations,
} from "../../../generator/validator/compiler.js";
import { SchemaIndex } from "../../../generator/validator/schema-index.js";
import { loadGroups } from "../../conformance/suite.js";

/** What a compilation gives: the standalone module, or the message of what it threw. */
type Outcome = { code: string } | { threw: string };

function outcome(compile: () => string): Outcome {
  try {
    return { code: compile() };
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

/** The standalone code of a schema compiled by an instance made for it alone, as every compilation once was. */
function alone(schema: ResolvedSchema, formats: FormatMode): Outcome {
  return outcome(() => {
    const ajv = createCompiler(schema.dialect, formats, readsEvaluatedLocations(new SchemaIndex(schema)));
    for (const uri of Object.keys(schema.documents).sort()) {
      if (uri !== schema.baseUri) ajv.addSchema(schema.documents[uri] as object, uri);
    }
    ajv.addSchema(schema.root as object, schema.baseUri);
    return standaloneModule.default(ajv, { validate: schema.baseUri });
  });
}

/** The same through the shared instance. */
function shared(schema: ResolvedSchema, formats: FormatMode): Outcome {
  return outcome(() => standaloneModule.default(compilerFor(schema, formats), { validate: schema.baseUri }));
}

const FILES = [
  "anchor.json",
  "defs.json",
  "dynamicRef.json",
  "format.json",
  "optional/id.json",
  "optional/anchor.json",
  "ref.json",
  "refRemote.json",
  "unevaluatedProperties.json",
  "uniqueItems.json",
  "multipleOf.json",
  "boolean_schema.json",
  "optional/cross-draft.json",
  "optional/format/date-time.json",
  "optional/format/email.json",
  "optional/format/uri.json",
];

/** Hand-made cases the suite lacks: two schemas under one `$id`, other dialects, another meta-schema named. */
function handMade(): ResolvedSchema[] {
  const schema = (root: unknown, dialect: ResolvedSchema["dialect"] = "2020-12"): ResolvedSchema => ({
    dialect,
    root: root as ResolvedSchema["root"],
    baseUri: "https://example.com/same.json",
    documents: {},
    bundled: root as ResolvedSchema["root"],
    pointer: "",
  });
  return [
    schema({ $id: "https://example.com/same.json", type: "string", maxLength: 3 }),
    schema({ $id: "https://example.com/same.json", type: "integer", $anchor: "n", pattern: "^a" }),
    schema({ $schema: "http://json-schema.org/draft-07/schema#", items: [{ type: "string" }] }, "draft-07"),
    schema({ $schema: "https://json-schema.org/draft/2019-09/schema", unevaluatedProperties: false }, "2019-09"),
    schema({ $schema: "https://json-schema.org/draft/2020-12/meta/validation", type: "string" }),
    schema(true),
  ];
}

describe("the shared Ajv instance", () => {
  const schemas = [...FILES.flatMap((file) => loadGroups(file).map((group) => group.schema)), ...handMade()];

  it("compiles every schema, in either order, to the bytes a new instance gives it", () => {
    expect(schemas.length).toBeGreaterThan(150);
    for (const formats of ["annotate", "assert"] as const) {
      const expected = schemas.map((schema) => alone(schema, formats));
      const forward = schemas.map((schema) => shared(schema, formats));
      const backward = [...schemas].reverse().map((schema) => shared(schema, formats));
      backward.reverse();
      schemas.forEach((schema, i) => {
        expect(forward[i], `${formats} ${schema.baseUri}`).toEqual(expected[i]);
        expect(backward[i], `${formats} ${schema.baseUri}`).toEqual(expected[i]);
      });
      // Not every outcome is an error: the comparison covers real code.
      expect(expected.filter((o) => "code" in o).length).toBeGreaterThan(schemas.length * 0.9);
    }
  });

  it("keeps a validator it compiled working after compiling others", () => {
    const [first, second] = handMade();
    const validate = compilerFor(first as ResolvedSchema, "annotate").getSchema("https://example.com/same.json");
    compilerFor(second as ResolvedSchema, "annotate");
    expect(validate?.("abc")).toBe(true);
    expect(validate?.("abcd")).toBe(false);
    expect(validate?.(1)).toBe(false);
  });
});
