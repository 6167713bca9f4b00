/**
 * Whether the project can count tokens: a contract whose budget is in tokens makes its adapter load `gpt-tokenizer`
 * (an optional peer dependency of `@toolgate/runtime`) on the first result; without it every call of that tool fails.
 * `generate` says so while the fix is one install away.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { ToolSummary } from "../pipeline.js";

/** Where `specifier` resolves from the file or folder `from` (as Node resolves it for code there), if it does. */
function resolveFrom(from: string, specifier: string): string | undefined {
  try {
    return createRequire(from).resolve(specifier);
  } catch {
    return undefined;
  }
}

/**
 * Whether the runtime the project installed can load the tokenizer. The runtime imports it from its own place, so
 * that is where it must resolve; a project that does not resolve `@toolgate/runtime` at all has another problem to
 * solve first (its adapters cannot load), and gets no warning about the tokenizer.
 */
function tokenizerMissing(projectDir: string): boolean {
  const runtime = resolveFrom(path.join(projectDir, "package.json"), "@toolgate/runtime");
  return runtime !== undefined && resolveFrom(runtime, "gpt-tokenizer") === undefined;
}

/**
 * Whether `gpt-tokenizer` resolves where the runtime will load it: from the installed runtime, or, before the
 * runtime is installed, from the project.
 */
export function tokenizerInstalled(projectDir: string): boolean {
  const manifest = path.join(projectDir, "package.json");
  return resolveFrom(resolveFrom(manifest, "@toolgate/runtime") ?? manifest, "gpt-tokenizer") !== undefined;
}

/** What `init` says when the project cannot count tokens yet, which contracts `import` writes all do. */
export const TOKENIZER_NOTE =
  "Contracts that count their budget in tokens (the default, and every contract `toolgate import` writes) need " +
  "gpt-tokenizer: `npm install gpt-tokenizer` (the example contract counts bytes and does not)";

/** The warning to print when some tools count tokens and `gpt-tokenizer` is not installed in `projectDir`. */
export function tokenizerWarning(tools: readonly ToolSummary[], projectDir: string): string | undefined {
  const counting = tools
    .filter((tool) => tool.folder !== "" && tool.context.unit === "tokens")
    .map((tool) => tool.tool);
  if (counting.length === 0 || !tokenizerMissing(projectDir)) return undefined;
  const names =
    counting.length <= 3 ? counting.join(", ") : `${counting.slice(0, 3).join(", ")} and ${counting.length - 3} more`;
  return (
    `warn ${counting.length} ${counting.length === 1 ? "tool counts its budget" : "tools count their budgets"} in tokens (${names}), ` +
    "but gpt-tokenizer is not installed here: run `npm install gpt-tokenizer`, or set " +
    '`"context": { "unit": "bytes", "max": … }` in their x-toolgate block; without it their adapters fail every call.'
  );
}
