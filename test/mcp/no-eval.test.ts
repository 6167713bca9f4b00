/**
 * The SDK client with the generated validator provider and the generated adapters, bundled with esbuild and run
 * under `node --disallow-code-generation-from-strings`, where `eval` and `new Function` throw: no schema is
 * compiled at run time anywhere on the path from `tools/list` to `toModelContent`.
 */
import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRuntimeBuilt, fixtures, generateCatalog, repo, scratchFolder } from "./fixture-catalog.js";

/** What the client script prints, one JSON line per step. */
type Line =
  | { step: "codegen"; blocked: boolean }
  | { step: "listTools"; tools: string[]; validatorsAsked: number }
  | { step: "call"; tool: string; variant: string; ok: boolean; code?: string; content: string; thrown?: string };

/**
 * The client: what an agent does with toolgate and the SDK. It imports the generated catalog and the precompiled
 * validators by hash (the module the generator should emit as `outputValidators`; written by the test until then).
 */
const CLIENT = `
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { mcpCallFailure, mcpValidatorProvider, toModelContent } from "@toolgate/runtime";
import { getPosition, getWeather, readNote } from "./generated/index.js";
import { outputValidators } from "./output-validators.js";

const print = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
let blocked = false;
try { new Function("return 1")(); } catch { blocked = true; }
print({ step: "codegen", blocked });

let validatorsAsked = 0;
const provider = mcpValidatorProvider(outputValidators);
const counting = { getValidator(schema) { validatorsAsked++; return provider.getValidator(schema); } };
const client = new Client({ name: "eval-free", version: "1.0.0" }, { jsonSchemaValidator: counting });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [process.argv[2]], stderr: "pipe" }));
const listed = await client.listTools();
print({ step: "listTools", tools: listed.tools.map((tool) => tool.name), validatorsAsked });

async function call(adapter, tool, args, viaRequest = false) {
  let thrown;
  const params = { name: tool, arguments: args };
  const raw = await (viaRequest
    ? client.request({ method: "tools/call", params }, CallToolResultSchema)
    : client.callTool(params)
  ).catch((error) => { thrown = error.message; return mcpCallFailure(error); });
  const outcome = await adapter.admit(raw, { args });
  print({ step: "call", tool, variant: args.variant ?? "ok", ok: outcome.ok, code: outcome.ok ? undefined : outcome.error.code, content: toModelContent(outcome), thrown });
}
await call(getWeather, "get_weather", { city: "Oslo" });
await call(getWeather, "get_weather", { city: "Oslo", variant: "wrong_shape" }, true);
await call(readNote, "read_note", { noteId: "n1" });
await call(getPosition, "get_position", { vessel: "Aurora" });
await call(getPosition, "get_position", { vessel: "Aurora", variant: "swapped" });
await client.close();
`;

let lines: Line[];

beforeAll(async () => {
  await ensureRuntimeBuilt();
  const dir = await scratchFolder("no-eval");
  const catalog = await generateCatalog(path.join(fixtures, "contracts"), path.join(dir, "generated"));
  // What the generator should emit in index.ts as `outputValidators`: each tool's validateResult by output-schema hash.
  const imports = catalog.tools.map(
    ({ folder }) => `import { validateResult as ${folder} } from "./generated/${folder}/validate.js";`,
  );
  const entries = catalog.tools.map(({ folder, outputSchemaSha256 }) => `  "${outputSchemaSha256}": ${folder},`);
  await writeFile(
    path.join(dir, "output-validators.ts"),
    `${imports.join("\n")}\nexport const outputValidators = {\n${entries.join("\n")}\n};\n`,
  );
  await writeFile(path.join(dir, "client.ts"), CLIENT);
  await build({
    entryPoints: [path.join(dir, "client.ts")],
    outfile: path.join(dir, "client.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--disallow-code-generation-from-strings", path.join(dir, "client.mjs"), path.join(fixtures, "gated-server.mjs")],
    { cwd: repo, timeout: 60_000 },
  );
  lines = stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
  return () => rm(dir, { recursive: true, force: true });
});

describe("under node --disallow-code-generation-from-strings", () => {
  it("code generation from strings is really blocked", () => {
    expect(lines[0]).toEqual({ step: "codegen", blocked: true });
  });

  it("listTools builds the client's validators from the generated ones", () => {
    expect(lines[1]).toEqual({
      step: "listTools",
      tools: ["get_position", "get_weather", "read_note"],
      validatorsAsked: 3,
    });
  });

  it("every call ends in the outcome its result deserves", () => {
    const calls = lines.filter((line) => line.step === "call");
    expect(calls.map((call) => [call.tool, call.variant, call.ok, call.code ?? null])).toEqual([
      ["get_weather", "ok", true, null],
      ["get_weather", "wrong_shape", false, "schema_mismatch"],
      ["read_note", "ok", true, null],
      ["get_position", "ok", true, null],
      // The client's own check (the generated validator, through the provider) refuses the wrong tuple first.
      ["get_position", "swapped", false, "transport_error"],
    ]);
    const swapped = calls[4];
    expect(swapped?.thrown).toMatch(/does not match the contract at \/position\/0 \(type\)/);
    expect(calls[0]?.content).toMatch(/^<tool_result tool="get_weather" source="sha256:[0-9a-f]{16}" complete="true">/);
    expect(calls[2]?.content).toMatch(/complete="false"/);
  });
});
