/**
 * What the layout of the generated validators costs at cold start, and what is left to gain. A measurement for the
 * plan, not a second generator: every variant rearranges the generator's own output for the corpus (the catalog
 * module `validators.js`, formats annotated or asserted), changing one thing, and is timed in the same cold-start
 * harness as the shipped output, interleaved with it.
 *
 * - `per-tool-modules` (plain ESM): each result validator in a module of its own, the layout before `validators.js`
 *   and what importing the tools one by one still costs: each module a start loads adds its own resolution, read,
 *   parse and link, whatever its size.
 *
 * Shipped since, and so no longer measured here: the light run-time entries, the nullable fold, no Ajv messages or
 * unused schema literals, one catalog module, and the format checks as an ES module (`runtime/formats.ts`; as
 * ajv-formats' CommonJS module it cost 45 asserted schemas 29 ms instead of 20 ms under plain ESM).
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { outputSchemaSha256 } from "../runtime/dist/integrations/mcp-validator.js";

/**
 * A catalog's `validators.js`, cut into its import lines, what its tools share, its result validators by export name,
 * and their hashes.
 */
export function catalogSections(code) {
  const imports = [...code.matchAll(/^import .*;$/gm)].map((m) => m[0]);
  const body = code.slice(0, code.indexOf("/**\n * Each output validator"));
  // What the module declares before its first tool (the shared first-error function) goes into every tool's module.
  const shared = body
    .slice(0, body.search(/^export const [A-Za-z_$][\w$]* = \(\(\) => \{/m))
    .replace(/^import .*;$/gm, "")
    .trim();
  const sections = new Map();
  for (const section of body.split(/^(?=export const [A-Za-z_$][\w$]* = \(\(\) => \{)/m).slice(1)) {
    const name = /^export const ([A-Za-z_$][\w$]*) =/.exec(section)[1];
    sections.set(name, section.trimEnd());
  }
  const byHash = new Map([...code.matchAll(/^ {2}"([0-9a-f]{64})": ([A-Za-z_$][\w$]*),$/gm)].map((m) => [m[1], m[2]]));
  return { imports, shared, sections, byHash };
}

/** A validator-set module: one import per validator (by module and export name), in the order of the samples. */
function setModule(imports) {
  return `${imports.map(({ from, name }, i) => `import { ${name} as v${i} } from ${JSON.stringify(from)};`).join("\n")}\nexport function validators() { return [${imports.map((_, i) => `v${i}`).join(", ")}]; }\n`;
}

/**
 * Writes every variant's validator set and returns them as extra cold-start contenders.
 * @param {Awaited<ReturnType<import("./cold-start.js").prepareColdStart>>} prepared
 */
export async function prepareSizeVariants(prepared) {
  const samples = path.join(prepared.setModules, "samples.json");
  const hashes = prepared.chosen.map((c) => outputSchemaSha256(c.schema));
  const built = [];

  // per-tool-modules: the annotated catalog, one module per result validator.
  {
    const code = readFileSync(path.join(prepared.generatedOut, "validators.js"), "utf8");
    const { imports, shared, sections, byHash } = catalogSections(code);
    const dir = path.join(prepared.setModules, "size-per-tool-modules");
    await mkdir(dir, { recursive: true });
    let sourceBytes = 0;
    const wanted = [];
    for (const [name, section] of sections) {
      const module = `${imports.join("\n")}\n\n${shared}\n\n${section}\n`;
      sourceBytes += module.length;
      await writeFile(path.join(dir, `${name}.js`), module);
    }
    for (const hash of hashes) {
      const name = byHash.get(hash);
      wanted.push({ from: `./${name}.js`, name });
    }
    const set = path.join(dir, "set.js");
    await writeFile(set, setModule(wanted));
    built.push({ name: "size-per-tool-modules", form: "esm", module: set, samples, sourceBytes, set });
  }

  return built;
}
