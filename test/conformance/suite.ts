/**
 * Reading the official JSON Schema Test Suite (2020-12) from the shared corpus into resolved schemas, the shape the
 * validator stage takes, and running generated validators against its cases.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isSchemaObject } from "../../generator/schema/guards.js";
import type { Dialect, JsonSchema, ResolvedSchema } from "../../generator/schema/shapes.js";
import { resolveUri, SchemaIndex, withoutFragment } from "../../generator/validator/schema-index.js";

/** The repository root. */
export const REPO_ROOT = resolve(import.meta.dirname, "../..");
/** The test suite, read where the corpus lives (never copied into the project). */
export const SUITE_ROOT = resolve(REPO_ROOT, "../shared/corpus/json-schema-test-suite");
/** Where the suite's remote documents are served from, by the suite's own convention. */
const REMOTE_BASE = "http://localhost:1234/";
/** Scratch folder inside the repository, so generated modules resolve `@toolgate/runtime` through the workspace link in `node_modules`. */
export const WORK_DIR = resolve(REPO_ROOT, ".tmp/conformance");

/** One case of a group. */
export interface SuiteCase {
  description: string;
  data: unknown;
  valid: boolean;
}

/** One group of the suite: a schema and the cases run against it. */
export interface SuiteGroup {
  /** Suite file relative to `tests/draft2020-12/`, e.g. `unevaluatedItems.json` or `optional/format/date.json`. */
  file: string;
  /** Position of the group in its file. */
  index: number;
  description: string;
  schema: ResolvedSchema;
  cases: SuiteCase[];
}

/** Suite files under `tests/draft2020-12/<folder>` (not descending into subfolders), sorted. */
export function suiteFiles(folder: "" | "optional" | "optional/format"): string[] {
  const dir = join(SUITE_ROOT, "tests/draft2020-12", folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json") && statSync(join(dir, name)).isFile())
    .sort()
    .map((name) => (folder === "" ? name : `${folder}/${name}`));
}

let remotes: Map<string, JsonSchema> | undefined;

/** Every file under `remotes/`, by the URI the suite serves it at. */
function remoteDocuments(): Map<string, JsonSchema> {
  if (remotes !== undefined) return remotes;
  remotes = new Map();
  const stack = [join(SUITE_ROOT, "remotes")];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) stack.push(path);
      else if (name.endsWith(".json")) {
        const uri = REMOTE_BASE + relative(join(SUITE_ROOT, "remotes"), path).split("\\").join("/");
        remotes.set(uri, JSON.parse(readFileSync(path, "utf8")) as JsonSchema);
      }
    }
  }
  return remotes;
}

/** The dialect a schema declares with `$schema` (2020-12 when absent or a custom meta-schema). */
export function dialectOf(schema: JsonSchema): Dialect {
  const declared = isSchemaObject(schema) && typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.startsWith("https://json-schema.org/draft/2019-09/")) return "2019-09";
  if (declared.startsWith("http://json-schema.org/draft-07/")) return "draft-07";
  return "2020-12";
}

/** The remote documents a schema references, transitively (through `$ref`, `$dynamicRef` and `$schema`). */
function referencedRemotes(resolved: ResolvedSchema): Record<string, JsonSchema> {
  const documents: Record<string, JsonSchema> = {};
  const available = remoteDocuments();
  for (;;) {
    const index = new SchemaIndex({ ...resolved, documents });
    let added = false;
    for (const node of index.nodes) {
      if (!isSchemaObject(node.schema)) continue;
      for (const keyword of ["$ref", "$dynamicRef", "$schema"]) {
        const value = node.schema[keyword];
        if (typeof value !== "string") continue;
        const target = resolveUri(value, node.resource);
        if (target === undefined) continue;
        const uri = withoutFragment(target);
        const document = available.get(uri);
        if (document !== undefined && documents[uri] === undefined) {
          documents[uri] = document;
          added = true;
        }
      }
    }
    if (!added) return documents;
  }
}

/** The groups of one suite file, each with its schema resolved as the validator stage expects it. */
export function loadGroups(file: string): SuiteGroup[] {
  const raw = JSON.parse(readFileSync(join(SUITE_ROOT, "tests/draft2020-12", file), "utf8")) as Array<{
    description: string;
    schema: JsonSchema;
    tests: SuiteCase[];
  }>;
  return raw.map((group, index) => {
    const fallback = `https://toolgate.test/suite/${file}/${index}.json`;
    const id = isSchemaObject(group.schema) && typeof group.schema.$id === "string" ? group.schema.$id : undefined;
    const baseUri = id === undefined ? fallback : (resolveUri(id, fallback) ?? fallback);
    const schema: ResolvedSchema = {
      dialect: dialectOf(group.schema),
      root: group.schema,
      baseUri: withoutFragment(baseUri),
      documents: {},
      bundled: group.schema,
      pointer: "",
    };
    schema.documents = referencedRemotes(schema);
    return { file, index, description: group.description, schema, cases: group.tests };
  });
}

/** Write a module into the scratch folder and return its `file:` URL for `import()`. */
export function writeModule(name: string, code: string): string {
  const path = join(WORK_DIR, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, code);
  return pathToFileURL(path).href;
}

/** Whether the runtime has been built (generated modules import `runtime/dist/index.js`). */
export function runtimeBuilt(): boolean {
  return existsSync(join(REPO_ROOT, "runtime/dist/validators.js"));
}

/** Every string the official suite's format tests hold (`optional/format`, every draft), as check inputs. */
export function suiteFormatStrings(): string[] {
  const root = join(SUITE_ROOT, "tests");
  const strings = new Set<string>();
  for (const draft of readdirSync(root)) {
    const folder = join(root, draft, "optional", "format");
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).filter((f) => f.endsWith(".json"))) {
      const groups = JSON.parse(readFileSync(join(folder, file), "utf8")) as Array<{ tests: Array<{ data: unknown }> }>;
      for (const group of groups)
        for (const test of group.tests) if (typeof test.data === "string") strings.add(test.data);
    }
  }
  return [...strings];
}
