/**
 * `toolgate diff` between git revisions of a fixture repository made here (`git init`, commits), between a revision
 * and the working tree, and between folders; `--fail-on` exit codes; usage errors.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../generator/cli/main.js";
import { runDiff } from "../../../generator/diff/command.js";
import type { DiffReport } from "../../../generator/diff/report.js";

/** The fixture contract, typed as far as the tests edit it. */
interface Contract {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: {
    type: "object";
    properties: {
      id: { type: "string"; maxLength: number };
      status: { enum: string[] };
      owner: unknown;
      note: unknown;
    };
    required: string[];
    additionalProperties: boolean;
  };
  "x-toolgate": { view: { omit: string[] } };
}

function contract(): Contract {
  return {
    name: "get_record",
    description: "Look up one record by id.",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string", maxLength: 32 } },
      required: ["id"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        id: { type: "string", maxLength: 32 },
        status: { enum: ["open", "closed"] },
        owner: { $ref: "common/person.json" },
        note: { type: "string", maxLength: 200 },
      },
      required: ["id", "status"],
      additionalProperties: false,
    },
    "x-toolgate": { view: { omit: ["/note"] } },
  };
}

function person(maxLength: number): Record<string, unknown> {
  return {
    type: "object",
    properties: { name: { type: "string", maxLength } },
    required: ["name"],
    additionalProperties: false,
  };
}

const searchTool = {
  name: "search",
  description: "Search records.",
  outputSchema: {
    type: "object",
    properties: { hits: { type: "array", maxItems: 10, items: { type: "string", maxLength: 100 } } },
    additionalProperties: false,
  },
};

let repo: string;
/** Commit ids by name: v1 (first), v2 (a breaking change), v3 (non-breaking only), v4 (reformatting only), v5 (tools). */
const rev: Record<string, string> = {};

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", ...args], {
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

async function put(file: string, value: unknown, indent = 2): Promise<void> {
  const target = path.join(repo, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, typeof value === "string" ? value : `${JSON.stringify(value, null, indent)}\n`);
}

async function commit(name: string): Promise<void> {
  git("add", "-A");
  git("commit", "-q", "-m", name);
  rev[name] = git("rev-parse", "HEAD");
}

beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), "toolgate-diff-repo-"));
  git("init", "-q", "-b", "main");
  await put("schemas/get_record.tool.json", contract());
  await put("schemas/common/person.json", person(64));
  await put("README.md", "fixture\n");
  await commit("v1");

  const breaking = contract();
  breaking.outputSchema.properties.status.enum.push("archived");
  await put("schemas/get_record.tool.json", breaking);
  await commit("v2");

  // Only non-breaking changes: a tightened bound in a referenced file, a field made public, a new description.
  await put("schemas/common/person.json", person(48));
  const open = structuredClone(breaking);
  open["x-toolgate"].view.omit = [];
  open.description = "Look up one record by its id.";
  await put("schemas/get_record.tool.json", open);
  await commit("v3");

  // The same contracts, written with other indentation.
  await put("schemas/get_record.tool.json", open, 8);
  await put("schemas/common/person.json", JSON.stringify(person(48)));
  await commit("v4");

  // A tool added in a subfolder.
  await put("schemas/search/search.tool.json", searchTool);
  await commit("v5");
});

afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

/** Run `toolgate diff` in the fixture repository. */
async function diff(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDiff(argv, { out: (line) => out.push(line), err: (line) => err.push(line) }, repo);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function jsonDiff(...argv: string[]): Promise<{ code: number; report: DiffReport; err: string }> {
  const result = await diff(...argv, "--format", "json");
  return { code: result.code, report: JSON.parse(result.out) as DiffReport, err: result.err };
}

const kinds = (report: DiffReport) =>
  report.changes.map((c) => `${c.tool} ${c.class} ${c.kind} ${c.path ?? ""}`.trim());

describe("toolgate diff between git revisions", () => {
  it("reports a breaking change between two commits, with the revisions named", async () => {
    const { code, report } = await jsonDiff("--base", rev.v1 as string, "--head", rev.v2 as string);
    expect(code).toBe(0);
    expect(report.base).toBe(rev.v1?.slice(0, 7));
    expect(report.head).toBe(rev.v2?.slice(0, 7));
    expect(kinds(report)).toEqual(["get_record breaking enum-value-added /status"]);
    expect(report.changes[0]).toMatchObject({ pointer: "/outputSchema/properties/status/enum", after: "archived" });
  });

  it("follows a $ref into a file that changed at that revision", async () => {
    const { report } = await jsonDiff("--base", rev.v2 as string, "--head", rev.v3 as string);
    expect(kinds(report)).toEqual([
      "get_record exposure view-field-added /note",
      "get_record tightened maxLength-lowered /owner/name",
      "get_record settings view-changed",
      "get_record annotation description-changed",
    ]);
  });

  it("finds no change where only the formatting changed", async () => {
    const { code, report } = await jsonDiff(
      "--base",
      rev.v3 as string,
      "--head",
      rev.v4 as string,
      "--fail-on",
      "breaking,exposure,tightened,settings,annotation",
    );
    expect(code).toBe(0);
    expect(report.changes).toEqual([]);
    const markdown = await diff("--base", rev.v3 as string, "--head", rev.v4 as string);
    expect(markdown.out).toMatch(/: no contract changes \(1 tool\)\.$/);
  });

  it("reports tools added and removed, in subfolders too", async () => {
    const added = await jsonDiff("--base", rev.v4 as string, "--head", rev.v5 as string);
    expect(kinds(added.report)).toEqual(["search added tool-added"]);
    const removed = await jsonDiff("--base", rev.v5 as string, "--head", rev.v1 as string);
    expect(kinds(removed.report)).toContain("search removed tool-removed");
    expect(removed.report.summary.tools).toEqual({ base: 2, head: 1, changed: ["get_record", "search"] });
    // The summary line counts the removed tool among the tools.
    expect((await diff("--base", rev.v5 as string, "--head", rev.v1 as string)).out).toMatch(
      / changes in 2 of 2 tools: /,
    );
  });

  it("compares HEAD with the working tree by default, and leaves the working tree as it was", async () => {
    const edited = contract();
    edited.outputSchema.properties.id.maxLength = 100;
    edited["x-toolgate"].view.omit = [];
    edited.description = "Look up one record by its id.";
    edited.outputSchema.properties.status.enum.push("archived");
    await put("schemas/get_record.tool.json", edited);
    const before = git("status", "--porcelain");
    try {
      const { code, report } = await jsonDiff("--fail-on", "breaking");
      expect(code).toBe(1);
      expect(report.base).toBe(`HEAD (${rev.v5?.slice(0, 7)})`);
      expect(report.head).toBe("working tree");
      // The working tree still references person.json at 48, HEAD too: only the id bound differs.
      expect(kinds(report)).toEqual(["get_record breaking maxLength-raised /id"]);
      expect(git("status", "--porcelain")).toBe(before);
    } finally {
      git("checkout", "-q", "--", "schemas/get_record.tool.json");
    }
  });

  it("compares a revision with a folder", async () => {
    const folder = await mkdtemp(path.join(tmpdir(), "toolgate-diff-folder-"));
    try {
      await writeFile(path.join(folder, "search.tool.json"), JSON.stringify(searchTool));
      const { report } = await jsonDiff("--base", rev.v5 as string, "--head", folder);
      expect(report.head).toBe(folder);
      expect(kinds(report)).toEqual(["get_record removed tool-removed"]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("removes its temporary copies of a revision", async () => {
    const mine = async () =>
      (await readdir(tmpdir())).filter(
        (name) =>
          name.startsWith("toolgate-diff-") &&
          !name.includes("repo") &&
          !name.includes("folder") &&
          !name.includes("classify"),
      );
    const before = new Set(await mine());
    await jsonDiff("--base", rev.v1 as string, "--head", rev.v3 as string);
    // Other test files may create copies concurrently, so only look for new ones that stayed.
    const left = (await mine()).filter((name) => !before.has(name));
    expect(left).toEqual([]);
  });
});

describe("--fail-on", () => {
  it("exits 1 exactly when a breaking change is present", async () => {
    const breaking = await diff("--base", rev.v1 as string, "--head", rev.v2 as string, "--fail-on", "breaking");
    expect(breaking.code).toBe(1);
    expect(breaking.err).toMatch(/1 breaking \(--fail-on breaking\)/);
    // v2 → v3 has exposure, tightened, settings and annotation changes, and nothing breaking.
    const safe = await diff("--base", rev.v2 as string, "--head", rev.v3 as string, "--fail-on", "breaking");
    expect(safe.code).toBe(0);
    expect(safe.err).toBe("");
  });

  it("takes a comma-separated list of classes", async () => {
    const exposure = await diff(
      "--base",
      rev.v2 as string,
      "--head",
      rev.v3 as string,
      "--fail-on",
      "breaking, exposure",
    );
    expect(exposure.code).toBe(1);
    expect(exposure.err).toMatch(/1 exposure/);
    const none = await diff("--base", rev.v2 as string, "--head", rev.v3 as string);
    expect(none.code).toBe(0);
  });

  it("exits 1 when a contract cannot be read, and names it", async () => {
    await put("schemas/broken.tool.json", "{ not json");
    try {
      const result = await diff("--base", rev.v5 as string, "--fail-on", "breaking");
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/error \(head\) .*broken\.tool\.json#: invalid JSON/);
    } finally {
      await rm(path.join(repo, "schemas/broken.tool.json"));
    }
  });
});

describe("toolgate diff --help", () => {
  it("prints the diff usage and the classes, exit 0", async () => {
    const result = await diff("--help");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/toolgate diff \[--base REV\|DIR\]/);
    expect(result.out).toMatch(/breaking, exposure, removed, tightened, loosened, settings, added, annotation/);
  });
});

describe("usage errors exit 2", () => {
  it.each([
    [["--fail-on", "breaking,oops"], /unknown class "oops"/],
    [["--format", "xml"], /--format must be markdown or json/],
    [["--base", "no-such-revision"], /"no-such-revision" is neither a folder nor a git revision/],
    [["--bogus"], /Unknown option '--bogus'/],
    [["extra"], /unexpected argument "extra"/],
    [["--schemas", "missing"], /no contracts folder at/],
  ])("%j", async (argv, message) => {
    const result = await diff(...argv);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(message);
  });
});

describe("the toolgate command line", () => {
  it("dispatches `toolgate diff` and lists it in --help", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
    const help = await main(["--help"], io);
    expect(help).toBe(0);
    expect(out.join("\n")).toMatch(/toolgate diff \[--base REV\|DIR\] \[--head REV\|DIR\]/);
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      out.length = 0;
      const code = await main(
        ["diff", "--base", rev.v1 as string, "--head", rev.v2 as string, "--fail-on", "breaking"],
        io,
      );
      expect(code).toBe(1);
      expect(out.join("\n")).toMatch(/^\*\*toolgate diff\*\* `.+` → `.+`: 1 change in 1 of 1 tool: 1 breaking\./);
    } finally {
      process.chdir(cwd);
    }
  });
});
