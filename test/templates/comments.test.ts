/**
 * Descriptions are hostile text that the generator writes into comments: the tool's JSDoc in `adapter.ts`, the
 * schema's in `types.ts`. Invariant: whatever a contract's descriptions hold, no bidi control, no line or paragraph
 * separator, no comment end (`*` then `/`) and no JSDoc tag from the contract reaches any generated file, and every
 * word of the text is still there to read.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Project } from "ts-morph";
import { beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../generator/pipeline.js";
import { jsdoc } from "../../templates/code.js";

const WORK = path.resolve(".tmp", "comments");

/** Descriptions that try to reorder, close or tag the comment they are written into. */
const HOSTILE = [
  "@internal hides the adapter from declarations",
  "\u202eevil\u202c reversed",
  "ends */ export const pwned = 1; /* here",
  "line\u2028sep\u2029para",
  " @deprecated after a space\n@see second line",
  "isolate\u2066d\u2069 and mark\u200f",
];

/** Characters that reorder how code is displayed, or end a line where the reader sees none. */
const BIDI_OR_SEPARATOR = /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function contract(name: string, description: string) {
  return {
    name,
    description,
    outputSchema: {
      type: "object",
      description,
      properties: { id: { type: "string", maxLength: 8, description } },
      required: ["id"],
      additionalProperties: false,
    },
  };
}

/** The JSDoc tags ts-morph finds anywhere in a source file. */
function tagsOf(text: string): string[] {
  const project = new Project({ useInMemoryFileSystem: true });
  const file = project.createSourceFile("f.ts", text);
  return file
    .getDescendants()
    .flatMap((node) => ("getJsDocs" in node ? (node as never as { getJsDocs(): never[] }).getJsDocs() : []))
    .flatMap((doc: { getTags(): Array<{ getTagName(): string }> }) => doc.getTags().map((tag) => tag.getTagName()));
}

describe("one strict comment writer", () => {
  let files: Map<string, string>;
  beforeAll(async () => {
    await rm(WORK, { recursive: true, force: true });
    const schemas = path.join(WORK, "schemas");
    await mkdir(schemas, { recursive: true });
    for (const [i, description] of HOSTILE.entries()) {
      await writeFile(path.join(schemas, `tool${i}.tool.json`), JSON.stringify(contract(`tool${i}`, description)));
    }
    const result = await generate({ schemas });
    if (!result.ok) throw new Error(result.errors.map(String).join("\n"));
    files = result.files;
  });

  it("lets no bidi control or line separator from a contract into any generated file", () => {
    for (const [name, text] of files) expect(text, name).not.toMatch(BIDI_OR_SEPARATOR);
  });

  it("lets no description close its comment or add a JSDoc tag to adapters and types", () => {
    for (const [i] of HOSTILE.entries()) {
      for (const file of ["adapter.ts", "types.ts"]) {
        const text = files.get(`tool${i}/${file}`) as string;
        expect(text).not.toContain("pwned = 1;\n");
        expect(tagsOf(text), `tool${i}/${file}`).toEqual([]);
      }
    }
  });

  it("keeps the text readable, spelled out where it would be hidden", () => {
    const adapter = (i: number) => files.get(`tool${i}/adapter.ts`) as string;
    expect(adapter(0)).toContain("/** \\@internal hides the adapter from declarations */");
    expect(adapter(1)).toContain("\\u202eevil\\u202c reversed");
    expect(adapter(2)).toContain("ends *\\/ export const pwned = 1; /* here");
    expect(adapter(3)).toContain("line\\u2028sep\\u2029para");
  });

  it("writes the same text for adapters as for types (one rule)", () => {
    expect(jsdoc("\u202e@internal */").text).toBe("/** \\u202e@internal *\\/ */\n");
    expect(jsdoc("@internal").text).toBe("/** \\@internal */\n");
  });
});
