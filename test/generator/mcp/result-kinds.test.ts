/**
 * Import gates every tool: a tool without an output schema becomes a text contract (1 MiB, every kind of content
 * block, a note of what to tighten), or, with `--json-text NAME`, a JSON-in-text contract whose output schema is the
 * user's own and survives re-import. Every contract written generates.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RECEIVE_BYTES } from "../../../generator/mcp/import.js";
import { importedContent } from "../../../generator/mcp/result-settings.js";
import { generate } from "../../../generator/pipeline.js";
import { toolgate } from "../../cli.js";

const repo = path.resolve(import.meta.dirname, "../../..");
let scratch: string;
let cases = 0;

beforeAll(async () => {
  await mkdir(path.join(repo, ".tmp"), { recursive: true });
  scratch = await mkdtemp(path.join(repo, ".tmp", "mcp-kinds-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const send = { name: "send_mail", description: "Send a mail.", inputSchema: { type: "object" } };
const issues = { name: "search_issues", inputSchema: { type: "object", properties: { q: { type: "string" } } } };
const weather = {
  name: "get_weather",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { c: { type: "number" } }, additionalProperties: false },
};

/** A tools/list file of `tools` in a fresh case folder, and the contracts folder beside it. */
async function listFile(tools: unknown[]): Promise<{ file: string; out: string }> {
  const dir = path.join(scratch, `case-${++cases}`);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, "tools.json");
  await writeFile(file, JSON.stringify({ tools }));
  return { file, out: path.join(dir, "schemas") };
}

const read = async (out: string, tool: string) =>
  JSON.parse(await readFile(path.join(out, `${tool}.tool.json`), "utf8"));

describe("a tool without an outputSchema", () => {
  it("is written as a text contract, exit 0, with a note of what to tighten, and it generates", async () => {
    const { file, out } = await listFile([send, weather]);
    const run = await toolgate("import", file, "--out", out);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/written\s+\S*send_mail\.tool\.json \(send_mail\): gated as text/);
    expect(run.out).toMatch(/tighten receive\.maxBytes and x-toolgate\.result\.content to what the tool sends/);
    expect(run.out).toMatch(/2 written, 0 replaced, 0 unchanged, 0 refused\./);
    const contract = await read(out, "send_mail");
    expect(contract.outputSchema).toBeUndefined();
    expect(contract["x-toolgate"]).toEqual({
      version: "1",
      receive: { maxBytes: DEFAULT_RECEIVE_BYTES },
      result: { kind: "text", content: importedContent() },
      toolError: { expose: true, maxChars: 500 },
    });
    const generated = await generate({ schemas: out, projectRoot: repo });
    if (!generated.ok) throw new Error(generated.errors.map(String).join("\n"));
    expect(generated.tools.map((tool) => tool.tool)).toEqual(["get_weather", "send_mail"]);
  });

  it("cannot be made structured by an x-toolgate block the server sends", async () => {
    const { file, out } = await listFile([{ ...send, "x-toolgate": { result: { kind: "structured" } } }]);
    const run = await toolgate("import", file, "--out", out);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/the server's own x-toolgate block was ignored/);
    expect((await read(out, "send_mail"))["x-toolgate"].result.kind).toBe("text");
  });
});

describe("--json-text NAME", () => {
  it("writes a JSON-in-text contract with an empty outputSchema that is the user's, kept on re-import", async () => {
    const { file, out } = await listFile([issues, send]);
    const run = await toolgate("import", file, "--out", out, "--json-text", "search_issues", "--json-text", "nope");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/note --json-text nope: the input has no tool of that name/);
    expect(run.out).toMatch(/gated as JSON in its first text block \(result\.kind "json_text"\): write the shape/);
    const contract = await read(out, "search_issues");
    expect(contract.outputSchema).toEqual({});
    expect(contract["x-toolgate"].result.kind).toBe("json_text");
    expect((await read(out, "send_mail"))["x-toolgate"].result.kind).toBe("text");
    expect((await generate({ schemas: out, projectRoot: repo })).ok).toBe(true);

    // The user writes the shape of the JSON; the server still advertises none.
    const shape = { type: "object", properties: { total: { type: "integer", maximum: 1000 } }, required: ["total"] };
    const written = path.join(out, "search_issues.tool.json");
    const text = await readFile(written, "utf8");
    expect(text).toContain('"outputSchema": {}');
    await writeFile(
      written,
      text.replace('"outputSchema": {}', `"outputSchema": ${JSON.stringify(shape, null, 2).replaceAll("\n", "\n  ")}`),
    );
    // Re-import (without the flag: the contract says json_text) keeps it; so does --force after a server change.
    const again = await toolgate("import", file, "--out", out);
    expect(again.err).toBe("");
    expect(again.out).toMatch(/unchanged\s+\S*search_issues\.tool\.json/);
    expect((await read(out, "search_issues")).outputSchema).toEqual(shape);
    await writeFile(file, JSON.stringify({ tools: [{ ...issues, description: "Search issues." }, send] }));
    const forced = await toolgate("import", file, "--out", out, "--force");
    expect(forced.out).toMatch(/replaced\s+\S*search_issues\.tool\.json/);
    const replaced = await read(out, "search_issues");
    expect(replaced.description).toBe("Search issues.");
    expect(replaced.outputSchema).toEqual(shape);
    expect(replaced["x-toolgate"].result.kind).toBe("json_text");
  });

  it("is ignored, with a note, for a tool that advertises an outputSchema", async () => {
    const { file, out } = await listFile([weather]);
    const run = await toolgate("import", file, "--out", out, "--json-text", "get_weather");
    expect(run.out).toMatch(/--json-text ignored: the server advertises an outputSchema/);
    expect((await read(out, "get_weather"))["x-toolgate"].result.kind).toBeUndefined();
  });
});

describe("a kept text contract whose server now advertises an outputSchema", () => {
  it("is gated as structured after --force, the rest of its block kept", async () => {
    const { file, out } = await listFile([send]);
    await toolgate("import", file, "--out", out);
    await writeFile(file, JSON.stringify({ tools: [{ ...send, outputSchema: weather.outputSchema }] }));
    const run = await toolgate("import", file, "--out", out, "--force");
    expect(run.out).toMatch(/the kept result\.kind was dropped, so the tool is gated as structured/);
    const contract = await read(out, "send_mail");
    expect(contract["x-toolgate"].result).toEqual({ content: importedContent() });
    expect(contract["x-toolgate"].receive).toEqual({ maxBytes: DEFAULT_RECEIVE_BYTES });
    expect((await generate({ schemas: out, projectRoot: repo })).ok).toBe(true);
  });
});
