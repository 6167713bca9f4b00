/**
 * Every file the generator and the proxy write goes through the no-follow writer (`writeFileInside`), or, for an
 * append-only log, is opened with `O_NOFOLLOW`: a symbolic link planted on the way makes the run stop with the link
 * named, nothing is written outside, and nothing planted is loaded. Beside each refusal, the ordinary run still
 * writes and, for the proxy's compile cache, still compiles the contracts and gates with them.
 *
 * The projects live inside the repository (`.tmp/`), so the compiled adapters find `@toolgate/runtime` there.
 */
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UnsafeOutputError } from "../../generator/files.js";
import { loadProxyCatalog } from "../../generator/proxy/catalog.js";
import { toolgate } from "../cli.js";
import { scratchFolders } from "../generator/mcp/scratch.js";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const scratch = scratchFolders("write-links-");

/** A planted module: importing it leaves a mark on `globalThis`, which a test then looks for. */
const PLANTED = "globalThis.__toolgatePlanted = true; export const catalog = {};\n";

/** A project with one contract (`get_record`), and a victim folder beside it standing for everything outside. */
async function project(): Promise<{ root: string; schemas: string; victim: string }> {
  const base = await scratch();
  const root = path.join(base, "project");
  const schemas = path.join(root, "schemas");
  const victim = path.join(base, "victim");
  await mkdir(schemas, { recursive: true });
  await mkdir(path.join(root, "node_modules"));
  await mkdir(victim);
  await cp(path.join(REPO, "schemas", "get_record.tool.json"), path.join(schemas, "get_record.tool.json"));
  await writeFile(path.join(victim, "index.js"), PLANTED);
  return { root, schemas, victim };
}

/** The cache folder an ordinary run of this project compiles into (its name is a hash of the compiled code). */
async function cacheFolder(root: string, schemas: string): Promise<string> {
  const catalog = await loadProxyCatalog({ schemas, projectRoot: root });
  await rm(path.join(root, "node_modules", ".cache"), { recursive: true });
  return catalog.folder;
}

/** A record as the server answers it: the gate admits it. */
const VALID = () => readFile(path.join(REPO, "test", "fixtures", "payloads", "get_record", "good.json"), "utf8");

describe("the proxy's compile cache", () => {
  it("compiles the contracts and gates with them on an ordinary run (positive control)", async () => {
    const { root, schemas } = await project();
    const catalog = await loadProxyCatalog({ schemas, projectRoot: root });
    expect(catalog.folder.startsWith(path.join(root, "node_modules", ".cache", "toolgate", "proxy"))).toBe(true);
    const outcome = await catalog.findTool("get_record")?.adapter.admit(await VALID());
    expect(outcome?.ok).toBe(true);
    expect(JSON.stringify(outcome)).toContain(JSON.parse(await VALID()).summary.slice(0, 40));
    // A second run finds its own files in place and loads them again.
    expect((await loadProxyCatalog({ schemas, projectRoot: root })).folder).toBe(catalog.folder);
  });

  it("loads beside another replica's write in progress: its temporary files are not taken for planted ones", async () => {
    const { root, schemas } = await project();
    const folder = await cacheFolder(root, schemas);
    await mkdir(folder, { recursive: true });
    // What a replica starting at the same moment leaves for an instant: a file written, not yet renamed into place.
    const sibling = `.index.js.${process.pid + 1}.0123456789ab17.tmp`;
    await writeFile(path.join(folder, sibling), "export {};\n");
    const catalog = await loadProxyCatalog({ schemas, projectRoot: root });
    expect((await catalog.findTool("get_record")?.adapter.admit(await VALID()))?.ok).toBe(true);
    // A name that only looks temporary is still refused.
    await writeFile(path.join(folder, ".index.js.tmp"), PLANTED);
    await expect(loadProxyCatalog({ schemas, projectRoot: root })).rejects.toThrow(
      /\.index\.js\.tmp is in the proxy's compile cache/,
    );
  });

  it("refuses a link planted at the cache folder: nothing is written through it", async () => {
    const { root, schemas, victim } = await project();
    await mkdir(path.join(root, "node_modules", ".cache", "toolgate"), { recursive: true });
    await symlink(victim, path.join(root, "node_modules", ".cache", "toolgate", "proxy"));
    const loading = loadProxyCatalog({ schemas, projectRoot: root });
    await expect(loading).rejects.toBeInstanceOf(UnsafeOutputError);
    await expect(loading).rejects.toThrow(/proxy is a symbolic link/);
    expect(await readdir(victim)).toEqual(["index.js"]);
    expect(await readFile(path.join(victim, "index.js"), "utf8")).toBe(PLANTED);
  });

  it("refuses a link planted at a folder above the cache (node_modules/.cache)", async () => {
    const { root, schemas, victim } = await project();
    await symlink(victim, path.join(root, "node_modules", ".cache"));
    await expect(loadProxyCatalog({ schemas, projectRoot: root })).rejects.toThrow(/\.cache is a symbolic link/);
    expect(await readdir(victim)).toEqual(["index.js"]);
  });

  it("refuses a link planted at a file inside the cache: the target is not overwritten, nor imported", async () => {
    const { root, schemas, victim } = await project();
    const folder = await cacheFolder(root, schemas);
    await mkdir(folder, { recursive: true });
    await symlink(path.join(victim, "index.js"), path.join(folder, "index.js"));
    await expect(loadProxyCatalog({ schemas, projectRoot: root })).rejects.toThrow(/index\.js is a symbolic link/);
    expect(await readFile(path.join(victim, "index.js"), "utf8")).toBe(PLANTED);
    expect((globalThis as { __toolgatePlanted?: boolean }).__toolgatePlanted).toBeUndefined();
  });

  it("refuses a node_modules planted in the cache, which the adapters' @toolgate/runtime would resolve to", async () => {
    const { root, schemas } = await project();
    const folder = await cacheFolder(root, schemas);
    const runtime = path.join(folder, "node_modules", "@toolgate", "runtime");
    await mkdir(runtime, { recursive: true });
    await writeFile(path.join(runtime, "package.json"), '{ "name": "@toolgate/runtime", "main": "index.js" }');
    await writeFile(path.join(runtime, "index.js"), PLANTED);
    await expect(loadProxyCatalog({ schemas, projectRoot: root })).rejects.toThrow(
      /node_modules is in the proxy's compile cache but toolgate did not write it/,
    );
    // One folder up, between the project's node_modules and the cache, is refused the same way.
    await rm(path.join(folder, "node_modules"), { recursive: true });
    await mkdir(path.join(path.dirname(folder), "node_modules"));
    await expect(loadProxyCatalog({ schemas, projectRoot: root })).rejects.toThrow(/did not write it/);
    expect((globalThis as { __toolgatePlanted?: boolean }).__toolgatePlanted).toBeUndefined();
  });
});

describe("files a command writes at a path the user names", () => {
  it("report --out refuses a planted link at the report and writes an ordinary one", async () => {
    const { root, victim } = await project();
    const events = path.join(REPO, "test", "fixtures", "report", "events.jsonl");
    const link = path.join(root, "report.md");
    await symlink(path.join(victim, "index.js"), link);
    const refused = await toolgate("report", events, "--format", "markdown", "--out", link);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/report\.md is a symbolic link/);
    expect(await readFile(path.join(victim, "index.js"), "utf8")).toBe(PLANTED);

    const out = path.join(root, "ordinary.md");
    const written = await toolgate("report", events, "--format", "markdown", "--out", out);
    expect(written.code).toBe(0);
    expect(await readFile(out, "utf8")).toContain("`get_record`");
  });

  it("proxy --events refuses a planted link before the server starts", async () => {
    const { root, schemas, victim } = await project();
    const link = path.join(root, "events.jsonl");
    await symlink(path.join(victim, "index.js"), link);
    const marker = path.join(victim, "started");
    const run = await toolgate(
      "proxy",
      "--schemas",
      schemas,
      "--events",
      link,
      "--",
      process.execPath,
      "-e",
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`,
    );
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/events\.jsonl is a symbolic link/);
    expect(await readdir(victim)).toEqual(["index.js"]);
  });
});
