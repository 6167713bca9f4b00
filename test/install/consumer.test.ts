/**
 * The two packages as a user gets them: `npm pack`ed, installed from their tarballs into fresh projects outside
 * this repository (an ES module one with a build script and a CommonJS one without), `toolgate init`,
 * `toolgate generate`, a strict type check with TypeScript 7 and 5.8 under the tsconfig the docs show, and a compiled
 * script that imports `node:fs` and admits one good and one bad result through the generated adapter. The packed
 * `toolgate` carries no script that runs when it is installed. And a project that installs only `@toolgate/runtime`:
 * what it costs on disk, that it pulls in none of the generator's libraries, and that the compiled code runs there.
 */
import { execFile } from "node:child_process";
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../build.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
/** The ceiling for the runtime's installed size, with everything it pulls in. */
const RUNTIME_BUDGET_BYTES = 2 * 1024 * 1024;
/** The generator's libraries: a project that installs only the runtime must get none of them. */
const GENERATOR_ONLY = ["ajv", "ajv-formats", "ts-morph", "prettier", "recheck", "json-schema-to-typescript"];
/** TypeScript versions the consumer projects are checked with: the repository's, and the lowest one claimed. */
const TYPESCRIPT = { "7": "7.0.2", "5.8": "5.8" } as const;
/** Node's types, for Node 20 as the repository has them. */
const TYPES_NODE = "20.19.43";

/**
 * The environment for npm and node in a consumer: this repository's own npm run state (its package, its
 * workspaces, its `node_modules/.bin` on PATH) must not leak into a project that knows nothing of it.
 */
const env = Object.fromEntries(
  Object.entries(process.env)
    .filter(
      ([key]) => !/^(npm_package_|npm_lifecycle_|npm_config_(workspace|include_workspace_root))|^INIT_CWD$/i.test(key),
    )
    .map(([key, value]) => [
      key,
      key === "PATH"
        ? (value ?? "")
            .split(path.delimiter)
            .filter((entry) => !path.resolve(entry).startsWith(REPO))
            .join(path.delimiter)
        : value,
    ]),
);

let work: string;
let packs: { runtime: string; toolgate: string };

async function sh(cwd: string, file: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}\n${stderr ?? ""}`.slice(0, 4000));
  }
}

/**
 * `folder` packed. The runtime has no pack scripts, and was built by ensureBuilt; `toolgate` is packed as it is
 * published, through its `prepack` (a build, and the packed package.json without `prepare`) and `postpack`.
 */
async function pack(folder: string, scripts: "run-scripts" | "ignore-scripts"): Promise<string> {
  const { stdout } = await sh(REPO, "npm", [
    "pack",
    ...(scripts === "ignore-scripts" ? ["--ignore-scripts"] : []),
    "--json",
    "--pack-destination",
    path.join(work, "packs"),
    folder,
  ]);
  // Scripts print to stdout before npm's JSON.
  const [packed] = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as Array<{ filename: string }>;
  return path.join(work, "packs", (packed as { filename: string }).filename);
}

/** The tsconfig the docs' Install section shows (docs/getting-started.md): its one JSON block with `compilerOptions`. */
async function readmeTsconfig(): Promise<{ compilerOptions: Record<string, unknown> }> {
  const readme = await readFile(path.join(REPO, "docs", "getting-started.md"), "utf8");
  const blocks = [...readme.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
  const tsconfigs = blocks.filter((block) => block.includes('"compilerOptions"'));
  expect(tsconfigs).toHaveLength(1);
  return JSON.parse(tsconfigs[0] as string);
}

/** Install-time lifecycle scripts: npm runs these when the package is installed (`prepare` from a folder or git). */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

/**
 * A fresh project with the runtime as a dependency and toolgate, TypeScript and Node's types as devDependencies, as
 * the docs' Install section has it; the ES module one builds with `tsc`, the CommonJS one has no build script.
 */
async function consumer(name: string, type: "module" | "commonjs"): Promise<string> {
  const dir = path.join(work, name);
  await mkdir(path.join(dir, "src"), { recursive: true });
  const manifest = {
    name,
    version: "1.0.0",
    private: true,
    // A CommonJS project is one that says nothing.
    ...(type === "module" ? { type, scripts: { build: "tsc" } } : {}),
    dependencies: { "@toolgate/runtime": `file:${packs.runtime}` },
    devDependencies: {
      "@types/node": TYPES_NODE,
      toolgate: `file:${packs.toolgate}`,
      typescript: TYPESCRIPT["7"],
      "typescript-5.8": `npm:typescript@${TYPESCRIPT["5.8"]}`,
    },
  };
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(dir, "tsconfig.json"), `${JSON.stringify(await readmeTsconfig(), null, 2)}\n`);
  await writeFile(path.join(dir, "src", "main.ts"), script(type));
  const install = await sh(dir, "npm", ["install", "--no-audit", "--no-fund"]);
  installOutput[type] = `${install.stdout}\n${install.stderr}`;
  return dir;
}

/** What `npm install` printed in each consumer. */
const installOutput: Partial<Record<"module" | "commonjs", string>> = {};

/** A script that admits one good and one bad result through the generated adapter and prints the outcomes. */
function script(type: "module" | "commonjs"): string {
  const body = `  const project: string = JSON.parse(readFileSync("package.json", "utf8")).name;
  const good = await getWeather.admit(JSON.stringify({ city: "Oslo", temperatureC: 4.5, sky: "rain" }));
  const bad = await getWeather.admit(JSON.stringify({ city: "Oslo", temperatureC: 400, sky: "rain" }));
  const data: GetWeatherResult | undefined = good.ok ? good.data : undefined;
  console.log(
    JSON.stringify({
      project,
      good: good.ok ? { ok: true, city: data?.city, model: toModelContent(good) } : { ok: false, code: good.error.code },
      bad: bad.ok ? { ok: true } : { ok: false, code: bad.error.code, model: toModelContent(bad) },
    }),
  );`;
  // App code beside the adapters uses Node's own modules, which TypeScript 7 types only with "types": ["node"].
  const imports = `import { readFileSync } from "node:fs";
import { toModelContent } from "@toolgate/runtime";
import { type GetWeatherResult, getWeather } from "../generated/index.js";
`;
  // A CommonJS module has no top-level await.
  return type === "module"
    ? `${imports}\n${body.replace(/^ {2}/gm, "")}\n`
    : `${imports}\nasync function main(): Promise<void> {\n${body}\n}\nvoid main();\n`;
}

/** Bytes on disk (allocated blocks) and apparent bytes of everything below `dir`, links not followed. */
async function sizeOf(dir: string): Promise<{ disk: number; apparent: number }> {
  let disk = 0;
  let apparent = 0;
  for (const name of await readdir(dir, { recursive: true })) {
    const stats = await lstat(path.join(dir, name));
    disk += stats.blocks * 512;
    if (stats.isFile()) apparent += stats.size;
  }
  return { disk, apparent };
}

beforeAll(async () => {
  await ensureBuilt();
  work = await mkdtemp(path.join(tmpdir(), "toolgate-install-"));
  await mkdir(path.join(work, "packs"));
  const manifest = await readFile(path.join(REPO, "package.json"), "utf8");
  const [runtime, toolgate] = await Promise.all([pack("./runtime", "ignore-scripts"), pack(".", "run-scripts")]);
  packs = { runtime: runtime as string, toolgate: toolgate as string };
  // The repository keeps its own package.json, prepare and all, whatever packing did to the packed one.
  expect(await readFile(path.join(REPO, "package.json"), "utf8")).toBe(manifest);
  expect(JSON.parse(manifest).scripts.prepare).toBe("npm run build");
}, 300_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("installed from the packed tarballs", () => {
  const projects: Record<"module" | "commonjs", Promise<string>> = {} as never;
  beforeAll(() => {
    projects.module = consumer("consumer-esm", "module");
    projects.commonjs = consumer("consumer-cjs", "commonjs");
    // A failure is reported by the test that awaits it.
    for (const project of Object.values(projects)) project.catch(() => {});
  });

  for (const type of ["module", "commonjs"] as const) {
    it(`${type === "module" ? "an ES module" : "a CommonJS"} project initializes, generates, type-checks and admits`, async () => {
      const dir = await projects[type];
      const init = await sh(dir, "npx", ["toolgate", "init"]);
      expect(init.stdout).toContain("schemas/get_weather.tool.json");
      // The contracts import writes count tokens, and this project has no tokenizer: init says what to install.
      expect(init.stdout).toContain("`npm install gpt-tokenizer`");
      const scripts = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")).scripts;
      const check = { "check:contracts": "toolgate generate --check" };
      if (type === "module") {
        // A build script: every build generates first.
        expect(scripts).toEqual({ build: "tsc", prebuild: "toolgate generate", ...check });
        const built = await sh(dir, "npm", ["run", "build"]);
        expect(built.stdout).toMatch(/get_weather → get_weather\/ .*fully bounded/);
      } else {
        // None: a prebuild would never run, so the generator gets a script of its own, and the user is told.
        expect(scripts).toEqual({ "generate:contracts": "toolgate generate", ...check });
        expect(init.stdout).toContain('no "build" script');
        const generated = await sh(dir, "npm", ["run", "generate:contracts"]);
        expect(generated.stdout).toMatch(/get_weather → get_weather\/ .*fully bounded/);
        await sh(dir, "node", [path.join("node_modules", "typescript", "bin", "tsc"), "-p", "."]);
      }
      await sh(dir, "npm", ["run", "--silent", "check:contracts"]);

      for (const tsc of ["typescript", "typescript-5.8"]) {
        await sh(dir, "node", [path.join("node_modules", tsc, "bin", "tsc"), "--noEmit", "-p", "."]);
      }
      // Without the docs' "types": ["node"], TypeScript 7 does not know node:fs, @types/node installed or not.
      const { compilerOptions, ...rest } = await readmeTsconfig();
      const { types: _types, ...untyped } = compilerOptions;
      await writeFile(
        path.join(dir, "tsconfig.untyped.json"),
        JSON.stringify({ ...rest, compilerOptions: { ...untyped, noEmit: true } }),
      );
      await expect(
        sh(dir, "node", [path.join("node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.untyped.json"]),
      ).rejects.toThrow(/Cannot find name 'node:fs'/);
      const { stdout, stderr } = await sh(dir, "node", ["dist/src/main.js"]);
      expect(stderr).toBe("");
      const outcomes = JSON.parse(stdout);
      expect(outcomes.project).toBe(type === "module" ? "consumer-esm" : "consumer-cjs");
      expect(outcomes.good).toMatchObject({ ok: true, city: "Oslo" });
      expect(outcomes.good.model).toContain('"sky":"rain"');
      expect(outcomes.bad).toMatchObject({ ok: false, code: "schema_mismatch" });
      expect(outcomes.bad.model).toContain('error="schema_mismatch"');
      expect(outcomes.bad.model).not.toContain("400");
      console.log(`${type}: ${stdout.trim()}`);
    }, 180_000);
  }

  it("installs toolgate with no script that runs at install time", async () => {
    for (const type of ["module", "commonjs"] as const) {
      const dir = await projects[type];
      const installed = JSON.parse(await readFile(path.join(dir, "node_modules", "toolgate", "package.json"), "utf8"));
      expect(installed.version).toBe("0.1.0");
      expect(Object.keys(installed.scripts ?? {}).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
      expect(installed.bin).toEqual({ toolgate: "./bin/toolgate.js" });
      // npm 11 lists a dependency's install scripts for approval; the packed toolgate has none to list.
      expect(installOutput[type]).not.toMatch(/toolgate@0\.1\.0 \(prepare/);
    }
  }, 180_000);

  it("installs the runtime alone in under 2 MB, without the generator's libraries, and runs the compiled code", async () => {
    const dir = path.join(work, "runtime-only");
    await mkdir(dir);
    await writeFile(
      path.join(dir, "package.json"),
      `${JSON.stringify({ name: "runtime-only", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    await sh(dir, "npm", ["install", "--no-audit", "--no-fund", packs.runtime]);
    const lock = JSON.parse(await readFile(path.join(dir, "package-lock.json"), "utf8"));
    const installed = Object.keys(lock.packages).filter((key) => key !== "");
    expect(installed).toEqual(["node_modules/@toolgate/runtime"]);
    for (const name of GENERATOR_ONLY)
      expect(installed.some((key) => key.endsWith(`node_modules/${name}`))).toBe(false);

    const size = await sizeOf(path.join(dir, "node_modules"));
    console.log(
      `@toolgate/runtime installed alone: ${size.disk} bytes on disk (${(size.disk / 1024).toFixed(0)} KiB), ` +
        `${size.apparent} bytes of files, ${installed.length} package`,
    );
    expect(size.disk).toBeLessThan(RUNTIME_BUDGET_BYTES);

    // The ES module project's compiled code, with its generated adapter, needs nothing but the runtime.
    const esm = await projects.module;
    await cp(path.join(esm, "dist"), path.join(dir, "dist"), { recursive: true });
    const { stdout } = await sh(dir, "node", ["dist/src/main.js"]);
    expect(JSON.parse(stdout)).toMatchObject({ good: { ok: true }, bad: { ok: false, code: "schema_mismatch" } });
  }, 180_000);
});
