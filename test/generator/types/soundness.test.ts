import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkSoundness } from "./suite.js";

describe("types stage soundness", () => {
  it("accepts every value the validator accepts (test suite, MCP tools, MCP specification examples)", async () => {
    const report = await checkSoundness();
    const { invalid, milliseconds: ms } = report;
    console.log(
      `types soundness: ${report.schemas} schemas, ${report.instances} accepted instances checked, ` +
        `${report.unsound.length} unsound, ${report.declarationErrors.length} declaration errors; ` +
        `precision: ${invalid.rejected} of ${invalid.checked} rejected instances also rejected by the type; ` +
        `${report.ajvCannotCompile.length} suite groups on the suite's own verdict (Ajv cannot compile them), ` +
        `${report.unresolved.length} sources with unresolved refs; ` +
        `emit ${ms.emit} ms + one type-check ${ms.typecheck} ms = ${ms.total} ms`,
    );
    for (const line of report.ajvCannotCompile) console.log(`  Ajv cannot compile: ${line}`);
    for (const line of report.unresolved) console.log(`  unresolved: ${line}`);
    // The conformance report (test/conformance/report.ts) renders its Types section from this file.
    await mkdir(path.resolve(".tmp", "conformance"), { recursive: true });
    await writeFile(path.resolve(".tmp", "conformance", "types.json"), JSON.stringify(report, null, 2));
    expect(report.declarationErrors).toEqual([]);
    expect(report.unsound).toEqual([]);
    expect(report.instances).toBeGreaterThan(700);
    // The per-source counts partition the totals.
    const parts = Object.values(report.parts);
    expect(parts.reduce((n, p) => n + p.schemas, 0)).toBe(report.schemas);
    expect(parts.reduce((n, p) => n + p.accepted, 0)).toBe(report.instances);
    expect(parts.reduce((n, p) => n + p.rejected.checked, 0)).toBe(report.invalid.checked);
    expect(report.suite.reduce((n, f) => n + f.schemas, 0)).toBe(report.parts.suite?.schemas);
    // Precision users rely on: `prefixItems` gives tuples, `enum`/`const` literal types, `$defs` named types.
    const file = (name: string) => report.suite.find((f) => f.file === name)?.precision;
    expect(file("prefixItems.json")?.tuple.precise).toBeGreaterThan(0);
    expect(file("enum.json")?.literal.precise).toBeGreaterThan(0);
    expect(file("const.json")?.literal.precise).toBeGreaterThan(0);
    expect(file("defs.json")?.named.precise).toBeGreaterThan(0);
  }, 120_000);
});
