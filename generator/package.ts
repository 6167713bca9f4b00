/**
 * Files shipped with the toolgate package (its version, the published `x-toolgate` schema), found from this module
 * whether it runs from `generator/` (tests) or from `dist/generator/` (the CLI).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The folder holding toolgate's own package.json. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, "package.json");
    if (existsSync(candidate) && JSON.parse(readFileSync(candidate, "utf8")).name === "toolgate") {
      root = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("toolgate: cannot find the package's own package.json");
    dir = parent;
  }
}

/** The text of a file shipped in the package. */
export function packageFile(relative: string): string {
  return readFileSync(path.join(packageRoot(), relative), "utf8");
}

/** toolgate's version, as written into every generated file's header. */
export function toolgateVersion(): string {
  return JSON.parse(packageFile("package.json")).version as string;
}
