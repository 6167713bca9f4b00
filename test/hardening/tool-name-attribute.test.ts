/**
 * The tool's name in the delimiter the model reads (`<tool_result tool="…">`) hides and steers nothing: a bidi
 * override, a zero-width or tag character, a C1 control or a lone surrogate in a name is written as its numeric
 * reference, for a success, a failure and a spilled result alike. The ordinary name reads as written.
 */
import { describe, expect, it } from "vitest";
import { MemorySpillStore, readBack, toModelContent } from "../../runtime/index.js";
import { goodRecord, recordTool } from "../runtime/fixture.js";

const HIDDEN = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{E0000}-\u{E007F}]|[\ud800-\udfff]/u;
const TAG_X = String.fromCodePoint(0xe0078);

describe("the tool name in the delimiter", () => {
  for (const name of [
    "get\u202Erecord",
    `get_record${TAG_X}${TAG_X}`,
    "get\u200Brecord\u2066",
    "get\u0085record",
    "get\uD800record",
  ]) {
    it(`${JSON.stringify(name)} shows every character, hides none`, async () => {
      const tool = recordTool({ name, oversize: ["spill", "drop"], context: { unit: "bytes", max: 700 } });
      const ok = await tool.admit(JSON.stringify(goodRecord()));
      const failed = await tool.admit("{not json");
      const items = Array.from({ length: 400 }, (_, id) => ({ id, label: `item ${id} ${"x".repeat(90)}` }));
      const spilled = await tool.admit(JSON.stringify(goodRecord({ items })), readBack(new MemorySpillStore()).context);
      expect(spilled.ok && spilled.spill !== undefined).toBe(true);
      for (const outcome of [ok, failed, spilled]) {
        const content = toModelContent(outcome);
        const open = content.split("\n")[0] as string;
        expect(HIDDEN.test(open)).toBe(false);
        expect(open).toMatch(/^<tool_result tool="get(&#\d+;)*_?record(&#\d+;)*" /);
      }
    });
  }

  it("the positive control: an ordinary name reads as written", async () => {
    const outcome = await recordTool({ name: "get_record" }).admit(JSON.stringify(goodRecord()));
    expect(toModelContent(outcome).split("\n")[0]).toMatch(/^<tool_result tool="get_record" source="sha256:/);
  });
});
