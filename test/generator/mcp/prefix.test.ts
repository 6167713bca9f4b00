/**
 * `toolgate import --prefix`: two servers whose tools have the same names live in one project. Tested with the real
 * filesystem server imported twice (two roots, two prefixes), generated, and called through the generated adapter.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { importTools, PrefixError, type ToolSource } from "../../../generator/mcp/import.js";
import { importedResult } from "../../../generator/mcp/result-settings.js";
import { generate } from "../../../generator/pipeline.js";
import type { ToolAdapter } from "../../../runtime/index.js";
import { toolgate } from "../../cli.js";
import { scratchFolders } from "./scratch.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const filesystemServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);
const runtimeSource = (entry: string) => JSON.stringify(path.join(repo, "runtime", `${entry}.ts`));
const freshFolder = scratchFolders("mcp-prefix-");

const node = (...words: string[]) => ["node", ...words].map((word) => JSON.stringify(word)).join(" ");
const readJson = async (file: string) => JSON.parse(await readFile(file, "utf8"));

const status = {
  name: "get_status",
  outputSchema: {
    type: "object",
    properties: { ok: { type: "boolean" } },
    required: ["ok"],
    additionalProperties: false,
  },
};
const sources = (...definitions: unknown[]): ToolSource[] =>
  definitions.map((definition, i) => ({ definition, origin: `input#${i}` }));

describe("importTools with a prefix", () => {
  it("writes <out>/<prefix>/<tool>.tool.json named <prefix>_<tool>, the server's name kept in x-toolgate.mcp", async () => {
    const out = await freshFolder();
    const report = await importTools(sources(status), { out, prefix: "ops" });
    expect(report.refused).toEqual([]);
    expect(report.imported).toEqual([expect.objectContaining({ tool: "ops_get_status", status: "written" })]);
    expect(await readdir(out)).toEqual(["ops"]);
    const contract = await readJson(path.join(out, "ops", "get_status.tool.json"));
    expect(contract.name).toBe("ops_get_status");
    expect(contract.outputSchema).toEqual(status.outputSchema);
    expect(contract["x-toolgate"]).toEqual({
      version: "1",
      result: importedResult("structured"),
      toolError: { expose: true, maxChars: 500 },
      mcp: { name: "get_status" },
    });

    // Again: unchanged. The same tool without a prefix is another contract, beside it.
    expect((await importTools(sources(status), { out, prefix: "ops" })).imported[0]?.status).toBe("unchanged");
    await importTools(sources(status), { out });
    expect((await readdir(out)).sort()).toEqual(["get_status.tool.json", "ops"]);
  });

  it("keeps the user's x-toolgate block under --force, with the server's name set again", async () => {
    const out = await freshFolder();
    await importTools(sources(status), { out, prefix: "ops" });
    const file = path.join(out, "ops", "get_status.tool.json");
    const tuned = await readJson(file);
    tuned["x-toolgate"] = { version: "3", recall: { max: 2 } };
    await writeFile(file, `${JSON.stringify(tuned, null, 2)}\n`);
    const changed = { ...status, description: "Now described." };
    const forced = await importTools(sources(changed), { out, prefix: "ops", force: true });
    expect(forced.imported[0]?.status).toBe("replaced");
    expect((await readJson(file))["x-toolgate"]).toEqual({
      version: "3",
      recall: { max: 2 },
      mcp: { name: "get_status" },
    });
  });

  it("refuses a prefix that is not a name, and a prefixed name past 128 characters", async () => {
    const out = await freshFolder();
    for (const prefix of ["", "../up", "a b", "-x", "x".repeat(65)]) {
      await expect(importTools(sources(status), { out, prefix })).rejects.toThrow(PrefixError);
    }
    const long = { ...status, name: "t".repeat(120) };
    const report = await importTools(sources(long, status), { out, prefix: "server01" });
    expect(report.refused).toEqual([
      { tool: `server01_${long.name}`, reason: expect.stringMatching(/129 characters.*at most 128/) },
    ]);
    expect(await readdir(path.join(out, "server01"))).toEqual(["get_status.tool.json"]);
  });

  it("does not double a prefix the server's names already carry, unless that would give two tools one name", async () => {
    const out = await freshFolder();
    const named = (name: string) => ({ ...status, name });
    const report = await importTools(sources(named("git_status"), named("log"), named("git_log")), {
      out,
      prefix: "git",
    });
    expect(report.refused).toEqual([]);
    // `log` is called git_log under the prefix, so the server's own git_log keeps the prefix twice.
    expect(report.imported.map(({ tool }) => tool)).toEqual(["git_git_log", "git_status", "git_log"]);
    expect((await readdir(path.join(out, "git"))).sort()).toEqual([
      "git_log.tool.json",
      "git_status.tool.json",
      "log.tool.json",
    ]);
    const mcpNames = async (file: string) => {
      const contract = await readJson(path.join(out, "git", file));
      return [contract.name, contract["x-toolgate"].mcp.name];
    };
    expect(await mcpNames("git_status.tool.json")).toEqual(["git_status", "git_status"]);
    expect(await mcpNames("log.tool.json")).toEqual(["git_log", "log"]);
    expect(await mcpNames("git_log.tool.json")).toEqual(["git_git_log", "git_log"]);

    // --json-text knows a tool by the name it was given, and no tool by the doubled name it was not.
    const again = await importTools(sources(named("git_status"), named("log")), {
      out,
      prefix: "git",
      jsonText: ["git_log", "git_git_status"],
    });
    expect(again.notes.filter((note) => note.startsWith("--json-text"))).toEqual([
      "--json-text git_git_status: the input has no tool of that name",
    ]);
  });

  it("keeps the doubled name of a contract an earlier import wrote, so a re-import renames no tool", async () => {
    const out = await freshFolder();
    await mkdir(path.join(out, "git"));
    const earlier = { ...status, name: "git_git_log", "x-toolgate": { version: "1", mcp: { name: "git_log" } } };
    await writeFile(path.join(out, "git", "git_log.tool.json"), `${JSON.stringify(earlier, null, 2)}\n`);
    const report = await importTools(sources({ ...status, name: "git_log" }, { ...status, name: "git_tag" }), {
      out,
      prefix: "git",
      force: true,
    });
    expect(report.refused).toEqual([]);
    expect(report.imported.map(({ tool }) => tool)).toEqual(["git_git_log", "git_tag"]);
    expect((await readdir(path.join(out, "git"))).sort()).toEqual(["git_log.tool.json", "git_tag.tool.json"]);
    const kept = await readJson(path.join(out, "git", "git_log.tool.json"));
    expect([kept.name, kept["x-toolgate"].mcp.name]).toEqual(["git_git_log", "git_log"]);
  });

  it("exits 2 on a --prefix that is not a name", async () => {
    const run = await toolgate("import", "tools.json", "--prefix", "../x", "--out", await freshFolder());
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--prefix "\.\.\/x": use 1 to 64 letters/);
  });
});

describe("two filesystem servers in one project", () => {
  it("cannot share one name: generate refuses a tool defined twice", async () => {
    const schemas = await freshFolder();
    await mkdir(path.join(schemas, "second"));
    const text = `${JSON.stringify({ ...status, "x-toolgate": { version: "1" } })}\n`;
    await writeFile(path.join(schemas, "get_status.tool.json"), text);
    await writeFile(path.join(schemas, "second", "get_status.tool.json"), text);
    const result = await generate({ schemas, projectRoot: repo });
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/"get_status" is already defined/),
    ]);
  });

  it("import under two prefixes, generate both, and call each server by the name it knows", async () => {
    const dir = await freshFolder();
    for (const root of ["docs", "notes"]) await mkdir(path.join(dir, root));
    await writeFile(path.join(dir, "notes", "todo.txt"), "bound every field\n");
    const schemas = path.join(dir, "schemas");
    const counts: number[] = [];
    for (const prefix of ["docs", "notes"]) {
      const run = await toolgate(
        "import",
        "--stdio",
        node(filesystemServer, path.join(dir, prefix)),
        "--prefix",
        prefix,
        "--out",
        schemas,
      );
      expect(run.err).toBe("");
      expect(run.code).toBe(0);
      const written = /(\d+) written, 0 replaced, 0 unchanged, 0 refused\./.exec(run.out);
      expect(written).not.toBeNull();
      counts.push(Number(written?.[1]));
    }
    expect(counts[0]).toBeGreaterThan(5);
    expect(counts[1]).toBe(counts[0]);
    expect(await readdir(schemas)).toEqual(["docs", "notes"]);
    const contract = await readJson(path.join(schemas, "notes", "read_text_file.tool.json"));
    expect(contract.name).toBe("notes_read_text_file");
    expect(contract["x-toolgate"].mcp).toEqual({ name: "read_text_file" });

    const result = await generate({ schemas, projectRoot: repo });
    if (!result.ok) throw new Error(result.errors.map(String).join("; "));
    const names = result.tools.map((tool) => tool.tool);
    expect(names).toHaveLength(2 * (counts[0] as number));
    expect(names).toEqual(expect.arrayContaining(["docs_read_text_file", "notes_read_text_file"]));
    expect(result.tools.find((tool) => tool.tool === "notes_read_text_file")?.folder).toBe("notes_read_text_file");

    // The generate command itself, into a folder of the project.
    const generated = path.join(dir, "generated");
    const run = await toolgate("generate", "--schemas", schemas, "--out", generated);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const adapterText = await readFile(path.join(generated, "notes_read_text_file", "adapter.ts"), "utf8");
    expect(adapterText).toContain('name: "notes_read_text_file"');
    expect(adapterText).toMatch(/mcp: \{\s*name: "read_text_file",\s*\}/);

    // The generated catalog, run against this source tree's runtime.
    const modules = path.join(dir, "modules");
    for (const [file, text] of result.files) {
      await mkdir(path.dirname(path.join(modules, file)), { recursive: true });
      await writeFile(
        path.join(modules, file),
        text.replace(/from "@toolgate\/runtime(\/validators|\/formats)?"/g, (_, entry: string | undefined) =>
          entry === undefined ? `from ${runtimeSource("index")}` : `from ${runtimeSource(entry.slice(1))}`,
        ),
      );
    }
    const { catalog } = (await import(pathToFileURL(path.join(modules, "index.ts")).href)) as {
      catalog: Record<string, { adapter: ToolAdapter<{ content: string }, unknown, unknown> }>;
    };
    const notes = catalog.notes_read_text_file?.adapter;
    const docs = catalog.docs_read_text_file?.adapter;
    expect(notes?.name).toBe("notes_read_text_file");
    expect(notes?.spec.mcp).toEqual({ name: "read_text_file" });
    expect(docs?.spec.mcp.name).toBe("read_text_file");

    // The model asked for notes_read_text_file: the notes server is called by its own name, and the result admitted.
    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: "node",
        args: [filesystemServer, path.join(dir, "notes")],
        stderr: "ignore",
      }),
    );
    try {
      const raw = await client.callTool({
        name: notes?.spec.mcp.name ?? "",
        arguments: { path: path.join(dir, "notes", "todo.txt") },
      });
      const outcome = await notes?.admit(raw);
      expect(outcome?.ok).toBe(true);
      expect(outcome?.ok && outcome.data.content).toBe("bound every field\n");
    } finally {
      await client.close();
    }
  });
});

describe("a server whose tools already carry the prefix", () => {
  const gitServer = path.join(repo, "test/fixtures/mcp-servers/git-named-server.mjs");

  it("imports git_log under --prefix git as git_log, generates it, and calls the server by the name it knows", async () => {
    const dir = await freshFolder();
    const schemas = path.join(dir, "schemas");
    const run = await toolgate("import", "--stdio", node(gitServer), "--prefix", "git", "--out", schemas);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/3 written, 0 replaced, 0 unchanged, 0 refused\./);
    const contracts = await Promise.all(
      ["blame", "git_log", "git_status"].map((file) => readJson(path.join(schemas, "git", `${file}.tool.json`))),
    );
    expect(contracts.map((contract) => [contract.name, contract["x-toolgate"].mcp.name])).toEqual([
      ["git_blame", "blame"],
      ["git_log", "git_log"],
      ["git_status", "git_status"],
    ]);

    const result = await generate({ schemas, projectRoot: repo });
    if (!result.ok) throw new Error(result.errors.map(String).join("; "));
    expect(result.tools.map((tool) => tool.tool).sort()).toEqual(["git_blame", "git_log", "git_status"]);
    const modules = path.join(dir, "modules");
    for (const [file, text] of result.files) {
      await mkdir(path.dirname(path.join(modules, file)), { recursive: true });
      await writeFile(
        path.join(modules, file),
        text.replace(/from "@toolgate\/runtime(\/validators|\/formats)?"/g, (_, entry: string | undefined) =>
          entry === undefined ? `from ${runtimeSource("index")}` : `from ${runtimeSource(entry.slice(1))}`,
        ),
      );
    }
    const { catalog } = (await import(pathToFileURL(path.join(modules, "index.ts")).href)) as {
      catalog: Record<string, { adapter: ToolAdapter<{ calledAs: string }, unknown, unknown> }>;
    };
    const { toModelContent } = await import("../../../runtime/index.js");

    // Each name the model sees is called by the server's own name, and the result reaches the model whole.
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StdioClientTransport({ command: "node", args: [gitServer], stderr: "ignore" }));
    try {
      for (const [name, served, args] of [
        ["git_log", "git_log", { maxCount: 2 }],
        ["git_status", "git_status", {}],
        ["git_blame", "blame", { path: "README.md" }],
      ] as const) {
        const tool = catalog[name]?.adapter;
        expect(tool, name).toBeDefined();
        const raw = await client.callTool({ name: tool?.spec.mcp.name ?? name, arguments: args });
        const outcome = await tool?.admit(raw);
        expect(outcome?.ok, name).toBe(true);
        if (!outcome?.ok) continue;
        expect(outcome.complete).toBe(true);
        expect(outcome.data.calledAs).toBe(served);
        if (name === "git_log") expect(toModelContent(outcome)).toContain("Bound every field");
      }
    } finally {
      await client.close();
    }
  });
});
