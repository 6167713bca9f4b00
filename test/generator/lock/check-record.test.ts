/**
 * `generate --check` answers from the record the lock carries: fast on a folder no run has seen on this machine (a
 * fresh clone, CI), and never "up to date" when a contract, a referenced file, a generated file, the lock itself,
 * the set of contracts, an option or the generator changed.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inputHashOf } from "../../../generator/contract/input-hash.js";
import { generatedFiles } from "../../../generator/emit/write.js";
import { fingerprintFiles, noteFile } from "../../../generator/lock/freshness.js";
import {
  CHANGED_WHILE_READ,
  generatorIdentity,
  inputsRead,
  LOCK_FILE,
  type LockRecord,
  recordedFresh,
} from "../../../generator/lock/record.js";
import { sortedJson } from "../../../generator/schema/json.js";
import { toolgate } from "../../cli.js";

const FAST = /is up to date \(as its lock records/;
const FULL = /is up to date \(\d+ files\)/;

function contract(name: string, maxLength = 32): Record<string, unknown> {
  return {
    name,
    description: "Fetch one thing.",
    inputSchema: { type: "object", properties: { id: { type: "string", maxLength: 32 } }, additionalProperties: false },
    outputSchema: { $ref: "shared/thing.json", $comment: `maxLength ${maxLength}` },
  };
}

const thing = (maxLength: number) =>
  `${JSON.stringify({ type: "object", properties: { id: { type: "string", maxLength } }, additionalProperties: false }, null, 2)}\n`;

/** A project: its contracts in `schemas/`, its output in `generated/`, the CLI run from its root. */
interface Project {
  root: string;
  schemas: string;
  out: string;
}

let pristine: Project;

/** Run `body` with the working directory at `root`, as a user runs toolgate from the project's root. */
async function inFolder<T>(root: string, body: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(root);
  try {
    return await body();
  } finally {
    process.chdir(before);
  }
}

async function project(root: string): Promise<Project> {
  return { root, schemas: path.join(root, "schemas"), out: path.join(root, "generated") };
}

/** A project generated once; each test works on a copy of it that no run has seen. */
beforeAll(async () => {
  pristine = await project(await mkdtemp(path.join(tmpdir(), "toolgate-record-")));
  await mkdir(path.join(pristine.schemas, "shared"), { recursive: true });
  await writeFile(path.join(pristine.schemas, "get_thing.tool.json"), JSON.stringify(contract("get_thing"), null, 2));
  await writeFile(path.join(pristine.schemas, "other.tool.json"), JSON.stringify(contract("other_thing"), null, 2));
  await writeFile(path.join(pristine.schemas, "shared", "thing.json"), thing(8));
  const result = await inFolder(pristine.root, () => toolgate("generate"));
  expect(result.err).toBe("");
  expect(result.code).toBe(0);
});

/** A copy of the project in a new folder, as a fresh clone: no note of a run exists for it. */
async function freshClone(): Promise<Project> {
  const clone = await project(await mkdtemp(path.join(tmpdir(), "toolgate-clone-")));
  await cp(pristine.schemas, clone.schemas, { recursive: true });
  await cp(pristine.out, clone.out, { recursive: true });
  return clone;
}

const check = (clone: Project) => inFolder(clone.root, () => toolgate("generate", "--check"));

async function readLock(out: string): Promise<{ [key: string]: unknown } & { record: LockRecord }> {
  return JSON.parse(await readFile(path.join(out, LOCK_FILE), "utf8"));
}

/** Rewrite the lock as toolgate would write it (sorted keys, same layout), after `edit`. */
async function editLock(out: string, edit: (lock: { [key: string]: unknown } & { record: LockRecord }) => void) {
  const lock = await readLock(out);
  edit(lock);
  await writeFile(path.join(out, LOCK_FILE), `${sortedJson(lock)}\n`);
}

describe("the lock's record", () => {
  it("names every input by its path from the contracts folder and every generated file but the lock", async () => {
    const { record } = await readLock(pristine.out);
    expect(Object.keys(record.inputs).sort()).toEqual(["get_thing.tool.json", "other.tool.json", "shared/thing.json"]);
    expect(Object.keys(record.outputs)).toContain("index.ts");
    expect(Object.keys(record.outputs)).toContain("get_thing/validate.js");
    expect(Object.keys(record.outputs)).not.toContain(LOCK_FILE);
    expect(record.generator).toEqual(generatorIdentity());
    expect(record.generator.toolgate).toMatch(/^\d+\.\d+\.\d+/);
    expect(record.refs).toEqual({});
    expect(record.contracts).toBe("schemas");
    expect(record.workingDirectory).toBe("..");
  });

  it("is the same wherever the output goes: generating into another folder gives the same lock", async () => {
    const elsewhere = path.join(await mkdtemp(path.join(tmpdir(), "toolgate-elsewhere-")), "out");
    expect((await inFolder(pristine.root, () => toolgate("generate", "--out", elsewhere))).code).toBe(0);
    expect(await readFile(path.join(elsewhere, LOCK_FILE), "utf8")).toBe(
      await readFile(path.join(pristine.out, LOCK_FILE), "utf8"),
    );
  });
});

describe("what the record keeps of each input", () => {
  it("is the hash of the content read: JSON as parsed, so reformatting is no change", async () => {
    const { record } = await readLock(pristine.out);
    const shared = await readFile(path.join(pristine.schemas, "shared", "thing.json"));
    expect(record.inputs["shared/thing.json"]).toBe(inputHashOf("thing.json", shared));
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(shared.toString("utf8"))));
    expect(inputHashOf("thing.json", reformatted)).toBe(inputHashOf("thing.json", shared));
    expect(inputHashOf("thing.yaml", reformatted)).not.toBe(inputHashOf("thing.yaml", shared));
  });

  it("marks a file whose content changed between two reads of one run, and the next check compares in full", async () => {
    const reads = inputsRead([
      ["/p/schemas/a.tool.json", "1"],
      ["/p/schemas/shared/thing.json", "2"],
      ["/p/schemas/b.tool.json", "3"],
      ["/p/schemas/shared/thing.json", "2"],
      ["/p/schemas/shared/other.json", "4"],
      ["/p/schemas/shared/other.json", "5"],
    ]);
    expect(Object.fromEntries(reads)).toEqual({
      "/p/schemas/a.tool.json": "1",
      "/p/schemas/shared/thing.json": "2",
      "/p/schemas/b.tool.json": "3",
      "/p/schemas/shared/other.json": CHANGED_WHILE_READ,
    });
    const clone = await freshClone();
    await editLock(clone.out, (lock) => {
      lock.record.inputs["shared/thing.json"] = CHANGED_WHILE_READ;
    });
    // The lock's entries say nothing else changed, so the full comparison finds only the lock itself stale.
    const result = await check(clone);
    expect(result.out).not.toMatch(FAST);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);
  });
});

describe("generate --check on a folder no run has seen (a fresh clone, CI)", () => {
  it("answers up to date from the lock, without generating", async () => {
    const clone = await freshClone();
    const result = await check(clone);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(FAST);
  });

  it("finds a hand edit of a generated file", async () => {
    const clone = await freshClone();
    const view = path.join(clone.out, "get_thing", "view.ts");
    await writeFile(view, `${await readFile(view, "utf8")}// edited by hand\n`);
    const result = await check(clone);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*get_thing\/view\.ts/);
  });

  it("finds a generated file removed, and one added", async () => {
    const removed = await freshClone();
    await rm(path.join(removed.out, "get_thing", "types.ts"));
    const first = await check(removed);
    expect(first.code).toBe(1);
    expect(first.err).toMatch(/missing\s+\S*get_thing\/types\.ts/);

    const added = await freshClone();
    await writeFile(
      path.join(added.out, "get_thing", "extra.ts"),
      "// @generated by toolgate 0.0.0 from x. DO NOT EDIT.\n",
    );
    const second = await check(added);
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/extra\s+\S*get_thing\/extra\.ts/);
  });

  it("finds a hand edit of the lock's tool entries, and of its layout", async () => {
    const entries = await freshClone();
    await editLock(entries.out, (lock) => {
      (lock.tools as { get_thing: { version: string } }).get_thing.version = "2";
    });
    const first = await check(entries);
    expect(first.code).toBe(1);
    expect(first.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);

    const layout = await freshClone();
    const file = path.join(layout.out, LOCK_FILE);
    await writeFile(file, (await readFile(file, "utf8")).replace(/\n$/, "\n\n"));
    const second = await check(layout);
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);
  });

  it("finds a contract edit", async () => {
    const clone = await freshClone();
    await writeFile(path.join(clone.schemas, "get_thing.tool.json"), JSON.stringify(contract("get_thing", 16)));
    const result = await check(clone);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);
  });

  it("still answers up to date when a contract is only reformatted: its output does not change", async () => {
    const clone = await freshClone();
    await writeFile(path.join(clone.schemas, "get_thing.tool.json"), JSON.stringify(contract("get_thing")));
    const result = await check(clone);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(FAST);
  });

  it("finds the keys of a contract reordered, which reorders the generated types", async () => {
    const clone = await freshClone();
    const reordered = contract("get_thing");
    reordered.inputSchema = {
      type: "object",
      additionalProperties: false,
      properties: { other: { type: "boolean" }, id: { type: "string", maxLength: 32 } },
    };
    await writeFile(path.join(clone.schemas, "get_thing.tool.json"), JSON.stringify(reordered));
    const result = await check(clone);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*get_thing\/types\.ts/);
  });

  it("does not answer from the lock when run from elsewhere, where headers would name the contracts otherwise", async () => {
    const clone = await freshClone();
    const parent = path.dirname(clone.root);
    const name = path.basename(clone.root);
    const result = await inFolder(parent, () =>
      toolgate("generate", "--check", "--schemas", `${name}/schemas`, "--out", `${name}/generated`),
    );
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*get_thing\/adapter\.ts/);
  });

  it("finds an edit of a file a contract references", async () => {
    const clone = await freshClone();
    await writeFile(path.join(clone.schemas, "shared", "thing.json"), thing(9));
    const result = await check(clone);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*validators\.js/);
  });

  it("finds an edit of a referenced file named __proto__", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "toolgate-proto-"));
    const schemas = path.join(root, "schemas");
    await mkdir(schemas);
    await writeFile(
      path.join(schemas, "t.tool.json"),
      JSON.stringify({ name: "t", outputSchema: { $ref: "__proto__" } }),
    );
    await writeFile(path.join(schemas, "__proto__"), thing(4));
    expect((await inFolder(root, () => toolgate("generate"))).code).toBe(0);
    const { record } = await readLock(path.join(root, "generated"));
    expect(Object.keys(record.inputs)).toContain("__proto__");
    await writeFile(path.join(schemas, "__proto__"), thing(5));
    const result = await inFolder(root, () => toolgate("generate", "--check"));
    expect(result.code).toBe(1);
  });

  it("finds a new contract, and a removed one", async () => {
    const added = await freshClone();
    await writeFile(path.join(added.schemas, "third.tool.json"), JSON.stringify(contract("third_thing")));
    const first = await check(added);
    expect(first.code).toBe(1);
    expect(first.err).toMatch(/missing\s+\S*third_thing\/adapter\.ts/);

    const removed = await freshClone();
    await rm(path.join(removed.schemas, "other.tool.json"));
    const second = await check(removed);
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/extra\s+\S*other_thing\/adapter\.ts/);
  });

  it("finds a generator of another version", async () => {
    const clone = await freshClone();
    await editLock(clone.out, (lock) => {
      lock.record.generator = { ...lock.record.generator, ajv: "0.0.1" };
    });
    const result = await check(clone);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);
    // The generated files are as this generator writes them: only the lock, whose record names the generator, differs.
    expect(result.err).not.toMatch(/get_thing/);
  });

  it("does not answer from the lock when the refs option or the working directory differ", async () => {
    const clone = await freshClone();
    const context = { schemas: clone.schemas, out: clone.out, remotes: [] as Array<[string, string]> };
    const files = () => generatedFiles(clone.out);
    const fresh = (c: typeof context) => inFolder(clone.root, () => recordedFresh(c, files));
    expect(await fresh(context)).toBe(true);
    const remotes: Array<[string, string]> = [["https://schemas.example.com/", path.join(clone.schemas, "shared")]];
    expect(await fresh({ ...context, remotes })).toBe(false);
    await editLock(clone.out, (lock) => {
      lock.record.workingDirectory = "../elsewhere";
    });
    expect(await fresh(context)).toBe(false);
  });

  it("records the roots option and does not answer from the lock when the roots differ", async () => {
    const clone = await freshClone();
    const elsewhere = await mkdtemp(path.join(tmpdir(), "toolgate-root-"));
    await writeFile(path.join(clone.root, "toolgate.config.json"), JSON.stringify({ roots: [elsewhere] }));
    // A run without roots wrote the lock: with them, the check compares in full and finds the record stale.
    const stale = await check(clone);
    expect(stale.out).not.toMatch(FAST);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);
    expect((await inFolder(clone.root, () => toolgate("generate"))).code).toBe(0);
    const { record } = await readLock(clone.out);
    expect(record.roots).toEqual([path.relative(clone.schemas, elsewhere).split(path.sep).join("/")]);
    expect((await check(clone)).out).toMatch(FAST);
    const context = { schemas: clone.schemas, out: clone.out, remotes: [] as Array<[string, string]> };
    const files = () => generatedFiles(clone.out);
    expect(await inFolder(clone.root, () => recordedFresh({ ...context, roots: [elsewhere] }, files))).toBe(true);
    expect(await inFolder(clone.root, () => recordedFresh(context, files))).toBe(false);
    // Without roots the record has no key for them, so locks written before the option still match.
    expect(Object.hasOwn((await readLock(pristine.out)).record, "roots")).toBe(false);
  });

  it("does not answer from a lock without a record", async () => {
    const clone = await freshClone();
    await editLock(clone.out, (lock) => {
      delete (lock as { record?: unknown }).record;
    });
    const context = { schemas: clone.schemas, out: clone.out, remotes: [] };
    expect(await inFolder(clone.root, () => recordedFresh(context, () => generatedFiles(clone.out)))).toBe(false);
    const result = await check(clone);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/stale\s+\S*toolgate\.lock\.json/);
  });
});

describe("generate --check where this machine noted a run", () => {
  it("compares in full when other toolgate code verified the output last", async () => {
    const clone = await freshClone();
    expect((await check(clone)).out).toMatch(FAST);
    const key = { schemas: clone.schemas, out: clone.out, options: [] };
    const note = await inFolder(clone.root, async () => noteFile(key));
    await writeFile(note, JSON.stringify({ generator: "the fingerprint of other code" }));
    const result = await check(clone);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(FULL);
    // The full comparison noted the code that ran: the next check answers from the lock again.
    expect((await check(clone)).out).toMatch(FAST);
  });
});

describe("the fingerprint of toolgate's own code", () => {
  it("covers the generator, the templates and the runtime the generator runs", async () => {
    const files = (await fingerprintFiles()).map((file) =>
      path
        .relative(path.resolve(import.meta.dirname, "../../.."), file)
        .split(path.sep)
        .join("/"),
    );
    expect(files).toContain("generator/pipeline.ts");
    expect(files).toContain("generator/lock/freshness.ts");
    expect(files).toContain("templates/adapter.ts");
    expect(files).toContain("runtime/dist/index.js");
    expect(files).toContain("schemas/x-toolgate.schema.json");
    expect(files).toEqual([...files].sort());
  });
});
