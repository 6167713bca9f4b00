/**
 * Benchmark: the worst case of each validator keyword family whose cost depends on the payload more than on the
 * schema (`format` under assert, `uniqueItems`, `pattern`, and long `enum`s). For each family, the generated validator of a contract
 * decides the worst 1 MB payloads known for it (parsed, as the gate hands the value over), and the slowest of them,
 * per MB of JSON text, is the family's figure. Target: under 50 ms per 1 MB.
 *
 * The payloads are the ones found while hardening (test/hardening/formats.test.ts, validator-cost.test.ts): for
 * formats, every check's worst shape from a search over prefixes × repeated units × suffixes; for `uniqueItems`,
 * distinct items of several shapes (each one is hashed, none is found twice early); for `pattern`, the most
 * backtracking-prone patterns the safety stage still accepts (recheck proves them linear, but each failing string
 * makes them retreat over every character once).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { judgePattern } from "../dist/generator/checks/safety.js";
import { URI_REFERENCE } from "../runtime/dist/formats.js";
import { generateContracts } from "./lib/corpus.js";
import { interleave, perCall, summarize } from "./lib/stats.js";

const MB = 1024 * 1024;
/** A string of about 1 MB: a prefix, a unit repeated, a suffix. */
const hostile = (prefix, unit, suffix = "") => prefix + unit.repeat(Math.ceil(MB / unit.length)) + suffix;

/** A pattern of about `length` characters made of distinct named groups, each name read and kept by the regex check. */
function namedGroups(length) {
  const groups = [];
  let size = 0;
  for (let i = 0; size < length; i++) {
    const group = `(?<n${i}>a)`;
    groups.push(group);
    size += group.length;
  }
  return groups.join("");
}

/** Each string format's worst 1 MB value known, by format name (or a label and the format name). */
const FORMAT_PAYLOADS = {
  url: hostile("http://a.", "::", " "),
  "url (recheck's attack)": ["url", hostile("ftp://172.30.3.56", "4.1.6.7:155", "\u0000")],
  "url (@ splits)": ["url", hostile("http://", "@a.b1/", "")],
  uri: hostile("http://a", "AAAA", " "),
  "uri-reference": hostile("http://a", "a-a.", "\n"),
  "uri-reference (% without hex)": ["uri-reference", hostile("a:/", "~", "%")],
  "uri-reference (bracket in the query)": ["uri-reference", hostile("a:/", "AAAA", "?[")],
  "uri-reference (scheme-like run before an IP literal)": ["uri-reference", hostile("", "a", "@[::1]")],
  "uri-reference (long IPvFuture literal)": ["uri-reference", hostile("//[v1.", "a", "/]")],
  "uri (bracket after the userinfo)": ["uri", hostile("http://", "~", "@[")],
  "uri (% without hex)": ["uri", hostile("http://a", "a-a.", "%")],
  "uri-template": hostile("{", "a", " "),
  email: hostile("//", "a.", ""),
  hostname: hostile("", "a.", "!"),
  duration: hostile("P1", "1", "\n"),
  date: hostile("", "1", ""),
  time: hostile("12:00:00.", "1", "\u0000"),
  "date-time": hostile("", " ", ""),
  "iso-time": hostile("12:00:00.", "1", "!"),
  "iso-date-time": hostile("//", "\t", "!"),
  ipv4: hostile("", "1.", ""),
  ipv6: hostile("", "1:", ""),
  uuid: hostile("", "a", ""),
  regex: hostile("", ".a", ""),
  "regex (lookaheads)": ["regex", hostile("", "(?=a)", "")],
  "regex (groups nested 1 MB deep)": ["regex", `${"(?:".repeat(MB / 4)}${")".repeat(MB / 4)}`],
  "regex (one class of ranges)": ["regex", `[${"a-z".repeat(MB / 3)}]`],
  "regex (named references)": ["regex", hostile("(?<n>a)", "\\k<n>", "")],
  "regex (named groups)": ["regex", namedGroups(MB)],
  "json-pointer": hostile("/", "~0", "\u0000"),
  "json-pointer-uri-fragment": hostile("#", "/", " "),
  "relative-json-pointer": hostile("0", "/a", "~"),
  byte: hostile("", "ab", "!"),
};

/** Distinct items of the shapes that cost `uniqueItems` most, about 1 MB each. */
function uniquePayloads() {
  return {
    "objects (7 keys, nested)": Array.from({ length: 12_000 }, (_, i) => ({
      id: i,
      name: `item ${i}`,
      tags: ["a", "b"],
      owner: { id: i % 7, team: "t" },
      flag: i % 2 === 0,
    })),
    "one-item arrays": Array.from({ length: 150_000 }, (_, i) => [i]),
    "one-key objects": Array.from({ length: 120_000 }, (_, i) => ({ a: i })),
    "60 keys each, scrambled order": Array.from({ length: 2_000 }, (_, i) =>
      Object.fromEntries(Array.from({ length: 60 }, (_, k) => [`k${(k * 37) % 60}`, i])),
    ),
    "arrays nested 4 deep": Array.from({ length: 50_000 }, (_, i) => [[[[i]]]]),
    "strings (scalars)": Array.from({ length: 80_000 }, (_, i) => `value-${i}`),
  };
}

/** A long enum, and 1 MB of its last value (value by value, Ajv would compare each with all 20,000). */
const ENUM_VALUES = Array.from({ length: 20_000 }, (_, i) => `value-${i}`);
const ENUM_PAYLOAD = Array.from({ length: 80_000 }, () => "value-19999");

/** Patterns recheck accepts (the safety stage compiles them) that backtrack over a whole failing string. */
const PATTERNS = [
  { pattern: "^(a|b)*c$", value: hostile("", "ab", "") },
  { pattern: "^([a-z0-9-]+\\.)*[a-z0-9-]+$", value: hostile("", "a.", "!") },
  { pattern: "^[a-z]+( [a-z]+)*$", value: hostile("", "a ", "!") },
  { pattern: "^(?:[a-z0-9._~-]|%[0-9a-f]{2})*$", value: hostile("", "a", "%") },
  {
    // ajv-formats' uri-reference pattern, as a contract's pattern: long alternations over overlapping classes.
    pattern: URI_REFERENCE.source,
    value: hostile("http://a", "a-a.", "\n"),
  },
];

/**
 * @param {string} work a scratch folder
 * @param {{ rounds: number }} options
 */
export async function runValidatorWorst(work, { rounds }) {
  for (const { pattern } of PATTERNS) {
    const verdict = await judgePattern(pattern);
    if (verdict.status !== "safe") throw new Error(`the safety stage refuses the benchmark pattern ${pattern}`);
  }
  const formatNames = [...new Set(Object.entries(FORMAT_PAYLOADS).map(([key, v]) => (Array.isArray(v) ? v[0] : key)))];
  const receive = { receive: { maxBytes: 4 * MB } };
  const contracts = [
    {
      file: "formats.tool.json",
      contract: {
        name: "formats",
        outputSchema: {
          type: "object",
          properties: Object.fromEntries(formatNames.map((name) => [name, { type: "string", format: name }])),
        },
        "x-toolgate": { formats: "assert", ...receive },
      },
    },
    {
      file: "unique.tool.json",
      contract: { name: "unique", outputSchema: { type: "array", uniqueItems: true }, "x-toolgate": receive },
    },
    {
      file: "enum.tool.json",
      contract: { name: "enum", outputSchema: { type: "array", items: { enum: ENUM_VALUES } }, "x-toolgate": receive },
    },
    {
      file: "patterns.tool.json",
      contract: {
        name: "patterns",
        outputSchema: {
          type: "object",
          properties: Object.fromEntries(PATTERNS.map(({ pattern }, i) => [`p${i}`, { type: "string", pattern }])),
        },
        "x-toolgate": receive,
      },
    },
  ];
  const generated = await generateContracts(path.join(work, "validator-worst"), contracts);
  if (generated.refused.length > 0) {
    throw new Error(`benchmark contracts refused: ${generated.refused.map((r) => r.file ?? r).join(", ")}`);
  }
  const validatorOf = async (tool) => {
    const folder = generated.generated.find((entry) => entry.tool === tool)?.folder;
    const module = await import(pathToFileURL(path.join(generated.out, folder, "validate.js")).href);
    return module.validateResult;
  };

  /** Every payload as the validator receives it, with the family, a label and its size in MB of JSON text. */
  const cases = [];
  const formats = await validatorOf("formats");
  for (const [label, entry] of Object.entries(FORMAT_PAYLOADS)) {
    const [name, value] = Array.isArray(entry) ? entry : [label, entry];
    // V8 keeps compiled regular expressions by source, so the regex check would find the same value compiled on
    // every repeat: each of its samples decides a value it has not seen (a different last character).
    const fresh = name === "regex" ? (k) => ({ [name]: `${value}${String.fromCharCode(0x4e00 + k)}` }) : undefined;
    cases.push({ family: "format", label, validate: formats, value: { [name]: value }, fresh });
  }
  const unique = await validatorOf("unique");
  for (const [label, value] of Object.entries(uniquePayloads())) {
    cases.push({ family: "uniqueItems", label, validate: unique, value });
  }
  cases.push({ family: "enum", label: "20,000 strings", validate: await validatorOf("enum"), value: ENUM_PAYLOAD });
  const patterns = await validatorOf("patterns");
  for (const [i, { pattern, value }] of PATTERNS.entries()) {
    cases.push({
      family: "pattern",
      label: pattern.length > 40 ? "uri-reference" : pattern,
      validate: patterns,
      value: { [`p${i}`]: value },
    });
  }

  const measured = [];
  for (const item of cases) {
    const text = JSON.stringify(item.value);
    const parsed = JSON.parse(text);
    const mb = Buffer.byteLength(text) / MB;
    const decide = () => item.validate(parsed);
    const verdict = decide();
    let sampled = 0;
    const once = () => {
      const value = item.fresh(sampled++);
      const started = performance.now();
      item.validate(value);
      return performance.now() - started;
    };
    // Parsing the same text is what every payload costs before it is validated: the reference each figure is read
    // against on a machine of any speed.
    const timing = await interleave(
      { validate: item.fresh === undefined ? perCall(decide, 50) : once, parse: perCall(() => JSON.parse(text), 50) },
      rounds,
    );
    measured.push({
      family: item.family,
      label: item.label,
      mb,
      verdict,
      msPerMb: summarize(timing.validate.samples.map((ms) => ms / mb)),
      parseMsPerMb: summarize(timing.parse.samples.map((ms) => ms / mb)),
    });
  }
  const families = {};
  for (const family of ["format", "uniqueItems", "pattern", "enum"]) {
    const rows = measured.filter((m) => m.family === family);
    const worst = rows.reduce((a, b) => (b.msPerMb.median > a.msPerMb.median ? b : a));
    families[family] = {
      worst: worst.label,
      msPerMb: worst.msPerMb,
      parseMsPerMb: worst.parseMsPerMb,
      payloads: rows.length,
    };
  }
  return { targetMsPerMb: 50, families, measured };
}
