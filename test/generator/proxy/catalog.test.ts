/**
 * The proxy's tools: generated in memory from a contracts folder, or taken from a generated folder only when its
 * contracts generate exactly it (as `generate --check` decides), each found by its name with its view's schema.
 */
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UnsafeOutputError } from "../../../generator/files.js";
import {
  type CacheLook,
  checkCacheFolder,
  loadProxyCatalog,
  ProxyStaleError,
} from "../../../generator/proxy/catalog.js";
import { toolgate } from "../../cli.js";
import { scratchFolders } from "../mcp/scratch.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const scratch = scratchFolders("proxy-catalog-");

describe("loadProxyCatalog", () => {
  it("takes a generated folder that its contracts generate, each tool with its view's schema", async () => {
    const catalog = await loadProxyCatalog({ generated: path.join(REPO, "generated"), projectRoot: REPO });
    expect(catalog.names).toEqual(["get_record", "query_database", "read_file", "read_graph", "search_docs"]);
    const tool = catalog.findTool("get_record");
    expect(tool?.adapter.name).toBe("get_record");
    expect(JSON.stringify(tool?.viewSchema)).not.toContain("internalNotes");
    expect(catalog.findTool("constructor")).toBeUndefined();
    const outcome = await tool?.adapter.admit("{");
    expect(outcome?.ok).toBe(false);
  });

  it("refuses a generated folder its contracts no longer generate, naming the file", async () => {
    const copy = path.join(await scratch(), "generated");
    await cp(path.join(REPO, "generated"), copy, { recursive: true });
    const adapter = path.join(copy, "get_record", "adapter.ts");
    await writeFile(adapter, `${await readFile(adapter, "utf8")}\n// edited by hand\n`);
    const loading = loadProxyCatalog({ generated: copy, projectRoot: REPO });
    await expect(loading).rejects.toBeInstanceOf(ProxyStaleError);
    await expect(loading).rejects.toThrow(/get_record\/adapter\.ts/);
  });

  it("leaves a refused contract out with its errors, and serves the others", async () => {
    const schemas = path.join(await scratch(), "schemas");
    await mkdir(schemas);
    await writeFile(
      path.join(schemas, "bad.tool.json"),
      JSON.stringify({ name: "bad", inputSchema: { type: "object" }, outputSchema: { type: "nope" } }),
    );
    await writeFile(
      path.join(schemas, "unbounded.tool.json"),
      JSON.stringify({
        name: "unbounded",
        inputSchema: { type: "object", properties: { q: { type: "string", pattern: "x+x+y" } } },
        outputSchema: { type: "object", properties: { id: { type: "integer" } } },
        "x-toolgate": { receive: { maxBytes: 4096 }, mcp: { name: "server_unbounded" } },
      }),
    );
    await writeFile(path.join(schemas, "broken.tool.json"), "{");
    await cp(path.join(REPO, "schemas", "get_record.tool.json"), path.join(schemas, "get_record.tool.json"));
    const catalog = await loadProxyCatalog({ schemas, projectRoot: REPO });
    expect(catalog.names).toEqual(["get_record"]);
    expect(catalog.findTool("get_record")?.adapter.name).toBe("get_record");
    const errors = catalog.refused.errors.map(String).join("\n");
    expect(errors).toMatch(/bad\.tool\.json#\/outputSchema/);
    expect(errors).toMatch(/unbounded\.tool\.json#\/inputSchema\/properties\/q\/pattern: the pattern "x\+x\+y"/);
    // A contract that loaded is refused by both its names; one that did not load is counted, nameless.
    expect([...catalog.refused.tools]).toEqual(["bad", "server_unbounded", "unbounded"]);
    expect(catalog.refused.unnamed).toBe(1);
  });
});

describe("each tool's definition", () => {
  it("is the contract's: its title, description, annotations, and the input schema checkInput holds calls to", async () => {
    const schemas = path.join(await scratch(), "schemas");
    await mkdir(schemas);
    await writeFile(
      path.join(schemas, "search.tool.json"),
      JSON.stringify({
        name: "search",
        title: "Search",
        description: "Searches the notes.",
        inputSchema: {
          type: "object",
          properties: { q: { type: "string" }, page: { $ref: "./page.json" } },
          required: ["q"],
        },
        outputSchema: { type: "object", properties: { hits: { type: "integer" } } },
        annotations: { readOnlyHint: true },
        execution: { taskSupport: "optional" },
        "x-toolgate": { receive: { maxBytes: 4096 }, refineInput: { "/properties/q": { maxLength: 100 } } },
      }),
    );
    await writeFile(path.join(schemas, "page.json"), JSON.stringify({ type: "integer", minimum: 1 }));
    await writeFile(
      path.join(schemas, "bare.tool.json"),
      JSON.stringify({
        name: "bare",
        outputSchema: { type: "object", properties: { n: { type: "integer" } } },
        "x-toolgate": { receive: { maxBytes: 4096 } },
      }),
    );
    const catalog = await loadProxyCatalog({ schemas, projectRoot: REPO });
    const search = catalog.findTool("search");
    expect(search?.definition).toEqual({
      title: "Search",
      description: "Searches the notes.",
      // Refined as the adapter checks it, and self-contained: the referenced file's schema copied in.
      inputSchema: {
        type: "object",
        properties: { q: { type: "string", maxLength: 100 }, page: { $ref: expect.stringMatching(/^#\//) } },
        required: ["q"],
        $defs: expect.any(Object),
      },
      annotations: { readOnlyHint: true },
    });
    expect(JSON.stringify(search?.definition.inputSchema)).toContain('"minimum":1');
    expect(search?.adapter.checkInput({ q: "x".repeat(101) }).ok).toBe(false);
    expect(search?.adapter.checkInput({ q: "notes", page: 2 }).ok).toBe(true);
    // A contract without an input schema, title or annotations says nothing of them.
    expect(catalog.findTool("bare")?.definition).toEqual({});
  });
});

describe("loadProxyCatalog: a server's name for a tool under a prefix", () => {
  /** A folder of `read_file` contracts imported from two servers under the prefixes `docs` and `notes`. */
  async function twoServers(prefixes: readonly string[]): Promise<string> {
    const schemas = path.join(await scratch(), "schemas");
    await mkdir(schemas);
    for (const prefix of prefixes) {
      await writeFile(
        path.join(schemas, `${prefix}_read_file.tool.json`),
        JSON.stringify({
          name: `${prefix}_read_file`,
          inputSchema: { type: "object", properties: { path: { type: "string", maxLength: 200 } } },
          outputSchema: { type: "object", properties: { [prefix]: { type: "string", maxLength: 100 } } },
          "x-toolgate": { receive: { maxBytes: 4096 }, mcp: { name: "read_file" } },
        }),
      );
    }
    return schemas;
  }

  it("finds the fronted server's contract by --server, and no other server's", async () => {
    const schemas = await twoServers(["docs", "notes"]);
    const notes = await loadProxyCatalog({ schemas, server: "notes", projectRoot: REPO });
    expect(notes.findTool("read_file")?.adapter.name).toBe("notes_read_file");
    const docs = await loadProxyCatalog({ schemas, server: "docs", projectRoot: REPO });
    expect(docs.findTool("read_file")?.adapter.name).toBe("docs_read_file");
    // The contract's own name still finds it, whatever the server.
    expect(docs.findTool("notes_read_file")?.adapter.name).toBe("notes_read_file");
    // A server no contract was imported from: its read_file is nobody's, so the proxy hides and refuses it.
    const other = await loadProxyCatalog({ schemas, server: "other", projectRoot: REPO });
    expect(other.findTool("read_file")).toBeUndefined();
  });

  it("finds a prefixed contract by its server's name only when --server says which server is fronted", async () => {
    // One server's contracts alone: another server's read_file is still not taken for docs' without --server.
    const schemas = await twoServers(["docs"]);
    const unsaid = await loadProxyCatalog({ schemas, projectRoot: REPO });
    expect(unsaid.findTool("read_file")).toBeUndefined();
    expect(unsaid.findTool("docs_read_file")?.adapter.name).toBe("docs_read_file");
    expect(unsaid.prefixes).toEqual(["docs"]);
    const other = await loadProxyCatalog({ schemas, server: "notes", projectRoot: REPO });
    expect(other.findTool("read_file")).toBeUndefined();
    const docs = await loadProxyCatalog({ schemas, server: "docs", projectRoot: REPO });
    expect(docs.findTool("read_file")?.adapter.name).toBe("docs_read_file");
  });
});

describe("toolgate proxy --generated", () => {
  it("is one of two ways to name the tools, never both", async () => {
    const run = await toolgate("proxy", "--schemas", "schemas", "--generated", "generated", "--", "node", "server.js");
    expect(run.code).toBe(2);
    expect(run.err).toContain("--schemas and --generated");
  });

  it("stops before starting the server when the folder is stale, and says how to mend it", async () => {
    const copy = path.join(await scratch(), "generated");
    await cp(path.join(REPO, "generated"), copy, { recursive: true });
    await writeFile(path.join(copy, "index.ts"), "// edited by hand\n");
    const run = await toolgate("proxy", "--generated", copy, "--", "node", "-e", "process.exit(9)");
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/index\.ts.*run toolgate generate/);
  });
});

describe("checkCacheFolder", () => {
  /** A folder as the check sees it: listed entries, and what each is when looked at (absent: gone by then). */
  const seen = (listed: string[], present: Record<string, "file" | "folder">): CacheLook => ({
    readdir: async () => listed,
    lstat: async (file) => {
      const kind = present[path.basename(file)];
      return kind === undefined ? undefined : { isDirectory: () => kind === "folder", isFile: () => kind === "file" };
    },
  });
  const TEMPORARY = ".adapter.js.4242.0123456789ab7.tmp";

  it("passes a sibling replica's write that was renamed into place between the listing and the look", async () => {
    const look = seen(["adapter.js", TEMPORARY], { "adapter.js": "file" });
    await expect(checkCacheFolder("/modules", "cache/abc", new Set(["adapter.js"]), look)).resolves.toBeUndefined();
  });

  it("still refuses anything else that is there, or that vanished, and toolgate did not write", async () => {
    const planted = seen(["adapter.js", "evil.js"], { "adapter.js": "file", "evil.js": "file" });
    await expect(checkCacheFolder("/modules", "cache/abc", new Set(["adapter.js"]), planted)).rejects.toThrow(
      UnsafeOutputError,
    );
    const vanished = seen(["adapter.js", "other.js"], { "adapter.js": "file" });
    await expect(checkCacheFolder("/modules", "cache/abc", new Set(["adapter.js"]), vanished)).rejects.toThrow(
      /other\.js is in the proxy's compile cache but toolgate did not write it/,
    );
  });
});
