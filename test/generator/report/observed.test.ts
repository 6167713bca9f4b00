/**
 * `toolgate report` on a trace with observe-mode events: the "would have" rows (what enforcement would have refused,
 * shortened or spilled, per tool and code) in every format, computed on a known trace the gate itself wrote in
 * observe mode, and kept apart from the counts of what the gate did.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { jsonLinesSink } from "@toolgate/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { type BuiltReport, buildReport } from "../../../generator/report/build.js";
import { reportHtml } from "../../../generator/report/html.js";
import { reportMarkdown } from "../../../generator/report/markdown.js";
import { reportText } from "../../../generator/report/text.js";
import { goodRecord, recordTool } from "../../runtime/fixture.js";
import { event, scratch } from "./trace.js";

/** A 4 KiB ceiling, a 400-byte budget and `shorten`: each payload below meets one of the gate's answers. */
const tool = recordTool({
  limits: { maxBytes: 4096, maxDepth: 12 },
  context: { unit: "bytes", max: 400 },
  oversize: ["shorten"],
});

const GOOD = JSON.stringify(goodRecord());
const LONG = JSON.stringify(
  goodRecord({ items: Array.from({ length: 40 }, (_, id) => ({ id, label: `label ${id} `.padEnd(60, "x") })) }),
);
const OFF_SCHEMA = JSON.stringify(goodRecord({ status: "maybe" }));
const NOT_JSON = '{"recordId": oops';
const TOO_LARGE = JSON.stringify(goodRecord({ summary: "s".repeat(10_000) }));

/** The observed calls of `get_record`, seven in all, and the three it enforced. */
const OBSERVED = [GOOD, GOOD, LONG, OFF_SCHEMA, OFF_SCHEMA, NOT_JSON, TOO_LARGE];
const ENFORCED = [GOOD, GOOD, GOOD];

let report: BuiltReport;

beforeAll(async () => {
  const folder = await scratch("observed");
  const lines: string[] = [];
  const sink = jsonLinesSink((line) => lines.push(line.trimEnd()));
  for (const raw of OBSERVED) {
    const outcome = await tool.admit(raw, { mode: "observe", sink });
    expect(outcome.observed?.original).toBe(raw);
  }
  for (const raw of ENFORCED) await tool.admit(raw, { sink });
  // A second tool, written by hand: three observed calls passed whole, one that enforcement would have spilled.
  for (const policy of ["direct", "direct", "direct", "spill"] as const) {
    lines.push(event({ tool: "read_file", v: 2, mode: "observe", policy }));
  }
  const file = path.join(folder, "events.jsonl");
  await writeFile(file, `${lines.join("\n")}\n`);
  report = await buildReport([file]);
});

const ROWS = [
  { tool: "get_record", wouldHave: "refused", code: "invalid_json", calls: 1, observed: 7 },
  { tool: "get_record", wouldHave: "refused", code: "result_too_large", calls: 1, observed: 7 },
  { tool: "get_record", wouldHave: "refused", code: "schema_mismatch", calls: 2, observed: 7 },
  { tool: "get_record", wouldHave: "shortened", code: "ok", calls: 1, observed: 7 },
  { tool: "read_file", wouldHave: "spilled", code: "ok", calls: 1, observed: 4 },
];

describe("would-have rows", () => {
  it("count what enforcement would have refused, shortened or spilled, per tool and code (JSON)", () => {
    const json = JSON.parse(JSON.stringify(report)) as BuiltReport;
    expect(json.observed.events).toBe(11);
    expect(json.observed.wouldHave).toEqual(ROWS.map((row) => ({ ...row, share: row.calls / row.observed })));
  });

  it("leave the counts of what the gate did to the enforced calls alone", () => {
    expect(report.events).toBe(14);
    expect(report.tools.map((t) => [t.tool, t.admits, t.rejects, t.oversize])).toEqual([["get_record", 3, {}, 0]]);
    expect(report.all.admits).toBe(3);
  });

  it("are printed in the text, Markdown and HTML reports", () => {
    const text = reportText(report);
    const markdown = reportMarkdown(report);
    const html = reportHtml(report);
    for (const row of ROWS) {
      const share = `${((row.calls / row.observed) * 100).toFixed(1)}%`;
      const cells = [`would have ${row.wouldHave}`, row.code, String(row.calls), String(row.observed), share];
      expect(text).toMatch(new RegExp(`^${[row.tool, ...cells].join(" +")}$`, "m"));
      expect(markdown).toContain(`| \`${row.tool}\` | ${cells.join(" | ")} |`);
      expect(html).toContain(
        `<tr><td>${row.tool}</td><td class="word">${cells[0]}</td><td class="word">${row.code}</td><td>${row.calls}</td><td>${row.observed}</td><td>${share}</td></tr>`,
      );
    }
    expect(text).toContain("toolgate report: 14 events (11 in observe mode) from 1 file, 1 tools.");
    expect(text).toContain("Would have (observe mode: 11 observed calls");
  });

  it("say so when enforcement would have passed every observed result whole, and are absent without observe events", async () => {
    const folder = await scratch("observed-whole");
    const file = path.join(folder, "events.jsonl");
    await writeFile(file, `${event({ tool: "read_file", v: 2, mode: "observe" })}\n${event({ tool: "read_file" })}\n`);
    const whole = await buildReport([file]);
    expect(whole.observed).toEqual({ events: 1, wouldHave: [] });
    expect(reportText(whole)).toMatch(/^all tools +would have passed every result whole +ok +0 +1 +0\.0%$/m);
    const plain = path.join(folder, "plain.jsonl");
    await writeFile(plain, `${event({ tool: "read_file" })}\n`);
    const enforced = await buildReport([plain]);
    expect(enforced.observed).toEqual({ events: 0, wouldHave: [] });
    expect(reportText(enforced)).not.toContain("Would have");
  });

  it("refuse a mode the gate does not write, and a mode in a version 1 event, by line", async () => {
    const folder = await scratch("observed-bad");
    const file = path.join(folder, "events.jsonl");
    await writeFile(
      file,
      `${event({ tool: "a", v: 2, mode: "shadow" as "observe" })}\n${event({ tool: "a", v: 1, mode: "observe" })}\n`,
    );
    const bad = await buildReport([file]);
    expect(bad.events).toBe(0);
    expect(bad.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, "not a gate event (`mode` is not one the gate writes)"],
      [2, "not a gate event (`mode` is not one the gate writes)"],
    ]);
  });
});
