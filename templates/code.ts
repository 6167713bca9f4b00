/**
 * A small tagged template for building TypeScript source safely.
 *
 * Every value interpolated into {@link ts} becomes code in exactly one of two ways: a {@link Code} value goes in as
 * it is (it was built by this module), and anything else becomes a literal — strings are quoted and escaped, numbers
 * and booleans printed, plain objects and arrays written as object and array literals. Schema text therefore can
 * never become code by accident: a description holding `"; process.exit()` stays inside its string.
 */

import { commentText } from "../generator/types/text.js";

/** A fragment of code built by this module. Only these go into a template unquoted. */
export class Code {
  /** @internal */
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** A value that {@link ts} turns into a literal. */
export type Literal =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly Literal[]
  | { readonly [k: string]: Literal };

/** What may be interpolated into {@link ts}. */
export type Interpolation = Code | Literal;

/** Build code from a template: `Code` goes in raw, every other value as a literal. */
export function ts(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Code {
  let text = strings[0] ?? "";
  values.forEach((value, i) => {
    text += value instanceof Code ? value.text : literal(value).text;
    text += strings[i + 1] ?? "";
  });
  return new Code(text);
}

/** Join fragments with a separator (itself code written by us). */
export function join(parts: readonly Code[], separator = "\n"): Code {
  return new Code(parts.map((part) => part.text).join(separator));
}

/**
 * A JavaScript string literal that is safe anywhere in a source file: JSON escaping plus U+2028/U+2029 (which JSON
 * allows raw but older JavaScript did not, and which some tools still treat as line ends).
 */
export function quote(text: string): Code {
  return new Code(escapeLineSeparators(JSON.stringify(text)));
}

/** A literal for any JSON-like value; object keys are written in sorted order so output never depends on input order. */
export function literal(value: Literal): Code {
  if (value === undefined) return new Code("undefined");
  if (value === null) return new Code("null");
  if (typeof value === "string") return quote(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as a literal`);
    return new Code(Object.is(value, -0) ? "0" : String(value));
  }
  if (typeof value === "boolean") return new Code(String(value));
  if (Array.isArray(value)) return new Code(`[${value.map((item: Literal) => literal(item).text).join(", ")}]`);
  const record = value as { readonly [k: string]: Literal };
  const entries = Object.keys(record)
    .sort()
    .map((key) => `${propertyKey(key).text}: ${literal(record[key]).text}`);
  return new Code(entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`);
}

/**
 * Pretty JSON-compatible literal, one property per line, keys sorted: for data tables that reviewers read.
 * `after`, when given, may add code after a property's value (e.g. ` satisfies T`), by key and value.
 */
export function literalBlock(
  value: Literal,
  indent = "",
  after?: (key: string, value: Literal) => Code | undefined,
): Code {
  if (value === null || typeof value !== "object") return literal(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return new Code("[]");
    const items = value.map((item: Literal) => `${inner}${literalBlock(item, inner, after).text}`);
    return new Code(`[\n${items.join(",\n")},\n${indent}]`);
  }
  const record = value as { readonly [k: string]: Literal };
  const keys = Object.keys(record).sort();
  if (keys.length === 0) return new Code("{}");
  const entries = keys.map((key) => {
    const item = record[key] as Literal;
    const suffix = after?.(key, item)?.text ?? "";
    return `${inner}${propertyKey(key).text}: ${literalBlock(item, inner, after).text}${suffix}`;
  });
  return new Code(`{\n${entries.join(",\n")},\n${indent}}`);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A property key for an object literal: bare when it is an identifier, quoted otherwise. `__proto__` is written as a
 * computed key, since both `__proto__:` and `"__proto__":` in an object literal set the prototype instead
 * (ECMAScript section 13.2.5.5, PropertyDefinitionEvaluation).
 */
export function propertyKey(key: string): Code {
  if (key === "__proto__") return new Code('["__proto__"]');
  return IDENTIFIER.test(key) ? new Code(key) : quote(key);
}

/** A property key for a type literal or an interface: there `"__proto__"` is an ordinary property name. */
export function typeKey(key: string): Code {
  return IDENTIFIER.test(key) && key !== "__proto__" ? new Code(key) : quote(key);
}

/** Property access: `.key` for identifiers, `["…"]` otherwise. */
export function access(key: string): Code {
  return IDENTIFIER.test(key) ? new Code(`.${key}`) : new Code(`[${quote(key).text}]`);
}

/** Comment text from a contract: the generator's one strict comment writer (see `generator/types/text.ts`). */
export { commentText };

/**
 * A JSDoc block for a description, or nothing. The text goes through {@link commentText}: no bidi control, no `*\/`
 * and no JSDoc tag from a contract reaches the generated code.
 */
export function jsdoc(description: string | undefined, indent = ""): Code {
  if (description === undefined || description.trim() === "") return new Code("");
  const lines = commentText(description.trim()).split("\n");
  if (lines.length === 1) return new Code(`${indent}/** ${lines[0]} */\n`);
  return new Code(`${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join("\n")}\n${indent} */\n`);
}

function escapeLineSeparators(text: string): string {
  return text.replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");
}

/** An identifier: throws on anything else, so a name that slipped past the naming rules can never become code. */
export function ident(name: string): Code {
  if (!IDENTIFIER.test(name)) throw new TypeError(`not an identifier: ${JSON.stringify(name)}`);
  return new Code(name);
}

/**
 * Text of the generator's own making (indentation, a keyword chosen from a fixed set). Never pass schema text here:
 * that goes through {@link ts} interpolation, {@link quote} or {@link jsdoc}.
 */
export function own(text: string): Code {
  return new Code(text);
}
