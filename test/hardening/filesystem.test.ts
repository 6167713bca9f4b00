/**
 * The generator never reads or writes outside what it was given (issue 12, classes 6, 7, 8 and the linked contracts
 * of 16).
 *
 * - Writing: no file lands outside the output folder, whatever links a (cloned, hostile) folder holds: a link on the
 *   way is refused before anything is written, and the link's target is left exactly as it was.
 * - Reading: a referenced file is read only when its real path lies inside the project (the working directory, the
 *   contracts folder, a configured root), only when it is a regular file, and at most a bounded number of bytes.
 * - A contract named by a link is followed inside the project and refused outside it, never skipped.
 *
 * Each test runs the CLI in-process from a fresh project folder as its working directory, with a "victim" folder
 * beside the project standing for everything outside it.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runDiff } from "../../generator/diff/command.js";
import { MAX_INPUT_BYTES, readBoundedFile } from "../../generator/files.js";
import { toolgate } from "../cli.js";

let project: string;
let victim: string;
let before: string;

/** A project folder (the working directory) and a victim folder outside it, both new for every test. */
beforeEach(async () => {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolgate-fs-")));
  project = path.join(base, "project");
  victim = path.join(base, "victim");
  await mkdir(path.join(project, "schemas"), { recursive: true });
  await mkdir(victim);
  await writeFile(path.join(victim, "secret.txt"), "SECRET-CONTENT\n");
  await writeFile(
    path.join(victim, "schema.json"),
    JSON.stringify({ type: "string", maxLength: 4, $comment: "VICTIM" }),
  );
  before = process.cwd();
  process.chdir(project);
});

afterEach(() => {
  process.chdir(before);
});

/** A small bounded contract whose output schema is `outputSchema`. */
function contract(outputSchema: unknown, name = "get_thing"): Record<string, unknown> {
  return { name, description: "Fetch one thing.", outputSchema, "x-toolgate": { receive: { maxBytes: 4096 } } };
}

const BOUNDED = {
  type: "object",
  properties: { id: { type: "string", maxLength: 8 } },
  additionalProperties: false,
};

async function writeContract(file: string, content: unknown): Promise<void> {
  await mkdir(path.dirname(path.join(project, "schemas", file)), { recursive: true });
  await writeFile(path.join(project, "schemas", file), JSON.stringify(content, null, 2));
}

/** Every file below a folder, as relative paths (links listed, not followed). */
async function listing(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  // With file types, a recursive listing does not descend into linked folders.
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name))).sort();
}

describe("class 6: generate never writes through a symbolic link", () => {
  it("refuses a linked tool folder inside --out (the issue's example), and writes nothing", async () => {
    await writeContract("get_thing.tool.json", contract(BOUNDED));
    await mkdir(path.join(project, "generated"));
    await symlink(victim, path.join(project, "generated", "get_thing"));
    const result = await toolgate("generate");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/generated\/get_thing is a symbolic link: toolgate never writes through a link/);
    expect(await listing(victim)).toEqual(["schema.json", "secret.txt"]);
    // Nothing at all was written: the refusal comes before the first file.
    expect(await listing(path.join(project, "generated"))).toEqual(["get_thing"]);
  });

  it("refuses a linked file inside --out and leaves its target as it was", async () => {
    await writeContract("get_thing.tool.json", contract(BOUNDED));
    expect((await toolgate("generate")).code).toBe(0);
    const types = path.join(project, "generated", "get_thing", "types.ts");
    await writeFile(types, "");
    await import("node:fs/promises").then((fs) => fs.rm(types));
    await symlink(path.join(victim, "secret.txt"), types);
    const result = await toolgate("generate");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/types\.ts is a symbolic link/);
    expect(await readFile(path.join(victim, "secret.txt"), "utf8")).toBe("SECRET-CONTENT\n");
  });

  it("refuses a linked lock file, and --check does not trust it", async () => {
    await writeContract("get_thing.tool.json", contract(BOUNDED));
    expect((await toolgate("generate")).code).toBe(0);
    const lock = path.join(project, "generated", "toolgate.lock.json");
    await writeFile(path.join(victim, "lock.json"), await readFile(lock));
    await import("node:fs/promises").then((fs) => fs.rm(lock));
    await symlink(path.join(victim, "lock.json"), lock);
    const check = await toolgate("generate", "--check");
    expect(check.out).not.toMatch(/as its lock records/);
    expect(check.code).toBe(1);
    await writeFile(path.join(victim, "lock.json"), "VICTIM");
    const result = await toolgate("generate");
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/toolgate\.lock\.json is a symbolic link/);
    expect(await readFile(path.join(victim, "lock.json"), "utf8")).toBe("VICTIM");
  });

  it("refuses an --out that is itself a link, and a link in a nested folder", async () => {
    await writeContract("get_thing.tool.json", contract(BOUNDED));
    await symlink(victim, path.join(project, "linked-out"));
    const linked = await toolgate("generate", "--out", "linked-out");
    expect(linked.code).toBe(2);
    expect(linked.err).toMatch(/the output folder \S*linked-out is a symbolic link/);
    expect(await listing(victim)).toEqual(["schema.json", "secret.txt"]);

    await mkdir(path.join(project, "deep"));
    await symlink(victim, path.join(project, "deep", "out"));
    const nested = await toolgate("generate", "--out", "deep/out/inner");
    expect(nested.code).toBe(0);
    // The named folder's parents are the user's: `deep/out` was followed because the user named a path through
    // it; everything toolgate made below the named folder is real.
    expect(await listing(path.join(victim, "inner"))).toContain("toolgate.lock.json");
  });

  it("the local note is never written through a linked node_modules/.cache", async () => {
    await writeContract("get_thing.tool.json", contract(BOUNDED));
    await mkdir(path.join(project, "node_modules"));
    await symlink(victim, path.join(project, "node_modules", ".cache"));
    expect((await toolgate("generate")).code).toBe(0);
    expect(await listing(victim)).toEqual(["schema.json", "secret.txt"]);
  });
});

describe("class 6: diff never writes a crafted revision's paths outside its temporary copy", () => {
  it("skips `..` entries, which git ls-tree lists as they are", async () => {
    const git = (input: string, ...args: string[]) =>
      execFileSync("git", args, { cwd: project, input, stdio: ["pipe", "pipe", "pipe"] })
        .toString()
        .trim();
    git("", "init", "-q");
    await writeContract("get_thing.tool.json", contract(BOUNDED));
    // A tree no `git add` makes: schemas/../../<the test's folder>/victim/escaped.tool.json. Written as listed, it
    // would land in the victim folder, two levels above the copy's schemas folder in the temp folder.
    const blob = git(JSON.stringify(contract(BOUNDED, "escaped")), "hash-object", "-w", "--stdin");
    let tree = git(`100644 blob ${blob}\tescaped.tool.json\n`, "mktree");
    tree = git(`040000 tree ${tree}\tvictim\n`, "mktree");
    tree = git(`040000 tree ${tree}\t${path.basename(path.dirname(project))}\n`, "mktree");
    tree = git(`040000 tree ${tree}\t..\n`, "mktree");
    tree = git(`040000 tree ${tree}\t..\n`, "mktree");
    tree = git(`040000 tree ${tree}\tschemas\n`, "mktree");
    const commit = git("", "-c", "user.email=t@example.com", "-c", "user.name=t", "commit-tree", tree, "-m", "crafted");
    expect(git("", "ls-tree", "-r", "--name-only", commit)).toMatch(/^schemas\/\.\.\/\.\.\//);
    expect(path.resolve(tmpdir(), "toolgate-diff-x", "schemas", "..", "..")).toBe(path.dirname(path.dirname(project)));
    const code = await runDiff(["--base", commit, "--format", "json"], { out: () => {}, err: () => {} }, project);
    expect(code).toBe(0);
    expect(await listing(victim)).toEqual(["schema.json", "secret.txt"]);
  });
});

describe("class 6: import never writes a contract through a link", () => {
  const tool = { name: "get_thing", outputSchema: BOUNDED };

  it("refuses a link where the contract would go, and an --out that is a link", async () => {
    await writeFile(path.join(project, "tools.json"), JSON.stringify({ tools: [tool] }));
    await mkdir(path.join(project, "contracts"));
    // The link names a contract for the same tool, so the import would update it in place, with --force.
    const target = path.join(victim, "contract.json");
    await writeFile(target, JSON.stringify({ name: "get_thing", outputSchema: { type: "string" } }));
    await symlink(target, path.join(project, "contracts", "get_thing.tool.json"));
    const result = await toolgate("import", "tools.json", "--out", "contracts", "--force");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/refused\s+get_thing: \S*get_thing\.tool\.json is a symbolic link/);
    expect(JSON.parse(await readFile(target, "utf8")).outputSchema).toEqual({ type: "string" });

    // A link to something that is no contract of the tool: the tool gets a file of its own beside it.
    await writeFile(target, "SECRET");
    const beside = await toolgate("import", "tools.json", "--out", "contracts");
    expect(beside.code).toBe(0);
    expect(beside.out).toMatch(/written\s+contracts\/get_thing_2\.tool\.json/);
    expect(await readFile(target, "utf8")).toBe("SECRET");

    await symlink(victim, path.join(project, "linked"));
    const linked = await toolgate("import", "tools.json", "--out", "linked");
    expect(linked.code).toBe(2);
    expect(linked.err).toMatch(/the contracts folder \S*linked is a symbolic link/);
    expect(await listing(victim)).toEqual(["contract.json", "schema.json", "secret.txt"]);
  });
});

describe("class 7: files are read bounded, regular files only", () => {
  it('refuses $ref "/dev/zero" (the issue\'s example) quickly, as a contract error', async () => {
    await writeContract("get_thing.tool.json", contract({ $ref: "/dev/zero" }));
    const result = await toolgate("generate");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /get_thing\.tool\.json#\/outputSchema\/\$ref: \$ref file:\/\/\/dev\/zero reads \/dev\/zero, outside the project/,
    );
  });

  it("refuses a device inside a configured root, a FIFO inside the project, and a file past the limit", async () => {
    // /dev named as a root: the root check passes, so the read itself must refuse the device.
    await writeFile(path.join(project, "toolgate.config.json"), JSON.stringify({ roots: ["/dev"] }));
    await writeContract("zero.tool.json", contract({ $ref: "/dev/zero" }, "zero"));
    execFileSync("mkfifo", [path.join(project, "schemas", "fifo.json")]);
    await writeContract("fifo.tool.json", contract({ $ref: "fifo.json" }, "fifo"));
    await truncate(await writeEmpty(path.join(project, "schemas", "huge.json")), MAX_INPUT_BYTES + 1);
    await writeContract("huge.tool.json", contract({ $ref: "huge.json" }, "huge"));
    const result = await toolgate("generate");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /zero\.tool\.json#\/outputSchema\/\$ref: unresolvable \$ref: file:\/\/\/dev\/zero \(not a regular file \(a device\)\)/,
    );
    expect(result.err).toMatch(
      /fifo\.tool\.json#\/outputSchema\/\$ref: unresolvable \$ref: \S*fifo\.json \(not a regular file \(a FIFO\)\)/,
    );
    expect(result.err).toMatch(
      /huge\.tool\.json#\/outputSchema\/\$ref: unresolvable \$ref: \S*huge\.json \(16777217 bytes, more than the 16777216/,
    );
  });

  it("refuses a small YAML file whose aliases expand past the bound (800 bytes for 2^25 schemas), and one that holds itself", async () => {
    const lines = ["a0: &a0 {type: string}"];
    for (let i = 1; i <= 25; i++) lines.push(`a${i}: &a${i} {allOf: [*a${i - 1}, *a${i - 1}]}`);
    lines.push("type: object", "properties: {x: *a25}");
    await writeFile(path.join(project, "schemas", "laughs.yaml"), `${lines.join("\n")}\n`);
    await writeContract("laughs.tool.json", contract({ $ref: "laughs.yaml" }, "laughs"));
    await writeFile(path.join(project, "schemas", "loop.yaml"), "a: &a\n  items: *a\n");
    await writeContract("loop.tool.json", contract({ $ref: "loop.yaml" }, "loop"));
    const started = Date.now();
    const result = await toolgate("generate");
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /laughs\.tool\.json#\/outputSchema\/\$ref: unresolvable \$ref: \S*laughs\.yaml expands to more than 1000000 values/,
    );
    expect(result.err).toMatch(/loop\.tool\.json#\/outputSchema\/\$ref: unresolvable \$ref: \S*loop\.yaml/);
  });

  it("reads at most limit + 1 bytes even where the size reads 0 (/proc/self/environ)", async () => {
    if (!existsSync("/proc/self/environ")) return;
    await expect(readBoundedFile("/proc/self/environ", 8)).rejects.toThrow(/more than the 8 bytes/);
    expect((await readBoundedFile("/proc/self/environ", MAX_INPUT_BYTES)).length).toBeGreaterThan(0);
  });

  it("refuses a contract, an import FILE and a config that are not regular files", async () => {
    execFileSync("mkfifo", [path.join(project, "schemas", "pipe.tool.json")]);
    const generated = await toolgate("generate");
    expect(generated.code).toBe(1);
    expect(generated.err).toMatch(/pipe\.tool\.json#: cannot read the contract: not a regular file \(a FIFO\)/);

    const imported = await toolgate("import", "/dev/zero", "--out", "contracts");
    expect(imported.code).toBe(1);
    expect(imported.err).toMatch(/refused\s+\/dev\/zero: cannot read the file: not a regular file \(a device\)/);

    await symlink("/dev/zero", path.join(project, "toolgate.config.json"));
    const configured = await toolgate("generate");
    expect(configured.code).toBe(1);
    expect(configured.err).toMatch(/toolgate\.config\.json#: cannot read the config: not a regular file \(a device\)/);
  });

  it("import refuses a tool whose schema references /dev/zero (it used to crash at 3 GB)", async () => {
    const tool = { name: "zero", outputSchema: { $ref: "/dev/zero" } };
    await writeFile(path.join(project, "tools.json"), JSON.stringify([tool]));
    const result = await toolgate("import", "tools.json", "--out", "contracts");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /refused\s+zero: #\/outputSchema\/\$ref: \$ref file:\/\/\/dev\/zero reads \/dev\/zero, outside the project/,
    );
  });
});

/** Make an empty file and return its path. */
async function writeEmpty(file: string): Promise<string> {
  await writeFile(file, "");
  return file;
}

describe("class 8: references resolve inside the project, nowhere else", () => {
  /** Generate one contract whose output schema is `{ $ref }` and return the CLI's answer. */
  async function generateRef(ref: string) {
    await writeContract("get_thing.tool.json", contract({ type: "object", properties: { x: { $ref: ref } } }));
    return toolgate("generate");
  }

  const OUTSIDE =
    /get_thing\.tool\.json#\/outputSchema\/properties\/x\/\$ref: \$ref \S+ reads \S+, outside the project/;

  it.each([
    ["an absolute path (the issue's example)", () => path.join(victim, "schema.json")],
    ["a file: URI", () => "file:///etc/passwd"],
    ["../.. above the working directory (once re-rooted at /)", () => "../../victim/schema.json"],
    ["%2e%2e segments, which URL parsing decodes to ..", () => "%2e%2e/%2e%2e/victim/schema.json"],
  ])("refuses %s, naming the contract file and the $ref's pointer, and copies nothing", async (_, ref) => {
    const result = await generateRef(ref());
    expect(result.code).toBe(1);
    expect(result.err).toMatch(OUTSIDE);
    expect(existsSync(path.join(project, "generated"))).toBe(false);
  });

  it("refuses encoded separators that would climb out once decoded", async () => {
    const result = await generateRef("x%2F..%2F..%2F..%2Fvictim%2Fschema.json");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /#\/outputSchema\/properties\/x\/\$ref: unresolvable \$ref: \S+ \(a path segment holds an encoded separator/,
    );
  });

  it("refuses a link inside the project that points out of it, and a ref through a linked folder", async () => {
    await symlink(path.join(victim, "schema.json"), path.join(project, "schemas", "linked.json"));
    const linkedFile = await generateRef("linked.json");
    expect(linkedFile.code).toBe(1);
    expect(linkedFile.err).toMatch(OUTSIDE);
    expect(linkedFile.err).toContain(`reads ${path.join(victim, "schema.json")}`);

    await symlink(victim, path.join(project, "schemas", "vendor"));
    const linkedFolder = await generateRef("vendor/schema.json");
    expect(linkedFolder.code).toBe(1);
    expect(linkedFolder.err).toMatch(OUTSIDE);
  });

  it("reads a folder named in roots, at its real place (not re-rooted at /)", async () => {
    const shared = path.join(path.dirname(project), "shared-schemas");
    await mkdir(shared);
    await writeFile(path.join(shared, "id.json"), JSON.stringify({ type: "string", maxLength: 6 }));
    const refused = await generateRef("../../shared-schemas/id.json");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`reads ${path.join(shared, "id.json")}, outside the project`);

    await writeFile(path.join(project, "toolgate.config.json"), JSON.stringify({ roots: ["../shared-schemas"] }));
    const result = await toolgate("generate");
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    const types = await readFile(path.join(project, "generated", "get_thing", "types.ts"), "utf8");
    expect(types).not.toContain("VICTIM");
    const lock = JSON.parse(await readFile(path.join(project, "generated", "toolgate.lock.json"), "utf8"));
    expect(Object.keys(lock.record.inputs)).toContain("../../shared-schemas/id.json");
  });

  it("the same in-project references resolve as before", async () => {
    await writeFile(path.join(project, "schemas", "id.json"), JSON.stringify({ type: "string", maxLength: 6 }));
    await mkdir(path.join(project, "common"));
    await writeFile(path.join(project, "common", "n.json"), JSON.stringify({ type: "integer", maximum: 9 }));
    await writeContract(
      "get_thing.tool.json",
      contract({ type: "object", properties: { a: { $ref: "id.json" }, b: { $ref: "../common/n.json" } } }),
    );
    const result = await toolgate("generate");
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
  });
});

describe("class 8: toolgate diff reading a git revision", () => {
  it("a revision's references stay inside the tree it reads", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: project, stdio: "pipe" });
    git("init", "-q");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "t");
    const absolute = path.join(victim, "schema.json");
    await writeContract("get_thing.tool.json", contract({ type: "object", properties: { x: { $ref: absolute } } }));
    await writeContract(
      "up.tool.json",
      contract({ type: "object", properties: { x: { $ref: "../../victim/schema.json" } } }, "up"),
    );
    git("add", ".");
    git("commit", "-qm", "contracts");
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDiff(["--format", "json"], { out: (l) => out.push(l), err: (l) => err.push(l) }, project);
    expect(code).toBe(1);
    const errors = err.join("\n");
    // The revision is read from a copy of its tree; an absolute path is refused there as in the working tree, and
    // `../..` climbs out of the copy, not into the working tree's neighbours.
    expect(errors).toContain(
      `get_thing.tool.json#/outputSchema/properties/x/$ref: $ref file://${absolute} reads ${absolute}, outside the project`,
    );
    expect(errors).toMatch(
      /error \(base\) \S*up\.tool\.json#\/outputSchema\/properties\/x\/\$ref: (unresolvable|\$ref \S+ reads)/,
    );
    expect(errors).toMatch(
      /error \(head\) schemas\/up\.tool\.json#\/outputSchema\/properties\/x\/\$ref: \$ref \S+ reads \S+, outside/,
    );
    expect(out.join("\n")).not.toContain("VICTIM");
  });
});

describe("class 8: roots in toolgate diff", () => {
  it("a root inside the repository is read from the revision, and its change is reported", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: project, stdio: "pipe" });
    git("init", "-q");
    const app = path.join(project, "app");
    await mkdir(path.join(app, "schemas"), { recursive: true });
    await mkdir(path.join(project, "shared"));
    const id = (maxLength: number) => JSON.stringify({ type: "string", maxLength });
    await writeFile(path.join(project, "shared", "id.json"), id(6));
    await writeFile(path.join(app, "toolgate.config.json"), JSON.stringify({ roots: ["../shared"] }));
    await writeFile(
      path.join(app, "schemas", "get_thing.tool.json"),
      JSON.stringify(contract({ type: "object", properties: { id: { $ref: "../../shared/id.json" } } })),
    );
    git("add", ".");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "contracts");
    await writeFile(path.join(project, "shared", "id.json"), id(9));
    const out: string[] = [];
    const err: string[] = [];
    const code = await runDiff(["--format", "json"], { out: (l) => out.push(l), err: (l) => err.push(l) }, app);
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(out.join("\n"));
    expect(JSON.stringify(report.changes)).toContain("maxLength");
  });
});

describe("class 16: a contract named by a link is followed inside the project, refused outside, never skipped", () => {
  it("follows a link to a contract inside the project and refuses one to a contract outside", async () => {
    await mkdir(path.join(project, "drafts"));
    await writeFile(path.join(project, "drafts", "inside.json"), JSON.stringify(contract(BOUNDED, "inside")));
    await symlink(path.join(project, "drafts", "inside.json"), path.join(project, "schemas", "inside.tool.json"));
    await writeFile(path.join(victim, "outside.json"), JSON.stringify(contract(BOUNDED, "outside")));
    await symlink(path.join(victim, "outside.json"), path.join(project, "schemas", "outside.tool.json"));
    const result = await toolgate("generate");
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^inside → inside\//m);
    expect(result.err).toMatch(
      /schemas\/outside\.tool\.json#: a symbolic link to \S*victim\/outside\.json, outside the contracts folder and the project/,
    );
  });

  it("a dangling link named like a contract is an error, not a silent skip", async () => {
    await symlink(path.join(victim, "missing.json"), path.join(project, "schemas", "dangling.tool.json"));
    const result = await toolgate("generate");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/dangling\.tool\.json#: cannot read the contract: no such file/);
  });
});
