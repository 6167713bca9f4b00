/**
 * The two packages as a user gets them: `npm pack`ed, installed from their tarballs into fresh projects outside
 * this repository (an ES module one and a CommonJS one), `toolgate init`, `toolgate generate`, a strict type check
 * with TypeScript 7 and 5.8, and a compiled script that admits one good and one bad result through the generated
 * adapter. And a project that installs only `@toolgate/runtime`: what it costs on disk, that it pulls in none of
 * the generator's libraries, and that the compiled code runs there.
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

async function pack(folder: string): Promise<string> {
  // Built once by ensureBuilt: packing without scripts ships exactly that build.
  const { stdout } = await sh(REPO, "npm", [
    "pack",
    "--ignore-scripts",
    "--json",
    "--pack-destination",
    path.join(work, "packs"),
    folder,
  ]);
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  return path.join(work, "packs", (packed as { filename: string }).filename);
}

/** A fresh project with the runtime as a dependency and toolgate and TypeScript as devDependencies. */
async function consumer(name: string, type: "module" | "commonjs"): Promise<string> {
  const dir = path.join(work, name);
  await mkdir(path.join(dir, "src"), { recursive: true });
  const manifest = {
    name,
    version: "1.0.0",
    private: true,
    // A CommonJS project is one that says nothing.
    ...(type === "module" ? { type } : {}),
    dependencies: { "@toolgate/runtime": `file:${packs.runtime}` },
    devDependencies: {
      toolgate: `file:${packs.toolgate}`,
      typescript: TYPESCRIPT["7"],
      "typescript-5.8": `npm:typescript@${TYPESCRIPT["5.8"]}`,
    },
  };
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  // What the README's Install section tells a project to set.
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      allowJs: true,
      outDir: "dist",
      rootDir: ".",
    },
    include: ["src", "generated"],
  };
  await writeFile(path.join(dir, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
  await writeFile(path.join(dir, "src", "main.ts"), script(type));
  await sh(dir, "npm", ["install", "--no-audit", "--no-fund"]);
  return dir;
}

/** A script that admits one good and one bad result through the generated adapter and prints the outcomes. */
function script(type: "module" | "commonjs"): string {
  const body = `  const good = await getWeather.admit(JSON.stringify({ city: "Oslo", temperatureC: 4.5, sky: "rain" }));
  const bad = await getWeather.admit(JSON.stringify({ city: "Oslo", temperatureC: 400, sky: "rain" }));
  const data: GetWeatherResult | undefined = good.ok ? good.data : undefined;
  console.log(
    JSON.stringify({
      good: good.ok ? { ok: true, city: data?.city, model: toModelContent(good) } : { ok: false, code: good.error.code },
      bad: bad.ok ? { ok: true } : { ok: false, code: bad.error.code, model: toModelContent(bad) },
    }),
  );`;
  const imports = `import { toModelContent } from "@toolgate/runtime";
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
  const [runtime, toolgate] = await Promise.all([pack("./runtime"), pack(".")]);
  packs = { runtime: runtime as string, toolgate: toolgate as string };
}, 180_000);

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
      const scripts = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")).scripts;
      expect(scripts).toEqual({ prebuild: "toolgate generate", "check:contracts": "toolgate generate --check" });

      const generated = await sh(dir, "npx", ["toolgate", "generate"]);
      expect(generated.stdout).toMatch(/get_weather → get_weather\/ .*fully bounded/);
      await sh(dir, "npm", ["run", "--silent", "check:contracts"]);

      for (const tsc of ["typescript", "typescript-5.8"]) {
        await sh(dir, "node", [path.join("node_modules", tsc, "bin", "tsc"), "--noEmit", "-p", "."]);
      }
      await sh(dir, "node", [path.join("node_modules", "typescript", "bin", "tsc"), "-p", "."]);
      const { stdout, stderr } = await sh(dir, "node", ["dist/src/main.js"]);
      expect(stderr).toBe("");
      const outcomes = JSON.parse(stdout);
      expect(outcomes.good).toMatchObject({ ok: true, city: "Oslo" });
      expect(outcomes.good.model).toContain('"sky":"rain"');
      expect(outcomes.bad).toMatchObject({ ok: false, code: "schema_mismatch" });
      expect(outcomes.bad.model).toContain('error="schema_mismatch"');
      expect(outcomes.bad.model).not.toContain("400");
      console.log(`${type}: ${stdout.trim()}`);
    }, 180_000);
  }

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
