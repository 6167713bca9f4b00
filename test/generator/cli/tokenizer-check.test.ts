/**
 * A contract that counts tokens needs gpt-tokenizer where the adapters run. `generate` warns when the project
 * cannot resolve it, and only then.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tokenizerWarning } from "../../../generator/cli/tokenizer-check.js";
import type { ToolSummary } from "../../../generator/pipeline.js";

function tool(name: string, unit: "bytes" | "tokens"): ToolSummary {
  return {
    tool: name,
    file: `${name}.tool.json`,
    folder: name,
    maxBytes: 1024,
    derivedMaxBytes: 1024,
    findings: [],
    context: { unit, max: 100 },
  } as ToolSummary;
}

/** A package folder with a manifest and an empty entry: enough for Node to resolve it. */
async function fakePackage(project: string, name: string): Promise<void> {
  const dir = path.join(project, "node_modules", ...name.split("/"));
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "package.json"), JSON.stringify({ name, main: "index.js" }));
  await writeFile(path.join(dir, "index.js"), "");
}

async function project(...packages: string[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "toolgate-tokenizer-"));
  await writeFile(path.join(dir, "package.json"), "{}\n");
  for (const name of packages) await fakePackage(dir, name);
  return dir;
}

describe("tokenizerWarning", () => {
  it("names the tools that count tokens when the installed runtime cannot load gpt-tokenizer", async () => {
    const dir = await project("@toolgate/runtime");
    const warning = tokenizerWarning([tool("a", "tokens"), tool("b", "bytes"), tool("c", "tokens")], dir);
    expect(warning).toMatch(/^warn 2 tools count their budgets in tokens \(a, c\), but gpt-tokenizer is not installed/);
    expect(warning).toContain("npm install gpt-tokenizer");
  });

  it("says nothing when the runtime resolves gpt-tokenizer, when no tool counts tokens, or with no runtime", async () => {
    expect(tokenizerWarning([tool("a", "tokens")], process.cwd())).toBeUndefined();
    expect(
      tokenizerWarning([tool("a", "tokens")], await project("@toolgate/runtime", "gpt-tokenizer")),
    ).toBeUndefined();
    expect(tokenizerWarning([tool("a", "bytes")], await project("@toolgate/runtime"))).toBeUndefined();
    expect(tokenizerWarning([tool("a", "tokens")], await project())).toBeUndefined();
  });
});
