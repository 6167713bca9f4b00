/**
 * The AI SDK path under `node --disallow-code-generation-from-strings`, where `eval` and `new Function` throw: an
 * app (the AI SDK and its mock model, `@toolgate/runtime/ai-sdk` from its built dist, and the generated catalog,
 * bundled with esbuild) runs a gated `generateText`; the model still gets the gated view, and a schema-breaking
 * result is still refused by the generated validator.
 */
import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureRuntimeBuilt, generateCatalog, repo, scratchFolder } from "../mcp/fixture-catalog.js";
import { contractFile, expectModelSaw, ordersValue, TOOL } from "./fixture.js";

/** What the app prints, one JSON line per step. */
type Line =
  | { step: "codegen"; blocked: boolean }
  | { step: "run"; variant: string; seen: string; ok: boolean; code?: string; outcomes: number; text: string };

/**
 * The app: `list_orders` as an in-process tool answering the value in `values.json`, gated, in `generateText`'s
 * loop with the AI SDK's mock model (which calls the tool once, then answers).
 */
const APP = `
import { readFileSync } from "node:fs";
import { generateText, isStepCount, jsonSchema, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Turn } from "@toolgate/runtime";
import { gateTools, outcomeOf } from "@toolgate/runtime/ai-sdk";
import { catalog } from "./generated/index.js";

const print = (line) => process.stdout.write(JSON.stringify(line) + "\\n");
let blocked = false;
try { new Function("return 1")(); } catch { blocked = true; }
print({ step: "codegen", blocked });

const values = JSON.parse(readFileSync(new URL("./values.json", import.meta.url), "utf8"));
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const tools = {
  ${TOOL}: tool({
    inputSchema: jsonSchema({ type: "object", properties: { variant: { type: "string" } } }),
    execute: async ({ variant }) => values[variant],
  }),
};

for (const variant of ["ok", "invalid"]) {
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) =>
      prompt.some((message) => message.role === "tool")
        ? { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
        : {
            content: [{ type: "tool-call", toolCallId: "c1", toolName: "${TOOL}", input: JSON.stringify({ variant }) }],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          },
  });
  const turn = new Turn();
  const result = await generateText({
    model,
    tools: gateTools(tools, catalog, { context: { turn } }),
    prompt: "List the orders.",
    stopWhen: isStepCount(3),
  });
  const output = model.doGenerateCalls[1].prompt.at(-1).content[0].output;
  const outcome = outcomeOf(result.steps[0].toolResults[0].output);
  print({
    step: "run",
    variant,
    seen: output.value,
    ok: outcome.ok,
    code: outcome.ok ? undefined : outcome.error.code,
    outcomes: turn.report().contributions.length,
    text: result.text,
  });
}
`;

let lines: Line[];

beforeAll(async () => {
  await ensureRuntimeBuilt();
  const dir = await scratchFolder("ai-sdk-no-eval");
  await generateCatalog(path.dirname(contractFile), path.join(dir, "generated"));
  const values = { ok: ordersValue("acme", "ok"), invalid: ordersValue("acme", "invalid") };
  await writeFile(path.join(dir, "values.json"), JSON.stringify(values));
  await writeFile(path.join(dir, "app.ts"), APP);
  await build({
    entryPoints: [path.join(dir, "app.ts")],
    outfile: path.join(dir, "app.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    // The packages load from node_modules as an app's would (`ai` and `@toolgate/runtime`'s built dist); the
    // generated catalog, TypeScript, is bundled.
    packages: "external",
    logLevel: "silent",
  });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--disallow-code-generation-from-strings", path.join(dir, "app.mjs")],
    { cwd: repo, timeout: 60_000 },
  );
  lines = stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
  return () => rm(dir, { recursive: true, force: true });
});

describe("a gated generateText under node --disallow-code-generation-from-strings", () => {
  it("code generation from strings is really blocked", () => {
    expect(lines[0]).toEqual({ step: "codegen", blocked: true });
  });

  it("the model reads the gated view of a valid result, and the app has its outcome", () => {
    const run = lines.find((line) => line.step === "run" && line.variant === "ok");
    if (run?.step !== "run") throw new Error("no run of ok");
    expectModelSaw(run.seen, "ok");
    expect([run.ok, run.outcomes, run.text]).toEqual([true, 1, "done"]);
  });

  it("a schema-breaking result is refused by the generated validator, and the model reads the typed failure", () => {
    const run = lines.find((line) => line.step === "run" && line.variant === "invalid");
    if (run?.step !== "run") throw new Error("no run of invalid");
    expectModelSaw(run.seen, "invalid");
    expect([run.ok, run.code, run.outcomes]).toEqual([false, "schema_mismatch", 1]);
  });
});
