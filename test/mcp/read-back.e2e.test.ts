/**
 * Acceptance for large results: the real memory server (`@modelcontextprotocol/server-memory`, over stdio) holds
 * 400 entities; `read_graph` is over its contract's budget, so the gate spills it and shows a preview that names
 * the read-back tool; a scripted agent, reading only what the model would read (the handle in the `<spilled …/>`
 * line, each page's `<next>` arguments), reads every entity and relation back through `read_tool_result`, each page
 * within its budget, and the pages concatenate to exactly the validated value. The tokens of everything the model
 * saw are counted against pasting the whole result.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolAdapter } from "../../runtime/gate/context.js";
import { FileSpillStore, readBack, toModelContent } from "../../runtime/index.js";
import { ensureRuntimeBuilt, generateCatalog, repo, scratchFolder } from "./fixture-catalog.js";

const require = createRequire(import.meta.url);
const memoryServer = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");

const ENTITIES = 400;
const RELATIONS = 120;
/** Each read-back page's budget, in o200k_base tokens. */
const PAGE_TOKENS = 3000;

let scratch: string;
let client: Client;
let adapter: ToolAdapter<unknown, unknown, unknown>;

beforeAll(async () => {
  await ensureRuntimeBuilt();
  scratch = await scratchFolder("read-back");
  // The example contract (spill, then drop), with room for the 400 entities this test creates (its own bounds allow
  // 100) and a view that shows them all, so the view is over budget rather than cut to 20.
  const contract = JSON.parse(await readFile(path.join(repo, "schemas/read_graph.tool.json"), "utf8"));
  contract.outputSchema.properties.entities.maxItems = 1000;
  contract.outputSchema.properties.relations.maxItems = 1000;
  contract["x-toolgate"].view.arrays = { "/entities": { take: 1000 }, "/relations": { take: 1000 } };
  await mkdir(path.join(scratch, "contracts"));
  await writeFile(path.join(scratch, "contracts/read_graph.tool.json"), JSON.stringify(contract, null, 2));
  const catalog = await generateCatalog(path.join(scratch, "contracts"), path.join(scratch, "generated"));
  adapter = (catalog.index as { readGraph: typeof adapter }).readGraph;

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [memoryServer],
    env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: path.join(scratch, "memory.jsonl") },
    stderr: "pipe",
  });
  client = new Client({ name: "toolgate-read-back", version: "1.0.0" });
  await client.connect(transport);
  for (let from = 0; from < ENTITIES; from += 100) {
    const entities = Array.from({ length: 100 }, (_, i) => ({
      name: `entity-${from + i}`,
      entityType: i % 3 === 0 ? "person" : "project",
      observations: [`Observation one about entity ${from + i}.`, `Entity ${from + i} works with <team> & friends.`],
    }));
    await client.callTool({ name: "create_entities", arguments: { entities } });
  }
  const relations = Array.from({ length: RELATIONS }, (_, i) => ({
    from: `entity-${i}`,
    to: `entity-${i + 1}`,
    relationType: "knows",
  }));
  await client.callTool({ name: "create_relations", arguments: { relations } });
}, 120_000);

afterAll(async () => {
  await client?.close();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** The JSON body of a model-facing page: the line after the opening tag. */
function body(content: string): { items?: unknown[] } {
  return JSON.parse(content.split("\n")[1] as string);
}

/** The next page's arguments as the model reads them, or none on the last page. */
function nextOf(content: string): Record<string, unknown> | undefined {
  const match = /^<next>(.*)<\/next>$/m.exec(content);
  return match === null ? undefined : JSON.parse(match[1] as string);
}

describe("a large read_graph read back page by page", () => {
  it("spills under the contract's policy and the agent reads every entity back within budget", async () => {
    const store = new FileSpillStore({ directory: path.join(scratch, "spill") });
    const reader = readBack(store, { budget: { unit: "tokens", max: PAGE_TOKENS, tokenizer: "o200k_base" } });
    const raw = await client.callTool({ name: "read_graph", arguments: {} });
    const outcome = await adapter.admit(raw, { ...reader.context, tenant: "acme" });
    if (!outcome.ok) throw new Error(`read_graph failed: ${outcome.error.code}`);
    expect(outcome.policy).toBe("spill");
    const data = outcome.data as { entities: unknown[]; relations: unknown[] };
    expect(data.entities).toHaveLength(ENTITIES);
    expect(data.relations).toHaveLength(RELATIONS);

    // What the model sees first: the preview, and one line naming the tool and the handle.
    const first = toModelContent(outcome);
    const spilled = /^<spilled handle="(spill_[0-9a-f]{32})" bytes="\d+" read_with="read_tool_result"\/>$/m.exec(first);
    expect(spilled).not.toBeNull();
    const handle = spilled?.[1] as string;
    expect(outcome.contextUsed.value).toBeLessThanOrEqual(3000);

    // The scripted agent: for each array, page through it with the arguments each page hands on.
    const seen: string[] = [first];
    const read: Record<string, unknown[]> = {};
    for (const pointer of ["/entities", "/relations"]) {
      read[pointer] = [];
      let args: Record<string, unknown> | undefined = { handle, pointer };
      while (args !== undefined) {
        const page = await reader.handle(args, { tenant: "acme" });
        expect(page.ok).toBe(true);
        expect(page.contextUsed).toMatchObject({ unit: "tokens", budget: PAGE_TOKENS });
        expect(page.contextUsed.value).toBeLessThanOrEqual(PAGE_TOKENS);
        expect(countTokens(page.content)).toBe(page.contextUsed.value);
        expect(page.content).toMatch(
          new RegExp(`<page>"items \\d+–\\d+ of ${pointer === "/entities" ? 400 : 120} at ${pointer}"</page>`),
        );
        seen.push(page.content);
        read[pointer]?.push(...(body(page.content).items ?? []));
        args = nextOf(page.content);
        expect(seen.length).toBeLessThan(200);
      }
    }
    expect({ entities: read["/entities"], relations: read["/relations"] }).toEqual(data);

    const sawTokens = seen.reduce((sum, content) => sum + countTokens(content), 0);
    const wholeTokens = countTokens(JSON.stringify(data));
    const report = {
      pages: seen.length - 1,
      sawTokens,
      wholeTokens,
      ratio: Number((sawTokens / wholeTokens).toFixed(3)),
    };
    process.stderr.write(`read-back e2e: ${JSON.stringify(report)}\n`);
    // Paging costs the frames and the escapes, not a second copy: within a third of pasting the whole result.
    expect(sawTokens).toBeLessThan(wholeTokens * 1.35);
    // And no page, nor the first content, held more than its budget.
    expect(Math.max(...seen.map((content) => countTokens(content)))).toBeLessThanOrEqual(PAGE_TOKENS);

    // Another tenant reading the same handle is refused as if nobody had spilled it.
    const other = await reader.handle({ handle, pointer: "/entities" }, { tenant: "globex" });
    expect(other.ok || other.error.code).toBe("unknown_handle");
  }, 120_000);
});
