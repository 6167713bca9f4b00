/**
 * Every TypeScript block of the READMEs and of the docs/ pages compiles, as a user would paste it beside the `generated/` folder it is
 * written for, under `strict`, `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`: a block about the tool
 * `toolgate init` writes (`getWeather`) beside what `init` and `generate` make in a fresh project, a block that runs
 * the filesystem server beside what `toolgate import` makes of that real server's tools, and every other block beside
 * the repository's example `generated/` folder. What a block leaves to the user (the model client, the message list,
 * the function that calls the tool) is declared once below, typed as the user's own code would be.
 */

import { readdirSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runInit } from "../../generator/cli/init.js";
import { ensureBuilt } from "../build.js";
import { toolgate } from "../cli.js";
import { checkSnippets, extractSnippets, readSnippets, type Snippet } from "./snippets.js";

const REPO = path.resolve(import.meta.dirname, "..", "..");
/** Every Markdown page under docs/, relative to the repository, in a stable order. */
function docsPages(): string[] {
  return readdirSync(path.join(REPO, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md") && !file.split(path.sep).includes("node_modules"))
    .map((file) => path.posix.join("docs", ...file.split(path.sep)))
    .sort();
}
const READMES = ["README.md", "runtime/README.md"];
const DOCS = [...READMES, ...docsPages()];
/** Fresh user projects inside the repository, so their generated code finds `@toolgate/runtime` as a user's does. */
const PROJECTS = path.join(REPO, ".tmp", "readme-snippets");
const QUICK_START = path.join(PROJECTS, "quick-start");
const FILESYSTEM = path.join(PROJECTS, "filesystem");
const filesystemServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);

/** The project a block is written for: the one `init` starts, the filesystem server's, or the repository's. */
function folderOf(snippet: Snippet): string {
  if (/\bgetWeather\b/.test(snippet.code)) return QUICK_START;
  if (snippet.code.includes("@modelcontextprotocol/server-filesystem")) return FILESYSTEM;
  return REPO;
}

/** Run the CLI in-process; throws with its output unless it exits 0. */
async function cli(...argv: string[]): Promise<string> {
  const run = await toolgate(...argv);
  if (run.code !== 0) throw new Error(`toolgate ${argv.join(" ")} exited ${run.code}:\n${run.out}\n${run.err}`);
  return run.out;
}

/** The two user projects, made as the README makes them: `init` then `generate`; `import --stdio` then `generate`. */
async function makeProjects(): Promise<void> {
  await rm(PROJECTS, { recursive: true, force: true });
  for (const dir of [QUICK_START, FILESYSTEM]) {
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "package.json"),
      '{ "name": "app", "type": "module", "scripts": { "build": "tsc" } }\n',
    );
  }
  const silent = { out: () => {}, err: (line: string) => console.error(line) };
  expect(await runInit([], silent, QUICK_START)).toBe(0);
  await cli("generate", "--schemas", path.join(QUICK_START, "schemas"), "--out", path.join(QUICK_START, "generated"));

  const docs = path.join(FILESYSTEM, "docs");
  await mkdir(docs);
  const command = [process.execPath, filesystemServer, docs].map((word) => JSON.stringify(word)).join(" ");
  await cli("import", "--stdio", command, "--out", path.join(FILESYSTEM, "schemas"));
  await cli("generate", "--schemas", path.join(FILESYSTEM, "schemas"), "--out", path.join(FILESYSTEM, "generated"));
}

/** The user's side of the examples: a script, so every name is global to the blocks. */
const PRELUDE = `
type Generated = typeof import("./generated/index.js");
type GetRecordResult = import("./generated/index.js").GetRecordResult;

/** One message of the conversation, as the user's model client takes it. */
interface Message {
  role: "user" | "assistant" | "tool";
  content: string;
  toolCallId?: string;
}
/** The user's model client: a reply is text, or one tool call with the arguments the model chose. */
declare const model: {
  respond(request: { messages: readonly Message[]; tools: readonly unknown[] }): Promise<{
    text?: string;
    toolCall?: { id: string; name: string; args: Record<string, unknown> };
  }>;
};
declare const messages: Message[];
/** The user's own transport for a tool: whatever it delivers goes to admit. */
declare function callTheTool(args: object): Promise<string>;
declare const argsFromModel: unknown;
declare const correlationId: string;
declare const url: string;
declare function use(record: GetRecordResult): void;
`;

// The blocks import the runtime as a user does, through its package's exports: its built declarations.
beforeAll(async () => {
  await ensureBuilt();
  await makeProjects();
  return () => rm(PROJECTS, { recursive: true, force: true });
}, 120_000);

describe("the README and docs/ examples", () => {
  const snippets = readSnippets(REPO, DOCS);

  it("finds the blocks of both READMEs and of the docs pages that teach an API", () => {
    for (const file of READMES) expect(snippets.filter((s) => s.file === file).length, file).toBeGreaterThan(0);
    // The pages whose subject is code a user writes: each must have blocks for the check to hold anything.
    for (const page of [
      "gate",
      "operations",
      "mcp",
      "frameworks/ai-sdk",
      "frameworks/mastra",
      "frameworks/langchain",
    ]) {
      const file = `docs/${page}.md`;
      expect(snippets.filter((s) => s.file === file).length, file).toBeGreaterThan(0);
    }
  });

  it("compile as a user's strict program against the generated/ folder each is written for", () => {
    const findings = checkSnippets(REPO, snippets, PRELUDE, undefined, folderOf);
    expect(findings.map((f) => `${f.where}: TS${f.code} ${f.message}`)).toEqual([]);
  }, 300_000);

  it("open with the tool init writes, and run the AI SDK over stdio against a real server", () => {
    const first = snippets.find((snippet) => snippet.file === "README.md");
    expect(first?.code).toMatch(/^import \{ getWeather \} from "\.\/generated\/index\.js";$/m);
    expect(folderOf(first as Snippet)).toBe(QUICK_START);
    const aiSdk = snippets.filter((snippet) => snippet.code.includes('from "@toolgate/runtime/ai-sdk"'));
    expect(aiSdk.length).toBeGreaterThan(0);
    for (const snippet of aiSdk) {
      expect(snippet.code).toContain('import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";');
      expect(folderOf(snippet)).toBe(FILESYSTEM);
    }
  });

  it("would fail where a block names what its project's generated/ folder does not have", () => {
    // The quick start's block, checked against the repository's examples, has no getWeather to import.
    const first = snippets.find((snippet) => snippet.file === "README.md") as Snippet;
    const findings = checkSnippets(REPO, [first], PRELUDE);
    expect(findings.map((f) => f.code)).toContain(2305);
  });

  it("report a broken block at its line in the README", () => {
    const broken = extractSnippets(
      "README.md",
      [
        "# title",
        "",
        "```ts",
        'import { getRecord } from "./generated/index.js";',
        "const input = getRecord.checkInput({});",
        "const id: number = input.ok ? input.value.recordId : 0;",
        "```",
      ].join("\n"),
    );
    const findings = checkSnippets(REPO, broken, PRELUDE);
    expect(findings.map((f) => [f.where, f.code])).toEqual([["README.md:6", 2322]]);
  });
});
