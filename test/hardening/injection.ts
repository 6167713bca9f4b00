/**
 * The injection table: contracts whose titles, descriptions, property names, enum values, `const`, `pattern` and
 * `$defs` keys hold text that breaks naive code generation (quotes, backslashes, `*∕`, `${`, backticks, U+2028,
 * NUL…). Shared by the injection test and the test that runs generated code with code generation from strings
 * forbidden.
 */
import { escapePointerToken } from "../../generator/schema/pointer.js";

/** One hostile text per row: `[label, text]`. */
export const HOSTILE_ROWS: ReadonlyArray<readonly [string, string]> = [
  ["double quote", '"'],
  ["single quote", "'"],
  ["backslash", "\\"],
  ["backslash before quote", '\\"'],
  ["comment end", "*/"],
  ["comment start", "/*"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder is the hostile text itself.
  ["template placeholder", "${process.exit(1)}"],
  ["backtick", "`"],
  ["line separator", "\u2028"],
  ["paragraph separator", "\u2029"],
  ["NUL", "\u0000"],
  ["newline", "\n"],
  ["script end", "</script>"],
  ["__proto__", "__proto__"],
  ["constructor", "constructor"],
  ["pointer characters", "~1/~0"],
  ["percent", "%25%"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder is part of the hostile text.
  ["everything", "\"'\\*/${`}\u2028\u0000"],
];

/** The text escaped for a regular expression with the `u` flag: syntax characters get a backslash, others stay. */
export function regExpLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The names one row's contract uses, so tests can build instances with them. */
export function rowNames(text: string) {
  return {
    /** A required property whose schema is a `$ref` to a `$defs` entry with a hostile key. */
    ref: `k${text}`,
    defs: `d${text}`,
    /**
     * A property named exactly the hostile text, whose `enum` holds it too. Except `__proto__`: Ajv ignores a
     * property of that name, so the validator stage refuses it (with its pointer) rather than accept any value.
     */
    enumKey: text === "__proto__" ? "e__proto__" : text,
    constKey: `c${text}`,
    patternKey: `p${text}`,
  };
}

/** A contract for one row: every place that ends up in generated code holds the hostile text. */
export function hostileContract(index: number, text: string): Record<string, unknown> {
  const names = rowNames(text);
  const properties: Record<string, unknown> = {};
  // Computed keys, so a key called `__proto__` is an own property and not a prototype.
  Object.defineProperty(properties, names.ref, {
    value: { $ref: `#/$defs/${encodeURIComponent(escapePointerToken(names.defs))}`, description: text },
    enumerable: true,
  });
  Object.defineProperty(properties, names.enumKey, {
    value: { enum: [text, `${text}x`, "plain"], title: text },
    enumerable: true,
  });
  Object.defineProperty(properties, names.constKey, { value: { const: text }, enumerable: true });
  Object.defineProperty(properties, names.patternKey, {
    value: { type: "string", maxLength: 48, pattern: `^${regExpLiteral(text)}[a-z]{0,3}$` },
    enumerable: true,
  });
  const defs: Record<string, unknown> = {};
  Object.defineProperty(defs, names.defs, {
    value: { type: "string", maxLength: 32, description: `*/ ${text} /*` },
    enumerable: true,
  });
  return {
    name: `injection_${index}`,
    title: `Title ${text}`,
    description: `Description ${text} */ \`${text}\``,
    inputSchema: {
      type: "object",
      properties: JSON.parse(JSON.stringify(properties)),
      additionalProperties: false,
      $defs: JSON.parse(JSON.stringify(defs)),
    },
    outputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: text,
      description: text,
      type: "object",
      properties,
      required: [names.ref],
      additionalProperties: false,
      $defs: defs,
    },
    "x-toolgate": { version: text === "" ? "1" : `v${text}`, context: { unit: "bytes", max: 4096 } },
  };
}

/** Instances for one row, each with the verdict it deserves. */
export function hostileInstances(
  text: string,
): Array<{ label: string; value: Record<string, unknown>; valid: boolean }> {
  const names = rowNames(text);
  const make = (entries: Array<[string, unknown]>) => {
    const value: Record<string, unknown> = {};
    for (const [key, item] of entries) Object.defineProperty(value, key, { value: item, enumerable: true });
    return value;
  };
  const full: Array<[string, unknown]> = [
    [names.ref, `v${text}`],
    [names.enumKey, text],
    [names.constKey, text],
    [names.patternKey, `${text}ab`],
  ];
  const swap = (key: string, item: unknown) => full.map(([k, v]): [string, unknown] => [k, k === key ? item : v]);
  return [
    { label: "every field, valid", value: make(full), valid: true },
    { label: "the required field only", value: make([[names.ref, text]]), valid: true },
    { label: "the other enum value", value: make(swap(names.enumKey, `${text}x`)), valid: true },
    { label: "an enum near miss", value: make(swap(names.enumKey, `${text}y`)), valid: false },
    { label: "a const near miss", value: make(swap(names.constKey, `${text} `)), valid: false },
    { label: "a pattern miss", value: make(swap(names.patternKey, `zz${text}`)), valid: false },
    { label: "a $defs bound broken", value: make(swap(names.ref, "x".repeat(33))), valid: false },
    { label: "the required field missing", value: make(full.slice(1)), valid: false },
    { label: "an undeclared key", value: make([...full, [`${text}extra`, 1]]), valid: false },
  ];
}
