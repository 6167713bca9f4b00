// The package.json that ships in the packed `toolgate`, without the `prepare` script.
//
// `prepare` builds the repository after `npm install` here and in an install from git, where the source has no
// build yet. A packed package is already built, and npm runs a package's `prepare` when it is installed from a
// folder, where the repository's build cannot run (no TypeScript, no workspace), and lists it as an install script
// the user must approve. So `prepack` runs `strip` after the build: package.json loses that one member, its other
// bytes unchanged, and the original is kept in .tmp/; `postpack` runs `restore`. A pack interrupted between the two
// is undone by the next `strip` or `restore`.
//
//   node scripts/packed-manifest.mjs strip | restore
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";

const root = path.resolve(import.meta.dirname, "..");
const manifest = path.join(root, "package.json");
const kept = path.join(root, ".tmp", "prepack", "package.json");

/** Puts the kept package.json back, if a pack left one. */
async function restore() {
  if (!existsSync(kept)) return;
  await writeFile(manifest, await readFile(kept));
  await rm(kept);
}

/** Keeps package.json, then writes it without `scripts.prepare`. */
async function strip() {
  await restore();
  const text = await readFile(manifest, "utf8");
  const parsed = JSON.parse(text);
  if (parsed.scripts?.prepare === undefined) return;
  // The member's own line, with the comma that ends it or, when it is the last member, the comma before it.
  const stripped = text
    .replace(/^[ \t]*"prepare":[ \t]*"(?:[^"\\]|\\.)*",[ \t]*\r?\n/m, "")
    .replace(/,(\r?\n)[ \t]*"prepare":[ \t]*"(?:[^"\\]|\\.)*"[ \t]*(?=\r?\n)/m, "");
  const { prepare: _prepare, ...scripts } = parsed.scripts;
  let reparsed;
  try {
    reparsed = JSON.parse(stripped);
  } catch {
    reparsed = undefined;
  }
  if (!isDeepStrictEqual(reparsed, { ...parsed, scripts })) {
    throw new Error(`${manifest}: "scripts.prepare" is not on a line of its own; the packed package.json is unchanged`);
  }
  await mkdir(path.dirname(kept), { recursive: true });
  await writeFile(kept, text);
  await writeFile(manifest, stripped);
}

const command = process.argv[2];
if (command === "strip") await strip();
else if (command === "restore") await restore();
else {
  console.error("usage: node scripts/packed-manifest.mjs strip | restore");
  process.exitCode = 2;
}
