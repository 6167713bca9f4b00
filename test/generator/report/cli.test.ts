/**
 * `toolgate report` end to end through the CLI: the help with the fail-on grammar, each format, `--out`, the
 * exit codes (0 written, 1 a rule holds, 2 a usage mistake: an unknown format, a bad rule named, no file, a file
 * that does not exist).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { toolgate } from "../../cli.js";
import { labels, scratch, turns, writeLines } from "./trace.js";

let events: string;
let labelled: string;
let folder: string;
beforeAll(async () => {
  folder = await scratch("cli");
  events = await writeLines(path.join(folder, "events.jsonl"), [
    ...turns(8, "t", (i) => ({ tool: "read_file", ...(i < 2 ? { code: "oversize" as const } : {}) })),
    ...turns(2, "s", () => ({ tool: "query_database", policy: "summarize", summarize: { ms: 40, cached: false } })),
  ]);
  // Dropped turns t1 (correct) and t2 (not); clean turns t3…t8 and summarized s1, s2 all correct.
  labelled = await writeLines(path.join(folder, "labels.jsonl"), [
    ...labels(8, "t", 8).map((line, i) => (i === 1 ? line.replace("true", "false") : line)),
    ...labels(2, "s", 2),
  ]);
});

describe("toolgate report", () => {
  it("is in toolgate --help and has its own, with the fail-on grammar and every measure", async () => {
    const main = await toolgate("--help");
    expect(main.out).toContain("toolgate report EVENTS.jsonl...");
    const own = await toolgate("report", "--help");
    expect(own.code).toBe(0);
    expect(own.out).toContain("RULE: [TOOL:]MEASURE OP NUMBER");
    for (const measure of ["reject_rate.CODE", "mix.POLICY", "summarize_p95_ms", "recovered_POLICY", "bad_lines"])
      expect(own.out).toContain(measure);
    expect(own.out).toContain("Exit codes: 0 the report was written, 1 a --fail-on rule holds, 2 usage error.");
  });

  it("prints the text report with the labels' recovered rates and the decision rule", async () => {
    const run = await toolgate("report", events, "--labels", labelled);
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
    expect(run.out).toContain("toolgate report: 10 events from 1 file, 2 tools; 10 labels, 10 matched in the trace.");
    expect(run.out).toMatch(/^read_file\s+8\s+2\s+25\.0%\s+oversize 2$/m);
    expect(run.out).toMatch(/^query_database\s+2\s+40\.0\s+40\.0\s+40\.0\s+0 \(0%\)$/m);
    expect(run.out).toContain(
      "read_file: dropped turns recover 50% (n=2) against 100% for clean turns (n=6): lower, but the intervals overlap",
    );
  });

  it("writes JSON, Markdown and HTML, to --out when asked", async () => {
    const json = await toolgate("report", events, "--format", "json");
    const parsed = JSON.parse(json.out);
    expect(parsed.all.admits).toBe(10);
    expect(parsed.tools.map((t: { tool: string }) => t.tool)).toEqual(["query_database", "read_file"]);
    const markdown = await toolgate("report", events, "--format", "markdown");
    expect(markdown.out).toContain("| `read_file` | 8 | 2 | 25.0% | oversize 2 |");
    const out = path.join(folder, "report.html");
    const html = await toolgate("report", events, "--format", "html", "--out", out);
    expect([html.code, html.out]).toEqual([0, ""]);
    const page = await readFile(out, "utf8");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    expect(page).not.toMatch(/<script|<link|https?:\/\//);
  });

  it("exits 1 naming each rule that holds, and 0 when none does", async () => {
    const failing = await toolgate(
      "report",
      events,
      "--labels",
      labelled,
      "--fail-on",
      "reject_rate>0.05, read_file:recovered_drop<0.7,summarize_p95_ms>=100,recovered_recall<1",
    );
    expect(failing.code).toBe(1);
    expect(failing.err.split("\n")).toEqual([
      "toolgate report: --fail-on reject_rate>0.05 holds (0.2)",
      "toolgate report: --fail-on read_file:recovered_drop<0.7 holds (0.5)",
    ]);
    const passing = await toolgate(
      "report",
      events,
      "--fail-on",
      "reject_rate>0.25,reject_rate.oversize>=0.3,bad_lines>0",
    );
    expect([passing.code, passing.err]).toEqual([0, ""]);
  });

  it("reports the labelled example trace, and its decision rule finds the summaries and re-calls that lose the answer", async () => {
    const fixture = path.resolve(import.meta.dirname, "../../fixtures/report");
    const run = await toolgate(
      "report",
      path.join(fixture, "events.jsonl"),
      "--labels",
      path.join(fixture, "labels.jsonl"),
      "--fail-on",
      "wrong_decisions>0",
    );
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      "toolgate report: 120 events from 1 file, 5 tools; 120 labels, 120 matched in the trace.",
    );
    const wrong = run.out.split("\n").filter((line) => line.endsWith("): the cap or the policy is wrong"));
    expect(wrong).toEqual([
      "  query_database: summarized turns recover 0% (n=6) against 70% for clean turns (n=80): the cap or the policy is wrong",
      "  search_docs: re-called turns recover 0% (n=6) against 70% for clean turns (n=80): the cap or the policy is wrong",
    ]);
    expect(run.err).toBe("toolgate report: --fail-on wrong_decisions>0 holds (2)");
  });

  it("exits 2 for a usage mistake, naming it", async () => {
    const cases: Array<[string[], string]> = [
      [["--format", "pdf"], '--format must be one of text, markdown, json, html, not "pdf"'],
      [["--fail-on", "reject_rate=0.05"], '--fail-on: "reject_rate=0.05" is not a rule'],
      [["--fail-on", "latency>3"], '--fail-on: unknown measure "latency" in "latency>3"'],
      [["--fail-on", "mix.keep>0.5"], '--fail-on: unknown measure "mix.keep"'],
      [["--fail-on", "read_file:bad_lines>0"], "--fail-on: bad_lines is not per tool"],
      [["--colour"], "Unknown option '--colour'"],
    ];
    for (const [argv, message] of cases) {
      const run = await toolgate("report", events, ...argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.err).toContain(message);
    }
    const none = await toolgate("report");
    expect([none.code, none.err.split("\n")[0]]).toEqual([2, "toolgate: report: no events file given"]);
    const missing = await toolgate("report", path.join(folder, "nowhere.jsonl"));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no such file or directory");
  });
});
