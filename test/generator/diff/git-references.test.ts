/**
 * A revision's contracts reference other files: YAML files that reference each other, and a vendored schema reached
 * through a URI prefix that `toolgate.config.json` maps to a folder. Each must be read as it was at that revision.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDiff } from "../../../generator/diff/command.js";
import type { DiffReport } from "../../../generator/diff/report.js";

let repo: string;
const rev: Record<string, string> = {};

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "commit.gpgsign=false", ...args], {
    cwd: repo,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Fixture",
      GIT_AUTHOR_EMAIL: "fixture@example.com",
      GIT_COMMITTER_NAME: "Fixture",
      GIT_COMMITTER_EMAIL: "fixture@example.com",
      GIT_CONFIG_NOSYSTEM: "1",
    },
  }).trim();
}

async function put(file: string, text: string): Promise<void> {
  const target = path.join(repo, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
}

/** The YAML chain and the vendored schema, with the bounds each commit gives them. */
async function files(nameMax: number, vendorMax: number, vendorEnum: string[]): Promise<void> {
  await put(
    "contracts/lookup.tool.json",
    JSON.stringify({
      name: "lookup",
      outputSchema: {
        type: "object",
        properties: {
          person: { $ref: "shared/person.yaml" },
          country: { $ref: "https://schemas.example.com/geo/country.json" },
        },
        additionalProperties: false,
      },
    }),
  );
  await put(
    "contracts/shared/person.yaml",
    "type: object\nproperties:\n  name:\n    $ref: ./name.yaml\nadditionalProperties: false\n",
  );
  await put("contracts/shared/name.yaml", `type: string\nmaxLength: ${nameMax}\n`);
  await put("vendor/geo/country.json", JSON.stringify({ enum: vendorEnum, maxLength: vendorMax }));
}

beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), "toolgate-diff-refs-"));
  git("init", "-q", "-b", "main");
  await put(
    "toolgate.config.json",
    JSON.stringify({ schemas: "contracts", refs: { "https://schemas.example.com/": "vendor" } }),
  );
  await files(40, 2, ["DE", "FR"]);
  git("add", "-A");
  git("commit", "-q", "-m", "one");
  rev.one = git("rev-parse", "HEAD");
  await files(80, 2, ["DE", "FR", "NL"]);
  git("add", "-A");
  git("commit", "-q", "-m", "two");
  rev.two = git("rev-parse", "HEAD");
});

afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe("references at a revision", () => {
  it("follows YAML references and mapped URI prefixes into the files as they were", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDiff(
      ["--base", rev.one as string, "--head", rev.two as string, "--format", "json"],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      repo,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(out.join("\n")) as DiffReport;
    expect(report.changes.map((c) => [c.class, c.kind, c.path, c.before, c.after])).toEqual([
      ["breaking", "enum-value-added", "/country", undefined, "NL"],
      ["breaking", "maxLength-raised", "/person/name", 40, 80],
    ]);
  });

  it("compares the working tree with the same files unchanged: no change", async () => {
    const out: string[] = [];
    const code = await runDiff(["--fail-on", "breaking"], { out: (l) => out.push(l), err: () => {} }, repo);
    expect(code).toBe(0);
    expect(out.join("\n")).toMatch(/no contract changes \(1 tool\)/);
  });
});
