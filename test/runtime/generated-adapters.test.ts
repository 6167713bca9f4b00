/**
 * End to end: the adapters the generator emits for `schemas/` run through this gate over the sample payloads in
 * `test/fixtures/payloads/<tool>/` (good, malformed, invalid, hostile, oversize). The generated files are written
 * to a temporary folder, with their `@toolgate/runtime` import pointed at this source tree (outside the repository, the
 * workspace link in `node_modules` does not resolve, and the built `runtime/dist/` may be older than the source).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../generator/pipeline.js";
import {
  MemorySpillStore,
  type Outcome,
  ownedByTenant,
  type ToolAdapter,
  threadJobs,
  toModelContent,
} from "../../runtime/index.js";
import * as hashThread from "../../runtime/record/hash-thread.js";
import { hashThreadReady } from "../fixtures/hash-thread.js";

const RUNTIME_SOURCE = JSON.stringify(new URL("../../runtime/index.ts", import.meta.url).pathname);
/** The source of a light run-time entry (`@toolgate/runtime/validators`, `…/formats`), quoted for an import. */
const runtimeSource = (entry: string) => JSON.stringify(new URL(`../../runtime/${entry}.ts`, import.meta.url).pathname);

type AnyAdapter = ToolAdapter<unknown, unknown, unknown>;

let folder = "";
const adapters = new Map<string, AnyAdapter>();

beforeAll(async () => {
  const result = await generate({ schemas: "schemas" });
  if (!result.ok) throw new Error(`the example contracts do not generate: ${result.errors.map(String).join("; ")}`);
  folder = await mkdtemp(join(tmpdir(), "toolgate-generated-"));
  for (const [file, text] of result.files) {
    await mkdir(dirname(join(folder, file)), { recursive: true });
    await writeFile(
      join(folder, file),
      text.replace(/from "@toolgate\/runtime(\/validators|\/formats)?"/g, (_, entry: string | undefined) =>
        entry === undefined ? `from ${RUNTIME_SOURCE}` : `from ${runtimeSource(entry.slice(1))}`,
      ),
    );
  }
  for (const tool of result.tools) {
    const module = (await import(pathToFileURL(join(folder, tool.folder, "adapter.ts")).href)) as Record<
      string,
      unknown
    >;
    const adapter = Object.values(module).find((value) => (value as AnyAdapter | undefined)?.name === tool.tool);
    if (adapter === undefined) throw new Error(`no adapter exported for ${tool.tool}`);
    adapters.set(tool.tool, adapter as AnyAdapter);
  }
});

afterAll(async () => {
  if (folder !== "") await rm(folder, { recursive: true, force: true });
});

/** A sample payload as an MCP result, the way an MCP client delivers it. */
async function sample(tool: string, name: string): Promise<unknown> {
  const text = await readFile(join("test/fixtures/payloads", tool, name), "utf8");
  const adapter = adapters.get(tool) as AnyAdapter;
  if (adapter.spec.result.kind !== "structured") return text;
  let structured: unknown;
  try {
    structured = JSON.parse(text);
  } catch {
    // Not JSON: what a broken server sends as plain text, with no structured content.
    return text;
  }
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** The invariants every outcome keeps, whatever the payload. */
function expectSafeContent(outcome: Outcome<unknown, unknown>): void {
  const content = toModelContent(outcome);
  expect(content.match(/<\/tool_result>|\/>$/g)).toHaveLength(1);
  expect(content).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B\uFEFF]|[\u{E0000}-\u{E007F}]/u);
}

const tools = ["get_record", "query_database", "read_file", "read_graph", "search_docs"];

describe.each(tools)("the generated %s adapter", (tool) => {
  it("admits the good sample with a complete or marked view", async () => {
    const outcome = await adapters.get(tool)?.admit(await sample(tool, "good.json"), { tenant: "tn_acme0042" });
    expect(outcome?.ok).toBe(true);
    if (outcome?.ok) expectSafeContent(outcome);
  });

  it("refuses the malformed sample as invalid_json", async () => {
    const outcome = await adapters.get(tool)?.admit(await sample(tool, "malformed.txt"));
    expect(outcome?.ok ? "ok" : outcome?.error.code).toBe("invalid_json");
  });

  it("refuses the invalid sample as schema_mismatch", async () => {
    const outcome = await adapters.get(tool)?.admit(await sample(tool, "invalid.json"));
    expect(outcome?.ok ? "ok" : outcome?.error.code).toBe("schema_mismatch");
  });

  it("keeps the hostile sample's tricks out of what the model sees", async () => {
    const outcome = (await adapters.get(tool)?.admit(await sample(tool, "hostile.json"))) as Outcome<unknown, unknown>;
    expectSafeContent(outcome);
  });

  it("never passes the oversize sample whole into the context", async () => {
    const adapter = adapters.get(tool) as AnyAdapter;
    const outcome = await adapter.admit(await sample(tool, "oversize.json"), { spillStore: new MemorySpillStore() });
    if (outcome.ok) {
      expect(outcome.complete).toBe(false);
      expect(outcome.contextUsed.value).toBeLessThanOrEqual(adapter.spec.context.max);
    } else {
      expect(["oversize", "result_too_large", "schema_mismatch"]).toContain(outcome.error.code);
    }
    expectSafeContent(outcome);
  });
});

describe("the generated read_graph adapter on a large graph", () => {
  // Its validator bounds depth and numbers, so a valid payload the hash thread hashes is searched for an escaped half
  // surrogate pair only when the thread found a `\u` in it, when the hash settles.
  const graph = {
    entities: Array.from({ length: 100 }, (_, i) => ({
      name: `entity ${i}`,
      entityType: "service",
      observations: Array.from({ length: 8 }, (_, j) => `observation ${j} of entity ${i}, café 東京 🚀`),
    })),
    relations: Array.from({ length: 99 }, (_, i) => ({
      from: `entity ${i}`,
      to: `entity ${i + 1}`,
      relationType: "calls",
    })),
  };
  const text = JSON.stringify(graph);

  it("admits it whole through the helper thread, as text and as bytes, with escapes or without", async () => {
    await hashThreadReady(hashThread);
    const adapter = adapters.get("read_graph") as AnyAdapter;
    expect(text.length).toBeGreaterThanOrEqual(hashThread.MIN_UNITS);
    const escaped = text.replaceAll("café", "caf\\u00e9");
    for (const raw of [text, new TextEncoder().encode(text), escaped, new TextEncoder().encode(escaped)]) {
      const jobs = threadJobs();
      const outcome = await adapter.admit(raw);
      expect(threadJobs()).toBe(jobs + 1);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) continue;
      expect(outcome.data).toEqual(graph);
      const content = toModelContent(outcome);
      expect(content).toContain("observation 4 of entity 19, café 東京 🚀");
      expect(content).toContain('"entity 38","relationType":"calls"');
    }
  });

  it("refuses it with an escaped half pair in one observation, as the parse stage refuses one", async () => {
    await hashThreadReady(hashThread);
    const adapter = adapters.get("read_graph") as AnyAdapter;
    const broken = text.replace("observation 3 of entity 77", "observation 3 of \\ud800 entity 77");
    for (const raw of [broken, new TextEncoder().encode(broken)]) {
      const outcome = await adapter.admit(raw);
      expect(outcome.ok ? "ok" : [outcome.error.code, outcome.diagnostics.detail?.reason]).toEqual([
        "invalid_encoding",
        "lone_surrogate",
      ]);
    }
  });
});

describe("the generated get_record adapter with the caller's tenant rule", () => {
  it("admits the caller's own record and refuses another tenant's", async () => {
    const adapter = (adapters.get("get_record") as AnyAdapter).with({
      hooks: { semantic: ownedByTenant("/owner/tenantId") },
    });
    const raw = await sample("get_record", "good.json");
    const own = await adapter.admit(raw, { tenant: "tn_acme0042" });
    expect(own.ok).toBe(true);
    const other = await adapter.admit(raw, { tenant: "tn_globex0007" });
    expect(other.ok ? "ok" : other.error.code).toBe("semantic_violation");
    expect(toModelContent(other)).not.toContain("tn_acme0042");
  });
});
