/**
 * The TypeScript blocks of a Markdown file, and one in-process type-check of many of them against the project as a
 * user's code would see it: each block a module at the repository's root (so `./generated/index.js` is the example
 * output), the runtime found by Node's own resolution from there (the package's exports or the workspace).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Project, ts } from "ts-morph";

/** One fenced TypeScript block of a Markdown file. */
export interface Snippet {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** 1-based line in the Markdown file of the block's first line of code. */
  line: number;
  code: string;
}

/** One diagnostic, placed in the Markdown file when it falls in a block. */
export interface SnippetFinding {
  /** `README.md:42` for a block's line, else the path of the file in the program. */
  where: string;
  code: number;
  message: string;
}

/** The options a strict user compiles under: the project's own, with optional properties exact. */
export const USER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  skipLibCheck: true,
  noEmit: true,
};

const FENCE_OPEN = /^```(?:ts|typescript)\s*$/;
const FENCE_CLOSE = /^```\s*$/;

/** Every ```ts block of `markdown`, with the line it starts on. An unclosed block is an error, not a skip. */
export function extractSnippets(file: string, markdown: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!FENCE_OPEN.test(lines[index] ?? "")) continue;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !FENCE_CLOSE.test(lines[end] ?? "")) end++;
    if (end === lines.length) throw new Error(`${file}:${index + 1}: a \`\`\`ts block is never closed`);
    snippets.push({ file, line: start + 1, code: lines.slice(start, end).join("\n") });
    index = end;
  }
  return snippets;
}

/** The blocks of the Markdown files `files` (relative to `root`). */
export function readSnippets(root: string, files: readonly string[]): Snippet[] {
  return files.flatMap((file) => extractSnippets(file, readFileSync(path.join(root, file), "utf8")));
}

/** The program path of a snippet: a module in `folder`, named after its file and line. */
function snippetPath(folder: string, snippet: Snippet): string {
  return path.join(folder, `${snippet.file.replaceAll("/", "-")}.L${snippet.line}.snippet.ts`);
}

/**
 * Type-checks every snippet in one program, beside `prelude` (a script: its declarations are global, as the user's
 * own code would provide them). Each snippet is a module in the folder `folderOf` gives it (by default `root`), so
 * its `./generated/index.js` is that folder's. Diagnostics in a snippet are placed at their line in the Markdown
 * file; any other file's (the prelude, the generated code the snippets import) keep their path from `root`.
 */
export function checkSnippets(
  root: string,
  snippets: readonly Snippet[],
  prelude: string,
  options: ts.CompilerOptions = USER_OPTIONS,
  folderOf: (snippet: Snippet) => string = () => root,
): SnippetFinding[] {
  const project = new Project({ compilerOptions: options, skipAddingFilesFromTsConfig: true });
  const placed = new Map<string, Snippet>();
  project.createSourceFile(path.join(root, "readme-prelude.snippet.ts"), prelude, { overwrite: true });
  for (const snippet of snippets) {
    const file = snippetPath(folderOf(snippet), snippet);
    placed.set(path.resolve(file), snippet);
    project.createSourceFile(file, snippet.code, { overwrite: true });
  }
  return project.getPreEmitDiagnostics().map((diagnostic) => {
    const source = diagnostic.getSourceFile();
    const line = diagnostic.getLineNumber() ?? 0;
    const snippet = source === undefined ? undefined : placed.get(path.resolve(source.getFilePath()));
    const where =
      snippet !== undefined
        ? `${snippet.file}:${snippet.line + line - 1}`
        : source === undefined
          ? "(program)"
          : `${path.relative(root, source.getFilePath())}:${line}`;
    return {
      where,
      code: diagnostic.getCode(),
      message: ts.flattenDiagnosticMessageText(diagnostic.compilerObject.messageText, "\n"),
    };
  });
}
