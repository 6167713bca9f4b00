/**
 * Bad input to `toolgate report`: a truncated line, a damaged line, lines that are not events, an unknown format
 * version, a bad label, a gzip file and one cut off. Each is reported with its file and line number, and every
 * good line around it is still counted.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../../generator/report/build.js";
import { MAX_LINE_CHARS } from "../../../generator/report/lines.js";
import { event, scratch, writeLines } from "./trace.js";

let folder: string;
beforeAll(async () => {
  folder = await scratch("bad-input");
});

describe("bad lines", () => {
  it("names each bad line by file and number and counts the rest", async () => {
    const good = (turn: string) => event({ tool: "read_file", turn });
    const file = path.join(folder, "mixed.jsonl");
    const lines = [
      good("t1"),
      '{"v":1,"tool":"read_file","code":"ok","sizes":{"rawBy', // damaged mid-file
      good("t2"),
      "",
      '["not", "an", "event"]',
      '{"hello":"world"}',
      '{"v":3,"tool":"read_file","code":"ok"}',
      '{"v":1,"tool":"read_file"}',
      good("t3"),
    ];
    // The last line is cut off: no line break, half an object.
    await writeFile(file, `${lines.join("\n")}\n{"v":1,"tool":"read_fi`);
    const report = await buildReport([file]);
    expect(report.events).toBe(3);
    expect(report.tools[0]).toMatchObject({ tool: "read_file", admits: 3, turns: 3 });
    expect(report.badLines).toBe(6);
    expect(report.problems).toEqual([
      { file, line: 2, reason: "not JSON (a damaged line)" },
      { file, line: 5, reason: "not a gate event (not an object)" },
      { file, line: 6, reason: "not a gate event (no format version `v`)" },
      { file, line: 7, reason: "event format version 3 is not known (this report reads versions 1 to 2)" },
      { file, line: 8, reason: "not a gate event (no `tool` or `code`)" },
      { file, line: 10, reason: "truncated line (the file ends mid-line)" },
    ]);
  });

  it("keeps the first 100 problems of a file of bad lines but counts them all", async () => {
    const file = await writeLines(
      path.join(folder, "garbage.jsonl"),
      Array.from({ length: 250 }, (_, i) => (i % 50 === 0 ? event({ tool: "a" }) : "garbage")),
    );
    const report = await buildReport([file]);
    expect([report.events, report.badLines, report.problems.length]).toEqual([5, 245, 100]);
    expect(report.problems[0]).toEqual({ file, line: 2, reason: "not JSON (a damaged line)" });
  });

  it("reports a bad label line and counts the labels around it", async () => {
    const events = await writeLines(path.join(folder, "labelled.jsonl"), [event({ tool: "a", turn: "t1" })]);
    const labels = await writeLines(path.join(folder, "labels.jsonl"), [
      JSON.stringify({ turn: "t1", correct: true }),
      JSON.stringify({ turn: "t2", correct: "yes" }),
      JSON.stringify({ correct: false }),
    ]);
    const report = await buildReport([events], labels);
    expect(report.recovered?.labels).toBe(1);
    expect(report.recovered?.clean).toMatchObject({ hits: 1, n: 1 });
    expect(report.problems).toEqual([
      { file: labels, line: 2, reason: "not a label (`correct` is not true or false)" },
      { file: labels, line: 3, reason: "not a label (no `turn` or `correlationId`)" },
    ]);
  });
});

describe("gzip", () => {
  const lines = Array.from({ length: 2000 }, (_, i) => event({ tool: i % 2 === 0 ? "a" : "b", turn: `t${i}` }));

  it("reads a gzip file (by its bytes, whatever its name) as the plain file", async () => {
    const plain = await writeLines(path.join(folder, "plain.jsonl"), lines);
    const zipped = path.join(folder, "zipped.log");
    await writeFile(zipped, gzipSync(await readFile(plain)));
    const [a, b] = [await buildReport([plain]), await buildReport([zipped])];
    expect(b.events).toBe(2000);
    expect(b.tools).toEqual(a.tools);
    expect(b.badLines).toBe(0);
  });

  it("counts what a cut-off gzip file holds before the cut and says where it was cut", async () => {
    const whole = gzipSync(Buffer.from(lines.map((l) => `${l}\n`).join("")));
    const cut = path.join(folder, "cut.jsonl.gz");
    await writeFile(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const report = await buildReport([cut]);
    expect(report.events).toBeGreaterThan(0);
    expect(report.events).toBeLessThan(2000);
    expect(report.problems).toEqual([
      {
        file: cut,
        line: report.events + 1,
        reason: "the gzip stream is cut off here: this line and any after it are lost",
      },
    ]);
  });

  it("reads a line that never ends once, keeps none of it past the bound, and counts the lines around it", async () => {
    // 32 MB of one line without a break between two events: about 32 KB of gzip. Joining and re-scanning the line
    // on every chunk took half a minute for this file; read once it takes well under a second.
    const long = "a".repeat(MAX_LINE_CHARS + 1);
    const body = Buffer.concat([
      Buffer.from(`${lines[0]}\n`),
      ...Array.from({ length: 32 }, () => Buffer.from(long)),
      Buffer.from(`\n${lines[1]}\n`),
    ]);
    const file = path.join(folder, "long-line.jsonl.gz");
    await writeFile(file, gzipSync(body));
    const report = await buildReport([file]);
    expect(report.events).toBe(2);
    expect(report.badLines).toBe(1);
    expect(report.problems).toEqual([
      { file, line: 2, reason: `longer than ${MAX_LINE_CHARS} characters (no event is): not read` },
    ]);
  });

  it("still reads an event line of up to the bound whole, across many chunks", async () => {
    const padded = event({ tool: "a", turn: `t-${"x".repeat(MAX_LINE_CHARS - 400)}` });
    expect(padded.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    const file = path.join(folder, "long-event.jsonl.gz");
    await writeFile(file, gzipSync(Buffer.from(`${padded}\n${lines[1]}\n`)));
    const report = await buildReport([file]);
    expect(report.events).toBe(2);
    expect(report.badLines).toBe(0);
  });
});
