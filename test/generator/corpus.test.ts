/**
 * Every tool definition of ../shared/corpus/mcp-tools, given only a declared receive ceiling, either generates files
 * that type-check, or is refused for something in its schema with file, pointer and reason.
 *
 * Two passes: the tools as their servers publish them, and every schema they hold (input and output alike) as the
 * output schema of a contract of its own, so input schemas go through the types and validator stages too.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ContractError } from "../../generator/contract/errors.js";
import { writeOutput } from "../../generator/emit/write.js";
import { generate } from "../../generator/pipeline.js";

const CORPUS = path.resolve("..", "shared", "corpus", "mcp-tools");
const WORK = path.resolve(".tmp", "corpus");
const CEILING = { "x-toolgate": { receive: { maxBytes: 1_048_576 } } };

interface Server {
  name: string;
  tools: Array<{ file: string; tool: Record<string, unknown> }>;
}

async function servers(): Promise<Server[]> {
  const found: Server[] = [];
  const folders = [
    "github-mcp-server",
    "sentry-mcp",
    ...(await readdir(path.join(CORPUS, "mcp-proxy-captures")))
      .filter((f) => !f.startsWith("LICENSE"))
      .map((f) => `mcp-proxy-captures/${f}`),
    "mcp-specification/schema/2026-07-28/examples/Tool",
  ];
  for (const folder of folders.sort()) {
    const dir = path.join(CORPUS, folder);
    const names = (await readdir(dir)).filter((n) => n.endsWith(".json") && n !== "_server.json").sort();
    const tools = [];
    for (const name of names)
      tools.push({ file: name, tool: JSON.parse(await readFile(path.join(dir, name), "utf8")) });
    found.push({ name: folder.replaceAll("/", "_"), tools });
  }
  return found;
}

interface PassResult {
  contracts: number;
  generated: number;
  refused: Map<string, ContractError[]>;
}

/** Write one folder of contracts per server, generate each into .tmp/corpus/<pass>/<server>/generated. */
async function runPass(
  pass: string,
  contractsOf: (server: Server) => Array<[string, Record<string, unknown>]>,
): Promise<PassResult> {
  const result: PassResult = { contracts: 0, generated: 0, refused: new Map() };
  for (const server of await servers()) {
    const root = path.join(WORK, pass, server.name);
    const schemas = path.join(root, "schemas");
    await mkdir(schemas, { recursive: true });
    const contracts = contractsOf(server);
    // Generate one contract at a time so one refusal does not hide the others' output.
    for (const [file, contract] of contracts) {
      result.contracts++;
      const single = path.join(schemas, file.replace(/\.json$/, ""));
      await mkdir(single, { recursive: true });
      await writeFile(path.join(single, `${path.basename(single)}.tool.json`), JSON.stringify(contract, null, 2));
      const generated = await generate({ schemas: single });
      if (generated.ok) {
        result.generated++;
        await writeOutput(path.join(root, "generated", path.basename(single)), generated.files);
      } else {
        result.refused.set(`${server.name}/${file}`, generated.errors);
      }
    }
  }
  return result;
}

/** The counts for the conformance report (`.tmp/conformance/mcp-corpus.json`), one entry per pass. */
async function recordCounts(pass: string, result: PassResult, reasons: Map<string, number>): Promise<void> {
  const file = path.resolve(".tmp", "conformance", "mcp-corpus.json");
  await mkdir(path.dirname(file), { recursive: true });
  const existing = existsSync(file) ? JSON.parse(await readFile(file, "utf8")) : {};
  existing[pass] = {
    contracts: result.contracts,
    generated: result.generated,
    refused: result.refused.size,
    reasons: Object.fromEntries([...reasons].sort((a, b) => b[1] - a[1])),
  };
  await writeFile(file, JSON.stringify(existing, null, 2));
}

/** Type-check every generated file under a folder with the project's own strict settings; "" when clean. */
async function typeCheck(dir: string): Promise<string> {
  const config = path.join(dir, "tsconfig.json");
  const settings = { extends: path.relative(dir, path.resolve("tsconfig.json")), include: ["**/generated/**/*.ts"] };
  await writeFile(config, JSON.stringify(settings));
  try {
    execFileSync(process.execPath, [path.resolve("node_modules", "typescript", "bin", "tsc"), "-p", config], {
      encoding: "utf8",
    });
    return "";
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe("real MCP tool definitions", () => {
  beforeAll(async () => {
    await rm(WORK, { recursive: true, force: true });
  });

  it("as published: each generates and type-checks, or is refused with file, pointer and reason", async () => {
    const pass = await runPass("tools", (server) =>
      server.tools.map(({ file, tool }) => [file, { ...tool, ...CEILING }]),
    );
    const reasons = new Map<string, number>();
    for (const [tool, errors] of pass.refused) {
      expect(errors.length, tool).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error.file, tool).toMatch(/\.tool\.json$/);
        expect(typeof error.pointer, tool).toBe("string");
        const reason = error.message.replace(/".*?"/g, "…");
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
    console.log(`corpus tools: ${pass.contracts} contracts, ${pass.generated} generated, ${pass.refused.size} refused`);
    await recordCounts("tools", pass, reasons);
    for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  ${count} × ${reason}`);
    expect(pass.generated).toBeGreaterThan(0);
    expect(await typeCheck(path.join(WORK, "tools"))).toBe("");
  });

  it("every schema, input and output alike, as an output schema", async () => {
    const pass = await runPass("schemas", (server) =>
      server.tools.flatMap(({ file, tool }) =>
        (["inputSchema", "outputSchema"] as const)
          .filter((key) => tool[key] !== undefined)
          .map((key): [string, Record<string, unknown>] => [
            file.replace(/\.json$/, `.${key}.json`),
            { name: `${String(tool.name)}_${key}`, outputSchema: tool[key], ...CEILING },
          ]),
      ),
    );
    console.log(`corpus schemas: ${pass.contracts} schemas, ${pass.generated} generated, ${pass.refused.size} refused`);
    const reasons = new Map<string, number>();
    for (const [schema, errors] of pass.refused)
      for (const e of errors) reasons.set(`${schema}: ${e.pointer}: ${e.message}`, 1);
    await recordCounts("schemas", pass, reasons);
    for (const [schema, errors] of pass.refused) {
      for (const error of errors) console.log(`  refused ${schema}: ${error.pointer}: ${error.message}`);
      for (const error of errors) expect(error.pointer, schema).toMatch(/^\/outputSchema/);
    }
    expect(pass.generated).toBeGreaterThan(0);
    expect(existsSync(path.join(WORK, "schemas"))).toBe(true);
    expect(await typeCheck(path.join(WORK, "schemas"))).toBe("");
  });
});
