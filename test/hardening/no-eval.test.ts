/**
 * The generated code of the example contracts and of the injection table, run in a child process under
 * `node --disallow-code-generation-from-strings` (where `eval` and `new Function` throw), over payloads generated as
 * in the property tests: every outcome, and every model content, must be the same as in this process, and every
 * verdict of a generated validator the same as Ajv's compiling the schema here at run time.
 *
 * Vitest itself cannot run under that flag, so the child runs a script bundled with esbuild that imports the
 * generated catalog, with `@toolgate/runtime` resolved through the workspace link in `node_modules`, as in a user's project.
 */
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { build } from "esbuild";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../generator/schema/shapes.js";
import { MemorySpillStore, toModelContent } from "../../runtime/index.js";
import { HOSTILE_ROWS, hostileContract, hostileInstances } from "./injection.js";
import { payloadArbitrary } from "./payloads.js";
import { type AnyAdapter, adaptersOf, generateInto, REPO, SCRATCH, writeContracts } from "./scratch.js";

const WORK = path.join(SCRATCH, "no-eval");
/** Generated payloads per example contract. */
const PAYLOADS_PER_TOOL = 200;

/** A payload as it crosses into the child: text, bytes (base64) or a JSON value (an MCP result). */
type Wire = { tool: string } & (
  | { kind: "text"; text: string }
  | { kind: "bytes"; base64: string }
  | { kind: "json"; value: unknown }
);

/** What the child prints per payload. */
interface ChildLine {
  index: number;
  code: string;
  content: string;
  /** The generated output validator's verdict on the payload's JSON, when it is JSON. */
  valid?: boolean | string;
}

/** The child: admits every payload through the generated adapters and prints what it saw. */
const CHILD = `
import { readFileSync } from "node:fs";
import { MemorySpillStore, toModelContent } from "@toolgate/runtime";
import { catalog } from "./generated/index.js";

let blocked = false;
try { new Function("return 1")(); } catch { blocked = true; }
process.stdout.write(JSON.stringify({ blocked }) + "\\n");

const payloads = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const [index, wire] of payloads.entries()) {
  const entry = catalog[wire.tool];
  const raw = wire.kind === "text" ? wire.text : wire.kind === "bytes" ? new Uint8Array(Buffer.from(wire.base64, "base64")) : wire.value;
  const outcome = await entry.adapter.admit(raw, { spillStore: new MemorySpillStore(), now: () => new Date(0) });
  let valid;
  if (wire.kind === "text") {
    try {
      const value = JSON.parse(wire.text);
      try { valid = entry.adapter.spec.validateResult(value); } catch (error) { valid = "threw " + error.name; }
    } catch {}
  }
  const line = { index, code: outcome.ok ? "ok" : outcome.error.code, content: toModelContent(outcome), valid };
  process.stdout.write(JSON.stringify(line) + "\\n");
}
`;

let wires: Wire[] = [];
let child: { blocked: boolean; lines: ChildLine[] };
let adapters: Map<string, AnyAdapter>;
const schemas = new Map<string, object>();

/** A wire payload as `admit` takes it. */
function rawOf(wire: Wire): unknown {
  if (wire.kind === "text") return wire.text;
  if (wire.kind === "bytes") return new Uint8Array(Buffer.from(wire.base64, "base64"));
  return wire.value;
}

beforeAll(async () => {
  // The example contracts and the injection table, generated together into one catalog.
  const contracts: Record<string, unknown> = {};
  for (const file of (await readdir(path.join(REPO, "schemas"))).filter((name) => name.endsWith(".tool.json"))) {
    contracts[file] = JSON.parse(await readFile(path.join(REPO, "schemas", file), "utf8"));
  }
  for (const [index, [, text]] of HOSTILE_ROWS.entries())
    contracts[`row${index}.tool.json`] = hostileContract(index, text);
  for (const contract of Object.values(contracts)) {
    const { name, outputSchema } = contract as { name: string; outputSchema: object };
    schemas.set(name, outputSchema);
  }
  const folder = await generateInto(await writeContracts("no-eval", contracts));
  adapters = await adaptersOf(folder);

  // Payloads: generated from each example contract's schema, and the injection table's instances.
  for (const tool of ["get_record", "query_database", "read_file", "read_graph", "search_docs"]) {
    const adapter = adapters.get(tool) as AnyAdapter;
    const arbitrary = payloadArbitrary(schemas.get(tool) as JsonSchema, { maxBytes: adapter.spec.limits.maxBytes });
    for (const payload of fc.sample(arbitrary, { numRuns: PAYLOADS_PER_TOOL, seed: 8 })) {
      const raw = payload.raw;
      if (typeof raw === "string") wires.push({ tool, kind: "text", text: raw });
      else if (raw instanceof Uint8Array)
        wires.push({ tool, kind: "bytes", base64: Buffer.from(raw).toString("base64") });
      else if (raw !== null && typeof raw === "object" && !(raw instanceof Date))
        wires.push({ tool, kind: "json", value: raw });
    }
  }
  for (const [index, [, text]] of HOSTILE_ROWS.entries()) {
    for (const { value } of hostileInstances(text)) {
      wires.push({ tool: `injection_${index}`, kind: "text", text: JSON.stringify(value) });
    }
  }
  // Both sides read the payloads back from the same file, so they admit identical values.
  const payloadFile = path.join(WORK, "payloads.json");
  await writeFile(payloadFile, JSON.stringify(wires));
  wires = JSON.parse(await readFile(payloadFile, "utf8")) as Wire[];

  await writeFile(path.join(WORK, "child.ts"), CHILD);
  await build({
    entryPoints: [path.join(WORK, "child.ts")],
    outfile: path.join(WORK, "child.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--disallow-code-generation-from-strings", path.join(WORK, "child.mjs"), payloadFile],
    { cwd: REPO, timeout: 300_000, maxBuffer: 512 * 1024 * 1024 },
  );
  const [first, ...rest] = stdout.trim().split("\n");
  child = {
    blocked: (JSON.parse(first ?? "{}") as { blocked: boolean }).blocked,
    lines: rest.map((l) => JSON.parse(l)),
  };
}, 600_000);

/** Model content with each spill handle (128 random bits, so never the same in two processes) written alike. */
function withoutHandles(content: string): string {
  return content.replace(/spill_[0-9a-f]{32}/g, "spill_HANDLE");
}

describe("generated code under node --disallow-code-generation-from-strings", () => {
  it("code generation from strings is really blocked in the child", () => {
    expect(child.blocked).toBe(true);
  });

  it("admits every payload, each to the same outcome and model content as in this process", async () => {
    expect(child.lines).toHaveLength(wires.length);
    for (const [index, wire] of wires.entries()) {
      const outcome = await (adapters.get(wire.tool) as AnyAdapter).admit(rawOf(wire), {
        spillStore: new MemorySpillStore(),
        now: () => new Date(0),
      });
      const here = {
        index,
        tool: wire.tool,
        code: outcome.ok ? "ok" : outcome.error.code,
        content: withoutHandles(toModelContent(outcome)),
      };
      const there = child.lines[index] as ChildLine;
      expect({ index, tool: wire.tool, code: there.code, content: withoutHandles(there.content) }).toEqual(here);
    }
    const codes = new Set(child.lines.map((line) => line.code));
    for (const code of ["ok", "invalid_json", "invalid_encoding", "schema_mismatch"]) expect(codes).toContain(code);
  });

  it("every generated validator's verdict is the one Ajv gives compiling the schema at run time", () => {
    const runtime = new Map<string, (value: unknown) => boolean>();
    let compared = 0;
    for (const [index, wire] of wires.entries()) {
      const line = child.lines[index] as ChildLine;
      if (wire.kind !== "text" || line.valid === undefined) continue;
      let validate = runtime.get(wire.tool);
      if (validate === undefined) {
        const schema = schemas.get(wire.tool) as { $schema?: string };
        // The generator's semantics: own properties only, and `format` an annotation (no contract here asserts).
        const options = { strict: false, ownProperties: true, validateFormats: false };
        const ajv = schema.$schema?.includes("draft-07") ? new Ajv(options) : new Ajv2020(options);
        validate = ajv.compile(schema);
        runtime.set(wire.tool, validate);
      }
      let expected: boolean | string;
      try {
        expected = validate(JSON.parse(wire.text));
      } catch (error) {
        expected = `threw ${(error as Error).name}`;
      }
      expect({ index, tool: wire.tool, valid: line.valid }).toEqual({ index, tool: wire.tool, valid: expected });
      compared += 1;
    }
    expect(compared).toBeGreaterThan(wires.length / 3);
  });
});
