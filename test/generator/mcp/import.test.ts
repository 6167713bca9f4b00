import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyDefaults } from "../../../generator/contract/x-toolgate.js";
import { DEFAULT_RECEIVE_BYTES, importTools, type ToolSource, toolsOfDocument } from "../../../generator/mcp/import.js";
import { importedResult } from "../../../generator/mcp/result-settings.js";
import {
  listServerTools,
  MAX_SERVER_TOOLS,
  MAX_TOOL_LIST_CHARS,
  ServerListError,
  splitCommandLine,
} from "../../../generator/mcp/server-tools.js";
import { IMPORTED_LINES_MAX } from "../../../generator/mcp/view-settings.js";
import { generate } from "../../../generator/pipeline.js";
import { toolgate } from "../../cli.js";
import { scratchFolders } from "./scratch.js";

const repo = path.resolve(import.meta.dirname, "../../..");
const pagedServer = path.join(repo, "test/fixtures/mcp-servers/paged-server.mjs");
const freshFolder = scratchFolders("mcp-import-");
/** The number of a scratch folder (`case-N`), for files written beside it. */
const caseNumber = (folder: string) => path.basename(folder).replace(/^case-/, "");

const weather = {
  name: "get_weather",
  description: "Weather for a city.",
  inputSchema: { type: "object", properties: { city: { type: "string", maxLength: 64 } }, required: ["city"] },
  outputSchema: {
    type: "object",
    properties: { city: { type: "string", maxLength: 64 }, tempC: { type: "number" } },
    required: ["city", "tempC"],
    additionalProperties: false,
  },
};
const openResults = {
  name: "search",
  inputSchema: { type: "object" },
  outputSchema: {
    type: "object",
    properties: { hits: { type: "array", items: { type: "string" } } },
    additionalProperties: false,
  },
};
const sources = (...definitions: unknown[]): ToolSource[] =>
  definitions.map((definition, i) => ({ definition, origin: `input#${i}` }));

describe("toolsOfDocument: every shape a tool list is written in", () => {
  const cases: Array<[string, { given: unknown; names: string[]; nextCursor?: string }]> = [
    ["a tools/list result", { given: { tools: [weather, openResults] }, names: ["get_weather", "search"] }],
    [
      "one page of a paged list",
      { given: { tools: [weather], nextCursor: "p2" }, names: ["get_weather"], nextCursor: "p2" },
    ],
    ["a JSON-RPC response", { given: { jsonrpc: "2.0", id: 1, result: { tools: [weather] } }, names: ["get_weather"] }],
    ["an array of tools", { given: [openResults, weather], names: ["search", "get_weather"] }],
    ["one tool", { given: weather, names: ["get_weather"] }],
  ];
  it.each(cases)("reads %s", (_name, { given, names, nextCursor }) => {
    const found = toolsOfDocument(given, "f.json");
    expect(found.tools.map((t) => (t.definition as { name: string }).name)).toEqual(names);
    expect(found.nextCursor).toBe(nextCursor);
  });

  it.each([
    [
      "a JSON-RPC error",
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
      /JSON-RPC response is an error \(-32601: Method not found\)/,
    ],
    ["a string", "tools", /not a tool list/],
    ["an object without tools or name", { server_info: { name: "x" } }, /no `tools` or `name`/],
    ["tools that are not an array", { tools: { a: 1 } }, /`tools` is not an array/],
  ])("refuses %s", (_name, given, message) => {
    expect(() => toolsOfDocument(given, "f.json")).toThrow(message);
  });
});

describe("importTools", () => {
  it("writes one contract per tool with keys in a stable order and the schemas as the server wrote them", async () => {
    const out = await freshFolder();
    const shuffled = {
      outputSchema: weather.outputSchema,
      zeta: 1,
      name: "get_weather",
      annotations: { readOnlyHint: true },
      inputSchema: weather.inputSchema,
      alpha: true,
      description: "d",
    };
    const report = await importTools(sources(shuffled), { out });
    expect(report.refused).toEqual([]);
    const text = await readFile(path.join(out, "get_weather.tool.json"), "utf8");
    expect(Object.keys(JSON.parse(text))).toEqual([
      "name",
      "description",
      "inputSchema",
      "outputSchema",
      "annotations",
      "alpha",
      "zeta",
      "x-toolgate",
    ]);
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    expect(JSON.parse(text).outputSchema).toEqual(weather.outputSchema);
    // Fully bounded: no ceiling needed, nothing to report. The model reads the tool's error words by default, and
    // the contract says so where the user turns it off.
    expect(JSON.parse(text)["x-toolgate"]).toEqual({
      version: "1",
      result: importedResult("structured"),
      toolError: { expose: true, maxChars: 500 },
    });
    // No chain written: an imported tool over budget is shortened, never refused while a part of it fits.
    expect(applyDefaults(JSON.parse(text)["x-toolgate"]).oversize).toEqual(["shorten"]);
    // A chain the user writes is kept as written: `drop` stays for a contract that names it.
    expect(applyDefaults({ version: "1", oversize: ["drop"] }).oversize).toEqual(["drop"]);
    expect(report.imported).toEqual([
      expect.objectContaining({ tool: "get_weather", status: "written", findings: [], defaultCeiling: undefined }),
    ]);
  });

  it("sets a receive ceiling on an unbounded output schema and lists every unbounded field", async () => {
    const out = await freshFolder();
    const report = await importTools(sources(openResults), { out });
    const contract = JSON.parse(await readFile(path.join(out, "search.tool.json"), "utf8"));
    expect(contract["x-toolgate"]).toEqual({
      version: "1",
      receive: { maxBytes: DEFAULT_RECEIVE_BYTES },
      // The string without maxLength is shown as whole lines when long.
      view: { strings: { "/hits/*": { overflow: "lines", max: IMPORTED_LINES_MAX } } },
      result: importedResult("structured"),
      toolError: { expose: true, maxChars: 500 },
    });
    const [tool] = report.imported;
    expect(tool?.defaultCeiling).toBe(DEFAULT_RECEIVE_BYTES);
    // The array and, below it, its strings: bounding the array alone would leave the strings open.
    expect(tool?.findings.map((f) => [f.pointer, f.kind])).toEqual([
      ["/outputSchema/properties/hits", "array-without-maxItems"],
      ["/outputSchema/properties/hits/items", "string-without-maxLength"],
    ]);
  });

  it("refuses what cannot be generated, and still writes the rest", async () => {
    const out = await freshFolder();
    const report = await importTools(
      sources(
        { name: "send_mail", inputSchema: { type: "object" } },
        {
          name: "old_tuple",
          // Declared 2020-12: an `items` array there checks nothing (undeclared, it is read as draft-07).
          outputSchema: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: { p: { type: "array", items: [{ type: "number" }] } },
          },
        },
        { name: "future", outputSchema: { $schema: "https://json-schema.org/draft/2099-01/schema", type: "object" } },
        { name: "remote", outputSchema: { $ref: "https://schemas.example.com/result.json" } },
        { name: "", outputSchema: {} },
        "not a tool",
        weather,
        { ...weather, description: "the same name again" },
      ),
      { out },
    );
    const reasons = Object.fromEntries(report.refused.map((r) => [r.tool, r.reason]));
    // A tool without an output schema is not refused: it is gated as text (see the result-kind tests below).
    expect(reasons.send_mail).toBeUndefined();
    expect(reasons.old_tuple).toMatch(
      /#\/outputSchema\/properties\/p\/items: `items` is an array \(the draft-07 tuple form\)/,
    );
    expect(reasons.future).toMatch(/unsupported dialect/);
    expect(reasons.remote).toMatch(/#\/outputSchema/);
    expect(reasons["input#4"]).toMatch(/`name` must be a string/);
    expect(reasons["input#5"]).toMatch(/not a tool definition/);
    expect(reasons.get_weather).toMatch(/defined twice/);
    expect((await readdir(out)).sort()).toEqual(["get_weather.tool.json", "send_mail.tool.json"]);
  });

  it("gives hostile and clashing names safe, distinct file names, and keeps a __proto__ key a key", async () => {
    const out = await freshFolder();
    const hostile = JSON.parse(
      `{"name":"../../etc/passwd","outputSchema":{"type":"object","properties":{"constructor":{"type":"boolean"}},"additionalProperties":false},"__proto__":{"polluted":true}}`,
    );
    const report = await importTools(sources(hostile, { ...weather, name: "get-weather" }, weather), { out });
    expect(report.refused).toEqual([]);
    expect((await readdir(out)).sort()).toEqual([
      "etc_passwd.tool.json",
      "get_weather.tool.json",
      "get_weather_2.tool.json",
    ]);
    const written = JSON.parse(await readFile(path.join(out, "etc_passwd.tool.json"), "utf8"));
    expect(Object.hasOwn(written, "__proto__")).toBe(true);
    expect(Object.hasOwn(written.outputSchema.properties, "constructor")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();

    // A property named __proto__ is one the generated validator could not check, so generate refuses it: import
    // refuses it too, with generate's words, instead of writing a contract that fails later.
    const proto = JSON.parse(
      `{"name":"proto","outputSchema":{"type":"object","properties":{"__proto__":{"type":"boolean"}},"additionalProperties":false}}`,
    );
    const refused = await importTools(sources(proto), { out });
    expect(refused.refused).toEqual([
      {
        tool: "proto",
        reason:
          '#/outputSchema/properties/__proto__: refused: "properties" names the property "__proto__", which Ajv ignores: the validator would accept any value for it',
      },
    ]);
  });

  it("never replaces a contract silently; --force keeps the user's x-toolgate block", async () => {
    const out = await freshFolder();
    await importTools(sources(weather), { out });
    const file = path.join(out, "get_weather.tool.json");
    expect((await importTools(sources(weather), { out })).imported[0]?.status).toBe("unchanged");

    // The user tunes the contract; then the server's definition changes.
    const tuned = JSON.parse(await readFile(file, "utf8"));
    tuned["x-toolgate"] = { version: "7", context: { unit: "bytes", max: 900 } };
    await writeFile(file, `${JSON.stringify(tuned, null, 2)}\n`);
    const changed = { ...weather, description: "Weather, now with wind." };
    const refused = await importTools(sources(changed), { out });
    expect(refused.refused[0]?.reason).toMatch(/exists and differs .* --force/);
    expect(JSON.parse(await readFile(file, "utf8")).description).toBe(weather.description);

    const forced = await importTools(sources(changed), { out, force: true });
    expect(forced.imported[0]?.status).toBe("replaced");
    const after = JSON.parse(await readFile(file, "utf8"));
    expect(after.description).toBe("Weather, now with wind.");
    expect(after["x-toolgate"]).toEqual({ version: "7", context: { unit: "bytes", max: 900 } });
  });

  it("updates a tool in the file that already defines it, whatever that file is called", async () => {
    const out = await freshFolder();
    await writeFile(
      path.join(out, "weather.tool.json"),
      `${JSON.stringify({ ...weather, "x-toolgate": { version: "2" } }, null, 2)}\n`,
    );
    const report = await importTools(sources({ ...weather, description: "new" }), { out, force: true });
    expect(report.imported[0]?.file).toMatch(/weather\.tool\.json$/);
    expect(await readdir(out)).toEqual(["weather.tool.json"]);
  });

  it("ignores an x-toolgate block sent by the server", async () => {
    const out = await freshFolder();
    const report = await importTools(sources({ ...openResults, "x-toolgate": { receive: { maxBytes: 1073741824 } } }), {
      out,
    });
    expect(report.imported[0]?.notes).toContain("the server's own x-toolgate block was ignored");
    const contract = JSON.parse(await readFile(path.join(out, "search.tool.json"), "utf8"));
    expect(contract["x-toolgate"].receive.maxBytes).toBe(DEFAULT_RECEIVE_BYTES);
  });

  it("writes contracts the generator accepts", async () => {
    const out = await freshFolder();
    await importTools(
      sources(weather, openResults, {
        ...weather,
        name: "draft7",
        outputSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...weather.outputSchema },
      }),
      { out },
    );
    const result = await generate({ schemas: out, projectRoot: repo });
    expect(result.ok ? [] : result.errors.map(String)).toEqual([]);
    expect(result.tools.map((t) => t.tool)).toEqual(["draft7", "get_weather", "search"]);
  });
});

describe("toolgate import (CLI)", () => {
  it("imports a tools/list file, prints the report, and exits 1 when a tool was refused", async () => {
    const tuple = {
      name: "old_tuple",
      outputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "array",
        items: [{ type: "number" }],
      },
    };
    const out = await freshFolder();
    const file = path.join(out, "..", `list-${caseNumber(out)}.json`);
    await writeFile(
      file,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        result: { tools: [weather, openResults, { name: "send_mail", inputSchema: {} }, tuple] },
      }),
    );
    const run = await toolgate("import", file, "--out", out);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/written\s+\S*get_weather\.tool\.json \(get_weather\): fully bounded/);
    expect(run.out).toMatch(/written\s+\S*search\.tool\.json \(search\): 2 unbounded fields/);
    expect(run.out).toMatch(/warn \S*search\.tool\.json#\/outputSchema\/properties\/hits: array without maxItems/);
    expect(run.out).toMatch(/warn \S*search\.tool\.json#\/outputSchema\/properties\/hits\/items: string without/);
    expect(run.out).toMatch(/receive\.maxBytes set to 1048576/);
    expect(run.out).toMatch(/written\s+\S*send_mail\.tool\.json \(send_mail\): gated as text/);
    expect(run.out).toMatch(/note no outputSchema: gated as text \(result\.kind "text": receive\.maxBytes 1048576/);
    expect(run.err).toMatch(/refused\s+old_tuple: #\/outputSchema\/items/);
    expect(run.out).toMatch(/3 written, 0 replaced, 0 unchanged, 1 refused\./);
    expect((await readdir(out)).sort()).toEqual(["get_weather.tool.json", "search.tool.json", "send_mail.tool.json"]);

    const again = await toolgate("import", file, "--out", out);
    expect(again.out).toMatch(/0 written, 0 replaced, 3 unchanged, 1 refused\./);
  });

  it("says when a file is only one page of a paged list, and refuses a file that holds no tools", async () => {
    const out = await freshFolder();
    const page = path.join(out, "..", `page-${caseNumber(out)}.json`);
    const server = path.join(out, "..", `server-${caseNumber(out)}.json`);
    await writeFile(page, JSON.stringify({ tools: [weather], nextCursor: "2" }));
    await writeFile(server, JSON.stringify({ server_info: { name: "memory-server" } }));
    const run = await toolgate("import", page, server, "--out", out);
    expect(run.out).toMatch(/note \S*page-\d+\.json is one page of a longer list \(it has a nextCursor\): use --stdio/);
    expect(run.err).toMatch(/refused\s+\S*server-\d+\.json: not a tool list/);
    expect(run.code).toBe(1);
    expect(await readdir(out)).toEqual(["get_weather.tool.json"]);
  });

  it.each([
    [["import"], /no FILE and no --stdio/],
    [["import", "a.json", "--stdio", "node x"], /not both/],
    [["import", "--bogus"], /Unknown option/],
    [["import", "/no/such/file.json"], /no file at/],
  ])("exits 2 on %j", async (argv, message) => {
    const run = await toolgate(...argv);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(message);
  });
});

describe("toolgate import --stdio", () => {
  it("starts the server, follows every page of tools/list, writes the contracts and stops the server", async () => {
    const out = await freshFolder();
    const run = await toolgate("import", "--stdio", `node ${JSON.stringify(pagedServer)}`, "--out", out);
    expect(run.out).toMatch(/toolgate-fixture-paged 2\.1\.0: 5 tools in 3 pages/);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/written\s+\S*send_mail\.tool\.json \(send_mail\): gated as text/);
    // Its tuple declares no $schema: read as draft-07, as the MCP SDK v1 reads it, and said so.
    expect(run.out).toMatch(/note #\/outputSchema\/properties\/pair\/items: `items` is an array .* read as draft-07/);
    expect((await readdir(out)).sort()).toEqual([
      "get_status.tool.json",
      "get_status_2.tool.json",
      "old_tuple.tool.json",
      "search_docs.tool.json",
      "send_mail.tool.json",
    ]);
    const status2 = JSON.parse(await readFile(path.join(out, "get_status_2.tool.json"), "utf8"));
    expect(status2.name).toBe("get-status");
    expect(status2["x-toolgate"]).toEqual({
      version: "1",
      result: importedResult("structured"),
      toolError: { expose: true, maxChars: 500 },
    });
    const search = JSON.parse(await readFile(path.join(out, "search_docs.tool.json"), "utf8"));
    expect(search.annotations).toEqual({ readOnlyHint: true });
    expect(search.title).toBe("Search the docs");
    const generated = await generate({ schemas: out, projectRoot: repo });
    expect(generated.ok).toBe(true);
  });

  it("stops on a server that repeats its cursor", async () => {
    await expect(listServerTools(`node ${JSON.stringify(pagedServer)} --repeat-cursor`)).rejects.toThrow(
      ServerListError,
    );
    const run = await toolgate(
      "import",
      "--stdio",
      `node ${JSON.stringify(pagedServer)} --repeat-cursor`,
      "--out",
      await freshFolder(),
    );
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/same cursor twice/);
  });

  it("stops on a server that lists tools without end, by count and by size, and writes nothing", async () => {
    const out = await freshFolder();
    const flood = await toolgate("import", "--stdio", `node ${JSON.stringify(pagedServer)} --flood`, "--out", out);
    expect(flood.code).toBe(2);
    expect(flood.err).toContain(`more than ${MAX_SERVER_TOOLS} tools`);
    expect(await readdir(out).catch(() => [])).toEqual([]);
    await expect(listServerTools(`node ${JSON.stringify(pagedServer)} --heavy`)).rejects.toThrow(
      `more than ${MAX_TOOL_LIST_CHARS} characters`,
    );
    // The positive control: the same server listing its ordinary pages is read whole.
    const listed = await listServerTools(`node ${JSON.stringify(pagedServer)}`);
    expect(listed.tools.length).toBeGreaterThan(2);
  });

  it("reports a server that does not start", async () => {
    const run = await toolgate("import", "--stdio", "/no/such/server --flag", "--out", await freshFolder());
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/cannot list the server's tools/);
  });
});

describe("splitCommandLine", () => {
  it.each([
    ["node server.js --port 3", ["node", "server.js", "--port", "3"]],
    [`node "my server.js" 'a b' c\\ d`, ["node", "my server.js", "a b", "c d"]],
    [`echo "say \\"hi\\"" '$HOME' ; rm -rf /`, ["echo", 'say "hi"', "$HOME", ";", "rm", "-rf", "/"]],
    [`  spaced   out  `, ["spaced", "out"]],
    [`empty "" ''`, ["empty", "", ""]],
  ])("splits %j without a shell", (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });
  it("refuses an unterminated quote", () => {
    expect(() => splitCommandLine(`node "server.js`)).toThrow(/unterminated " quote/);
  });
});
