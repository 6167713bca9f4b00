/**
 * The read-back tool over spilled results: every page within its budget, saying where it is and how to get the
 * next one; the pages of an array (or of a text's lines) concatenate to exactly the value spilled; and each way a
 * read can go wrong (a path for a handle, an unknown, tampered or expired entry, another tenant) is its own code.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FileSpillStore,
  MemorySpillStore,
  type Outcome,
  type ReadBackArgs,
  type ReadBackOutcome,
  readBack,
  type SpillStore,
  toModelContent,
} from "../../../runtime/index.js";
import { compile, goodRecord, recordTool } from "../fixture.js";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "toolgate-read-back-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** 400 items with labels, well over a 2,000-byte budget. */
function bigItems(count = 400) {
  return Array.from({ length: count }, (_, id) => ({ id, label: `item ${id} <b>&</b> ${"x".repeat(id % 50)}` }));
}

async function spilled(
  store: SpillStore,
  extra: Record<string, unknown> = {},
  ctx: Record<string, unknown> = {},
  max = 500,
) {
  const reader = readBack(store, { budget: { unit: "bytes", max: 2000 } });
  const tool = recordTool({ context: { unit: "bytes", max }, oversize: ["spill", "drop"] });
  const data = goodRecord({ items: bigItems(), ...extra });
  const outcome = await tool.admit(JSON.stringify(data), { ...reader.context, ...ctx });
  if (!outcome.ok || outcome.spill === undefined) throw new Error(`expected a spill: ${JSON.stringify(outcome)}`);
  return { reader, data, outcome, handle: outcome.spill.handle };
}

function page(outcome: ReadBackOutcome) {
  if (!outcome.ok) throw new Error(`expected a page, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.page;
}

/** The JSON body of a page's content: the line after the opening tag. */
function shown(content: string): Record<string, unknown> {
  return JSON.parse(content.split("\n")[1] as string);
}

/** Reads every page from `first` on, following each page's `next`, and returns the pages. */
async function readAll(
  reader: ReturnType<typeof readBack>,
  first: ReadBackArgs,
  ctx: Parameters<ReturnType<typeof readBack>["handle"]>[1] = {},
) {
  const pages: ReadBackOutcome[] = [];
  let args: ReadBackArgs | undefined = first;
  while (args !== undefined) {
    const outcome = await reader.handle(args, ctx);
    pages.push(outcome);
    args = page(outcome).next;
    if (pages.length > 10_000) throw new Error("pages never end");
  }
  return pages;
}

describe("a spilled result's content", () => {
  it("names the read-back tool and the handle in one line inside the delimiter", async () => {
    const { outcome, handle } = await spilled(new MemorySpillStore());
    const content = toModelContent(outcome as Outcome<unknown, unknown>);
    const line = `<spilled handle="${handle}" bytes="${outcome.spill?.bytes}" read_with="read_tool_result"/>`;
    expect(content.split("\n")).toContain(line);
    expect(content.endsWith("</tool_result>")).toBe(true);
  });

  it("without a read-back tool keeps the handle alone", async () => {
    const tool = recordTool({ context: { unit: "bytes", max: 500 }, oversize: ["spill"] });
    const outcome = await tool.admit(JSON.stringify(goodRecord({ items: bigItems() })), {
      spillStore: new MemorySpillStore(),
    });
    expect(toModelContent(outcome)).toContain(`<spilled handle="${outcome.ok && outcome.spill?.handle}"/>`);
  });
});

describe("pages of a structured value", () => {
  it("concatenate to exactly the spilled array, each within budget, saying where they are and what comes next", async () => {
    const { reader, data, handle } = await spilled(new MemorySpillStore());
    const pages = await readAll(reader, { handle, pointer: "/items" });
    expect(pages.length).toBeGreaterThan(5);
    const items: unknown[] = [];
    let expectedFrom = 1;
    for (const [index, outcome] of pages.entries()) {
      expect(outcome.contextUsed.value).toBeLessThanOrEqual(2000);
      expect(Buffer.byteLength(outcome.content)).toBe(outcome.contextUsed.value);
      const body = page(outcome);
      expect(body.range.from).toBe(expectedFrom);
      expect(body.note).toBe(`items ${body.range.from}–${body.range.to} of 400 at /items`);
      expect(outcome.content).toContain(`<page>"items ${body.range.from}–${body.range.to} of 400 at /items"</page>`);
      const last = index === pages.length - 1;
      expect(body.complete).toBe(last);
      if (!last) {
        expect(body.next).toMatchObject({ handle, pointer: "/items", offset: body.range.to });
        expect(outcome.content).toContain(`<next>${JSON.stringify(body.next)}</next>`);
      }
      // The model's text holds the same items, markup escaped so nothing closes the delimiter.
      expect(shown(outcome.content).items).toEqual(body.items);
      expect(outcome.content).not.toContain("<b>");
      expect(outcome.content.match(/<\/tool_result>/g)).toHaveLength(1);
      items.push(...(body.items ?? []));
      expectedFrom = body.range.to + 1;
    }
    expect(items).toEqual(data.items);
  });

  it("reads from the end, and a pattern with * pages the values it matches with their pointers", async () => {
    const { reader, handle } = await spilled(new MemorySpillStore());
    const tail = page(await reader.handle({ handle, pointer: "/items", fromEnd: true, limit: 3 }));
    expect(tail.items).toEqual(bigItems().slice(-3));
    expect(tail.note).toBe("items 398–400 of 400 at /items");
    expect(tail.next).toEqual({ handle, pointer: "/items", fromEnd: true, offset: 3, limit: 3 });

    const labels = page(await reader.handle({ handle, pointer: "/items/*/id", limit: 4 }));
    expect(labels.matches).toEqual([0, 1, 2, 3].map((id) => ({ at: `/items/${id}/id`, value: id })));
    expect(labels.note).toBe("matches 1–4 of 400 at /items/*/id");
    const scalar = page(await reader.handle({ handle, pointer: "/owner" }));
    expect(scalar.matches).toEqual([{ at: "/owner", value: "acme" }]);
  });

  it("invisible characters a spilled value holds never reach the model's text", async () => {
    const store = new MemorySpillStore();
    const reader = readBack(store);
    const json = JSON.stringify({ items: ["plain", "zero\u200Bwidth", "bidi\u202Eoverride"] });
    const { handle } = await store.put({ tool: "t", json, sha256: "b".repeat(64) });
    const outcome = await reader.handle({ handle, pointer: "/items" });
    expect(shown(outcome.content).items).toEqual(["plain", "zerowidth", "bidioverride"]);
    expect(outcome.content).not.toMatch(/[\u200B\u202E]/u);
  });

  it("an item larger than a page is shown by its parts, and the next page goes on after it", async () => {
    const { reader, handle } = await spilled(new MemorySpillStore(), { title: "t".repeat(1900) }, {}, 700);
    const root = page(await reader.handle({ handle }));
    expect(root.cut).toBe(true);
    expect(root.parts).toContainEqual({ pointer: "/items", items: 400 });
    expect(root.parts).toContainEqual({ pointer: "/title" });
    expect(root.note).toContain("is larger than a page: read its parts");
    const title = page(await reader.handle({ handle, pointer: "/title" }));
    expect(title.cut).toBe(true);
  });

  it("a pointer that selects nothing, a pattern on a structured value and bad arguments are invalid_arguments", async () => {
    const { reader, handle } = await spilled(new MemorySpillStore());
    for (const args of [
      { handle, pointer: "/nope" },
      { handle, pointer: "/items/*/nope" },
      { handle, pattern: "x" },
      { handle, pointer: "items" },
      { handle, limit: 0 },
      { handle, limit: 1.5 },
      { handle, offset: -1 },
      { handle, extra: 1 },
      "not an object",
    ]) {
      const outcome = await reader.handle(args);
      expect(outcome.ok ? "ok" : outcome.error.code).toBe("invalid_arguments");
      expect(outcome.content).toMatch(
        /error="invalid_arguments" retryable="false">\n<message>"[^<>]{1,200}"<\/message>/,
      );
    }
  });
});

describe("pages of a text", () => {
  const text = Array.from({ length: 5000 }, (_, n) => `line ${n + 1}: ${n % 97 === 0 ? "ERROR disk full" : "ok"}`).join(
    "\n",
  );
  /** A tool whose result is a text (a JSON string), spilled when over 1,000 bytes. */
  async function spilledText(store: SpillStore = new MemorySpillStore()) {
    const reader = readBack(store, { budget: { unit: "bytes", max: 3000 } });
    const tool = recordTool({
      validateResult: compile<never>({ type: "string", maxLength: 1_000_000 }),
      view: { plan: { kind: "string", max: 400, overflow: "excerpt" }, maxStringChars: 400 },
      context: { unit: "bytes", max: 400 },
      oversize: ["spill"],
    });
    const outcome = await tool.admit(JSON.stringify(text), reader.context);
    if (!outcome.ok || outcome.spill === undefined) throw new Error(`expected a spill: ${toModelContent(outcome)}`);
    return { reader, handle: outcome.spill.handle };
  }

  it("a 5,000-line text reads back in pages of lines that join to exactly the text", async () => {
    const { reader, handle } = await spilledText();
    const pages = await readAll(reader, { handle });
    const lines: string[] = [];
    for (const outcome of pages) {
      expect(outcome.contextUsed.value).toBeLessThanOrEqual(3000);
      const body = page(outcome);
      expect(body.kind).toBe("text");
      expect(body.note).toBe(
        `lines ${body.range.from.toLocaleString("en-US")}–${body.range.to.toLocaleString("en-US")} of 5,000`,
      );
      expect(shown(outcome.content).lines).toEqual(body.lines);
      lines.push(...(body.lines ?? []));
    }
    expect(lines.join("\n")).toBe(text);
    expect(page(pages[0] as ReadBackOutcome).note).toMatch(/^lines 1–\d+ of 5,000$/);
  });

  it("from the end, and by a literal pattern (never a regular expression)", async () => {
    const { reader, handle } = await spilledText();
    const tail = page(await reader.handle({ handle, fromEnd: true, limit: 2 }));
    expect(tail.lines).toEqual(["line 4999: ok", "line 5000: ok"]);
    expect(tail.note).toBe("lines 4,999–5,000 of 5,000");
    const errors = await readAll(reader, { handle, pattern: "ERROR", limit: 20 });
    const matches = errors.flatMap((outcome) => page(outcome).matches ?? []);
    expect(matches).toHaveLength(52);
    expect(matches[1]).toEqual({ line: 98, text: "line 98: ERROR disk full" });
    expect(page(errors[0] as ReadBackOutcome).note).toBe('matches 1–20 of 52 for "ERROR" in 5,000 lines');
    const regex = page(await reader.handle({ handle, pattern: "ERR.R" }));
    expect(regex.range.total).toBe(0);
    expect(regex.complete).toBe(true);
    const structured = await reader.handle({ handle, pointer: "/0" });
    expect(structured.ok || structured.error.code).toBe("invalid_arguments");
  });

  it("a line longer than a page is shown in part, and says how much", async () => {
    const store = new MemorySpillStore();
    const long = `short\n${"y".repeat(10_000)}\nlast`;
    const reader = readBack(store, { budget: { unit: "bytes", max: 1000 } });
    const { handle } = await store.put({ tool: "t", json: JSON.stringify(long), sha256: "a".repeat(64) });
    const second = page(await reader.handle({ handle, offset: 1 }));
    expect(second.cut).toBe(true);
    expect(second.lines?.[0]?.length).toBeGreaterThan(500);
    expect(second.note).toMatch(/^line 2 of 3 is longer than a page: its first [\d,]+ of 10,000 characters$/);
    expect(second.next).toEqual({ handle, offset: 2, limit: 1 });
    const first = await reader.handle({ handle });
    expect(first.contextUsed.value).toBeLessThanOrEqual(1000);
  });
});

describe("reads that fail, each with its own code", () => {
  it("a handle that names a path is invalid_handle; one nobody spilled is unknown_handle", async () => {
    const { reader } = await spilled(new MemorySpillStore());
    for (const handle of ["../etc/passwd", "/tmp/x.json", `spill_${"a".repeat(31)}/`, "SPILL_0"]) {
      const outcome = await reader.handle({ handle });
      expect(outcome.ok || outcome.error.code).toBe("invalid_handle");
    }
    const unknown = await reader.handle({ handle: `spill_${"0".repeat(32)}` });
    expect(unknown.ok || unknown.error.code).toBe("unknown_handle");
    expect(unknown.content).toMatch(/error="unknown_handle" retryable="false"/);
  });

  it("another tenant, or another session, reads what a handle nobody spilled reads: nothing confirms it exists", async () => {
    const { reader, handle } = await spilled(new MemorySpillStore(), {}, { tenant: "acme", session: "s-1" });
    const own = await reader.handle({ handle, pointer: "/items", limit: 1 }, { tenant: "acme", session: "s-1" });
    expect(own.ok).toBe(true);
    const nobody = await reader.handle({ handle: `spill_${"0".repeat(32)}`, pointer: "/items", limit: 1 });
    for (const ctx of [{ tenant: "globex", session: "s-1" }, { session: "s-1" }, { tenant: "acme", session: "s-2" }]) {
      const outcome = await reader.handle({ handle, pointer: "/items", limit: 1 }, ctx);
      expect(outcome.ok || outcome.error.code).toBe("unknown_handle");
      expect(outcome.content).toBe(nobody.content);
      expect(outcome.content).not.toContain("item 0");
    }
  });

  it("an entry past its time to live is expired", async () => {
    let now = 1_000_000;
    const store = new MemorySpillStore({ ttlMs: 60_000, now: () => now });
    const { reader, handle } = await spilled(store);
    expect((await reader.handle({ handle, limit: 1, pointer: "/items" }, { now: () => now })).ok).toBe(true);
    now += 60_000;
    const outcome = await reader.handle({ handle, pointer: "/items" }, { now: () => now });
    expect(outcome.ok || outcome.error.code).toBe("expired");
  });

  it("a file store entry edited on disk is tampered, for a fresh reader", async () => {
    const directory = join(scratch, "tampered");
    const { handle } = await spilled(new FileSpillStore({ directory }));
    const file = join(directory, `${handle}.json`);
    const bytes = await readFile(file, "utf8");
    await writeFile(file, bytes.replace('"label":"item 7 ', '"label":"item 8 '));
    const outcome = await readBack(new FileSpillStore({ directory })).handle({ handle, pointer: "/items" });
    expect(outcome.ok || outcome.error.code).toBe("tampered");
    // An index edited to point elsewhere is caught by its own sha256.
    await writeFile(
      file,
      bytes.replace(
        /"index":\{"arrays":\[\["\/items",(\d+)/,
        (_, n) => `"index":{"arrays":[["/items",${Number(n) + 1}`,
      ),
    );
    const index = await readBack(new FileSpillStore({ directory })).handle({ handle, pointer: "/items" });
    expect(index.ok || index.error.code).toBe("tampered");
  });

  it("a store that cannot read entries back, a bad name or a budget too small is refused up front", () => {
    expect(() => readBack({ put: async () => ({ handle: "x", bytes: 0 }), get: async () => undefined })).toThrow(
      /cannot read entries back/,
    );
    expect(() => readBack(new MemorySpillStore(), { name: "read tool" })).toThrow(/name/);
    expect(() => readBack(new MemorySpillStore(), { budget: { unit: "bytes", max: 100 } })).toThrow(/at least 600/);
  });
});

describe("the tool definition", () => {
  it("is an MCP tool named read_tool_result (or as configured) with input and output schemas", () => {
    const { definition } = readBack(new MemorySpillStore());
    expect(definition.name).toBe("read_tool_result");
    expect(definition.inputSchema).toMatchObject({ type: "object", required: ["handle"], additionalProperties: false });
    expect(Object.keys(definition.inputSchema.properties as object).sort()).toEqual(
      ["fromEnd", "handle", "limit", "offset", "pattern", "pointer"].sort(),
    );
    expect(definition.outputSchema).toMatchObject({
      type: "object",
      required: ["handle", "kind", "range", "note", "complete"],
    });
    expect(readBack(new MemorySpillStore(), { name: "peek" }).definition.name).toBe("peek");
  });

  it("its output schema holds every page it gives, checked by a real validator", async () => {
    const { reader, handle } = await spilled(new MemorySpillStore());
    const validate = compile(reader.definition.outputSchema);
    const outcome = await reader.handle({ handle, pointer: "/items/*/label", limit: 3 });
    expect(outcome.toolResult.structuredContent).toBeDefined();
    expect(validate(JSON.parse(JSON.stringify(outcome.toolResult.structuredContent)))).toBe(true);
    const input = compile(reader.definition.inputSchema);
    expect(input(page(outcome).next)).toBe(true);
  });
});
