/**
 * Schema text that ends up in code: descriptions (JSDoc), property names and literal types. All of it is hostile
 * input; these functions make sure it can neither end a comment or a string early nor change what the code means.
 */

/** Line breaks that become `\n`: CRLF and a lone CR. (U+2028/U+2029 are spelled out instead: see {@link HIDDEN}.) */
const LINE_BREAKS = /\r\n?/g;

/**
 * Characters written as `\uXXXX` text: controls (NUL, ESC, …), the line and paragraph separators (which some tools
 * treat as line ends), bidi and invisible formatting characters ("Trojan Source": they reorder how code is
 * displayed), and lone surrogates (not encodable as UTF-8).
 */
const HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function hex(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * The one writer of comment text from a contract (JSDoc in types and adapters, the generated files' header): line
 * breaks normalized to `\n`, hidden characters spelled out, a star-slash written as `*\/` so the comment cannot be
 * closed, and `@` at the start of a word written as `\@` so a description cannot add JSDoc tags (`@deprecated`,
 * `@internal`, which `stripInternal` acts on).
 */
export function commentText(description: string): string {
  return description
    .replace(LINE_BREAKS, "\n")
    .replace(HIDDEN, hex)
    .replaceAll("*/", "*\\/")
    .replace(/(^|\s)@/g, "$1\\@")
    .replace(/[ \t]+$/gm, "");
}

/** A string literal (double quotes) that holds exactly `text`, with no raw line terminator or hidden character. */
export function stringLiteral(text: string): string {
  // JSON.stringify escapes quotes, backslashes and C0 controls, and (well-formed stringify) lone surrogates;
  // U+2028/U+2029 and the invisible characters stay raw, so spell them out too.
  return JSON.stringify(text).replace(
    /[\u2028\u2029\u0080-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    hex,
  );
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property name in a type: bare when it is an ASCII identifier, else a string literal. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/**
 * The TypeScript literal type that holds exactly one JSON value (`const`/`enum`), or undefined when there is none
 * (a number that JSON parsing turned into Infinity). Objects become closed type literals.
 */
export function literalType(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return String(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case "string":
      return stringLiteral(value);
    case "object": {
      if (Array.isArray(value)) {
        const items = value.map(literalType);
        return items.every((item) => item !== undefined) ? `[${items.join(", ")}]` : undefined;
      }
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) return "{ [k: string]: never }";
      const members: string[] = [];
      for (const [key, member] of entries) {
        const type = literalType(member);
        if (type === undefined) return undefined;
        members.push(`${propertyKey(key)}: ${type}`);
      }
      return `{ ${members.join("; ")} }`;
    }
    default:
      return undefined;
  }
}
