/**
 * What the command line prints is safe for a terminal (issue 12, class 16): contract-controlled text (tool names,
 * file names, pointers, messages quoting a contract) never carries a raw control character, a C1 control or a bidi
 * control to the terminal, each is shown as its `\uXXXX` escape instead; and `toolgate generate | head -1` ends
 * quietly, with every file still written.
 *
 * Invariant checked on every line printed: no code point of `Cc` (C0, DEL, C1) nor a bidi control or line separator.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../generator/cli/main.js";
import { terminalText } from "../../generator/files.js";
import { ensureBuilt } from "../build.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Run the CLI in-process; every printed line is checked against {@link UNSAFE}. */
async function toolgate(...argv: string[]) {
  const lines: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    out: (line) => {
      out.push(line);
      lines.push(...line.split("\n"));
    },
    err: (line) => {
      err.push(line);
      lines.push(...line.split("\n"));
    },
  });
  for (const line of lines) expect(line, JSON.stringify(line)).not.toMatch(UNSAFE);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function folder(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "toolgate-cli-out-"));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), JSON.stringify(content));
  return dir;
}

const BOUNDED = { type: "object", properties: { a: { type: "string", maxLength: 4 } }, additionalProperties: false };

/** An OSC 8 hyperlink: a terminal would show "click" linking to the attacker's page. */
const OSC8 = "\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007";

describe("terminalText", () => {
  it("escapes C0, DEL, C1 and bidi controls, and keeps every other character", () => {
    expect(terminalText(`a${OSC8}b`)).toBe("a\\u001b]8;;https://evil.example/\\u0007click\\u001b]8;;\\u0007b");
    expect(terminalText("\u009b31m\u202egnp.exe\u2066\n\t\u007f")).toBe(
      "\\u009b31m\\u202egnp.exe\\u2066\\u000a\\u0009\\u007f",
    );
    expect(terminalText("naïve → 東京 👍")).toBe("naïve → 東京 👍");
  });
});

describe("contract text reaches the terminal escaped", () => {
  it("a tool name holding an OSC 8 link (the issue's example)", async () => {
    const schemas = await folder({ "t.tool.json": { name: `get_${OSC8}`, outputSchema: BOUNDED } });
    const result = await toolgate("generate", "--schemas", schemas, "--out", path.join(schemas, "out"));
    expect(`${result.out}\n${result.err}`).toContain("\\u001b]8;;https://evil.example/\\u0007click");
  });

  it("a file name with an ANSI sequence, in a contract error", async () => {
    const schemas = await folder({ "\u001b[2J\u001b[31mx.tool.json": { name: "x" } });
    const result = await toolgate("generate", "--schemas", schemas, "--out", path.join(schemas, "out"));
    expect(result.code).toBe(1);
    // A contract without an output schema is a text contract, whose receive ceiling must be declared.
    expect(result.err).toContain("\\u001b[2J\\u001b[31mx.tool.json#/x-toolgate/receive/maxBytes: a text result");
  });

  it("a message quoting contract text: an unknown x-toolgate key with C1 and bidi controls", async () => {
    const key = "\u009b2J\u202eevil";
    const schemas = await folder({
      "t.tool.json": { name: "t", outputSchema: BOUNDED, "x-toolgate": { [key]: 1 } },
    });
    const result = await toolgate("generate", "--schemas", schemas, "--out", path.join(schemas, "out"));
    expect(result.code).toBe(1);
    expect(result.err).toContain("\\u009b2J\\u202eevil");
  });

  it("a tool name with a newline cannot forge a line of its own", async () => {
    const schemas = await folder({
      "t.tool.json": { name: "a\n0 contract errors: all written.", outputSchema: BOUNDED },
    });
    const result = await toolgate("generate", "--schemas", schemas, "--out", path.join(schemas, "out"));
    expect(`${result.out}\n${result.err}`.split("\n")).not.toContain("0 contract errors: all written.");
  });

  it("the import report and the diff report", async () => {
    const tools = await folder({ "tools.json": { tools: [{ name: `x${OSC8}`, outputSchema: BOUNDED }] } });
    const imported = await toolgate("import", path.join(tools, "tools.json"), "--out", path.join(tools, "c"));
    expect(imported.code).toBe(0);
    const base = await folder({});
    const head = await folder({ "t.tool.json": { name: `d${OSC8}`, outputSchema: BOUNDED } });
    const diff = await toolgate("diff", "--base", base, "--head", head);
    expect(diff.out).toContain("\\u001b]8;;");
  });
});

describe("a closed pipe", () => {
  beforeAll(ensureBuilt, 180_000);

  it("`toolgate generate | head -1` ends without a stack trace, and the files are still written", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolgate-epipe-"));
    await mkdir(path.join(dir, "schemas"));
    for (let i = 0; i < 60; i++) {
      await writeFile(
        path.join(dir, "schemas", `t${i}.tool.json`),
        JSON.stringify({ name: `tool_${i}`, outputSchema: BOUNDED }),
      );
    }
    const child = spawn(process.execPath, [path.join(REPO, "bin/toolgate.js"), "generate"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Like `head -1`: read the first line, then close the pipe.
    await new Promise<void>((resolve) => {
      child.stdout.once("data", () => {
        child.stdout.destroy();
        resolve();
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(await readdir(path.join(dir, "generated"))).toContain("toolgate.lock.json");
    await rm(dir, { recursive: true, force: true });
  });
});
