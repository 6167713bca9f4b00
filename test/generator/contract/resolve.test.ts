import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ContractError } from "../../../generator/contract/errors.js";
import { resolveSchema } from "../../../generator/contract/resolve.js";
import type { JsonSchema } from "../../../generator/schema/shapes.js";

async function project(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "toolgate-resolve-"));
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), JSON.stringify(content));
  return dir;
}

async function resolve(schema: JsonSchema, files: Record<string, unknown> = {}, remotes: Array<[string, string]> = []) {
  const dir = await project(files);
  return resolveSchema(schema, "2020-12", path.join(dir, "t.tool.json"), "/outputSchema", {
    projectRoot: dir,
    remotes,
  });
}

describe("resolve", () => {
  it("keeps local pointers and makes the root's # its own, not the contract file's", async () => {
    const resolved = await resolve({ $defs: { a: { type: "string" } }, $ref: "#/$defs/a" });
    expect(resolved.bundled).toEqual({ $defs: { a: { type: "string" } }, $ref: "#/$defs/a" });
    expect(resolved.baseUri).toBe("file:///project/t.tool.json?outputSchema");
    expect(resolved.documents).toEqual({});
  });

  it("rewrites #anchor references to pointers", async () => {
    const resolved = await resolve({
      $defs: { a: { $anchor: "thing", type: "integer" } },
      properties: { x: { $ref: "#thing" } },
    });
    expect((resolved.bundled as { properties: { x: { $ref: string } } }).properties.x.$ref).toBe("#/$defs/a");
  });

  it("resolves $id-relative references inside embedded resources", async () => {
    const resolved = await resolve({
      $id: "https://example.com/root.json",
      $defs: {
        inner: { $id: "inner.json", $defs: { leaf: { type: "boolean" } }, $ref: "#/$defs/leaf" },
      },
      $ref: "inner.json",
    });
    const bundled = resolved.bundled as { $ref: string; $defs: { inner: { $ref: string } } };
    expect(bundled.$ref).toBe("#/$defs/inner");
    expect(bundled.$defs.inner.$ref).toBe("#/$defs/inner/$defs/leaf");
    expect(resolved.baseUri).toBe("https://example.com/root.json");
  });

  it("loads local files, with stable URIs, and copies their targets into $defs", async () => {
    const resolved = await resolve(
      { properties: { owner: { $ref: "common.json#/$defs/owner" } } },
      { "common.json": { $defs: { owner: { type: "string", maxLength: 64 }, loop: { $ref: "#/$defs/owner" } } } },
    );
    expect(Object.keys(resolved.documents)).toEqual(["file:///project/common.json"]);
    const bundled = resolved.bundled as {
      properties: { owner: { $ref: string } };
      $defs: Record<string, { $defs: { loop: { $ref: string } } }>;
    };
    expect(bundled.properties.owner.$ref).toBe("#/$defs/external1/$defs/owner");
    expect(bundled.$defs.external1?.$defs.loop.$ref).toBe("#/$defs/external1/$defs/owner");
  });

  it("serves a mapped URI prefix from a local folder", async () => {
    const dir = await project({ "remote.json": { type: "integer" } });
    const resolved = await resolveSchema(
      { $ref: "http://localhost:1234/remote.json" },
      "2020-12",
      path.join(dir, "t.tool.json"),
      "/outputSchema",
      { projectRoot: dir, remotes: [["http://localhost:1234/", dir]] },
    );
    expect(resolved.documents).toEqual({ "http://localhost:1234/remote.json": { type: "integer" } });
  });

  it("never fetches a network URI: a contract error names the pointer", async () => {
    const error = await resolve({ properties: { a: { $ref: "https://example.com/schema.json" } } }).catch((e) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(error.pointer).toBe("/outputSchema/properties/a/$ref");
    expect(error.message).toMatch(/network \$ref https:\/\/example\.com\/schema\.json is never fetched/);
  });

  it("refuses a reference that points at nothing", async () => {
    const error = await resolve({ items: { $ref: "#/$defs/missing" } }).catch((e) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(error.pointer).toBe("/outputSchema/items/$ref");
    expect(error.message).toMatch(/unresolvable \$ref/);
  });

  it("refuses a missing local file", async () => {
    const error = await resolve({ $ref: "nope.json" }).catch((e) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(error.pointer).toBe("/outputSchema/$ref");
    expect(error.message).toMatch(/no such file/);
  });

  it("knows the metaschemas without loading them", async () => {
    const resolved = await resolve({ $ref: "https://json-schema.org/draft/2020-12/schema" });
    expect(resolved.bundled).toEqual({});
  });

  it("resolves a reference above the project root to the file it reaches, only when that folder is a root", async () => {
    const dir = await project({});
    const shared = `${dir}-shared`;
    await mkdir(shared);
    await writeFile(path.join(shared, "a.json"), JSON.stringify({ $ref: "./b.json" }));
    await writeFile(path.join(shared, "b.json"), JSON.stringify({ type: "string", maxLength: 3 }));
    const ref = `../${path.basename(shared)}/a.json`;
    const options = { projectRoot: dir, remotes: [] };
    const file = path.join(dir, "t.tool.json");
    const refused = await resolveSchema({ $ref: ref }, "2020-12", file, "/outputSchema", options).catch((e) => e);
    expect(refused).toBeInstanceOf(ContractError);
    expect(refused.pointer).toBe("/outputSchema/$ref");
    expect(refused.message).toContain(`reads ${path.join(await realpath(shared), "a.json")}, outside the project`);

    const resolved = await resolveSchema({ $ref: ref }, "2020-12", file, "/outputSchema", {
      ...options,
      roots: [shared],
    });
    // The URI is the one the validator computes from the reference as written: no path of this machine in it.
    expect(Object.keys(resolved.documents)).toEqual([
      `file:///${path.basename(shared)}/a.json`,
      `file:///${path.basename(shared)}/b.json`,
    ]);
    expect(Object.keys(resolved.files ?? {}).sort()).toEqual([
      path.join(shared, "a.json"),
      path.join(shared, "b.json"),
    ]);
  });

  it("refuses two files behind one URI: a reference above the project and an absolute path that reads the same", async () => {
    const dir = await project({});
    const name = path.basename(dir);
    const schema = { properties: { a: { $ref: `../${name}-x/a.json` }, b: { $ref: `/${name}-x/a.json` } } };
    const error = await resolveSchema(schema, "2020-12", path.join(dir, "t.tool.json"), "/outputSchema", {
      projectRoot: dir,
      remotes: [],
      roots: ["/"],
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect(error.pointer).toMatch(/^\/outputSchema\/properties\/[ab]\/\$ref$/);
    expect(error.message).toMatch(/which another reference already uses for/);
  });

  it("resolves a referenced file's own relative references against that file, not the contract", async () => {
    const dir = await project({});
    await mkdir(path.join(dir, "shared"));
    await writeFile(path.join(dir, "shared", "a.json"), JSON.stringify({ $ref: "./b.json" }));
    await writeFile(path.join(dir, "shared", "b.json"), JSON.stringify({ type: "integer" }));
    const resolved = await resolveSchema(
      { $ref: "shared/a.json" },
      "2020-12",
      path.join(dir, "t.tool.json"),
      "/outputSchema",
      {
        projectRoot: dir,
        remotes: [],
      },
    );
    expect(resolved.bundled).toEqual({
      $ref: "#/$defs/external1",
      $defs: { external1: { $ref: "#/$defs/external2" }, external2: { type: "integer" } },
    });
  });

  it("does not mutate its input", async () => {
    const schema = { $defs: { a: { $anchor: "x" } }, $ref: "#x" };
    const copy = structuredClone(schema);
    await resolve(schema);
    expect(schema).toEqual(copy);
  });
});
