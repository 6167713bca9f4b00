/**
 * The run-time helpers generated validators import from `@toolgate/runtime` in place of Ajv's modules.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatValidators, URI, URI_WITHOUT_IP_LITERAL } from "../../../runtime/formats.js";
import { jsonEqual } from "../../../runtime/validators.js";
import { REPO_ROOT, suiteFormatStrings } from "../../conformance/suite.js";

describe("jsonEqual", () => {
  it.each([
    ["equal numbers", 1, 1, true],
    ["1 and 1.0 are one number", 1, 1.0, true],
    ["number and string", 1, "1", false],
    ["null and object", null, {}, false],
    ["null and null", null, null, true],
    ["false and 0", false, 0, false],
    ["array and object with index keys", [1], { 0: 1 }, false],
    ["arrays of different length", [1, 2], [1, 2, 3], false],
    ["arrays in another order", [1, 2], [2, 1], false],
    ["objects with keys in another order", { a: 1, b: [2] }, { b: [2], a: 1 }, true],
    ["objects with a missing key", { a: 1 }, { b: 1 }, false],
    ["objects with an undefined-looking key", { a: undefined }, { b: undefined }, false],
    ["nested difference", { a: [{ b: [1, { c: "x" }] }] }, { a: [{ b: [1, { c: "y" }] }] }, false],
    ["non-ASCII strings", "é", "é", true],
    ["composed and decomposed strings are different code units", "é", "e\u0301", false],
  ])("%s", (_name, left, right, equal) => {
    expect(jsonEqual(left, right)).toBe(equal);
    expect(jsonEqual(right, left)).toBe(equal);
  });

  it("compares a parsed __proto__ key as an own property, not as the prototype", () => {
    const withKey = JSON.parse('{"__proto__": {"x": 1}}') as unknown;
    expect(jsonEqual(withKey, {})).toBe(false);
    expect(jsonEqual(withKey, JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true);
    expect(jsonEqual(withKey, JSON.parse('{"__proto__": {"x": 2}}'))).toBe(false);
  });

  it("compares values nested far deeper than the call stack allows", () => {
    const depth = 100_000;
    const deep = (leaf: number) => JSON.parse(`${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`) as unknown;
    expect(jsonEqual(deep(1), deep(1))).toBe(true);
    expect(jsonEqual(deep(1), deep(2))).toBe(false);
  });
});

describe("the uri check", () => {
  it('splits ajv-formats\' pattern exactly at its IP-literal host, the one place it admits "["', () => {
    const source = readFileSync(join(REPO_ROOT, "node_modules/ajv-formats/dist/formats.js"), "utf8");
    const upstream = /^const URI = \/(.*)\/i;$/m.exec(source)?.[1] ?? "";
    const start = upstream.indexOf("(?:\\[") + "(?:".length;
    const end = upstream.indexOf("\\]|", start) + "\\]|".length;
    expect(URI.source).toBe(upstream);
    expect(URI_WITHOUT_IP_LITERAL.source).toBe(upstream.slice(0, start) + upstream.slice(end));
    expect(URI_WITHOUT_IP_LITERAL.source).not.toContain("\\[");
    expect([URI.flags, URI_WITHOUT_IP_LITERAL.flags]).toEqual(["i", "i"]);
  });

  it("decides URIs with and without IP-literal hosts as ajv-formats does", () => {
    const upstreamUri = fullFormats.uri as (value: string) => boolean;
    const ours = formatValidators.uri as (value: string) => boolean;
    const host = fc.oneof(
      fc.domain(),
      fc.ipV4(),
      fc.ipV6().map((ip) => `[${ip}]`),
      fc.constantFrom("[v1.x]", "[::1", "::1]", "[]", "[g::1]", "a[b]"),
    );
    const uriLike = fc.tuple(
      fc.constantFrom("http", "https", "urn", "ftp", "a+b"),
      host,
      fc.constantFrom("", ":80", ":"),
      fc.webPath(),
      fc.constantFrom("", "?q=1", "#f", "?[x]", "#[y]"),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          uriLike.map(([scheme, at, port, where, tail]) => `${scheme}://${at}${port}${where}${tail}`),
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
        ),
        (value) => {
          expect(ours(value), value).toBe(upstreamUri(value));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

/** Formats whose ajv-formats pattern the runtime decides with a linear check instead (see runtime/formats.ts). */
const LINEAR_REWRITES: ReadonlySet<string> = new Set(["url", "uri-reference"]);

describe("formatValidators", () => {
  const upstream = fullFormats as Record<string, unknown>;
  const ours = formatValidators as Record<string, unknown>;
  const strings = suiteFormatStrings();
  const numbers = [0, 1, -1, 1.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53, Number.MAX_VALUE];

  it("has ajv-formats' full set of names, which the generated code indexes by format name", () => {
    expect(Object.keys(ours)).toEqual(Object.keys(upstream));
    expect(strings.length).toBeGreaterThan(300);
  });

  it.each(Object.keys(fullFormats))("checks %s exactly as ajv-formats does", (name) => {
    const [mine, theirs] = [ours[name], upstream[name]];
    // `url` is ajv-formats' pattern decided by a linear check (its pattern backtracks quadratically): the same
    // verdicts, compared below like the checks that are functions, and at length in test/hardening/formats.test.ts.
    if (theirs instanceof RegExp && !LINEAR_REWRITES.has(name)) {
      expect(mine).toBeInstanceOf(RegExp);
      expect([(mine as RegExp).source, (mine as RegExp).flags]).toEqual([theirs.source, theirs.flags]);
      return;
    }
    if (typeof theirs !== "object" && typeof theirs !== "function") {
      expect(mine).toBe(theirs);
      return;
    }
    type Check = (value: unknown) => unknown;
    const check = (format: unknown): Check =>
      format instanceof RegExp
        ? (value) => format.test(value as string)
        : typeof format === "function"
          ? (format as Check)
          : ((format as { validate: Check }).validate as Check);
    const numeric = (theirs as { type?: string }).type === "number";
    expect((mine as { type?: string }).type).toBe((theirs as { type?: string }).type);
    const samples: unknown[] = numeric ? numbers : strings;
    for (const value of samples) expect(check(mine)(value), JSON.stringify(value)).toBe(check(theirs)(value));
    if (!numeric) {
      fc.assert(
        fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 40 }), (value) => {
          expect(check(mine)(value)).toBe(check(theirs)(value));
        }),
        { numRuns: 300 },
      );
    }
    const compare = (theirs as { compare?: (a: string, b: string) => unknown }).compare;
    if (compare !== undefined) {
      const mineCompare = (mine as { compare: (a: string, b: string) => unknown }).compare;
      const some = strings.filter((value) => check(theirs)(value) === true).slice(0, 60);
      for (const a of some) for (const b of some) expect(mineCompare(a, b), `${a} ${b}`).toEqual(compare(a, b));
    }
  });
});
