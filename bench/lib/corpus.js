/**
 * The real MCP tool definitions of ../shared/corpus/mcp-tools as contracts, generated with the real generator.
 *
 * Two sets: the tools that declare an output schema (what an MCP client validates results against), and every
 * schema of every tool, input and output alike, each as the output schema of a contract of its own (the codegen
 * scale test). Each contract gets only a declared receive ceiling; a contract the generator refuses is left out
 * and counted, so one refusal never hides the rest.
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { writeOutput } from "../../dist/generator/emit/write.js";
import { generate } from "../../dist/generator/pipeline.js";

/** Where the corpus lives, relative to the repository root. */
export const CORPUS = path.resolve("..", "shared", "corpus", "mcp-tools");

/** The `x-toolgate` block every corpus contract gets: the corpus schemas are unbounded, so a ceiling is required. */
const CEILING = { receive: { maxBytes: 1_048_576 } };

/**
 * Every tool definition of the corpus, server by server, in a stable order.
 * @returns {Array<{ server: string, file: string, tool: Record<string, any> }>}
 */
export function corpusTools() {
  const folders = [
    "github-mcp-server",
    "sentry-mcp",
    ...readdirSync(path.join(CORPUS, "mcp-proxy-captures"))
      .filter((f) => !f.startsWith("LICENSE"))
      .map((f) => `mcp-proxy-captures/${f}`),
    "mcp-specification/schema/2026-07-28/examples/Tool",
  ].sort();
  const tools = [];
  for (const folder of folders) {
    const dir = path.join(CORPUS, folder);
    for (const file of readdirSync(dir)
      .filter((n) => n.endsWith(".json") && n !== "_server.json")
      .sort()) {
      tools.push({
        server: folder.replaceAll("/", "_"),
        file,
        tool: JSON.parse(readFileSync(path.join(dir, file), "utf8")),
      });
    }
  }
  return tools;
}

/**
 * Writes contracts into `<root>/schemas`, generates them in one run into `<root>/generated`, leaving out (and
 * reporting) the contracts the generator refuses.
 * @param {string} root
 * @param {Array<{ file: string, contract: Record<string, any>, source: unknown }>} contracts
 * @returns {Promise<{ schemas: string, out: string, generated: Array<{ file: string, tool: string, folder: string, source: unknown }>, refused: Array<{ file: string, reason: string }> }>}
 */
export async function generateContracts(root, contracts) {
  const schemas = path.join(root, "schemas");
  const out = path.join(root, "generated");
  await rm(root, { recursive: true, force: true });
  await mkdir(schemas, { recursive: true });
  const byFile = new Map();
  for (const entry of contracts) {
    await writeFile(path.join(schemas, entry.file), JSON.stringify(entry.contract, null, 2));
    byFile.set(entry.file, entry);
  }
  const refused = [];
  for (;;) {
    const result = await generate({ schemas });
    if (result.ok) {
      await writeOutput(out, result.files);
      const generated = result.tools.map((t) => ({
        file: path.basename(t.file),
        tool: t.tool,
        folder: t.folder,
        source: byFile.get(path.basename(t.file))?.source,
      }));
      return { schemas, out, generated, refused };
    }
    // Leave the refused contracts out and generate the rest again, in one run, as a user would.
    const bad = new Set(result.errors.map((e) => path.basename(e.file)));
    if (bad.size === 0) throw new Error("the generator failed without naming a contract");
    for (const file of bad) {
      const reason = result.errors.find((e) => path.basename(e.file) === file)?.message ?? "";
      refused.push({ file, reason: reason.slice(0, 160) });
      await rm(path.join(schemas, file));
    }
  }
}

/** A contract file name for a tool of a server: unique across servers. */
function contractFile(server, file, suffix = "") {
  return `${server}__${file.replace(/\.json$/, "")}${suffix}.tool.json`.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/**
 * The corpus tools with an output schema, as contracts. Tool names that two servers share get the server's name
 * in front, so the whole set generates into one catalog.
 * @param {{ formats?: "annotate" | "assert" }} [options] whether the contracts ask for `format` to be asserted
 * @returns {Array<{ file: string, contract: Record<string, any>, source: { server: string, file: string, schema: unknown } }>}
 */
export function outputSchemaContracts({ formats = "annotate" } = {}) {
  const tools = corpusTools().filter(({ tool }) => tool.outputSchema !== undefined);
  const seen = new Map();
  for (const { tool } of tools) seen.set(tool.name, (seen.get(tool.name) ?? 0) + 1);
  return tools.map(({ server, file, tool }) => {
    const name = seen.get(tool.name) > 1 ? `${server}_${tool.name}` : tool.name;
    return {
      file: contractFile(server, file),
      contract: { ...tool, name, "x-toolgate": formats === "assert" ? { ...CEILING, formats } : CEILING },
      source: { server, file, schema: tool.outputSchema },
    };
  });
}

/**
 * Every schema of every corpus tool (input and output) as the output schema of a contract of its own.
 * @returns {Array<{ file: string, contract: Record<string, any>, source: { server: string, file: string } }>}
 */
export function everySchemaContracts() {
  const contracts = [];
  const names = new Set();
  for (const { server, file, tool } of corpusTools()) {
    for (const key of ["inputSchema", "outputSchema"]) {
      if (tool[key] === undefined) continue;
      let name = `${tool.name}_${key}`;
      if (names.has(name)) name = `${server}_${name}`;
      names.add(name);
      contracts.push({
        file: contractFile(server, file, `.${key}`),
        contract: { name, description: tool.description ?? "", outputSchema: tool[key], "x-toolgate": CEILING },
        source: { server, file },
      });
    }
  }
  return contracts;
}
