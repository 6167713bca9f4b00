/**
 * The report as one self-contained HTML page: inline CSS and SVG only (no script, no font, no request), a chart per
 * measure (reject rate by tool and code, policy mix, recovered rate with its intervals, summarize latency), the
 * decision rule's sentences, then the report's tables.
 */
import type { BuiltReport } from "./build.js";
import { percent } from "./decision.js";
import type { Rate } from "./interval.js";
import type { ToolMeasures } from "./measures.js";
import { bar, type ChartRow, chart, escapeHtml, LAYOUT, niceCeil, num, xOf } from "./svg.js";
import { headline, percent1, problemLines, reportTables } from "./tables.js";
import { OVERSIZE_POLICIES } from "./tally.js";

/** Colours of the failure codes, in a fixed order so a code keeps its colour across pages. */
const CODE_COLOURS: Record<string, string> = {
  timeout: "#8c564b",
  transport_error: "#7f7f7f",
  tool_error: "#d62728",
  result_too_large: "#9467bd",
  invalid_encoding: "#bcbd22",
  invalid_json: "#ff7f0e",
  schema_mismatch: "#e377c2",
  semantic_violation: "#17becf",
  oversize: "#1f77b4",
};
const POLICY_COLOURS: Record<string, string> = {
  drop: "#d62728",
  summarize: "#2ca02c",
  spill: "#1f77b4",
  recall: "#ff7f0e",
};
const LATENCY_COLOURS = { p50: "#2ca02c", p95: "#98df8a", max: "#555" } as const;

const codeColour = (code: string): string => CODE_COLOURS[code] ?? "#444";

/** A legend: a swatch and a name per entry. */
function legend(entries: ReadonlyArray<readonly [name: string, colour: string]>): string {
  const items = entries.map(
    ([name, colour]) => `<span class="key"><i style="background:${colour}"></i>${escapeHtml(name)}</span>`,
  );
  return `<p class="legend">${items.join("")}</p>`;
}

/** Reject rate per tool, one stacked bar per tool, a segment per failure code. */
function rejectChart(tools: readonly ToolMeasures[]): string {
  const top = niceCeil(Math.max(0, ...tools.map((t) => t.rejectRate)));
  const codes = new Set<string>();
  const rows: ChartRow[] = tools.map((t) => ({
    label: t.tool,
    marks: (y) => {
      let from = 0;
      const segments = Object.entries(t.rejects).map(([code, n]) => {
        codes.add(code);
        const to = from + n / t.admits;
        const mark = bar({
          y,
          from,
          to,
          top,
          className: "mark reject",
          data: { tool: t.tool, code },
          title: `${t.tool}: ${code} ${n} of ${t.admits} admits (${percent1(n / t.admits)})`,
          fill: codeColour(code),
        });
        from = to;
        return mark;
      });
      const end = `<text class="value" x="${num(xOf(from, top) + 4)}" y="${y + LAYOUT.row / 2 + 4}">${percent1(t.rejectRate)}</text>`;
      return segments.join("") + end;
    },
  }));
  const body = chart({
    id: "reject-rate",
    title: "Reject rate by tool and failure code",
    top,
    tick: (v) => percent(v),
    rows,
    note: "No admits.",
  });
  return `<div class="chart">${body}${legend([...codes].sort().map((c) => [c, codeColour(c)]))}</div>`;
}

/** The policy mix per tool with oversize admits: a 100% bar, a segment per policy. */
function mixChart(tools: readonly ToolMeasures[]): string {
  const rows: ChartRow[] = tools
    .filter((t) => t.oversize > 0)
    .map((t) => ({
      label: `${t.tool} (${t.oversize})`,
      marks: (y) => {
        let from = 0;
        return OVERSIZE_POLICIES.filter((p) => t.mix[p].count > 0)
          .map((p) => {
            const to = from + (t.mix[p].share ?? 0);
            const mark = bar({
              y,
              from,
              to,
              top: 1,
              className: "mark mix",
              data: { tool: t.tool, policy: p },
              title: `${t.tool}: ${p} ${t.mix[p].count} of ${t.oversize} oversize (${percent(t.mix[p].share)})`,
              fill: POLICY_COLOURS[p] ?? "#444",
            });
            from = to;
            return mark;
          })
          .join("");
      },
    }));
  const body = chart({
    id: "policy-mix",
    title: "Policy mix: how oversize results were handled (share per tool, oversize admits in brackets)",
    top: 1,
    tick: (v) => percent(v),
    rows,
    note: "No oversize admits.",
  });
  return `<div class="chart">${body}${legend(OVERSIZE_POLICIES.map((p) => [p, POLICY_COLOURS[p] ?? "#444"]))}</div>`;
}

/** One recovered rate as a point with its interval's whisker. */
function ratePoint(y: number, data: Record<string, string>, rate: Rate, title: string): string {
  const mid = y + LAYOUT.row / 2;
  const low = num(xOf(rate.low ?? 0, 1));
  const high = num(xOf(rate.high ?? 0, 1));
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`)
    .join("");
  return (
    `<g class="rate"${attrs}><title>${escapeHtml(title)}</title>` +
    `<line class="whisker" x1="${low}" y1="${mid}" x2="${high}" y2="${mid}"/>` +
    `<line class="cap" x1="${low}" y1="${mid - 5}" x2="${low}" y2="${mid + 5}"/>` +
    `<line class="cap" x1="${high}" y1="${mid - 5}" x2="${high}" y2="${mid + 5}"/>` +
    `<circle class="mark point" cx="${num(xOf(rate.rate ?? 0, 1))}" cy="${mid}" r="5" fill="${data.colour ?? "#333"}"/>` +
    `<text class="value" x="${num(xOf(1, 1) + 12)}" y="${mid + 4}">n=${rate.n}</text></g>`
  );
}

/** Recovered rate per tool and policy, and of clean turns, with 95% intervals; a dashed line at the clean rate. */
function recoveredChart(report: BuiltReport): string {
  const recovered = report.recovered;
  if (recovered === undefined)
    return `<figure id="recovered-rate"><figcaption>Recovered rate</figcaption><p class="note">No labels given (--labels).</p></figure>`;
  const cells = recovered.byTool.filter((c) => c.n > 0);
  const rows: ChartRow[] = cells.map((c) => ({
    label: `${c.tool} · ${c.policy}`,
    marks: (y) =>
      ratePoint(
        y,
        { tool: c.tool, policy: c.policy, colour: POLICY_COLOURS[c.policy] ?? "#333" },
        c,
        `${c.tool}, ${c.policy}: ${c.hits} of ${c.n} correct (${percent1(c.rate)}, ${percent1(c.low)}–${percent1(c.high)})`,
      ),
  }));
  const clean = recovered.clean;
  if (clean.n > 0)
    rows.push({
      label: "clean turns",
      marks: (y) =>
        ratePoint(
          y,
          { tool: "", policy: "clean", colour: "#333" },
          clean,
          `clean turns: ${clean.hits} of ${clean.n} correct (${percent1(clean.rate)})`,
        ),
    });
  const reference = (height: number) => {
    const x = num(xOf(clean.rate ?? 0, 1));
    return clean.n === 0 ? "" : `<line class="reference" x1="${x}" y1="${LAYOUT.top - 4}" x2="${x}" y2="${height}"/>`;
  };
  return chart({
    id: "recovered-rate",
    title: "Recovered rate: labelled turns reaching a correct answer, with 95% intervals",
    top: 1,
    tick: (v) => percent(v),
    rows,
    note: "No labelled turn appears in the trace.",
    extra: reference,
  });
}

/** Summarize latency per tool: bars to p50 and p95 and a tick at the maximum. */
function latencyChart(tools: readonly ToolMeasures[]): string {
  const summarized = tools.filter((t) => t.summarize.n > 0);
  const top = niceCeil(Math.max(0, ...summarized.map((t) => t.summarize.max ?? 0)));
  const rows: ChartRow[] = summarized.map((t) => ({
    label: `${t.tool} (${t.summarize.n}, ${percent(t.summarize.cacheHitRate)} cached)`,
    marks: (y) => {
      const max = t.summarize.max ?? 0;
      const bars = (["p95", "p50"] as const).map((stat) =>
        bar({
          y,
          from: 0,
          to: t.summarize[stat] ?? 0,
          top,
          className: "mark latency",
          data: { tool: t.tool, stat },
          title: `${t.tool}: ${stat} ${t.summarize[stat]} ms`,
          fill: LATENCY_COLOURS[stat],
          inset: stat === "p95" ? 6 : 9,
        }),
      );
      // The maximum is a tick, so it shows even where it equals p95.
      const tick = bar({
        y,
        from: Math.max(0, max - (top * 1.5) / LAYOUT.plot),
        to: max + (top * 1.5) / LAYOUT.plot,
        top,
        className: "mark latency",
        data: { tool: t.tool, stat: "max" },
        title: `${t.tool}: max ${max} ms`,
        fill: LATENCY_COLOURS.max,
        inset: 2,
      });
      const value = `<text class="value" x="${num(xOf(max, top) + 6)}" y="${y + LAYOUT.row / 2 + 4}">${t.summarize.p50} / ${t.summarize.p95} / ${max} ms</text>`;
      return bars.join("") + tick + value;
    },
  }));
  const body = chart({
    id: "summarize-latency",
    title: "Summarize latency (ms): p50, p95 and max per tool (summaries in brackets)",
    top,
    tick: (v) => num(v, 2),
    rows,
    note: "No summaries.",
  });
  return `<div class="chart">${body}${legend(Object.entries(LATENCY_COLOURS))}</div>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1440px}
h1{font-size:20px;margin:0 0 4px}p.head{margin:0 0 16px;color:#444}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(670px,1fr));gap:16px 24px}
figure{margin:0}figcaption{font-weight:600;margin-bottom:4px}
svg text{font:12px system-ui,sans-serif;fill:#222}svg .tick{fill:#777;font-size:11px}
.grid{stroke:#e4e4e4}.whisker,.cap{stroke:#333;stroke-width:1.5}.reference{stroke:#333;stroke-dasharray:4 3}
.legend{margin:2px 0 0 ${LAYOUT.label}px;font-size:12px}.key{margin-right:12px}
.key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.note{color:#777}ul.decisions li.wrong{color:#b00;font-weight:600}
table{border-collapse:collapse;margin:4px 0 16px}th,td{padding:2px 10px;border-bottom:1px solid #eee}
td:not(:first-child),th:not(:first-child){text-align:right}td.word,th.word{text-align:left}h2{font-size:16px;margin:20px 0 6px}`;

/** The report's tables as HTML. */
function htmlTables(report: BuiltReport): string {
  return reportTables(report)
    .map(
      (t) =>
        `<h2>${escapeHtml(t.title)}</h2><table><tr>${t.headers.map((h, i) => `<th${t.words?.includes(i) ? ' class="word"' : ""}>${escapeHtml(h)}</th>`).join("")}</tr>` +
        t.rows
          .map(
            (r) =>
              `<tr>${r.map((c, i) => `<td${t.words?.includes(i) ? ' class="word"' : ""}>${escapeHtml(c)}</td>`).join("")}</tr>`,
          )
          .join("") +
        "</table>",
    )
    .join("\n");
}

/** The HTML page. */
export function reportHtml(report: BuiltReport): string {
  const decisions = report.decisions.map((d) => `<li class="${d.verdict}">${escapeHtml(d.text)}</li>`).join("");
  const problems = problemLines(report)
    .map((p) => `<li>${escapeHtml(p)}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolgate report</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><h1>toolgate report</h1><p class="head">${escapeHtml(headline(report))}</p>
<div class="charts">
${rejectChart(report.tools)}
${mixChart(report.tools)}
${recoveredChart(report)}
${latencyChart(report.tools)}
</div>
${decisions === "" ? "" : `<h2>Decision rule</h2><ul class="decisions">${decisions}</ul>`}
${problems === "" ? "" : `<h2>Lines not counted</h2><ul class="problems">${problems}</ul>`}
${htmlTables(report)}
</body></html>
`;
}
