/**
 * `toolgate report` prints text from the trace (tool names, codes, file names) into Markdown, a terminal and HTML.
 * An event file is the tool side's writing as much as the gate's, so none of it may start a row, a heading or a
 * link of its own: a code the gate never writes is no event, and every cell and sentence stays on its line.
 * Beside each case, the ordinary trace still reads as it did.
 */
import path from "node:path";
import type { FailureCode } from "@toolgate/runtime";
import { describe, expect, it } from "vitest";
import { buildReport } from "../../generator/report/build.js";
import { reportMarkdown } from "../../generator/report/markdown.js";
import { reportText } from "../../generator/report/text.js";
import { event, scratch, writeLines } from "../generator/report/trace.js";

const HEADING = "\n## Injected\n![tracker](http://tracker.invalid/pixel.png)\n";

describe("text from the trace stays inside its cell", () => {
  it("an event whose code holds a heading and an image is not counted, and nothing of it is printed", async () => {
    const folder = await scratch("injection-code");
    const file = path.join(folder, "codes.jsonl");
    await writeLines(file, [
      event({ tool: "read_file", code: `tool_error${HEADING}` as FailureCode }),
      event({ tool: "read_file", code: "tool_error" }),
      event({ tool: "read_file" }),
    ]);
    const report = await buildReport([file]);
    expect(report.events).toBe(2);
    expect(report.problems).toEqual([
      { file, line: 1, reason: "not a gate event (`code` is not one the gate writes)" },
    ]);
    for (const out of [reportMarkdown(report), reportText(report)]) {
      expect(out).not.toMatch(/^## Injected/m);
      expect(out).not.toContain("![tracker]");
      // The positive control: the real tool error is counted under its code.
      expect(out).toContain("tool_error 1");
    }
  });

  it("a tool name with line breaks, pipes and a heading stays one cell of one row", async () => {
    const folder = await scratch("injection-tool");
    const file = path.join(folder, "tools.jsonl");
    const hostile = `evil | 9 | 9 |${HEADING}| forged | 1 | 0 |`;
    await writeLines(file, [event({ tool: hostile }), event({ tool: "read_file" })]);
    const report = await buildReport([file]);
    expect(report.events).toBe(2);
    const markdown = reportMarkdown(report);
    const text = reportText(report);
    for (const out of [markdown, text]) {
      expect(out).not.toMatch(/^## Injected/m);
      expect(out).not.toMatch(/^\| forged/m);
      expect(out).not.toMatch(/^!\[tracker\]/m);
    }
    // Every Markdown row of the hostile tool keeps its table's number of cells (GFM splits on unescaped pipes).
    const cells = (line: string) => line.split(/(?<!\\)\|/).length;
    let header = 0;
    let rows = 0;
    for (const line of markdown.split("\n")) {
      if (line.startsWith("| tool |")) header = cells(line);
      if (line.startsWith("| `evil")) {
        expect(cells(line)).toBe(header);
        rows++;
      }
    }
    expect(rows).toBe(4);
    // The text format: the hostile name's row is one line, with its breaks shown as escapes.
    expect(text.split("\n").filter((line) => line.startsWith("evil")).length).toBeGreaterThan(0);
    expect(text).toContain("\\n## Injected\\n");
    // The positive control: the ordinary tool is a row of its own in both.
    expect(markdown).toMatch(/^\| `read_file` \| 1 \|/m);
    expect(text).toMatch(/^read_file +1 /m);
  });
});
