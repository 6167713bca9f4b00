/**
 * `toolgate.config.json` is read by one reader with one rule for every command: every key known, every value of
 * its type. `generate` reports a broken config as an error on the file (exit 1), `diff` as a usage error (exit 2);
 * both name the key at fault.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { readConfig } from "../../../generator/cli/config.js";
import { runDiff } from "../../../generator/diff/command.js";

const WORK = path.resolve(".tmp", "config");

async function configure(config: unknown): Promise<void> {
  await writeFile(path.join(WORK, "toolgate.config.json"), JSON.stringify(config));
}

describe("toolgate.config.json", () => {
  beforeEach(async () => {
    await rm(WORK, { recursive: true, force: true });
    await mkdir(WORK, { recursive: true });
  });

  it("is optional", async () => {
    expect(await readConfig(WORK)).toEqual({});
  });

  it("gives every known key as written", async () => {
    const config = { schemas: "s", out: "o", refs: { "https://example.com/": "vendor" }, roots: ["../shared"] };
    await configure(config);
    expect(await readConfig(WORK)).toEqual(config);
  });

  it.each([
    [{ schemaz: "s" }, "/schemaz", /unknown key "schemaz"/],
    [{ roots: "../shared" }, "/roots", /`roots` is an array of folder paths/],
    [{ refs: { "https://example.com/": 1 } }, "/refs", /`refs` maps URI prefixes to folder paths/],
    [{ schemas: 5 }, "/schemas", /`schemas` is a folder path/],
    [[], "", /the config is a JSON object/],
  ])("refuses %j, naming %s", async (config, pointer, message) => {
    await configure(config);
    await expect(readConfig(WORK)).rejects.toMatchObject({ file: "toolgate.config.json", pointer, message });
  });

  it("is refused by diff as a usage error, with the key named", async () => {
    await configure({ roots: "../shared" });
    const err: string[] = [];
    const code = await runDiff([], { out: () => {}, err: (line) => err.push(line) }, WORK);
    expect(code).toBe(2);
    expect(err[0]).toBe("toolgate: toolgate.config.json#/roots: `roots` is an array of folder paths");
  });
});
