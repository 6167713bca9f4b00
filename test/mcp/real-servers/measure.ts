/**
 * How large the legitimate results of real MCP servers are, in UTF-8 bytes and o200k tokens, and which share of
 * them a context budget holds whole: the measure import's default budget is chosen from. It runs the seven servers
 * of `servers.ts` (the acceptance test's calls) and adds the `CallToolResult` examples of the MCP specification in
 * the shared corpus. Run it from the repository root (after `npm run build`):
 *
 * ```sh
 * npx esbuild test/mcp/real-servers/measure.ts --bundle --platform=node --format=esm --packages=external \
 *   --log-level=warning --outfile=.tmp/measure/results.mjs && node .tmp/measure/results.mjs [BUDGET…]
 * ```
 *
 * What is measured of a result is its answer as a model reads it whole: the structured content when the tool sends
 * one, else its text blocks joined by newlines (an image or audio block counts as its size line only, since a model
 * receives media as media), written as the gate writes a view: JSON with markup escaped. The delimiter around it
 * adds about 30 tokens, counted as 40 in the shares.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { measureText } from "../../../runtime/stages/measure.js";
import { markupSafeJson } from "../../../runtime/stages/model-content.js";
import { callServer } from "./collect.js";
import { REAL_SERVERS } from "./servers.js";

/** One legitimate result, measured. */
export interface MeasuredResult {
  source: string;
  what: string;
  bytes: number;
  tokens: number;
}

/** Tokens are counted up to here: far past any budget a host allows. */
const COUNT_LIMIT = 10_000_000;

/** The budgets the table compares, in o200k tokens: import's old default, the host's warning and its cap. */
export const BUDGETS = [2000, 4000, 8000, 10_000, 16_000, 25_000] as const;

/**
 * The answer a model needs of a raw `CallToolResult` (see the module comment), in the form the gate shows it: JSON,
 * with its markup characters escaped (a text is a JSON string there, so its line breaks and quotes are escapes).
 */
export function answerText(raw: unknown): string {
  const result = raw as { structuredContent?: unknown; content?: Array<Record<string, unknown>> };
  if (result.structuredContent !== undefined) return markupSafeJson(result.structuredContent);
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image" || block.type === "audio") {
      parts.push(`<media type="${String(block.mimeType)}" bytes="${String(block.data ?? "").length}"/>`);
    } else parts.push(JSON.stringify(block));
  }
  return markupSafeJson(parts.join("\n"));
}

/** A text's size in bytes and o200k tokens. */
export async function sizeOf(text: string): Promise<{ bytes: number; tokens: number }> {
  const tokens = await measureText(text, { unit: "tokens", max: COUNT_LIMIT, tokenizer: "o200k_base" });
  return { bytes: Buffer.byteLength(text), tokens: tokens.value };
}

/** The value at quantile `q` (0..1) of sorted numbers, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The share of results whose answer, with the delimiter's `overhead` tokens, fits `budget` tokens. */
export function shareWithin(results: readonly MeasuredResult[], budget: number, overhead = 40): number {
  if (results.length === 0) return 0;
  return results.filter((result) => result.tokens + overhead <= budget).length / results.length;
}

/** Every legitimate call of the seven servers, measured. */
async function measureServers(): Promise<MeasuredResult[]> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "toolgate-measure-"));
  const out: MeasuredResult[] = [];
  try {
    for (const server of REAL_SERVERS) {
      const folder = path.join(scratch, server.name);
      await mkdir(folder, { recursive: true });
      const started = await server.start(folder);
      try {
        const calls = await callServer(started);
        for (const [index, call] of calls.legitimate.entries()) {
          const what = started.calls[index]?.what ?? call.tool;
          out.push({ source: `${server.name} ${call.tool}`, what, ...(await sizeOf(answerText(call.raw))) });
        }
      } finally {
        await started.stop();
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return out;
}

/** The specification's `CallToolResult` examples in the shared corpus, every version. */
async function measureCorpus(root: string): Promise<MeasuredResult[]> {
  const out: MeasuredResult[] = [];
  const schema = path.join(root, "mcp-tools/mcp-specification/schema");
  for (const version of await readdir(schema).catch(() => [] as string[])) {
    const folder = path.join(schema, version, "examples/CallToolResult");
    for (const file of await readdir(folder).catch(() => [] as string[])) {
      const raw = JSON.parse(await readFile(path.join(folder, file), "utf8"));
      if (raw.isError === true) continue;
      out.push({ source: `spec ${version}`, what: file, ...(await sizeOf(answerText(raw))) });
    }
  }
  return out;
}

/** The table and the distribution, as printed, with the shares within {@link BUDGETS} and any `extra` budgets. */
export function report(results: readonly MeasuredResult[], extra: readonly number[] = []): string {
  const lines = ["source | result | bytes | o200k tokens", "--- | --- | ---: | ---:"];
  for (const result of results) lines.push(`${result.source} | ${result.what} | ${result.bytes} | ${result.tokens}`);
  const tokens = results.map((result) => result.tokens).sort((a, b) => a - b);
  const bytes = results.map((result) => result.bytes).sort((a, b) => a - b);
  lines.push("");
  lines.push(`${results.length} legitimate results`);
  for (const q of [0.5, 0.75, 0.9, 0.95, 1]) {
    lines.push(`p${Math.round(q * 100)}: ${quantile(tokens, q)} tokens, ${quantile(bytes, q)} bytes`);
  }
  lines.push("");
  for (const budget of [...new Set([...BUDGETS, ...extra])].sort((a, b) => a - b)) {
    const share = shareWithin(results, budget);
    const count = Math.round(share * results.length);
    lines.push(
      `within ${budget} tokens (answer + 40 for the delimiter): ${count}/${results.length} (${(share * 100).toFixed(0)}%)`,
    );
  }
  return lines.join("\n");
}

/** Budgets given on the command line (`node .tmp/measure/results.mjs 6000 12000`) are added to the table. */
async function main(): Promise<void> {
  const extra = process.argv
    .slice(2)
    .map(Number)
    .filter((budget) => Number.isInteger(budget) && budget > 0);
  const corpus = path.resolve(process.cwd(), "../shared/corpus");
  const results = [...(await measureServers()), ...(await measureCorpus(corpus))];
  process.stdout.write(`${report(results, extra)}\n`);
}

if (process.argv[1]?.endsWith("results.mjs") === true) await main();
