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

describe("tokenizerWarning", () => {
  it("names the tools that count tokens when the project has no gpt-tokenizer", async () => {
    const project = await mkdtemp(path.join(tmpdir(), "toolgate-tokenizer-"));
    await writeFile(path.join(project, "package.json"), "{}\n");
    const warning = tokenizerWarning([tool("a", "tokens"), tool("b", "bytes"), tool("c", "tokens")], project);
    expect(warning).toMatch(/^warn 2 tools count their budgets in tokens \(a, c\), but gpt-tokenizer is not installed/);
    expect(warning).toContain("npm install gpt-tokenizer");
  });

  it("says nothing when the project resolves gpt-tokenizer, or no tool counts tokens", async () => {
    expect(tokenizerWarning([tool("a", "tokens")], process.cwd())).toBeUndefined();
    const project = await mkdtemp(path.join(tmpdir(), "toolgate-tokenizer-"));
    expect(tokenizerWarning([tool("a", "bytes")], project)).toBeUndefined();
    // Installed in the project: a package folder with its manifest is enough to resolve it.
    const installed = path.join(project, "node_modules", "gpt-tokenizer");
    await mkdir(installed, { recursive: true });
    await writeFile(path.join(installed, "package.json"), JSON.stringify({ name: "gpt-tokenizer", main: "main.js" }));
    await writeFile(path.join(installed, "main.js"), "");
    expect(tokenizerWarning([tool("a", "tokens")], project)).toBeUndefined();
  });
});
