/**
 * Where the generated validator code goes, and what each way of shrinking it would buy at cold start. A
 * measurement for the plan, not a second generator: every variant compiles the same corpus output schemas with
 * toolgate's own compiler options and module assembly (from dist/generator/validator/), changing one thing at a
 * time, and is timed in the same cold-start harness as the shipped output, bundled, interleaved with it.
 *
 * - `shipped`: the generated `validate.js` modules as they are (result and input validator in one module);
 * - `result-only`: the same code for the result validator alone;
 * - `no-messages`: also Ajv's `messages: false` (the gate never reads `message`) and no unused schema literals;
 * - `folded-nullable`: also `anyOf: [{type: T, …}, {type: "null"}]` folded into `type: [T, "null"]`, when the
 *   branch holds only keywords that apply to T alone (so null passes either way), and no `unevaluated*` keyword
 *   looks at the annotations the fold removes.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";
import { build } from "esbuild";
import { compilerOptions } from "../dist/generator/validator/compiler.js";
import { assembleModule } from "../dist/generator/validator/esm-module.js";
import { multipleOfKeyword } from "../dist/generator/validator/multiple-of.js";

/** Keywords that only ever assert something about a value of the named type (null passes them all). */
const TYPE_ONLY = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
  ],
  array: ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"],
  boolean: [],
};
const ANNOTATIONS = ["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];

/** The `anyOf` of a schema folded into a nullable type where that is sound; a copy, the input is not changed. */
export function foldNullable(schema) {
  if (JSON.stringify(schema).includes('"unevaluated')) return schema;
  const fold = (node) => {
    if (Array.isArray(node)) return node.map(fold);
    if (node === null || typeof node !== "object") return node;
    const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fold(value)]));
    const branches = out.anyOf;
    if (!Array.isArray(branches) || branches.length !== 2 || "type" in out) return out;
    const nullIndex = branches.findIndex(
      (b) => b && b.type === "null" && Object.keys(b).every((k) => k === "type" || ANNOTATIONS.includes(k)),
    );
    const other = branches[1 - nullIndex];
    if (nullIndex < 0 || !other || typeof other.type !== "string" || !(other.type in TYPE_ONLY)) return out;
    const allowed = new Set(["type", ...TYPE_ONLY[other.type], ...ANNOTATIONS]);
    if (!Object.keys(other).every((k) => allowed.has(k))) return out;
    if (Object.keys(other).some((k) => k !== "type" && k in out && !ANNOTATIONS.includes(k))) return out;
    const { anyOf: _dropped, ...rest } = out;
    const merged = { ...rest };
    for (const [key, value] of Object.entries(other)) if (!(key in merged)) merged[key] = value;
    merged.type = [other.type, "null"];
    return merged;
  };
  return fold(schema);
}

function dialectClass(schema) {
  const declared = typeof schema?.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-07")) return Ajv;
  if (declared.includes("2019-09")) return Ajv2019;
  return Ajv2020;
}

/** One result validator module body, compiled the way the validator stage does, with option changes. */
function compileResult(schema, { messages }) {
  const Dialect = dialectClass(schema);
  const ajv = new Dialect({ ...compilerOptions("annotate"), messages });
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword(multipleOfKeyword);
  addFormats.default(ajv, { mode: "full" });
  ajv.addSchema(schema, "urn:toolgate:result");
  const code = standaloneModule.default(ajv, { validateResult: "urn:toolgate:result" });
  return assembleModule([{ exportName: "validateResult", code }]);
}

/** Drops `const schemaN = …;` lines whose name is used nowhere else in its validator's scope. */
export function dropUnusedSchemaLiterals(code) {
  return code
    .split(/^(?=export const )/m)
    .map((section) =>
      section.replace(/^const (schema\d+) = .*\n/gm, (line, name) =>
        section.split(new RegExp(`\\b${name}\\b`)).length > 2 ? line : "",
      ),
    )
    .join("");
}

/**
 * Writes every variant's validator set (one module per schema, as generated) and its bundle.
 * @param {Awaited<ReturnType<import("./cold-start.js").prepareColdStart>>} prepared
 */
export async function prepareSizeVariants(prepared) {
  const variants = {
    "result-only": (schema) => compileResult(schema, { messages: true }),
    "no-messages": (schema) => dropUnusedSchemaLiterals(compileResult(schema, { messages: false })),
    "folded-nullable": (schema) => dropUnusedSchemaLiterals(compileResult(foldNullable(schema), { messages: false })),
  };
  const built = [];
  for (const [name, emit] of Object.entries(variants)) {
    const dir = path.join(prepared.setModules, `size-${name}`);
    await mkdir(dir, { recursive: true });
    let bytes = 0;
    const imports = [];
    for (const [index, chosen] of prepared.chosen.entries()) {
      const code = emit(chosen.schema);
      bytes += code.length;
      await writeFile(path.join(dir, `v${index}.js`), code);
      imports.push(`import { validateResult as v${index} } from "./v${index}.js";`);
    }
    const set = path.join(dir, "set.js");
    await writeFile(
      set,
      `${imports.join("\n")}\nexport function validators() { return [${prepared.chosen.map((_, i) => `v${i}`).join(", ")}]; }\n`,
    );
    const outdir = path.join(dir, "bundle");
    const bundled = await build({
      entryPoints: [set],
      outdir,
      bundle: true,
      splitting: true,
      minify: true,
      format: "esm",
      platform: "node",
      metafile: true,
      logLevel: "silent",
    });
    const bundleBytes = Object.values(bundled.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
    built.push({
      name: `size-${name}`,
      form: "bundle",
      module: path.join(outdir, "set.js"),
      samples: path.join(prepared.setModules, "samples.json"),
      sourceBytes: bytes,
      bundleBytes,
      set,
    });
  }
  return built;
}
