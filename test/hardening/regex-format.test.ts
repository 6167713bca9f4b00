/**
 * The `regex` format under `"formats": "assert"` (issue 12, class 5): decided in one linear pass, with the verdict
 * of `new RegExp(str)` on the Node that runs it.
 *
 * ajv-formats asks `new RegExp(str)`, and V8's parser builds a node per atom: 1 MB of `.a` took it 100–150 ms, and
 * no length cap helps (many short strings cost the same per MB). `isRegExpSource` reads the pattern once, without
 * recursion, following Annex B's grammar as this V8 implements it. These tests hold it equal to `new RegExp` on a
 * table naming every rule, on random near-patterns, on the JSON Schema Test Suite's cases and on every worst shape.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatValidators, isRegExpSource } from "../../runtime/formats.js";
import { SUITE_ROOT } from "../conformance/suite.js";

/** What `new RegExp(source)` says: true when it compiles. */
function compiles(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

const regexFormat = formatValidators.regex as (value: string) => boolean;
const ajvRegexFormat = fullFormats.regex as (value: string) => boolean;

const MB = 1024 * 1024;
/** A string of about 1 MB: a prefix, a unit repeated, a suffix. */
const hostile = (prefix: string, unit: string, suffix = "") =>
  prefix + unit.repeat(Math.ceil(MB / unit.length)) + suffix;

/** Milliseconds `run` takes. */
function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

// [the rule, a pattern, whether `new RegExp` accepts it on Node 20 (V8 11.3)]
const NAMED_CASES: ReadonlyArray<readonly [string, string, boolean]> = [
  ["empty pattern", "", true],
  ["disjunction", "a|b", true],
  ["empty alternatives", "||", true],
  ["empty alternatives in a group", "(|)", true],
  ["assertions", "^a$\\b\\B", true],
  ["lookahead", "(?=a)(?!b)", true],
  ["empty lookahead", "(?=)", true],
  ["lookbehind", "(?<=a)(?<!b)", true],
  ["a lookahead is quantifiable in Annex B", "(?=a)*", true],
  ["a negative lookahead is quantifiable", "(?!a)+", true],
  ["a lookahead takes a braced quantifier", "(?=a){1}", true],
  ["a lookbehind is not quantifiable", "(?<=a)*", false],
  ["nor a negative lookbehind", "(?<!a)?", false],
  ["nor with braces", "(?<=a){1}", false],
  ["a brace after a lookbehind that is no quantifier is a literal", "(?<=a){", true],
  ["star", "a*", true],
  ["plus, lazy", "a+?", true],
  ["question", "a?", true],
  ["braces exact", "a{2}", true],
  ["braces open", "x{1,}?", true],
  ["braces range", "a{1,2}", true],
  ["braces zero", "a{0}", true],
  ["nothing to repeat at the start", "*", false],
  ["nothing to repeat after |", "a|*", false],
  ["nothing to repeat after (", "(+)", false],
  ["nothing to repeat after ^", "^*", false],
  ["nothing to repeat after $", "$+", false],
  ["nothing to repeat after \\b", "\\b*", false],
  ["nothing to repeat after \\B", "\\B+", false],
  ["braces after \\b", "\\b{1}", false],
  ["a quantifier after a quantifier", "a**", false],
  ["plus after plus", "a++", false],
  ["a third ? after lazy", "a*??", false],
  ["braces after a quantifier", "a{1}{2}", false],
  ["braces after lazy", "a*?{2}", false],
  ["lazy braces", "a{1}?", true],
  ["braces out of order", "a{2,1}", false],
  ["braces out of order on a group", "(?:){2,1}", false],
  ["a braced quantifier with nothing before it", "{1}", false],
  ["nor braces with a range", "{1,2}", false],
  ["a lone {", "{", true],
  ["{ with letters", "{a}", true],
  ["unclosed braces", "a{1,2", true],
  ["braces with a letter", "a{1a}", true],
  ["braces without a minimum", "a{,5}", true],
  ["a { after braces", "x{2}{", true],
  ["} alone", "}", true],
  ["] alone", "]", true],
  ["{ after ^", "^{", true],
  ["{ after \\B", "\\B{", true],
  ["a number past 2^53", "a{9007199254740993}", true],
  ["huge minimum, saturated maximum", "a{99999999999999999999,1}", false],
  ["huge maximum", "a{2,99999999999999999999}", true],
  ["both past 2^31 - 1 are equal to V8", "a{2147483648,2147483647}", true],
  ["just below the saturation, out of order", "a{2147483647,2147483646}", false],
  ["past it against below it", "a{2147483648,2147483646}", false],
  ["groups", "(a)(?:b)", true],
  ["empty group, quantified", "()*", true],
  ["unterminated group", "(", false],
  ["unterminated non-capturing group", "(?:", false],
  ["unmatched )", ")", false],
  ["unmatched ) after an atom", "a)", false],
  ["(? alone", "(?", false],
  ["(? with an unknown letter", "(?x)", false],
  ["modifiers are not in this V8", "(?i:a)", false],
  ["nor removing ones", "(?-i:a)", false],
  ["named group", "(?<a>x)", true],
  ["named group, $ _ ZWNJ ZWJ", "(?<$_\u200c\u200d>x)", true],
  ["_ starts a name", "(?<_a>x)", true],
  ["a name with ZWNJ", "(?<a\u200c>x)", true],
  ["a name with \\u", "(?<\\u0061>x)", true],
  ["a name with \\u{…}", "(?<\\u{61}>x)", true],
  ["\\u{…} with leading zeros", "(?<\\u{0000000061}>x)", true],
  ["an empty \\u{}", "(?<a\\u{}>x)", false],
  ["an unclosed \\u{", "(?<a\\u{1>x)", false],
  ["\\u{…} past U+10FFFF", "(?<a\\u{110000}>x)", false],
  ["an escaped surrogate pair", "(?<\\ud835\\udc9c>x)", true],
  ["a lone escaped surrogate", "(?<\\ud835>x)", false],
  ["an escaped lead and a written trail", "(?<\\ud835\udc9c>x)", false],
  ["a written lead and an escaped trail", "(?<\ud835\\udc9c>x)", false],
  ["a written astral letter", "(?<\u{1d49c}>x)", true],
  ["an astral \\u{…}", "(?<\\u{1d49c}>x)", true],
  ["Greek", "(?<π>x)", true],
  ["a title-case letter", "(?<ǅ>x)", true],
  ["a digit does not start a name", "(?<1>x)", false],
  ["nor an Arabic-Indic digit", "(?<\u0660>x)", false],
  ["which continues one", "(?<a\u0660>x)", true],
  ["- is no name part", "(?<a-b>x)", false],
  ["an empty name", "(?<>x)", false],
  ["another escape in a name", "(?<\\x61>x)", false],
  ["an unclosed name", "(?<a", false],
  ["(?< alone", "(?<", false],
  ["a name and no group end", "(?<a>", false],
  ["duplicate names", "(?<a>x)|(?<a>y)", false],
  ["duplicates, one escaped", "(?<a>x)(?<\\u0061>y)", false],
  ["distinct names", "(?<a>x)(?<b>y)", true],
  ["\\k without named groups is k", "\\k", true],
  ["\\k<a> without named groups is text", "\\k<a>", true],
  ["an unclosed \\k<a without named groups", "\\k<a", true],
  ["\\k in a class without named groups", "[\\k]", true],
  ["a reference", "(?<a>x)\\k<a>", true],
  ["a forward reference", "\\k<a>(?<a>x)", true],
  ["an escaped reference", "(?<a>x)\\k<\\u0061>", true],
  ["an escaped > ends a group name, as a written one does", "(?<a\\u{3e}>)", true],
  ["an escaped > ends a name in four digits too", "(?<ab\\u003e>)(?<ab>)", false],
  ["an escaped > ends a reference's name", "(?<a>x)\\k<a\\u{3e}", true],
  ["an escaped > cannot be the whole name", "(?<\\u{3e}>)", false],
  ["a reference written with the astral letter", "(?<\\u{1d49c}>x)\\k<\u{1d49c}>", true],
  ["a quantified reference", "(?<a>a)\\k<a>{2}", true],
  ["a reference into a lookbehind", "(?<=(?<a>x))\\k<a>", true],
  ["a reference to no group", "(?<a>x)\\k<b>", false],
  ["a bare \\k with a named group", "(?<a>x)\\k", false],
  ["a bare \\k before the named group", "\\k(?<a>x)", false],
  ["an unclosed reference", "(?<a>.)\\k<a", false],
  ["an empty reference", "(?<a>.)\\k<", false],
  ["\\k in a class with a named group", "(?<a>x)[\\k]", false],
  ["\\k in a class before it", "[\\k](?<a>x)", false],
  ["a (?< in a class is no named group", "[(?<a>)]\\k", true],
  ["nor an escaped one", "\\(?<a>\\)\\k", true],
  ["a lookbehind is no named group", "(?<=a)\\k", true],
  ["backreference", "(a)\\1", true],
  ["a reference past the groups is octal", "(a)\\2", true],
  ["\\8 is a literal", "\\8", true],
  ["\\8 in a class", "[\\8]", true],
  ["\\8 with named groups", "(?<a>x)\\8", true],
  ["\\0", "\\0", true],
  ["legacy octal", "\\01", true],
  ["legacy octal, three digits", "\\377", true],
  ["a huge reference", "\\99999999999", true],
  ["\\c with a letter", "\\cA", true],
  ["\\c alone is a backslash and c", "\\c", true],
  ["\\c with a digit outside a class", "\\c1", true],
  ["\\c with a non-ASCII letter", "\\c\u0130", true],
  ["\\c with a digit in a class", "[\\c1]", true],
  ["\\c with _ in a class", "[\\c_]", true],
  ["\\c with * in a class", "[\\c*]", true],
  ["\\c alone in a class", "[\\c]", true],
  ["[\\c-a]: the backslash, then c-a out of order", "[\\c-a]", false],
  ["[a-\\c]: a to the backslash, out of order", "[a-\\c]", false],
  ["[!-\\c]: ! to the backslash", "[!-\\c]", true],
  ["\\x without digits", "\\x", true],
  ["\\x with one digit", "\\x1", true],
  ["\\u without digits", "\\u", true],
  ["\\u with two digits", "\\u12", true],
  ["\\u{12} is u twelve times", "\\u{12}", true],
  ["\\u{2,1} is u and braces out of order", "\\u{2,1}", false],
  ["\\x{2,1} likewise", "\\x{2,1}", false],
  ["\\u{ is text", "\\u{", true],
  ["\\p is p without the u flag", "\\p{L}", true],
  ["\\P alone", "\\P", true],
  ["identity escapes", "\\M\\-\\/", true],
  ["a backslash at the end", "\\", false],
  ["a backslash at the end after an atom", "a\\", false],
  ["a backslash at the end of a class", "[\\", false],
  ["class", "[abc]", true],
  ["empty class", "[]", true],
  ["negated empty class", "[^]", true],
  ["unterminated class", "[a", false],
  ["a class whose ] is escaped", "[a\\]", false],
  ["range", "[a-z]", true],
  ["range out of order", "[z-a]", false],
  ["a trailing -", "[a-]", true],
  ["a leading -", "[-a]", true],
  ["a range, then -", "[a-b-c]", true],
  ["a range, then a - range", "[a-b--c]", true],
  ["a range, then a - range out of order", "[a-b--\\x01]", false],
  ["a class escape ends a range in Annex B", "[a-\\d]", true],
  ["or starts one", "[\\d-a]", true],
  ["two class escapes", "[\\w-\\d]", true],
  ["class escapes and a literal", "[\\d-\\w-a]", true],
  ["negated, class escape", "[^\\d-z]", true],
  ["\\b is backspace in a class", "[\\b]", true],
  ["\\B in a class is B", "[\\B]", true],
  ["\\b starts a range", "[\\b-a]", true],
  ["a to \\b is out of order", "[a-\\b]", false],
  ["\\b to \\x07 is out of order", "[\\b-\\x07]", false],
  ["\\x08 to \\b", "[\\x08-\\b]", true],
  ["octal in a range", "[\\77-\\100]", true],
  ["\\40 then 0-!", "[\\400-\\x21]", false],
  ["octal in a class", "[\\1]", true],
  ["\\00 in a class", "[\\00]", true],
  ["\\- in a class", "[\\-]", true],
  ["a ( in a class", "[(]", true],
  ["] first in a class ends it", "[]]", true],
  ["a surrogate pair is two code units in a range", "[\u{1f600}-a]", false],
  ["escaped, likewise", "[\\ud83d\\ude00-a]", false],
  ["a lone surrogate", "\ud800", true],
  ["a lone trail surrogate", "\udc00", true],
  ["a surrogate range", "[\ud800-\udc00]", true],
  ["a surrogate range out of order", "[\udc00-\ud800]", false],
  ["line terminators and slashes", "a\n/b\u2028", true],
];

describe("the regex check: named cases", () => {
  it.each(NAMED_CASES)("%s: %j", (_rule, pattern, valid) => {
    expect(compiles(pattern)).toBe(valid);
    expect(isRegExpSource(pattern)).toBe(valid);
  });

  it('keeps ajv-formats\' \\Z pre-check: "\\Z" anywhere after a character is refused', () => {
    for (const value of ["a\\Z", "^abc\\Z", "(a)\\Z|b"]) {
      expect(compiles(value)).toBe(true);
      expect([regexFormat(value), ajvRegexFormat(value)]).toEqual([false, false]);
    }
    expect([regexFormat("\\Z"), ajvRegexFormat("\\Z")]).toEqual([true, true]);
    expect([regexFormat("a\\\\Z"), ajvRegexFormat("a\\\\Z")]).toEqual([true, true]);
  });
});

describe("the regex check: the capture limit", () => {
  // V8 accepts 32,767 capturing groups and says "Too many captures" at the next, named or not.
  it.each([
    ["unnamed", (count: number) => "()".repeat(count)],
    ["one named, the rest unnamed", (count: number) => `(?<a>)${"()".repeat(count - 1)}`],
    ["inside a non-capturing group", (count: number) => `(?:${"()".repeat(count)})`],
    ["named, distinct", (count: number) => Array.from({ length: count }, (_, i) => `(?<n${i}>)`).join("")],
  ])("%s: 32,767 compile and 32,768 do not", (_label, pattern) => {
    for (const [count, valid] of [
      [32_767, true],
      [32_768, false],
    ] as const) {
      expect(compiles(pattern(count))).toBe(valid);
      expect(isRegExpSource(pattern(count))).toBe(valid);
    }
  });

  it("lookarounds and non-capturing groups do not count", () => {
    const pattern = "(?:)(?=)(?!)(?<=)(?<!)".repeat(10_000);
    expect([compiles(pattern), isRegExpSource(pattern)]).toEqual([true, true]);
  });
});

describe("the regex check: the JSON Schema Test Suite", () => {
  it("decides the format's string cases as the suite expects and as ajv-formats does", () => {
    const file = join(SUITE_ROOT, "tests", "draft2020-12", "optional", "format", "regex.json");
    const groups = JSON.parse(readFileSync(file, "utf8")) as Array<{ tests: Array<{ data: unknown; valid: boolean }> }>;
    const cases = groups.flatMap((group) => group.tests).filter((test) => typeof test.data === "string");
    expect(cases.length).toBeGreaterThanOrEqual(2);
    for (const { data, valid } of cases) {
      expect([regexFormat(data as string), ajvRegexFormat(data as string)], data as string).toEqual([valid, valid]);
    }
  });
});

// Pieces of near-patterns: every metacharacter, the letters escapes give meaning to, digits, named-group and
// reference openings, non-ASCII letters, ZWJ, lone surrogates and astral characters.
const TOKENS = [
  ..."()[]{}?*+|^$\\.-,:=!<>/kbBdDwWsScxupP0123456789afAFZ_$ ",
  "(?<",
  "\\k<",
  "(?<a>",
  "\\k<a>",
  "(?:",
  "(?=",
  "(?!",
  "(?<=",
  "(?<!",
  "{1}",
  "{2,1}",
  "{1,}",
  "\\c",
  "\\u{",
  "\\u0061",
  "\\ud835",
  "\\udc9c",
  "[a-",
  "é",
  "π",
  "\u0660",
  "\u200c",
  "\u200d",
  "\ud800",
  "\udc00",
  "\u{1d49c}",
  "\u{1f600}",
];
const tokenString = fc.array(fc.constantFrom(...TOKENS), { maxLength: 12 }).map((parts) => parts.join(""));

// A small grammar of patterns, most of them valid, each then possibly mutated by deleting or inserting characters.
const NAMES = ["a", "b", "$", "_x", "é", "\u{1d49c}", "\\u0061", "\\u{62}", "a\u200d", "1", "", "\\ud835\\udc9c"];
const name = fc.constantFrom(...NAMES, "\\ud835", "a\\u{110000}", "ǅ", "a-b");
const simpleAtom = fc.oneof(
  fc.constantFrom(..."a.]}{^$", "\\d", "\\b", "\\B", "\\k", "\\1", "\\8", "\\0", "\\07", "\\400", "\\c", "\\cA"),
  fc.constantFrom("\\x4", "\\x41", "\\u00", "\\u0041", "\\", "é", "\ud800", "\\p{L}"),
  name.map((text) => `\\k<${text}>`),
);
const classAtom = fc.constantFrom(
  ..."az-[]^",
  "\\d",
  "\\w",
  "\\b",
  "\\B",
  "\\c",
  "\\c1",
  "\\c_",
  "\\c*",
  "\\x41",
  "\\u0041",
  "\\07",
  "\\8",
  "\\k",
  "\\-",
  "\\",
  "\u{1f600}",
  "\\ud800",
  "\\c-",
);
const characterClass = fc
  .tuple(fc.constantFrom("[", "[^"), fc.array(classAtom, { maxLength: 4 }), fc.constantFrom("]", "]", ""))
  .map(([open, atoms, close]) => open + atoms.join("") + close);
const quantifier = fc.constantFrom(
  ...["", "", "", "", "*", "+", "?", "*?", "+?", "??", "{1}", "{2,1}", "{1,}", "{,1}", "{1,2}?", "{", "{1"],
  "{2147483648,2147483647}",
  "{99999999999999999999}",
);
const opener = fc.oneof(
  fc.constantFrom("(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?i:", "(?"),
  name.map((text) => `(?<${text}>`),
);
const { pattern: grammarPattern } = fc.letrec((tie) => ({
  pattern: fc.array(tie("alternative"), { minLength: 1, maxLength: 3 }).map((alternatives) => alternatives.join("|")),
  alternative: fc
    .array(fc.tuple(tie("atom"), quantifier), { maxLength: 4 })
    .map((terms) => terms.map(([atom, repeat]) => `${atom}${repeat}`).join("")),
  atom: fc.oneof(
    { maxDepth: 3, depthIdentifier: "regex-group" },
    simpleAtom,
    characterClass,
    fc
      .tuple(opener, tie("pattern"), fc.constantFrom(")", ")", ")", ""))
      .map(([open, inner, close]) => open + inner + close),
  ),
}));
const edit = fc.tuple(
  fc.nat(),
  fc.constantFrom("delete", "insert", "cut"),
  fc.constantFrom(..."()[]{}?*+|\\-<>k,0123"),
);
const nearPattern = fc.tuple(grammarPattern, fc.array(edit, { maxLength: 3 })).map(([start, edits]) => {
  let text = start;
  for (const [at, kind, character] of edits) {
    const where = text.length === 0 ? 0 : at % text.length;
    if (kind === "insert") text = text.slice(0, where) + character + text.slice(where);
    else text = text.slice(0, where) + text.slice(where + (kind === "delete" ? 1 : 3));
  }
  return text;
});

describe("the regex check: differential against new RegExp", () => {
  // Invariant: for every string, the check accepts it exactly when `new RegExp(string)` (no flags) compiles.
  it("agrees on 150,000 strings of regex tokens", () => {
    fc.assert(
      fc.property(tokenString, (source) => {
        expect(isRegExpSource(source), source).toBe(compiles(source));
      }),
      { numRuns: 120_000 },
    );
  });

  // Invariant: the same, on patterns built from the grammar (about half valid) and mutated near their edges.
  it("agrees on 120,000 near-patterns", () => {
    let valid = 0;
    fc.assert(
      fc.property(nearPattern, (source) => {
        const verdict = compiles(source);
        if (verdict) valid++;
        expect(isRegExpSource(source), source).toBe(verdict);
      }),
      { numRuns: 120_000 },
    );
    // Both verdicts are well represented, or the comparison would say little.
    expect(valid).toBeGreaterThan(120_000 * 0.2);
    expect(valid).toBeLessThan(120_000 * 0.8);
  });

  // Invariant: a group name starts with ID_Start, `$` or `_` and continues with ID_Continue, `$`, ZWNJ or ZWJ, by
  // code point, written or escaped, as V8 decides through ICU; the check agrees for any code point.
  it("reads group names by code point as V8 does", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x10ffff }), (codePoint) => {
        const written = String.fromCodePoint(codePoint);
        const escaped = `\\u{${codePoint.toString(16)}}`;
        for (const source of [`(?<${written}>)`, `(?<a${written}>)`, `(?<${escaped}>)`, `(?<a${escaped}>)`]) {
          expect(isRegExpSource(source), source).toBe(compiles(source));
        }
      }),
      { numRuns: 20_000 },
    );
  });

  // Invariant: the format check (the \Z pre-check, then the syntax) decides every string as ajv-formats does.
  it("keeps the format's verdicts equal to ajv-formats'", () => {
    const withAnchor = fc
      .array(fc.constantFrom(...TOKENS, "\\Z", "\\\\Z"), { maxLength: 10 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(withAnchor, (value) => {
        expect(regexFormat(value), value).toBe(ajvRegexFormat(value));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe("the regex check: the worst 1 MB patterns are decided in bounded time, as new RegExp decides them", () => {
  /** About 1 MB of units numbered from 0: each one distinct. */
  const numbered = (unit: (index: number) => string) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < MB; i++) {
      parts.push(unit(i));
      size += parts[i]?.length ?? 0;
    }
    return parts.join("");
  };
  // The issue's example (1 MB of `.a`, 100–150 ms for V8's parser) and its neighbours: one shape per piece of state.
  const worst: Record<string, string> = {
    ".a repeated (the issue's example)": hostile("", ".a"),
    lookaheads: hostile("", "(?=a)"),
    "non-capturing groups": hostile("", "(?:a)"),
    "groups nested 1 MB deep": `${"(?:".repeat(MB / 4)}${")".repeat(MB / 4)}`,
    "lookbehinds nested deep": `${"(?<=".repeat(MB / 8)}a${")".repeat(MB / 8)}`,
    "captures nested past the limit": `${"(".repeat(MB / 2)}${")".repeat(MB / 2)}`,
    "one class of ranges": `[${"a-z".repeat(MB / 3)}]`,
    classes: hostile("", "[a-z]"),
    "references to a named group": hostile("(?<n>a)", "\\k<n>"),
    "forward references": hostile("", "\\k<n>", "(?<n>a)"),
    "distinct named groups": numbered((i) => `(?<n${i}>a)`),
    "distinct references to no group": `${numbered((i) => `\\k<n${i}>`)}(?<a>)`,
    "as many named groups as allowed, each referred to": Array.from(
      { length: 32_767 },
      (_, i) => `(?<n${i}>a)\\k<n${(i * 7919) % 32_767}>`,
    ).join(""),
    "one long name": `(?<${"a".repeat(MB)}>)`,
    "one long non-ASCII name": `(?<${"é".repeat(MB / 2)}>)`,
    "braced quantifiers": hostile("", "a{1}"),
    "braces that are not quantifiers": hostile("", "a{1,"),
    "unicode escapes": hostile("", "\\u0061"),
    "an unterminated group at the end": hostile("", "a", "("),
  };
  it.each(Object.keys(worst))("%s", (label) => {
    const source = worst[label] as string;
    let verdict: boolean | undefined;
    expect(timed(() => (verdict = isRegExpSource(source)))).toBeLessThan(2000);
    expect(verdict).toBe(compiles(source));
  });
});
