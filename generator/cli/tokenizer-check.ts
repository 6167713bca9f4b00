/**
 * Whether the project can count tokens: a contract whose budget is in tokens makes its adapter load `gpt-tokenizer`
 * (an optional peer dependency of `@toolgate/runtime`) on the first result; without it every call of that tool fails.
 * `generate` says so while the fix is one install away.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { ToolSummary } from "../pipeline.js";

/** Whether `specifier` resolves from the project folder `dir`, as the project's own code would resolve it. */
function resolvesFrom(dir: string, specifier: string): boolean {
  try {
    createRequire(path.join(dir, "package.json")).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/** The warning to print when some tools count tokens and `gpt-tokenizer` is not installed in `projectDir`. */
export function tokenizerWarning(tools: readonly ToolSummary[], projectDir: string): string | undefined {
  const counting = tools
    .filter((tool) => tool.folder !== "" && tool.context.unit === "tokens")
    .map((tool) => tool.tool);
  if (counting.length === 0 || resolvesFrom(projectDir, "gpt-tokenizer")) return undefined;
  const names =
    counting.length <= 3 ? counting.join(", ") : `${counting.slice(0, 3).join(", ")} and ${counting.length - 3} more`;
  return (
    `warn ${counting.length} ${counting.length === 1 ? "tool counts its budget" : "tools count their budgets"} in tokens (${names}), ` +
    "but gpt-tokenizer is not installed here: run `npm install gpt-tokenizer`, or set " +
    '`"context": { "unit": "bytes", "max": … }` in their x-toolgate block; without it their adapters fail every call.'
  );
}
