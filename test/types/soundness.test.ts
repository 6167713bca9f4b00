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
    expect(report.declarationErrors).toEqual([]);
    expect(report.unsound).toEqual([]);
    expect(report.instances).toBeGreaterThan(700);
  }, 120_000);
});
