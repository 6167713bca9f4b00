/**
 * Bundles the runtime's entries, as `package.json` exports them, over what `tsc` wrote to `dist/`. The two light
 * entries generated validators import (`./validators`, `./formats`) become one module each that imports nothing; the
 * others are bundled with the code they share in chunks (`dist/chunks/`), so a process that imports several entries
 * holds one instance of each module, and an import opens a few files instead of one per source module. Frameworks,
 * the tokenizer and Node's modules stay imports (`--packages=external`): the runtime depends on nothing.
 */
import { readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

/** The entries generated validators import: each must stay a single module with no import at all. */
const LIGHT = new Set(["./validators", "./formats"]);

const { exports } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
/** Each entry's source: `./dist/ai-sdk.js` is built from `ai-sdk.ts`. */
const sourceOf = (target) => target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");
const entries = Object.entries(exports).filter(([, target]) => typeof target === "object");
const light = entries.filter(([name]) => LIGHT.has(name)).map(([, target]) => sourceOf(target));
const shared = entries.filter(([name]) => !LIGHT.has(name)).map(([, target]) => sourceOf(target));

const common = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  legalComments: "inline",
  logLevel: "warning",
  allowOverwrite: true,
  outdir: "dist",
};
rmSync("dist/chunks", { recursive: true, force: true });
await build({
  ...common,
  entryPoints: shared,
  splitting: true,
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
});
await build({ ...common, entryPoints: light });
