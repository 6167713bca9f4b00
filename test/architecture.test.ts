/**
 * The shape ARCHITECTURE.md draws, held by the code: templates are read by the emit stage only, the runtime never
 * reaches into the generator, the import graph has no cycle, and no file or function grows past what one reading
 * takes in (600 lines a file, 120 a function; the one function over it is named below, with its reason).
 */

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Node, Project } from "ts-morph";
import { describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "..");
const FOLDERS = ["runtime", "generator", "templates"];
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 120;
/** Functions allowed past the limit, each with the reason a split would cost more than it gives. */
const LONG_FUNCTIONS = new Map([
  // One loop over a pattern's code units, the hot loop of the `regex` format on megabyte patterns: its state (the
  // open groups, the stack of open lookbehinds, what stands before a quantifier) stays in locals of one function.
  ["runtime/formats/regexp.ts#isRegExpSource", 122],
]);

const sources = FOLDERS.flatMap((folder) =>
  readdirSync(path.join(REPO, folder), { recursive: true, encoding: "utf8" })
    .map((name) => path.posix.join(folder, name.split(path.sep).join("/")))
    // The runtime package's build output (`runtime/dist/`, declarations included) is not source.
    .filter((name) => name.endsWith(".ts") && !name.startsWith("runtime/dist/")),
).sort();

const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
const parsed = new Map(sources.map((file) => [file, project.addSourceFileAtPath(path.join(REPO, file))] as const));

/** Each source's relative imports and re-exports (type-only ones too), as repository paths of `.ts` files. */
const imports = new Map(
  [...parsed].map(([file, source]) => {
    const specifiers = [...source.getImportDeclarations(), ...source.getExportDeclarations()]
      .map((declaration) => declaration.getModuleSpecifierValue())
      .filter((specifier): specifier is string => specifier?.startsWith(".") === true);
    const targets = specifiers.map((specifier) =>
      path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, ".ts"),
    );
    return [file, targets] as const;
  }),
);

describe("the architecture", () => {
  it("finds every relative import it follows", () => {
    for (const [file, targets] of imports) for (const target of targets) expect(sources, file).toContain(target);
  });

  it("lets only the emit stage read templates/", () => {
    for (const [file, targets] of imports) {
      if (file.startsWith("templates/") || file.startsWith("generator/emit/")) continue;
      expect(
        targets.filter((t) => t.startsWith("templates/")),
        file,
      ).toEqual([]);
    }
  });

  it("keeps the runtime free of the generator and the templates", () => {
    for (const [file, targets] of imports) {
      if (!file.startsWith("runtime/")) continue;
      expect(
        targets.filter((t) => !t.startsWith("runtime/")),
        file,
      ).toEqual([]);
    }
  });

  it("keeps only the runtime package's entries at the runtime's root", () => {
    // Each subpath of `@toolgate/runtime` is one file at the root, bundled from it by `runtime/bundle.mjs`;
    // everything those entries share lives in a folder named for what it is.
    const manifest = JSON.parse(readFileSync(path.join(REPO, "runtime/package.json"), "utf8")) as {
      exports: Record<string, string | { default: string }>;
    };
    const entries = Object.values(manifest.exports)
      .map((target) => (typeof target === "string" ? target : target.default))
      .filter((target) => target.startsWith("./dist/"))
      .map((target) => `runtime/${target.slice("./dist/".length).replace(/\.js$/, ".ts")}`)
      .sort();
    const atRoot = sources.filter((file) => path.posix.dirname(file) === "runtime");
    expect(atRoot).toEqual(entries);
  });

  it("has no import cycle", () => {
    const state = new Map<string, "open" | "done">();
    const cycles: string[][] = [];
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...trail.slice(trail.indexOf(file)), file]);
        return;
      }
      state.set(file, "open");
      for (const target of imports.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of sources) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it(`keeps every source file under ${MAX_FILE_LINES} lines`, () => {
    const long = sources
      .map((file) => [file, readFileSync(path.join(REPO, file), "utf8").split("\n").length] as const)
      .filter(([, lines]) => lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`keeps every function under ${MAX_FUNCTION_LINES} lines`, () => {
    const long: string[] = [];
    for (const [file, source] of parsed) {
      source.forEachDescendant((node) => {
        if (!Node.isFunctionLikeDeclaration(node)) return;
        const lines = node.getEndLineNumber() - node.getStartLineNumber() + 1;
        const name = `${file}#${Node.hasName(node) ? node.getName() : `line ${node.getStartLineNumber()}`}`;
        if (lines > (LONG_FUNCTIONS.get(name) ?? MAX_FUNCTION_LINES)) long.push(`${name}: ${lines} lines`);
      });
    }
    expect(long).toEqual([]);
  });
});
