/**
 * The HTML report in a real headless browser (Debian's chromium): the page loads from a file with no console error
 * and no request at all besides itself, and each chart has the marks a known trace calls for (bars per tool and
 * code, policy segments, recovered-rate points with their interval whiskers, latency bars), with their labels. A
 * screenshot is written to `.tmp/report/report-page.png`.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../../generator/report/build.js";
import { reportHtml } from "../../../generator/report/html.js";
import { event, labels, scratch, turns, writeLines } from "./trace.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = path.resolve(import.meta.dirname, "../../../.tmp/report/report-page.png");

let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const requests: string[] = [];
const failed: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)`);
  const folder = await scratch("page");
  const events = [
    ...turns(6, "r", (i) => ({ tool: "read_file", ...(i < 2 ? { code: "oversize" as const } : {}) })),
    ...turns(4, "p", () => ({ tool: "read_file", policy: "spill" })),
    event({ tool: "read_file", turn: "r1", code: "schema_mismatch", stage: "validate", policy: undefined }),
    ...turns(8, "q", (i) => ({
      tool: "query_database",
      policy: "summarize",
      summarize: { ms: 100 * (i + 1), cached: i % 2 === 0 },
    })),
    ...turns(3, "s", () => ({ tool: "search_docs", policy: "recall", recall: true, recalls: 1 })),
    event({ tool: "search_docs", turn: "s1", code: "tool_error", stage: "transport", policy: undefined }),
    ...turns(5, "c", () => ({ tool: "get_record" })),
  ];
  // The dropped turns r1 and r2 went wrong; every clean turn (r3…r6, c1…c5) and every spilled one went right.
  const dropsWrong = labels(6, "r", 6).map((line, i) => (i < 2 ? line.replace("true", "false") : line));
  const labelled = [...dropsWrong, ...labels(4, "p", 4), ...labels(8, "q", 6), ...labels(5, "c", 5)];
  const report = await buildReport(
    [await writeLines(path.join(folder, "events.jsonl"), events)],
    await writeLines(path.join(folder, "labels.jsonl"), labelled),
  );
  const file = path.join(folder, "report.html");
  await writeFile(file, reportHtml(report));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  page.on("request", (request) => requests.push(request.url()));
  page.on("requestfailed", (request) => failed.push(request.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** The `data-` attribute pairs of the marks matching `selector`, in document order. */
async function marks(selector: string, attributes: readonly string[]): Promise<string[]> {
  return page.$$eval(
    selector,
    (elements, names) => elements.map((e) => names.map((n) => e.getAttribute(`data-${n}`)).join(" ")),
    attributes,
  );
}

describe("the report's page", () => {
  it("loads with no console error and no request but the page itself", () => {
    expect(consoleErrors).toEqual([]);
    expect(failed).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.startsWith("file://")).toBe(true);
  });

  it("draws the reject rate as a bar per tool and failure code", async () => {
    expect(await marks("#reject-rate rect.reject", ["tool", "code"])).toEqual([
      "read_file oversize",
      "read_file schema_mismatch",
      "search_docs tool_error",
    ]);
    const labelsShown = await page.$$eval("#reject-rate text.label", (e) => e.map((t) => t.textContent));
    expect(labelsShown).toEqual(["get_record", "query_database", "read_file", "search_docs"]);
  });

  it("draws the policy mix as a segment per tool and policy", async () => {
    expect(await marks("#policy-mix rect.mix", ["tool", "policy"])).toEqual([
      "query_database summarize",
      "read_file drop",
      "read_file spill",
      "search_docs recall",
    ]);
    const widths = await page.$$eval("#policy-mix rect.mix", (e) => e.map((r) => Number(r.getAttribute("width"))));
    // read_file: 2 dropped and 4 spilled of 6 oversize, on a 330-pixel plot.
    expect(widths.map(Math.round)).toEqual([330, 110, 220, 330]);
  });

  it("draws each recovered rate as a point with its interval's whisker, and clean turns", async () => {
    expect(await marks("#recovered-rate g.rate", ["tool", "policy"])).toEqual([
      "query_database summarize",
      "read_file drop",
      "read_file spill",
      " clean",
    ]);
    expect(await page.locator("#recovered-rate circle.point").count()).toBe(4);
    expect(await page.locator("#recovered-rate line.whisker").count()).toBe(4);
    expect(await page.locator("#recovered-rate line.reference").count()).toBe(1);
    const names = await page.$$eval("#recovered-rate text.label", (e) => e.map((t) => t.textContent));
    expect(names).toEqual(["query_database · summarize", "read_file · drop", "read_file · spill", "clean turns"]);
  });

  it("draws summarize latency as p50, p95 and max bars per tool that summarized", async () => {
    expect(await marks("#summarize-latency rect.latency", ["tool", "stat"])).toEqual([
      "query_database p95",
      "query_database p50",
      "query_database max",
    ]);
    const values = await page.$$eval("#summarize-latency text.value", (e) => e.map((t) => t.textContent));
    expect(values).toEqual(["400 / 800 / 800 ms"]);
    const names = await page.$$eval("#summarize-latency text.label", (e) => e.map((t) => t.textContent));
    expect(names).toEqual(["query_database (8, 50% cached)"]);
  });

  it("says the decision rule in words and wrote its screenshot", async () => {
    const sentences = await page.$$eval("ul.decisions li", (e) => e.map((li) => li.textContent));
    expect(sentences).toEqual([
      "query_database: summarized turns recover 75% (n=8) against 100% for clean turns (n=9): lower, but the intervals overlap; label more turns before changing the cap or the policy",
      "read_file: dropped turns recover 0% (n=2) against 100% for clean turns (n=9): the cap or the policy is wrong",
      "read_file: spilled turns recover 100% (n=4) against 100% for clean turns (n=9): no sign the cap or the policy is wrong",
    ]);
    const wrong = await page.$$eval("ul.decisions li.wrong", (e) => e.length);
    expect(wrong).toBe(1);
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
