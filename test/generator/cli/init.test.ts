/**
 * `toolgate init`: a first contract that generates cleanly, two scripts spliced into the project's package.json
 * with nothing else in it changed, no file ever overwritten, and a clear refusal when a script of the same name
 * runs something else.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXAMPLE_FILE, runInit, withScripts } from "../../../generator/cli/init.js";
import { main } from "../../../generator/cli/main.js";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function project(packageJson?: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "toolgate-init-"));
  made.push(dir);
  if (packageJson !== undefined) await writeFile(path.join(dir, "package.json"), packageJson);
  return dir;
}

async function init(cwd: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runInit(argv, { out: (line) => out.push(line), err: (line) => err.push(line) }, cwd);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const read = (dir: string, file: string) => readFile(path.join(dir, file), "utf8");

describe("toolgate init", () => {
  it("writes a first contract that generates fully bounded, and adds both scripts", async () => {
    const original =
      '{\n    "name": "shop",\n    "version": "1.0.0",\n    "type": "module",\n    "scripts": {\n        "build": "tsc"\n    }\n}\n';
    const dir = await project(original);
    const result = await init(dir);
    expect(result.code, result.err).toBe(0);
    expect(await read(dir, "package.json")).toBe(
      '{\n    "name": "shop",\n    "version": "1.0.0",\n    "type": "module",\n    "scripts": {\n        "build": "tsc",\n' +
        '        "prebuild": "toolgate generate",\n        "check:contracts": "toolgate generate --check"\n    }\n}\n',
    );
    expect(result.out).not.toContain("generate:contracts");
    expect(await readdir(path.join(dir, "schemas"))).toEqual([EXAMPLE_FILE]);
    expect(result.out).toContain(`schemas/${EXAMPLE_FILE}`);

    const out: string[] = [];
    const err: string[] = [];
    const code = await main(
      ["generate", "--schemas", path.join(dir, "schemas"), "--out", path.join(dir, "generated")],
      { out: (line) => out.push(line), err: (line) => err.push(line) },
    );
    expect(code, err.join("\n")).toBe(0);
    expect(out.join("\n")).toMatch(/get_weather → get_weather\/ .*fully bounded/);
    expect(out.join("\n")).not.toMatch(/warn/);
    expect(await readdir(path.join(dir, "generated", "get_weather"))).toContain("adapter.ts");
  });

  it("keeps the file's own indentation, line endings and other scripts, and adds only what is missing", async () => {
    const original =
      '{\r\n\t"name": "shop",\r\n\t"scripts": {\r\n\t\t"prebuild": "toolgate generate",\r\n\t\t"test": "vitest"\r\n\t}\r\n}';
    const dir = await project(original);
    const result = await init(dir);
    expect(result.code, result.err).toBe(0);
    expect(await read(dir, "package.json")).toBe(
      '{\r\n\t"name": "shop",\r\n\t"scripts": {\r\n\t\t"prebuild": "toolgate generate",\r\n\t\t"test": "vitest",\r\n' +
        '\t\t"check:contracts": "toolgate generate --check"\r\n\t}\r\n}',
    );
    expect(result.out).toContain('the script "prebuild" already runs toolgate generate');
  });

  it("adds generate:contracts to a project with no build script, for which a prebuild would never run", async () => {
    const original = '{\n  "name": "shop",\n  "scripts": {\n    "prebuild": "tsc -b",\n    "start": "node ."\n  }\n}\n';
    const dir = await project(original);
    const result = await init(dir);
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(await read(dir, "package.json")).scripts).toEqual({
      prebuild: "tsc -b",
      start: "node .",
      "generate:contracts": "toolgate generate",
      "check:contracts": "toolgate generate --check",
    });
    expect(result.out).toContain('package.json: added the script "generate:contracts": toolgate generate');
    expect(result.out).toContain(
      'package.json has no "build" script for a "prebuild" to run before: run `npm run generate:contracts` before ' +
        'compiling, or start your build with it ("build": "npm run generate:contracts && tsc")',
    );
    expect(await readdir(path.join(dir, "schemas"))).toEqual([EXAMPLE_FILE]);

    // Once the project has a build, init hooks the generator into it as well.
    const withBuild = JSON.parse(await read(dir, "package.json"));
    withBuild.scripts = { build: "tsc", ...withBuild.scripts, prebuild: undefined };
    await writeFile(path.join(dir, "package.json"), `${JSON.stringify(withBuild, null, 2)}\n`);
    const again = await init(dir);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(await read(dir, "package.json")).scripts.prebuild).toBe("toolgate generate");
    expect(again.out).not.toContain('no "build" script');
  });

  it("tells a project that cannot count tokens yet to install gpt-tokenizer, and one that can nothing", async () => {
    const bare = await project('{"name":"shop","scripts":{"build":"tsc"}}');
    const told = await init(bare);
    expect(told.code, told.err).toBe(0);
    expect(told.out).toContain("need gpt-tokenizer: `npm install gpt-tokenizer`");

    const equipped = await project('{"name":"shop","scripts":{"build":"tsc"}}');
    const tokenizer = path.join(equipped, "node_modules", "gpt-tokenizer");
    await mkdir(tokenizer, { recursive: true });
    await writeFile(path.join(tokenizer, "package.json"), '{"name":"gpt-tokenizer","main":"index.js"}');
    await writeFile(path.join(tokenizer, "index.js"), "");
    const quiet = await init(equipped);
    expect(quiet.code, quiet.err).toBe(0);
    expect(quiet.out).not.toContain("gpt-tokenizer");
    expect(quiet.out).toContain("Next: npx toolgate generate");
  });

  it("refuses a script of the same name that runs another command, and writes nothing", async () => {
    const original = '{ "name": "shop", "scripts": { "build": "tsc", "prebuild": "tsc -b" } }\n';
    const dir = await project(original);
    const result = await init(dir);
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'toolgate init: package.json already has a script "prebuild" that runs "tsc -b", not "toolgate generate": ' +
        "add `toolgate generate` to it yourself (nothing was written)",
    );
    expect(await read(dir, "package.json")).toBe(original);
    expect(await readdir(dir)).toEqual(["package.json"]);
  });

  it("never overwrites a contract, and adds no example beside contracts a project already has", async () => {
    const dir = await project('{"name":"shop"}');
    await mkdir(path.join(dir, "schemas"));
    await writeFile(path.join(dir, "schemas", EXAMPLE_FILE), "mine");
    let result = await init(dir);
    expect(result.code, result.err).toBe(0);
    expect(await read(dir, `schemas/${EXAMPLE_FILE}`)).toBe("mine");
    expect(result.out).toContain("already holds 1 contract(s): no example added");

    const other = await project('{"name":"shop"}');
    await mkdir(path.join(other, "contracts"));
    await writeFile(path.join(other, "contracts", "mine.tool.json"), "{}");
    result = await init(other, "--schemas", "contracts");
    expect(result.code, result.err).toBe(0);
    expect(await readdir(path.join(other, "contracts"))).toEqual(["mine.tool.json"]);
  });

  it("changes nothing when run again", async () => {
    const dir = await project('{\n  "name": "shop"\n}\n');
    expect((await init(dir)).code).toBe(0);
    const packageJson = await read(dir, "package.json");
    const contract = await read(dir, `schemas/${EXAMPLE_FILE}`);
    const again = await init(dir);
    expect(again.code, again.err).toBe(0);
    expect(await read(dir, "package.json")).toBe(packageJson);
    expect(await read(dir, `schemas/${EXAMPLE_FILE}`)).toBe(contract);
  });

  it("asks for a package.json, and refuses one that is not a JSON object", async () => {
    let result = await init(await project());
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^toolgate init: cannot read package\.json in .* \(no such file\): run `npm init` first$/,
    );
    result = await init(await project("[1]"));
    expect(result.err).toBe("toolgate init: package.json does not hold a JSON object");
    result = await init(await project('{"scripts": "build"}'));
    expect(result.err).toBe('toolgate init: package.json: "scripts" is not an object');
    result = await init(await project("{"));
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^toolgate init: package\.json is not JSON/);
  });

  it("is a usage error with an unknown option or an argument", async () => {
    const dir = await project("{}");
    expect((await init(dir, "--force")).code).toBe(2);
    expect((await init(dir, "extra")).code).toBe(2);
    expect(await readdir(dir)).toEqual(["package.json"]);
  });
});

describe("the scripts spliced into package.json", () => {
  const scripts = [
    ["prebuild", "toolgate generate"],
    ["check:contracts", "toolgate generate --check"],
  ] as const;

  it("fills an empty scripts object and an empty package", () => {
    expect(withScripts('{\n  "scripts": {}\n}\n', scripts).text).toBe(
      '{\n  "scripts": {\n    "prebuild": "toolgate generate",\n    "check:contracts": "toolgate generate --check"\n  }\n}\n',
    );
    expect(withScripts("{}", scripts).text).toBe(
      '{\n  "scripts": {\n    "prebuild": "toolgate generate",\n    "check:contracts": "toolgate generate --check"\n  }\n}',
    );
  });

  it("extends a one-line scripts object on its line, past values holding braces, quotes and escapes", () => {
    const text = '{"name":"a}\\"{","scripts":{"x":"echo \\"}\\""},"z":[{"y":"]"}]}';
    const edited = withScripts(text, scripts).text;
    expect(edited).toBe(
      '{"name":"a}\\"{","scripts":{"x":"echo \\"}\\"", "prebuild": "toolgate generate", "check:contracts": "toolgate generate --check"},"z":[{"y":"]"}]}',
    );
  });

  it("keeps a byte order mark and everything after the object", () => {
    const text = '\uFEFF{\n  "name": "a"\n}\n\n';
    expect(withScripts(text, scripts).text.startsWith('\uFEFF{\n  "name": "a",\n  "scripts": {\n')).toBe(true);
    expect(withScripts(text, scripts).text.endsWith("  }\n}\n\n")).toBe(true);
  });
});
