/**
 * Bounds as an overlay, end to end against the real filesystem MCP server over stdio: import its tools, bound
 * `read_text_file`'s `content` in `x-toolgate.refine`, generate. The gate then enforces the refined schema, while the
 * SDK client, given the generated validators as its provider, still finds a validator for the schema the server
 * advertises (its hash did not change) and checks that one. The overlay survives `import --force`, and
 * `toolgate diff` reports it as a tightened bound at its place in the contract.
 */
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolAdapter } from "../../runtime/gate/context.js";
import type { OutputValidators } from "../../runtime/integrations/mcp-validator.js";
import { mcpCallFailure, mcpValidatorProvider, outputSchemaSha256 } from "../../runtime/integrations/mcp-validator.js";
import { toolgate } from "../cli.js";
import { ensureRuntimeBuilt, type FixtureCatalog, generateCatalog, scratchFolder } from "./fixture-catalog.js";

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const REFINE = { "/properties/content": { maxLength: 200_000 } };

let scratch: string;
let files: string;
let contracts: string;
let catalog: FixtureCatalog;

const contractFile = () => path.join(contracts, "read_text_file.tool.json");

async function readContract(): Promise<Record<string, unknown> & { "x-toolgate": Record<string, unknown> }> {
  return JSON.parse(await readFile(contractFile(), "utf8"));
}

async function connect(validators: OutputValidators): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [server, files], stderr: "pipe" });
  const client = new Client(
    { name: "toolgate-overlay", version: "1.0.0" },
    { jsonSchemaValidator: mcpValidatorProvider(validators) },
  );
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  await ensureRuntimeBuilt();
  scratch = await scratchFolder("overlay");
  files = path.join(scratch, "files");
  contracts = path.join(scratch, "schemas");
  await mkdir(files, { recursive: true });
  await writeFile(path.join(files, "small.txt"), "one\ntwo\nthree\n");
  // 300 KB: within what the server advertises (no maxLength), over what the contract accepts (200,000).
  await writeFile(path.join(files, "large.txt"), `${"0123456789abcdef".repeat(64)}\n`.repeat(290));

  const imported = await toolgate(
    "import",
    "--stdio",
    `node ${JSON.stringify(server)} ${JSON.stringify(files)}`,
    "--out",
    contracts,
  );
  expect(imported.err).toBe("");
  expect(imported.code).toBe(0);
  // The review's base: the contracts as imported, before the overlay.
  await cp(contracts, path.join(scratch, "base"), { recursive: true });
  const contract = await readContract();
  contract["x-toolgate"].refine = REFINE;
  // Bounded now, the schema derives its own ceiling: the 1 MiB import wrote for the unbounded one would be too low.
  delete contract["x-toolgate"].receive;
  await writeFile(contractFile(), `${JSON.stringify(contract, null, 2)}\n`);
  catalog = await generateCatalog(contracts, path.join(scratch, "generated"));
  return () => rm(scratch, { recursive: true, force: true });
}, 120_000);

describe("an overlay on a real server's schema", () => {
  it("leaves the advertised schema's hash alone, and the client's provider validates that schema", async () => {
    const { outputValidators, readTextFile } = catalog.index as {
      outputValidators: OutputValidators;
      readTextFile: ToolAdapter<unknown, unknown, unknown>;
    };
    const client = await connect(outputValidators);
    try {
      const listed = await client.listTools();
      const advertised = listed.tools.find((tool) => tool.name === "read_text_file")?.outputSchema;
      const hash = outputSchemaSha256(advertised);
      expect(hash).toBe(catalog.tools.find((tool) => tool.tool === "read_text_file")?.outputSchemaSha256);
      expect(Object.keys(outputValidators)).toContain(hash);

      const small = await client.callTool({
        name: "read_text_file",
        arguments: { path: path.join(files, "small.txt") },
      });
      const ok = await readTextFile.admit(small, { args: { path: "small.txt" } });
      expect(ok.ok && ok.data).toEqual({ content: "one\ntwo\nthree\n" });

      // The client checks what the server advertises, which allows the large file: it does not fail closed…
      const large = await client
        .callTool({ name: "read_text_file", arguments: { path: path.join(files, "large.txt") } })
        .catch(mcpCallFailure);
      expect(large).toHaveProperty("structuredContent");
      // …and the gate enforces the contract's bound.
      const refused = await readTextFile.admit(large);
      if (refused.ok) throw new Error("the refined bound let a 300 KB content through");
      expect(refused.error.code).toBe("schema_mismatch");
      expect(refused.diagnostics.issues).toEqual([
        expect.objectContaining({ instancePath: "/content", keyword: "maxLength" }),
      ]);
    } finally {
      await client.close();
    }
  });

  it("survives import --force, with the rest of x-toolgate", async () => {
    const before = await readContract();
    // As if the server had changed its definition: --force replaces it and keeps the x-toolgate block.
    await writeFile(contractFile(), `${JSON.stringify({ ...before, description: "an older description" }, null, 2)}\n`);
    const run = await toolgate(
      "import",
      "--stdio",
      `node ${JSON.stringify(server)} ${JSON.stringify(files)}`,
      "--out",
      contracts,
      "--force",
    );
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/replaced\s+\S*read_text_file\.tool\.json/);
    const after = await readContract();
    expect(after.description).toBe(before.description);
    expect(after["x-toolgate"]).toEqual(before["x-toolgate"]);
    expect(after["x-toolgate"].refine).toEqual(REFINE);
  });

  it("shows in toolgate diff as a tightened bound at its place in x-toolgate.refine", async () => {
    const run = await toolgate(
      "diff",
      "--base",
      path.join(scratch, "base"),
      "--head",
      contracts,
      "--format",
      "json",
      "--fail-on",
      "tightened",
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.out);
    expect(report.changes).toEqual([
      expect.objectContaining({
        tool: "read_text_file",
        class: "tightened",
        pointer: "/x-toolgate/refine/~1properties~1content/maxLength",
        path: "/content",
        after: 200_000,
      }),
      // The ceiling import wrote for the unbounded schema gave way to the one the bounded schema derives.
      expect.objectContaining({ class: "settings", pointer: "/x-toolgate/receive/maxBytes", after: "derived" }),
    ]);
  });
});
