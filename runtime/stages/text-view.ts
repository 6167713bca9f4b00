/**
 * Stage `view` for results of kind `text` and `content`: the cleaned text as whole lines from its head and tail
 * (`lineExcerpt`) with one marked gap, the media that came with it described (never their data), and its links with
 * their URIs cleaned and bounded, all within the context budget measured on what the model reads.
 *
 * A text whose whole view fits the budget is shown whole: that view is measured first, on exactly what the model
 * reads, whenever it could fit at all (against tokens, not when its spaces alone separate more groups of characters
 * than the budget has tokens: each group is at least one token, see `token-floor.ts`). Otherwise, in bytes the excerpt's bound is exact: the rendered outcome is
 * measured once with an empty text and the widest gap and omissions it can hold, and the text gets what is left. In
 * tokens the bound is found by measuring: excerpt, render, count, resize by what the count says, at most
 * {@link TOKEN_ROUNDS} rounds, keeping the largest excerpt that fitted; a view still over budget then goes to the
 * contract's policy chain like any other. Every size is counted on the form the model reads (each line break as the
 * two characters `\n`, escapes included), never on the text's own bytes.
 *
 * The `spill` policy fits the view again with its reference beside it (`fields`), so the excerpt leaves room for
 * the `<spilled …/>` line that names the handle and the read-back tool.
 */

import type { ContentPart, ContextBudget, Omission, Success, TextView } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { boundText, cleanText, utf8Length } from "../text/hygiene.js";
import { cleanedLines, type LineExcerpt, lineExcerpt, type TextLines, withCosts } from "./line-excerpt.js";
import { MAX_TOKEN_UNITS, type Measured, measureText, measureVerdict, noteMeasuredView } from "./measure.js";
import { toModelContent } from "./model-content.js";
import { spacedStarts } from "./token-floor.js";

/** Longest link URI shown, in code points. */
export const MAX_LINK_URI_CHARS = 2048;
/** Longest link name shown, in code points. */
export const MAX_LINK_NAME_CHARS = 256;
/** Schemes that run code or embed content where a link is followed: shown by name only. */
const HIDDEN_SCHEMES: ReadonlySet<string> = new Set(["javascript", "vbscript", "data"]);
/** Measure-and-shrink rounds for a token budget. */
export const TOKEN_ROUNDS = 4;

/** The most characters of a URI read for its scheme, once what a URL parser drops is skipped. */
const SCHEME_PROBE = 64;

/**
 * The scheme a reader would take from a URI: looked for after what browsers drop (leading controls and spaces, tabs
 * and line breaks anywhere) and in compatibility form, so `\tJava\nScript:` and fullwidth letters are found too.
 * What is dropped is skipped before the probe's characters are counted, however much of it there is: a scheme
 * behind 64 spaces, or with 64 tabs inside it, is found like any other (the skipping is linear in what it skips).
 */
function schemeOf(cleaned: string): string | undefined {
  let probe = "";
  let leading = true;
  let kept = 0;
  for (const char of cleaned) {
    const unit = char.charCodeAt(0);
    if (unit === 0x09 || unit === 0x0a || unit === 0x0d) continue;
    if (leading && unit <= 0x20) continue;
    leading = false;
    probe += char;
    if (++kept >= SCHEME_PROBE) break;
  }
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(probe.normalize("NFKC"));
  return match === null ? undefined : (match[1] as string).toLowerCase();
}

/**
 * A link's URI as the model reads it: cleaned (controls and invisible characters removed) and bounded to
 * {@link MAX_LINK_URI_CHARS} code points; one whose scheme runs code or embeds content (`javascript:`, `vbscript:`,
 * `data:`) is `"<scheme>: (not shown)"`. `data` keeps the URI as the tool sent it.
 */
export function viewUri(uri: string): string {
  const cleaned = cleanText(uri);
  const scheme = schemeOf(cleaned);
  if (scheme !== undefined && HIDDEN_SCHEMES.has(scheme)) return `${scheme}: (not shown)`;
  return boundText(cleaned, MAX_LINK_URI_CHARS).text;
}

/** What a text view shows of the blocks beside the text: media by type and size, links cleaned. */
function described(parts: readonly ContentPart[]): Pick<TextView, "media" | "links"> {
  const media: TextView["media"] = [];
  const links: TextView["links"] = [];
  for (const part of parts) {
    if (part.type === "image" || part.type === "audio") {
      media.push({ type: part.type, mimeType: part.mimeType, bytes: part.bytes });
    } else if (part.type === "resource_link") {
      links.push({ uri: viewUri(part.uri), name: boundText(part.name, MAX_LINK_NAME_CHARS).text });
    } else if (part.type === "resource") {
      links.push({ uri: viewUri(part.uri), name: "" });
    }
  }
  return { media, links };
}

/** The text a view is made of: the result itself for `text`, the text blocks joined for `content`. */
export function textOf(kind: string, data: unknown): string {
  if (kind === "text") return data as string;
  const texts: string[] = [];
  for (const part of data as ContentPart[]) if (part.type === "text") texts.push(part.text);
  return texts.join("\n");
}

/**
 * What a policy shows beside the text view, reserved in its fit: the spill reference (and the policy's name in the
 * delimiter), so a spilled text's excerpt leaves room for the `<spilled …/>` line.
 */
export type TextViewFields<T, V> = Pick<Success<T, V>, "spill" | "policy">;

/** The success for one excerpt: the view, what it left out, and its context use still to be measured. */
function successOf<T, V, I>(
  admission: Admission<T, V, I>,
  data: T,
  excerpt: LineExcerpt,
  beside: Pick<TextView, "media" | "links">,
  fields: TextViewFields<T, V> | undefined,
): Success<T, V> {
  const { spec, flags, parts } = admission;
  const omissions: Omission[] = [];
  if (excerpt.gap !== undefined) {
    omissions.push({ path: "", kind: "lines", count: excerpt.gap.to - excerpt.gap.from + 1 });
  }
  if (excerpt.cutFirstLine !== undefined) omissions.push({ path: "", kind: "excerpt", count: excerpt.cutFirstLine });
  const view: TextView = {
    text: excerpt.text,
    lines: excerpt.lines,
    ...(excerpt.gap === undefined ? {} : { gap: excerpt.gap }),
    ...beside,
  };
  return {
    ok: true,
    data,
    view: view as V,
    complete: omissions.length === 0,
    omissions,
    provenance: admission.provenance,
    contextUsed: { unit: spec.context.unit, value: 0, budget: spec.context.max },
    ...(flags.length > 0 ? { flags } : {}),
    ...(parts !== undefined && parts.length > 0 ? { parts } : {}),
    ...fields,
  };
}

/**
 * The bytes the rendered outcome costs besides its text: with `widest`, at most (rendered with an empty text, the
 * widest gap and both omissions the text could need); without, exactly what a whole text adds (no gap, no
 * omission).
 */
function overheadBytes<T, V, I>(
  admission: Admission<T, V, I>,
  data: T,
  lines: number,
  units: number,
  beside: Pick<TextView, "media" | "links">,
  fields: TextViewFields<T, V> | undefined,
  widest: boolean,
): number {
  if (!widest) {
    const probe = successOf(admission, data, { text: "", lines }, beside, fields);
    return utf8Length(toModelContent(probe as Success<unknown, unknown>));
  }
  const excerpt: LineExcerpt = { text: "", lines, gap: { from: lines, to: lines }, cutFirstLine: units };
  const probe = successOf(admission, data, excerpt, beside, fields);
  probe.omissions = [
    { path: "", kind: "lines", count: lines },
    { path: "", kind: "excerpt", count: units },
  ];
  return utf8Length(toModelContent(probe as Success<unknown, unknown>));
}

/** How full a fitting token excerpt must be before the search stops looking for a larger one. */
const FULL_ENOUGH = 0.9;

/**
 * The text view of a `text` or `content` result, fitted to the context budget (see the module comment), with room
 * for what a policy shows beside it (`fields`: a spill's reference) when given.
 *
 * A text whose whole view fits the budget is shown whole, in either unit: the whole view is measured first, on the
 * very content the model reads, whenever its size could be within the budget at all.
 */
export async function textView<T, V, I>(
  admission: Admission<T, V, I>,
  data: T,
  fields?: TextViewFields<T, V>,
): Promise<Success<T, V>> {
  const { spec, result } = admission;
  const budget = spec.context;
  const window = { headShare: result.text.headShare };
  const source = textOf(result.kind, data);
  // The text as the model reads it, cleaned line by line as far as the excerpt reaches; a text result's lines were
  // counted by its line bound.
  const counted = admission.counted;
  const cleaned = withCosts(
    cleanedLines(source, counted !== undefined && counted.text === source ? counted.lines : undefined),
  );
  const beside = described(admission.parts ?? []);
  const lines = cleaned.count;
  const excerptWithin = (bytes: number): LineExcerpt => {
    const excerpt = lineExcerpt(cleaned, Math.max(0, bytes), window);
    return { ...excerpt, lines };
  };
  const render = (excerpt: LineExcerpt) => successOf(admission, data, excerpt, beside, fields);

  // The whole text first, when its rendered size could be within the budget: at most the budget in bytes, and in
  // tokens at most MAX_TOKEN_UNITS code units a token (no token covers more), so a larger text is over uncounted.
  const plain = overheadBytes(admission, data, lines, source.length, beside, fields, false);
  const reach = budget.unit === "bytes" ? budget.max : budget.max * MAX_TOKEN_UNITS;
  // Only the costs are summed, stopping past the room: no head and tail are fitted for a text that cannot be whole.
  // Against tokens, a text with more space-separated starts than the budget has tokens cannot be whole either
  // (`token-floor.ts`): found in its first lines, it is not cleaned to its end, rendered or counted to learn that.
  const wholeCost = viewCostOf(cleaned);
  const tokensFloor = budget.unit === "tokens" ? budget.max : undefined;
  if (wholeCost(reach - plain, tokensFloor) <= reach - plain) {
    const candidate = render({ text: cleaned.whole(), lines });
    const measured = await measureVerdict(toModelContent(candidate as Success<unknown, unknown>), budget);
    if (measured.within) {
      // The measure stage would render and measure this very view again: it takes this measure instead.
      noteMeasuredView(candidate, budget, measured);
      return candidate;
    }
  }

  // The widest count of a cut first line's left-out characters: the source's length bounds it.
  const overhead = overheadBytes(admission, data, lines, source.length, beside, fields, true);
  if (budget.unit === "bytes") return render(excerptWithin(budget.max - overhead));
  return tokenExcerpt(budget, render, excerptWithin, overhead, wholeCost);
}

/**
 * What the whole cleaned text costs inside the view's JSON string, counted no further than needed: past `cap`, or,
 * given `tokens`, once its lines hold more space-separated starts than that (a floor of the view's tokens, see
 * `spacedStarts`), when the cost is `Infinity`: the whole text cannot fit that many tokens.
 */
function viewCostOf(cleaned: TextLines & { costAt(index: number): number }): (cap: number, tokens?: number) => number {
  // Each line's spaced starts, kept once counted: the view asks for the whole cost more than once.
  const starts: number[] = [];
  return (cap, tokens) => {
    let cost = cleaned.finalBreak ? 2 : 0;
    let started = 0;
    for (let i = 0; i < cleaned.total && cost <= cap; i++) {
      cost += cleaned.costAt(i) + (i > 0 ? 2 : 0);
      if (tokens === undefined) continue;
      let lineStarts = starts[i];
      if (lineStarts === undefined) {
        lineStarts = spacedStarts(cleaned.at(i));
        starts[i] = lineStarts;
      }
      started += lineStarts;
      if (started > tokens) return Number.POSITIVE_INFINITY;
    }
    return cost;
  };
}

/**
 * An excerpt within a token budget, found by measuring: a first byte bound, then resized by how far each round's
 * count was from the budget, at most {@link TOKEN_ROUNDS} rounds. The largest excerpt that fitted is kept; one that
 * fills {@link FULL_ENOUGH} of the budget ends the search. When none fitted, the last one is returned and goes to the
 * contract's policy chain like any other view over budget.
 */
async function tokenExcerpt<T, V>(
  budget: ContextBudget,
  render: (excerpt: LineExcerpt) => Success<T, V>,
  excerptWithin: (bytes: number) => LineExcerpt,
  overhead: number,
  wholeCost: (cap: number) => number,
): Promise<Success<T, V>> {
  // Every token is at least one byte and prose runs about four bytes a token, so four bytes per token of budget (or
  // the whole text, when smaller) fits most texts in one round and leaves the other rounds for dense ones.
  const limit = budget.max * 4;
  const ceiling = wholeCost(limit) + overhead;
  let room = Math.min(ceiling, limit);
  let best: { candidate: Success<T, V>; room: number; content: string; measured: Measured } | undefined;
  let last = render(excerptWithin(room - overhead));
  for (let round = 0; round < TOKEN_ROUNDS; round++) {
    const content = toModelContent(last as Success<unknown, unknown>);
    const measured = await measureText(content, budget, limit);
    let next: number;
    if (measured.value <= budget.max) {
      if (best === undefined || room > best.room) best = { candidate: last, room, content, measured };
      if (measured.value >= budget.max * FULL_ENOUGH || room >= ceiling) break;
      // Under by a known factor: grow toward the budget, never past the whole text.
      next = Math.min(ceiling, Math.floor((room * budget.max * 0.97) / Math.max(1, measured.value)));
    } else {
      // Over by a known factor when the count went no further than four budgets; else by at least four.
      const factor = measured.within ? budget.max / measured.value : 1 / 4;
      next = Math.floor(room * factor * 0.95);
      if (best !== undefined) next = Math.max(next, best.room + 1);
    }
    if (next === room || (best !== undefined && next <= best.room)) break;
    room = next;
    last = render(excerptWithin(room - overhead));
  }
  if (best === undefined) return last;
  // The measure stage would count this very content again, and get the same count: the count does not depend on
  // the limit it stops at. It takes this one, unless the content is within the budget by its UTF-8 length, which
  // that stage decides without counting (a bound, not a count, in `contextUsed`).
  if (utf8Length(best.content) > budget.max) noteMeasuredView(best.candidate, budget, best.measured);
  return best.candidate;
}
