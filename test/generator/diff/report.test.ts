/**
 * The review report: a Markdown summary line and one table per tool, with contract text that cannot break out of
 * its cell; JSON with every class counted.
 */
import { describe, expect, it } from "vitest";
import { ContractError } from "../../../generator/contract/errors.js";
import { CHANGE_CLASSES } from "../../../generator/diff/classes.js";
import type { ContractChange } from "../../../generator/diff/contract-diff.js";
import { buildReport, code, reportJson, reportMarkdown } from "../../../generator/diff/report.js";

const hostile = "a|b\n| x | y |\r\n<img src=x onerror=alert(1)> ``` `tick` \u2028end";

const changes: ContractChange[] = [
  {
    tool: "get_record",
    class: "breaking",
    kind: "enum-value-added",
    area: "result",
    pointer: "/outputSchema/properties/status/enum",
    path: "/status",
    summary: "value added",
    after: hostile,
  },
  {
    tool: "get_record",
    class: "annotation",
    kind: "description-changed",
    area: "tool",
    pointer: "/description",
    summary: "tool description changed (the model reads it)",
    before: "old",
    after: "x".repeat(500),
  },
  {
    tool: "evil|tool`\n# heading",
    class: "added",
    kind: "tool-added",
    area: "tool",
    pointer: "",
    summary: "tool added",
    after: "evil.tool.json",
  },
];

function report() {
  return buildReport({ base: "HEAD (1a2b3c4)", head: "working tree", baseTools: 1, headTools: 2 }, changes, {
    base: [],
    head: [new ContractError("schemas/x.tool.json", "/outputSchema", "bad | thing\nhere")],
  });
}

/** The cells of a Markdown table row, split as GFM does: on every `|` that is not escaped. */
function cells(row: string): string[] {
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

describe("Markdown report", () => {
  const markdown = reportMarkdown(report());
  const lines = markdown.split("\n");

  it("opens with one summary line that counts changes by class", () => {
    expect(lines[0]).toBe(
      "**toolgate diff** `HEAD (1a2b3c4)` → `working tree`: 3 changes in 2 of 2 tools: 1 breaking, 1 added, 1 annotation.",
    );
  });

  it("has one table per tool, five cells on every row, whatever the contract text holds", () => {
    const headings = lines.filter((l) => l.startsWith("### "));
    expect(headings).toEqual(["### `get_record`", "### ``evil\\|tool`\\n# heading``"]);
    const rows = lines.filter((l) => l.startsWith("| "));
    expect(rows.length).toBe(2 * 2 + 3);
    for (const row of rows) expect(cells(row)).toHaveLength(5);
    // No line of the report starts in the middle of a value.
    for (const line of lines) expect(line === "" || /^(\*\*|### |\| |- )/.test(line)).toBe(true);
    expect(markdown).not.toMatch(/[\r\u2028]/);
  });

  it("shows the pointer, the field, the values as JSON in code spans, and marks severe classes", () => {
    const row = lines.find((l) => l.includes("enum-value") || l.includes("value added")) as string;
    const [pointer, change, before, after, klass] = cells(row);
    expect(pointer).toBe("`/outputSchema/properties/status/enum`");
    expect(change).toBe("result `/status`: value added");
    expect(before).toBe("");
    expect(after?.startsWith("````")).toBe(true);
    expect(after).toContain("\\|");
    expect(after).toContain("\\n");
    expect(klass).toBe("**breaking**");
  });

  it("shortens a long value and says so", () => {
    const row = lines.find((l) => l.includes("tool description changed")) as string;
    expect(cells(row)[3]).toMatch(/… \(502 chars\)`$/);
  });

  it("lists contract errors", () => {
    expect(markdown).toContain("**1 contract error** (those tools are not compared):");
    expect(markdown).toContain("- head: `schemas/x.tool.json#/outputSchema` `bad \\| thing\\nhere`");
  });

  it("says so when nothing changed", () => {
    const empty = reportMarkdown(
      buildReport({ base: "a", head: "b", baseTools: 3, headTools: 3 }, [], { base: [], head: [] }),
    );
    expect(empty).toBe("**toolgate diff** `a` → `b`: no contract changes (3 tools).\n");
  });
});

describe("code spans", () => {
  it.each([
    ["plain", "`plain`"],
    ["has `one` tick", "``has `one` tick``"],
    ["`starts", "`` `starts ``"],
    ["", "` `"],
    ["pipe|here", "`pipe\\|here`"],
    ["two\nlines", "`two\\nlines`"],
  ])("%j → %s", (text, want) => {
    expect(code(text)).toBe(want);
  });
});

describe("JSON report", () => {
  it("counts every class, lists changed tools, keeps whole values and errors", () => {
    const parsed = JSON.parse(reportJson(report()));
    expect(Object.keys(parsed)).toEqual(["base", "head", "summary", "changes", "errors"]);
    expect(Object.keys(parsed.summary.classes)).toEqual([...CHANGE_CLASSES]);
    expect(parsed.summary.classes).toMatchObject({ breaking: 1, added: 1, annotation: 1, exposure: 0 });
    expect(parsed.summary.tools).toEqual({ base: 1, head: 2, changed: ["get_record", "evil|tool`\n# heading"] });
    expect(parsed.changes[0].after).toBe(hostile);
    expect(parsed.changes[1].after).toHaveLength(500);
    expect(parsed.changes[0]).not.toHaveProperty("before");
    expect(parsed.errors).toEqual([
      { side: "head", file: "schemas/x.tool.json", pointer: "/outputSchema", message: "bad | thing\nhere" },
    ]);
  });
});
