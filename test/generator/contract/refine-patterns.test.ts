/**
 * A server's pattern the ReDoS check refuses is mended in the contract, never in the server's schema:
 * `x-toolgate.refineInput` bounds or replaces an input pattern, `x-toolgate.refine` replaces an output one
 * (`{"pattern": NEW, "replaces": OLD}`), and the refused pattern is then compiled nowhere. A replacement names the
 * pattern it replaces, so a server that changes its pattern makes the contract fail until it is reviewed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importTools } from "../../../generator/mcp/import.js";
import { contractErrors, generateInto, importGenerated, writeContracts } from "../../hardening/scratch.js";

/** Exponential as a full match: refused at any bound. */
const SERVER_BRANCH = "^([a-z0-9]+-?)+$";
/** The same names, linear. */
const LINEAR_BRANCH = "^[a-z0-9]+(?:-[a-z0-9]+)*-?$";
/** Polynomial (degree 2): accepted once bounded at 63. */
const DNS_LABEL = "^[a-z0-9]+(?:[a-z0-9-]*[a-z0-9])?$";

type Validator = ((value: unknown) => boolean) & { errors?: Array<{ keyword: string }> | null };

function definition() {
  return {
    name: "deploy",
    inputSchema: {
      type: "object",
      properties: {
        branch: { type: "string", pattern: SERVER_BRANCH },
        service: { type: "string", pattern: DNS_LABEL },
      },
      required: ["branch"],
    },
    outputSchema: {
      type: "object",
      properties: { branch: { type: "string", maxLength: 64, pattern: SERVER_BRANCH } },
      additionalProperties: false,
    },
  };
}

const MENDED = {
  receive: { maxBytes: 4096 },
  refineInput: {
    "/properties/branch": { pattern: LINEAR_BRANCH, replaces: SERVER_BRANCH, maxLength: 255 },
    "/properties/service": { maxLength: 63 },
  },
  refine: { "/properties/branch": { pattern: LINEAR_BRANCH, replaces: SERVER_BRANCH } },
};

describe("mending a server's refused pattern in the contract", () => {
  it("without the overlays, each pattern is refused with the way to mend it", async () => {
    const schemas = await writeContracts("refine-patterns-refused", {
      "deploy.tool.json": { ...definition(), "x-toolgate": { receive: { maxBytes: 4096 } } },
    });
    const errors = await contractErrors(schemas);
    expect(errors.map((error) => error.pointer)).toEqual([
      "/outputSchema/properties/branch/pattern",
      "/inputSchema/properties/branch/pattern",
      "/inputSchema/properties/service/pattern",
    ]);
    for (const error of errors) expect(error.message).toContain('{"pattern": NEW, "replaces": OLD}');
  });

  it("with them, it generates; the gate checks the replacement, and the server's pattern is compiled nowhere", async () => {
    const schemas = await writeContracts("refine-patterns-mended", {
      "deploy.tool.json": { ...definition(), "x-toolgate": MENDED },
    });
    expect((await contractErrors(schemas)).map(String)).toEqual([]);
    const folder = await generateInto(schemas);
    const code = await readFile(path.join(folder.out, "validators.js"), "utf8");
    const inputCode = await readFile(path.join(folder.out, "deploy", "validate.js"), "utf8");
    for (const source of [code, inputCode]) expect(source).not.toContain(JSON.stringify(SERVER_BRANCH).slice(1, -1));

    const { validateInput, validateResult } = await importGenerated<{
      validateInput: Validator;
      validateResult: Validator;
    }>(folder, "deploy/validate.js");
    // The ordinary names pass (positive control), both ways.
    expect(validateInput({ branch: "release-2026", service: "payments-api" })).toBe(true);
    expect(validateResult({ branch: "release-2026" })).toBe(true);
    // What the server's pattern refuses, the replacement refuses.
    expect(validateInput({ branch: "Release" })).toBe(false);
    expect(validateInput({ branch: "a--b" })).toBe(false);
    expect(validateInput({ branch: "x", service: "-edge" })).toBe(false);
    // The added bound holds, and the attack that stalls the server's pattern is answered at once.
    expect(validateInput({ branch: "x", service: "a".repeat(64) })).toBe(false);
    expect(validateInput.errors?.[0]?.keyword).toBe("maxLength");
    const started = performance.now();
    expect(validateInput({ branch: `${"a".repeat(40)}!` })).toBe(false);
    expect(validateResult({ branch: `${"a".repeat(40)}!` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("a replacement that names another pattern than the schema's is an error at its place", async () => {
    const changed = structuredClone(MENDED);
    changed.refineInput["/properties/branch"].replaces = "^[a-z]+$";
    const schemas = await writeContracts("refine-patterns-stale", {
      "deploy.tool.json": { ...definition(), "x-toolgate": changed },
    });
    const errors = await contractErrors(schemas);
    expect(errors.map(String)).toEqual([
      expect.stringContaining(
        `#/x-toolgate/refineInput/~1properties~1branch/replaces: the subschema's pattern is ${JSON.stringify(SERVER_BRANCH)}, not "^[a-z]+$": the server changed it`,
      ),
    ]);
  });

  it("import refuses the server's definition, then takes it with the overlays kept in the contract", async () => {
    const out = path.join(path.dirname(await writeContracts("refine-patterns-import", {})), "imported");
    const first = await importTools([{ definition: definition(), origin: "deploy" }], { out });
    expect(first.imported).toEqual([]);
    expect(first.refused[0]?.reason).toContain("#/inputSchema/properties/branch/pattern");
    // The user writes the contract's x-toolgate block beside the name, and imports again.
    const file = path.join(out, "deploy.tool.json");
    await mkdir(out, { recursive: true });
    await writeFile(file, JSON.stringify({ name: "deploy", "x-toolgate": MENDED }));
    const second = await importTools([{ definition: definition(), origin: "deploy" }], { out, force: true });
    expect(second.refused).toEqual([]);
    expect(second.imported.map((entry) => entry.status)).toEqual(["replaced"]);
    const written = JSON.parse(await readFile(file, "utf8"));
    expect(written.inputSchema.properties.branch.pattern).toBe(SERVER_BRANCH);
    expect(written["x-toolgate"].refineInput).toEqual(MENDED.refineInput);
    expect((await contractErrors(out)).map(String)).toEqual([]);
  });
});
