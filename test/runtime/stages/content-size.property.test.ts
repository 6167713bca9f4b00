/**
 * The measure stage counts the model's content without writing the view's JSON (`content-size.ts`). Invariants:
 *
 * - for any JSON value, the count is the UTF-8 length of `markupSafeJson` of it (quotes, backslashes, controls, the
 *   markup characters and their lookalikes, the two separators, lone surrogates, numbers of every size and sign);
 * - for a view a projector built with `viewText`, the count with its tally is the same, however the tally lines up
 *   with the view (strings placed out of order, twice, or not counted at all only cost time);
 * - the gate's `contextUsed` under a byte budget is the UTF-8 length of what the model reads, for the generated
 *   projector's views and the interpreter's alike; beside it, a value `JSON.stringify` writes its own way (a `toJSON`)
 *   is written and measured as before.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markupSafeJson, type Outcome, type Projection, toModelContent } from "../../../runtime/index.js";
import { jsonBytes, modelContentBytes } from "../../../runtime/stages/content-size.js";
import { finishView, startView, tallyOf, viewText } from "../../../runtime/stages/projector.js";
import { boundText, cleanText, isWellFormedText, lastCleanPlain, utf8Length } from "../../../runtime/text/hygiene.js";
import { type RecordResult, recordTool } from "../fixture.js";

/** Strings with everything the count must price: escapes, markup and lookalikes, separators, pairs, lone halves. */
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc
    .array(
      fc.constantFrom(
        "plain ",
        "a longer run of plain words ",
        '"',
        "\\",
        "\n",
        "\t",
        "\u0000",
        "\u001f",
        "\u007f",
        "<b>",
        "&amp;",
        "\uFE64",
        "\uFF1C",
        "\u2028",
        "\u2029",
        "é",
        "東京",
        "😀",
        "\uD800",
        "\uDC00",
        "…",
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join("")),
);

const numbers = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(-0, 1e15, -1e15, 999999999999999, 1e21, 1.5e-7, 2 ** 53, -(2 ** 53)),
);

const values: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    numbers,
    fc.constantFrom(true, false, null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("the count of the model's content", () => {
  it("is the UTF-8 length of the view's JSON as the model reads it, for any JSON value", () => {
    fc.assert(
      fc.property(values, (value) => {
        expect(jsonBytes(value)).toBe(utf8Length(markupSafeJson(value)));
      }),
      { numRuns: 5000 },
    );
  });

  it("takes a projector's tally in the view's order, and counts what the tally does not line up with", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.integer({ min: 0, max: 48 })), { maxLength: 12 }),
        fc.integer({ min: 0, max: 3 }),
        (placed, shuffle) => {
          const build = startView(2000);
          const shown = placed.map(([item, max]) => viewText(build, item, max, "excerpt", "", 0) as string);
          // Strings placed in another order than counted, repeated, or never counted at all.
          const items =
            shuffle === 0
              ? shown
              : shuffle === 1
                ? [...shown].reverse()
                : shuffle === 2
                  ? [...shown, ...shown]
                  : ["not counted", ...shown, "<also not>"];
          const projection = finishView({ items, [shown[0] ?? "key"]: shown[1] ?? null }, build);
          const tally = tallyOf(projection);
          expect(tally?.texts).toEqual(shown);
          expect(jsonBytes(projection.view, tally)).toBe(utf8Length(markupSafeJson(projection.view)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("prices a cleaned string by its length alone only when it holds nothing JSON or the markup escapes", () => {
    // What the cleaning pass answers for free (`lastCleanPlain`): when it says plain, the string's JSON is its
    // quotes around its UTF-8, exactly as written; when the string holds an escaped unit, it never says plain.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls JSON escapes are what is looked for.
    const escaped = /["\\\u0000-\u001F&<>\u2028\u2029\uFE60\uFE64\uFE65\uFF06\uFF1C\uFF1E]/;
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 48 }), (item, max) => {
        for (const clean of [cleanText, (input: string) => boundText(input, max).text]) {
          const shown = clean(item);
          const plain = lastCleanPlain();
          if (escaped.test(shown) || !isWellFormedText(shown)) expect(plain).toBe(false);
          if (plain) expect(2 + utf8Length(shown)).toBe(utf8Length(markupSafeJson(shown)));
        }
      }),
      { numRuns: 5000 },
    );
    // The positive control: ordinary prose, accents, CJK, emoji and an excerpt's mark are known plain.
    for (const prose of ["a plain title", "café naïve résumé 東京 데이터 🚀 ✅ and more words after them"]) {
      expect(cleanText(prose)).toBe(prose);
      expect(lastCleanPlain()).toBe(true);
      expect(boundText(prose, 12).text).toMatch(/…$/);
      expect(lastCleanPlain()).toBe(true);
    }
  });

  it("counts only an object's own keys when Object.prototype has an enumerable one, as JSON.stringify writes them", () => {
    const view = { items: [{ id: 1, label: "a" }, { id: 2 }], owner: "x" };
    const written = utf8Length(markupSafeJson(view));
    expect(jsonBytes(view)).toBe(written);
    Object.defineProperty(Object.prototype, "polluted", {
      value: "yes",
      enumerable: true,
      configurable: true,
      writable: true,
    });
    try {
      expect(jsonBytes(view)).toBe(written);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });

  it("counts a success's whole content, its omissions (paths of any text) and continuation among it", () => {
    const omission = fc.record({
      path: text,
      kind: fc.constantFrom("items", "excerpt", "omitted", "lines"),
      count: fc.integer({ min: 0, max: 10_000_000 }),
    });
    fc.assert(
      fc.property(values, fc.array(omission, { maxLength: 25 }), fc.option(text), (view, omissions, cursor) => {
        const outcome = {
          ok: true,
          data: view,
          view,
          complete: omissions.length === 0,
          omissions,
          continuation: cursor ?? undefined,
          provenance: { tool: "list_issues", rawBytes: 1, rawSha256: "0".repeat(64) },
          contextUsed: { unit: "bytes", value: 0, budget: 100 },
        } as unknown as Outcome<unknown, unknown>;
        expect(modelContentBytes(outcome)).toBe(utf8Length(toModelContent(outcome)));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives up on what JSON.stringify writes its own way, and the measure writes it instead", () => {
    const dated = { at: new Date(0), note: "x" };
    expect(jsonBytes(dated)).toBe(-1);
    expect(jsonBytes({ gone: undefined })).toBe(-1);
    expect(jsonBytes([() => 1])).toBe(-1);
    expect(jsonBytes(Object.create({ toJSON: () => "other" }))).toBe(-1);
    const outcome = {
      ok: true,
      data: dated,
      view: dated,
      complete: true,
      omissions: [],
      provenance: { tool: "t", rawBytes: 1, rawSha256: "0".repeat(64) },
      contextUsed: { unit: "bytes", value: 0, budget: 100 },
    } as unknown as Outcome<unknown, unknown>;
    expect(modelContentBytes(outcome)).toBe(-1);
  });
});

/**
 * The fixture's view as a generated projector makes it (`templates/projector.ts`): constant keys in plan order, every
 * string through `viewText`, so the measure gets the projector's tally.
 */
function projectedRecord(data: RecordResult): Projection<unknown> {
  const b = startView(2000);
  const view: Record<string, unknown> = {};
  view.count = data.count;
  if (data.items !== undefined) {
    const shown = data.items.slice(0, 5);
    if (shown.length < data.items.length)
      b.omissions.push({ path: "/items", kind: "items", count: data.items.length - 5 });
    view.items = shown.map((item, i) => {
      const out: Record<string, unknown> = { id: item.id };
      if (item.label !== undefined) out.label = viewText(b, item.label, 100, "excerpt", `/items/${i}`, "label");
      return out;
    });
  }
  view.owner = viewText(b, data.owner, 64, "excerpt", "", "owner");
  view.recordId = viewText(b, data.recordId, 64, "excerpt", "", "recordId");
  view.status = data.status;
  if (data.title !== undefined) view.title = viewText(b, data.title, 200, "excerpt", "", "title");
  return finishView(view, b);
}

describe("contextUsed under a byte budget", () => {
  const context = { unit: "bytes" as const, max: 100_000 };
  const interpreted = recordTool({ context });
  const generated = recordTool({ context, buildView: projectedRecord });
  const records = fc.record({
    recordId: fc.string({ maxLength: 64 }),
    owner: text.filter((item) => [...item].length <= 64),
    status: fc.constantFrom("open" as const, "closed" as const),
    title: text,
    items: fc.array(fc.record({ id: fc.integer(), label: text }), { maxLength: 7 }),
    count: fc.integer(),
  });

  it("is the UTF-8 length of what the model reads, by the interpreter's view or a projector's", async () => {
    let admitted = 0;
    await fc.assert(
      fc.asyncProperty(records, async (record) => {
        for (const tool of [interpreted, generated]) {
          const outcome = await tool.admit(JSON.stringify(record));
          if (!outcome.ok) continue;
          admitted++;
          expect(outcome.contextUsed.value).toBe(utf8Length(toModelContent(outcome)));
        }
      }),
      { numRuns: 1500 },
    );
    // Not a property of refusals: of the 3,000 admits, those of a record with a lone surrogate half are refused
    // (about 1,450 in a run), and the rest, about half, are admitted and counted.
    expect(admitted).toBeGreaterThan(1200);
  });
});
