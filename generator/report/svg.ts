/**
 * Hand-written SVG for the report's page: horizontal rows (one per tool, or per tool and policy) over a linear axis
 * with gridlines. Every mark carries a class and `data-` attributes naming what it shows, and a `<title>` a reader
 * sees on hover, so the page is readable and testable without a charting library.
 */

/** Text escaped for HTML and SVG, in content and in attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The chart's geometry: the label column, the plot's width, a row's height. */
export const LAYOUT = { width: 670, label: 220, plot: 330, row: 26, top: 30, bottom: 10 } as const;

/** A domain's top: the smallest of 1, 2, 2.5 or 5 times a power of ten at or above `max` (1 for nothing). */
export function niceCeil(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max - 1e-12) return step * power;
  return 10 * power;
}

/** The x of a value on the plot. */
export const xOf = (value: number, top: number): number => LAYOUT.label + (Math.min(value, top) / top) * LAYOUT.plot;

/** A number with at most `digits` decimals, without trailing zeros (for coordinates and tick labels). */
export const num = (value: number, digits = 1): string => String(Number(value.toFixed(digits)));

/** One row of a chart: its label and the marks drawn in it (given the row's top y). */
export interface ChartRow {
  label: string;
  marks: (y: number) => string;
}

/**
 * A chart: a title, the axis (ticks at fifths of the domain, formatted by `tick`), one labelled row per entry, and
 * `note` when there are no rows. `extra` draws over the plot (a reference line), given the plot's height.
 */
export function chart(options: {
  id: string;
  title: string;
  top: number;
  tick: (value: number) => string;
  rows: readonly ChartRow[];
  note: string;
  extra?: (height: number) => string;
}): string {
  const { id, title, top, tick, rows } = options;
  const height = LAYOUT.top + Math.max(1, rows.length) * LAYOUT.row + LAYOUT.bottom;
  const plotBottom = height - LAYOUT.bottom;
  const parts: string[] = [];
  for (let i = 0; i <= 5; i++) {
    const value = (top * i) / 5;
    const x = num(xOf(value, top));
    parts.push(
      `<line class="grid" x1="${x}" y1="${LAYOUT.top - 4}" x2="${x}" y2="${plotBottom}"/>`,
      `<text class="tick" x="${x}" y="${LAYOUT.top - 10}" text-anchor="middle">${escapeHtml(tick(value))}</text>`,
    );
  }
  rows.forEach((row, i) => {
    const y = LAYOUT.top + i * LAYOUT.row;
    parts.push(
      `<text class="label" x="${LAYOUT.label - 8}" y="${y + LAYOUT.row / 2 + 4}" text-anchor="end">${escapeHtml(row.label)}</text>`,
      row.marks(y),
    );
  });
  if (rows.length === 0)
    parts.push(`<text class="note" x="${LAYOUT.label}" y="${LAYOUT.top + 17}">${escapeHtml(options.note)}</text>`);
  if (options.extra !== undefined && rows.length > 0) parts.push(options.extra(plotBottom));
  return (
    `<figure id="${id}"><figcaption>${escapeHtml(title)}</figcaption>` +
    `<svg role="img" aria-label="${escapeHtml(title)}" width="${LAYOUT.width}" height="${height}" viewBox="0 0 ${LAYOUT.width} ${height}">` +
    `${parts.join("")}</svg></figure>`
  );
}

/** A bar from `from` to `to` (domain values) in a row, with its class, data attributes and hover title. */
export function bar(options: {
  y: number;
  from: number;
  to: number;
  top: number;
  className: string;
  data: Record<string, string>;
  title: string;
  fill: string;
  inset?: number;
}): string {
  const inset = options.inset ?? 5;
  const x = xOf(options.from, options.top);
  const width = Math.max(1, xOf(options.to, options.top) - x);
  const data = Object.entries(options.data)
    .map(([k, v]) => ` data-${k}="${escapeHtml(v)}"`)
    .join("");
  return (
    `<rect class="${options.className}"${data} x="${num(x)}" y="${options.y + inset}" width="${num(width)}" ` +
    `height="${LAYOUT.row - 2 * inset}" fill="${options.fill}"><title>${escapeHtml(options.title)}</title></rect>`
  );
}
