/**
 * Formats under `"formats": "assert"`.
 *
 * - Every format check decides a 1 MB hostile string in bounded time. ajv-formats' `url` pattern backtracks
 *   quadratically (128 KB took 12.7 s); the runtime decides it with a linear check that gives the pattern's verdict on
 *   every string, and `date-time` no longer splits a megabyte of separators into a million strings.
 * - A format name no validator knows asserts nothing, so under `assert` it is a contract error naming the file and
 *   the pointer, with the nearest known name suggested; as an annotation it is fine.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nearestFormat } from "../../generator/checks/safety.js";
import { formatValidators } from "../../runtime/formats.js";
import { suiteFormatStrings } from "../conformance/suite.js";
import { contractErrors, generateInto, importGenerated, writeContracts } from "./scratch.js";

/** A bounded contract whose result holds one asserted string of the given format. */
function formatContract(format: string, formats: "assert" | "annotate" = "assert") {
  return {
    name: "probe",
    outputSchema: {
      type: "object",
      properties: { when: { type: "string", format } },
    },
    "x-toolgate": { formats, receive: { maxBytes: 4 * 1024 * 1024 } },
  };
}

type Check = (value: string) => boolean;
const ours = (name: string): Check => {
  const check = formatValidators[name];
  if (check instanceof RegExp) return (value) => check.test(value);
  return typeof check === "function" ? check : (check as { validate: Check }).validate;
};
const theirs = (name: string): Check => {
  const check = (fullFormats as Record<string, unknown>)[name];
  if (check instanceof RegExp) return (value) => check.test(value);
  return typeof check === "function" ? (check as Check) : (check as { validate: Check }).validate;
};

/** Milliseconds one call takes. */
function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

const MB = 1024 * 1024;
/** A string of about 1 MB: a prefix, a unit repeated, a suffix. */
const hostile = (prefix: string, unit: string, suffix = "") =>
  prefix + unit.repeat(Math.ceil(MB / unit.length)) + suffix;

describe("url: ajv-formats' pattern, decided in linear time", () => {
  // Pieces that make the pattern's parts: schemes, userinfo, hosts (IP, private IP, domains, IDN), ports, paths,
  // white space of several kinds, case-folding letters, astral characters, and the characters that separate parts.
  const piece = fc.constantFrom(
    ...["a", "b", "1", "0", "10", "127", "172", "16", "192", "168", "169", "254", "255", "256", "223", "224"],
    ...[".", "-", "@", ":", "/", "//", " ", "\t", "\u3000", "\u00a0", "é", "ſ", "K", "%", "?", "#", "[", "]"],
    ...["com", "co", "x-y", "80", "8080", "123456", "A", "Z", "😀", "\ud800", "http://", "HTTP://", "httpſ://"],
  );
  const tail = fc.array(piece, { maxLength: 16 }).map((pieces) => pieces.join(""));
  const urlLike = fc.oneof(
    fc
      .tuple(fc.constantFrom("http://", "https://", "ftp://", "HTTPS://", "httpſ://", "htp://"), tail)
      .map(([scheme, rest]) => scheme + rest),
    fc.webUrl({ withQueryParameters: true, withFragments: true, validSchemes: ["http", "https", "ftp"] }),
    fc.webUrl().map((address) => address.replace("://", "://user:pass@")),
    fc.tuple(fc.ipV4(), fc.constantFrom("", ":80", ":1", "/x", " ")).map(([ip, rest]) => `http://${ip}${rest}`),
    tail,
  );

  it("gives ajv-formats' verdict on URLs and near-URLs (property: the same boolean for every string)", () => {
    // Invariant: for every generated string, the linear check and ajv-formats' pattern agree.
    const check = ours("url");
    const pattern = theirs("url");
    fc.assert(
      fc.property(urlLike, (value) => {
        expect(check(value), JSON.stringify(value)).toBe(pattern(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ["a plain address", "http://example.com", true],
    ["userinfo, port and path", "https://user:pw@example.com:8080/a/b?c=d#e", true],
    ["an @ in the path after the host", "http://a@b.com/x@c.com/", true],
    ["a public IP", "http://223.255.255.254", true],
    ["a private IP", "http://192.168.1.1", false],
    ["a one-letter top-level domain", "http://example.c", false],
    ["white space in the path", "http://example.com/a b", false],
    ["white space in the userinfo", "http://a b@example.com", false],
    ["an ideographic space in the host, which the pattern's host class admits", "http://a\u3000b.com", true],
    ["a long s for an s in the scheme (case folding under iu)", "httpſ://example.com", true],
    ["an astral character in the host", "http://a😀.com", false],
    ["a port of six digits", "http://example.com:123456", false],
  ])("%s: %s is %s, as ajv-formats says", (_label, value, valid) => {
    expect(theirs("url")(value)).toBe(valid);
    expect(ours("url")(value)).toBe(valid);
  });

  it("decides the issue's example and its neighbours, 1 MB each, well within 2 s and as the pattern would", () => {
    const check = ours("url");
    const cases: Array<[string, boolean]> = [
      // The shape: colons after a host that cannot end, so the pattern retries every split (12.7 s at 128 KB).
      [hostile("http://a.", "::", " "), false],
      // recheck's attack string for the pattern.
      [hostile("ftp://172.30.3.56", "4.1.6.7:155", "\u0000"), false],
      // Every "@" a possible end of the userinfo, and a host after each that fails.
      [hostile("http://", "a@", "!"), false],
      [hostile("http://", "@a.b1/", ""), false],
      // One huge host of labels whose top-level domain fails at the very end.
      [hostile("http://", "a.", "1"), false],
      // A valid one: 1 MB of path.
      [hostile("http://example.com/", "a"), true],
    ];
    for (const [value, valid] of cases) {
      let verdict: boolean | undefined;
      const ms = timed(() => {
        verdict = check(value);
      });
      expect(verdict, value.slice(0, 40)).toBe(valid);
      expect(ms, value.slice(0, 40)).toBeLessThan(2000);
    }
    // The pattern itself on the first shape at 16 KB, for the record of what it costs: the same verdict.
    expect(theirs("url")(`http://a.${"::".repeat(8192)} `)).toBe(false);
  });

  it("the generated validator asserts url through the linear check", async () => {
    const folder = await generateInto(
      await writeContracts("formats-url", { "probe.tool.json": formatContract("url") }),
    );
    const { validateResult } = await importGenerated<{ validateResult: (value: unknown) => boolean }>(
      folder,
      "probe/validate.js",
    );
    expect(validateResult({ when: "https://example.com/x" })).toBe(true);
    expect(validateResult({ when: "https://192.168.0.1/x" })).toBe(false);
    const ms = timed(() => expect(validateResult({ when: hostile("http://a.", "::", " ") })).toBe(false));
    expect(ms).toBeLessThan(2000);
  });

  it("a validator Ajv compiles in process with toolgate's options decides as run-time Ajv with ajv-formats", async () => {
    const { createCompiler } = await import("../../generator/validator/compiler.js");
    const schema = { type: "string", format: "url" };
    const toolgate = createCompiler("2020-12", "assert").compile(schema);
    const runtime = new Ajv2020({ strict: false });
    addFormats.default(runtime);
    const reference = runtime.compile(schema);
    fc.assert(
      fc.property(urlLike, (value) => {
        expect(toolgate(value)).toBe(reference(value));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("uri and uri-reference: ajv-formats' patterns, decided in one pass", () => {
  // Pieces that make every part of the patterns and their edges: schemes (and near-schemes), slashes, userinfo,
  // IP literals (IPv6, IPv4-mapped, IPvFuture, broken ones), ports, "%" with and without hex digits, each
  // character of the admitted set, "?" and "#" (one, two, in the wrong order), brackets out of place, and
  // characters no part admits: controls, white space, non-ASCII letters the `i` flag must not fold (ſ, K).
  const piece = fc.constantFrom(
    ...["a", "Z", "1", "0", "v", "V", "f", "g", ".", "-", "+", "~", "!", "$", "&", "'", '"', "(", ")", "*", ","],
    ...[";", "=", ":", "::", "@", "/", "//", "?", "#", "%", "%2f", "%A0", "%G1", "%a", "[", "]", ":80", ":"],
    ...["[::1]", "[v1.x]", "[V1a.b:c]", "[1:2:3:4:5:6:7:8]", "[::ffff:1.2.3.4]", "[::1", "::1]", "[]", "[v.]"],
    ...["1.2.3.4", "256.1.1.1", "é", "ſ", "\u212a", " ", "\n", "\u0000", "{", "}", "\\", "^", "`", "|", "<"],
    ...["😀", "\ud800", "http:", "http://", "HTTP://", "a+b:", "urn:", "1a:", "user:pw@", "//@"],
  );
  const uriLike = fc.array(piece, { maxLength: 14 }).map((pieces) => pieces.join(""));
  const authority = fc
    .tuple(
      fc.constantFrom("", "a:", "http:", "1:", "a b:"),
      fc.constantFrom("/", "//", "///", ""),
      fc.constantFrom("", "@", "u@", "u:p@", "u%41@", 'u"@', "u/@", "a@b@", "%4@"),
      fc.oneof(
        fc.ipV6().map((ip) => `[${ip}]`),
        fc.constantFrom("[v1.a]", "[::1", "[::g]", "[]"),
        fc.domain(),
      ),
      fc.constantFrom("", ":", ":80", ":8a", "/p", "/[", "?q", "#f", "#f#", "?]", "/%"),
    )
    .map((parts) => parts.join(""));
  const strings = fc.oneof(
    uriLike,
    uriLike,
    authority,
    fc.string({ maxLength: 20 }),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
  );

  it.each(["uri", "uri-reference"])(
    "%s gives ajv-formats' verdict (property: the same boolean for every string)",
    (name) => {
      // Invariant: for every generated string, the one-pass check and ajv-formats' check agree.
      const check = ours(name);
      const reference = theirs(name);
      fc.assert(
        fc.property(strings, (value) => {
          expect(check(value), JSON.stringify(value)).toBe(reference(value));
        }),
        { numRuns: 40_000 },
      );
    },
  );

  it.each(["uri", "uri-reference"])(
    "%s gives ajv-formats' verdict on the JSON Schema Test Suite's format strings",
    (name) => {
      const values = suiteFormatStrings();
      expect(values.length).toBeGreaterThan(300);
      for (const value of values) expect(ours(name)(value), JSON.stringify(value)).toBe(theirs(name)(value));
    },
  );

  it.each([
    ["a relative path with a colon after the first segment", "a/b:c", "uri-reference", true],
    ["an empty host before a path that holds a colon", "//a:b", "uri-reference", true],
    ["a quote, which only uri-reference admits", 'a:b"c', "uri-reference", true],
    ["a quote in uri", 'a:b"c', "uri", false],
    ["a second fragment mark", "a:b#c#d", "uri", false],
    ["a scheme and nothing else", "a:", "uri", false],
    ["a scheme, then only a query", "a:?q", "uri", false],
    ["a % without two hex digits", "a:b%4g", "uri", false],
    ["an IP literal with userinfo and port", "http://u:p@[::1]:80/x?y#z", "uri", true],
    ["an IP literal after one slash", "a:/[v1.x]", "uri", true],
    ["an IP literal in the path", "a:/b/[::1]", "uri", false],
    ["an IP literal with a quote in the userinfo", '//u"@[::1]', "uri-reference", false],
    ["a bracket in the query", "a:b?[x]", "uri", false],
    ["a long s, which the i flag folds only under u", "httpſ://a", "uri", false],
  ])("%s: %s is %s under %s, as ajv-formats says", (_label, value, name, valid) => {
    expect(theirs(name)(value)).toBe(valid);
    expect(ours(name)(value)).toBe(valid);
  });

  // The shape for uri-reference (a megabyte of path characters with one the pattern refuses at the end),
  // and the neighbours that cost the patterns most: a "%" without hex digits, a bracket where no IP literal may be,
  // a long scheme-like run before an IP literal, a long IPvFuture literal, and valid megabytes.
  const shapes: Array<[string, string, boolean]> = [
    ["uri-reference", hostile("http://a", "a-a.", "\n"), false],
    ["uri-reference", hostile("a:/", "~", "%"), false],
    ["uri-reference", hostile("a:/", "AAAA", "?["), false],
    ["uri-reference", hostile("", "a", "@[::1]"), false],
    ["uri-reference", hostile("//", "a", "@[::1]/x"), true],
    ["uri-reference", hostile("//[v1.", "a", "]/"), true],
    ["uri-reference", hostile("http://", "a.", "#["), false],
    ["uri", hostile("http://a", "a-a.", "\n"), false],
    ["uri", hostile("http://", "~", "@["), false],
    ["uri", hostile("", "a", ":x"), true],
    ["uri", hostile("a:/", "a", "/"), true],
  ];
  it.each(shapes.map(([name, value, valid], i) => [i, name, value, valid] as const))(
    "hostile shape %i (%s) is decided in one pass, well within 2 s, as ajv-formats decides it",
    (_i, name, value, valid) => {
      let verdict: boolean | undefined;
      expect(timed(() => (verdict = ours(name)(value)))).toBeLessThan(2000);
      expect(verdict).toBe(valid);
      expect(theirs(name)(value)).toBe(valid);
    },
  );
});

describe("date-time and iso-date-time: one separator, found without splitting", () => {
  it.each(["date-time", "iso-date-time"])("%s gives ajv-formats' verdicts (property)", (name) => {
    // Invariant: the same boolean as ajv-formats for date-time-like strings and arbitrary ones.
    const dateTimeLike = fc
      .tuple(
        fc.date({ min: new Date("0001-01-01"), max: new Date("9999-12-31"), noInvalidDate: true }),
        fc.constantFrom("T", "t", " ", "\t", "TT", "  ", "x", ""),
        fc.constantFrom("Z", "z", "+01:00", "-23:59", "", "+2400", ".5Z", " "),
      )
      .map(([date, separator, zone]) => date.toISOString().replace("T", separator).replace("Z", zone));
    fc.assert(
      fc.property(fc.oneof(dateTimeLike, fc.string({ maxLength: 30 })), (value) => {
        expect(ours(name)(value), JSON.stringify(value)).toBe(theirs(name)(value));
      }),
      { numRuns: 5000 },
    );
  });

  it.each(["date-time", "iso-date-time"])(
    "%s decides strings of the usual shape, read character by character, as ajv-formats does (property)",
    (name) => {
      // Invariant: the same boolean as ajv-formats for every string near `YYYY-MM-DDTHH:MM:SS.fffZ`, the shape the
      // check reads without its regular expressions: numbers at and past their bounds (month 0 and 13, 29 February,
      // hour 24, second 60 under an offset), every zone form, and one character swapped for a near one.
      const digits = (width: number, max: number) =>
        fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, "0"));
      const usual = fc
        .tuple(
          fc.oneof(digits(4, 9999), fc.constantFrom("2000", "1900", "2024", "2023")),
          digits(2, 13),
          fc.oneof(digits(2, 32), fc.constantFrom("28", "29", "30", "31")),
          fc.constantFrom("T", "t"),
          fc.oneof(digits(2, 25), fc.constantFrom("23", "00")),
          fc.oneof(digits(2, 61), fc.constantFrom("59", "29", "00")),
          fc.oneof(digits(2, 61), fc.constantFrom("60", "59")),
          fc.constantFrom("", ".", ".0", ".123456", ".9", ".5.5"),
          fc.constantFrom("", "Z", "z", "+00:00", "-00:30", "+00:30", "+05:30", "+0530", "+05", "+05:", "+24:00"),
          fc.constantFrom("", "-23:59", "+01:60", "ZZ", "+1:00", "+05:300", "+05:3", "Z "),
        )
        .map(
          ([year, month, day, separator, hour, minute, second, fraction, zone, odd]) =>
            `${year}-${month}-${day}${separator}${hour}:${minute}:${second}${fraction}${zone}${odd}`,
        );
      const swapped = fc
        .tuple(usual, fc.nat(), fc.constantFrom("0", "9", "-", ":", ".", "T", "t", "Z", " ", "+", "a", "\u00a0", ""))
        .map(([value, index, character]) => {
          const at = index % value.length;
          return value.slice(0, at) + character + value.slice(at + 1);
        });
      fc.assert(
        fc.property(fc.oneof(usual, swapped), (value) => {
          expect(ours(name)(value), JSON.stringify(value)).toBe(theirs(name)(value));
        }),
        { numRuns: 20000 },
      );
    },
  );

  it.each([
    ["1 MB of spaces", hostile("", " ")],
    ["1 MB of t", hostile("2024-01-01", "t")],
    ["a date, one separator, then 1 MB of fraction digits", hostile("2024-01-01T00:00:00.", "1", "Z")],
  ])("decides %s well within 2 s, as ajv-formats does", (_label, value) => {
    for (const name of ["date-time", "iso-date-time"]) {
      let verdict: boolean | undefined;
      expect(timed(() => (verdict = ours(name)(value)))).toBeLessThan(2000);
      expect(verdict).toBe(theirs(name)(value));
    }
  });
});

describe("every format check decides a hostile 1 MB string in bounded time", () => {
  // Shapes found by timing every check over prefixes × repeated units × suffixes (the worst per format kept).
  const worst: Record<string, string> = {
    uri: hostile("http://a", "AAAA", " "),
    "uri-reference": hostile("http://a", "a-a.", "\n"),
    "uri-template": hostile("{", "a", " "),
    email: hostile("//", "a.", ""),
    duration: hostile("P1", "1", "\n"),
    time: hostile("12:00:00.", "1", "\u0000"),
    "iso-time": hostile("12:00:00.", "1", "!"),
    regex: hostile("", "(?<n>a)"),
    "json-pointer": hostile("/", "~0", "\u0000"),
    "json-pointer-uri-fragment": hostile("#", "/", " "),
    "relative-json-pointer": hostile("0", "/a", "~"),
    byte: hostile("", "ab", "!"),
    hostname: hostile("", "a.", "!"),
    ipv6: hostile("", "1:", ""),
  };
  it.each(Object.keys(worst))("%s", (name) => {
    const value = worst[name] as string;
    let verdict: boolean | undefined;
    expect(timed(() => (verdict = ours(name)(value)))).toBeLessThan(2000);
    expect(verdict).toBe(theirs(name)(value));
  });
});

describe("an unknown format under assert is a contract error", () => {
  it("the issue's example: date_time names the file and pointer, and suggests date-time", async () => {
    const errors = await contractErrors(
      await writeContracts("formats-unknown", { "probe.tool.json": formatContract("date_time") }),
    );
    expect(errors.map((error) => [error.file.endsWith("probe.tool.json"), error.pointer])).toEqual([
      [true, "/outputSchema/properties/when/format"],
    ]);
    expect(errors[0]?.message).toContain('the format "date_time" is not one toolgate knows');
    expect(errors[0]?.message).toContain('did you mean "date-time"?');
  });

  it("finds them in the input schema and in unused $defs, each at its pointer, with its own suggestion", async () => {
    const errors = await contractErrors(
      await writeContracts("formats-unknown-neighbours", {
        "probe.tool.json": {
          name: "probe",
          inputSchema: { type: "object", properties: { site: { type: "string", format: "URI" } } },
          outputSchema: {
            type: "object",
            properties: { address: { type: "string", format: "ipv-4" } },
            $defs: { unused: { type: "string", format: "emial" } },
          },
          "x-toolgate": { formats: "assert", receive: { maxBytes: 65_536 } },
        },
      }),
    );
    expect(errors.map((error) => [error.pointer, /did you mean "([^"]+)"/.exec(error.message)?.[1]]).sort()).toEqual([
      ["/inputSchema/properties/site/format", "uri"],
      ["/outputSchema/$defs/unused/format", "email"],
      ["/outputSchema/properties/address/format", "ipv4"],
    ]);
  });

  it("a name far from every known one gets the list of known names instead of a guess", async () => {
    const errors = await contractErrors(
      await writeContracts("formats-unknown-far", { "probe.tool.json": formatContract("colour") }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).not.toContain("did you mean");
    expect(errors[0]?.message).toContain('use one of "binary", "byte", "date", "date-time"');
  });

  it("is fine as an annotation, and known formats are fine under assert", async () => {
    expect(
      await contractErrors(
        await writeContracts("formats-unknown-annotated", {
          "probe.tool.json": formatContract("date_time", "annotate"),
        }),
      ),
    ).toEqual([]);
    for (const format of ["date-time", "url", "int32", "password"]) {
      expect(
        await contractErrors(await writeContracts("formats-known", { "probe.tool.json": formatContract(format) })),
      ).toEqual([]);
    }
  });

  it.each([
    ["date_time", "date-time"],
    ["datetime", "date-time"],
    ["Date-Time", "date-time"],
    ["uuid4", "uuid"],
    ["hostnme", "hostname"],
    ["json_pointer", "json-pointer"],
    ["colour", undefined],
    ["x", undefined],
  ])("the nearest known format to %s is %s", (name, nearest) => {
    expect(nearestFormat(name)).toBe(nearest);
  });
});
