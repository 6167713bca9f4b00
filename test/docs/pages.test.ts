/**
 * The docs cannot drift: the generated pages (the `x-toolgate` reference, the CLI reference, the benchmarks' latest
 * run) are what `scripts/docs-pages.mjs` writes from the committed inputs, as `generated/` is what the contracts
 * generate; every internal link of README.md and docs/ leads to a file and heading that exist; and the README stays
 * the short page a newcomer reads, with the quick start's two commands, the second of which is what CI runs.
 */
import { execFile } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../build.js";
import { deadLinks } from "./links.js";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const SCRIPT = path.join(REPO, "scripts", "docs-pages.mjs");
const run = promisify(execFile);

/** The script's exit code and output, with `args`. */
async function docsPages(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [SCRIPT, ...args], { cwd: REPO });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, out: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

/** README.md and every page of docs/, relative to the repository. */
function markdownPages(): string[] {
  const pages = readdirSync(path.join(REPO, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md") && !file.split(path.sep).includes("node_modules"))
    .map((file) => path.posix.join("docs", ...file.split(path.sep)));
  return ["README.md", ...pages.sort()];
}

beforeAll(() => ensureBuilt(), 300_000);

describe("the generated pages of docs/", () => {
  it("are what the script writes from the committed schema, CLI and bench/results.json", async () => {
    const check = await docsPages("--check");
    expect(check.out).toContain("docs: generated pages up to date");
    expect(check.code).toBe(0);
  });

  it("name a page edited by hand, or a results file whose figures changed, as stale", async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), "toolgate-docs-"));
    try {
      cpSync(path.join(REPO, "docs"), copy, { recursive: true, filter: (from) => !from.includes("node_modules") });
      const cli = path.join(copy, "reference", "cli.md");
      writeFileSync(cli, readFileSync(cli, "utf8").replace("| `--check` |", "| `--chek` |"));
      const bench = path.join(copy, "benchmarks.md");
      // One figure of the generated tables changed, whichever the latest run holds: the first ratio cell.
      const page = readFileSync(bench, "utf8");
      const changed = page.replace(/\| (\d+(?:\.\d+)?)× \|/, (_cell, figure: string) => `| ${Number(figure) + 1}× |`);
      expect(changed).not.toBe(page);
      writeFileSync(bench, changed);
      const check = await docsPages("--check", "--docs", copy);
      expect(check.code).toBe(1);
      expect(check.out).toMatch(/stale {2}.*reference\/cli\.md/);
      expect(check.out).toMatch(/stale {2}.*benchmarks\.md/);
      expect(check.out).not.toMatch(/x-toolgate\.md/);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it("document every flag the commands accept and the defaults the generator applies", () => {
    const cli = readFileSync(path.join(REPO, "docs", "reference", "cli.md"), "utf8");
    // Flags a hand-written summary had left out.
    for (const flag of ["--json-text", "--max-message-bytes", "--redis", "--reload-key", "--fail-on", "--labels"])
      expect(cli, flag).toContain(`| \`${flag}\` |`);
    const reference = readFileSync(path.join(REPO, "docs", "reference", "x-toolgate.md"), "utf8");
    const schema = JSON.parse(readFileSync(path.join(REPO, "schemas", "x-toolgate.schema.json"), "utf8"));
    for (const key of Object.keys(schema.properties)) expect(reference, key).toContain(`| \`${key}\` |`);
    expect(reference).toContain("| `context.max` | integer, ≥ 1, ≤ 10000000 | `8000` |");
    expect(reference).toContain("| `oversize` |");
    expect(reference).toMatch(
      /\| `result\.kind` \| [^|]+ \| `"structured"` with an `outputSchema`, `"text"` without \|/,
    );
  });
});

describe("the links of README.md and docs/", () => {
  it("each lead to a file of the repository, and to a heading that page has", () => {
    const pages = markdownPages();
    expect(pages.length).toBeGreaterThan(20);
    expect(deadLinks(REPO, pages)).toEqual([]);
  });

  it("are reported when one leads nowhere", async () => {
    const copy = await mkdtemp(path.join(REPO, ".tmp", "links-"));
    try {
      writeFileSync(
        path.join(copy, "page.md"),
        "# Page\n\n## Observe mode\n\n[ok](#observe-mode) [gone](missing.md) [no heading](page.md#nowhere)\n" +
          "`[in code](nowhere.md)`\n```\n[in a block](nowhere.md)\n```\n",
      );
      const dead = deadLinks(REPO, [path.relative(REPO, path.join(copy, "page.md"))]);
      expect(dead.map((link) => [link.target, link.why])).toEqual([
        ["missing.md", "no such file"],
        ["page.md#nowhere", `no heading #nowhere in ${path.relative(REPO, path.join(copy, "page.md"))}`],
      ]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});

describe("the docs site's build", () => {
  it("fails on a dead page link: only links out of docs/ into the repository are let through", async () => {
    const { default: config } = await import("../../docs/.vitepress/config.mjs");
    const ignore = config.ignoreDeadLinks;
    expect(Array.isArray(ignore)).toBe(true);
    const lets = (url: string) =>
      (ignore as unknown[]).some((rule) => typeof rule === "function" && rule(url, "page.md") === true);
    // What VitePress hands the rule: the link without its .md, relative to the page.
    expect(lets("./../runtime/README")).toBe(true);
    expect(lets("./../../ARCHITECTURE")).toBe(true);
    expect(lets("./gate")).toBe(false);
    expect(lets("./frameworks/missing")).toBe(false);
    expect(lets("./../docs/missing")).toBe(false);
  });
});

describe("the README", () => {
  const readme = readFileSync(path.join(REPO, "README.md"), "utf8");

  it("is short, and its quick start is two commands, the second the one CI runs", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    const quickStart = readme.slice(readme.indexOf("## Quick start"));
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? "";
    const commands = block
      .split("\n")
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter((line) => line !== "");
    expect(commands).toEqual(["npm ci && npm run generate", "npm test"]);
    const ci = readFileSync(path.join(REPO, ".ci", "run"), "utf8");
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test$/m);
  });

  it("maps every page of docs/", () => {
    for (const page of markdownPages().filter((file) => file.startsWith("docs/") && file !== "docs/index.md"))
      expect(readme, page).toContain(`](${page})`);
  });
});
