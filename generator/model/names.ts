/**
 * Names for generated identifiers and folders, made from tool names that are hostile input.
 *
 * A tool's name may hold anything: quotes, slashes, reserved words, non-ASCII, or collide with another tool's name
 * once case is converted (`get-record` and `get_record`). Every generated name goes through here: it is a valid
 * identifier (or a safe folder name), never a reserved word, and unique within its scope.
 */

/** ECMAScript reserved words, including strict-mode and module ones: never an identifier toolgate writes. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  (
    "await break case catch class const continue debugger default delete do else enum export extends false finally " +
    "for function if implements import in instanceof interface let new null package private protected public " +
    "return static super switch this throw true try typeof var void while with yield arguments eval"
  ).split(" "),
);

/** Words that cannot name a generated value, or would shadow something generated code relies on. */
const RESERVED = new Set([
  ...RESERVED_WORDS,
  // names with special meaning that would confuse readers or tools
  "undefined",
  "NaN",
  "Infinity",
  "constructor",
  "prototype",
  "__proto__",
  // TypeScript's own type names
  "any",
  "unknown",
  "never",
  "object",
  "string",
  "number",
  "boolean",
  "symbol",
  "bigint",
  "type",
  "declare",
  "namespace",
  "module",
  "keyof",
  "readonly",
  "infer",
  "is",
  "asserts",
  "as",
  "satisfies",
  "from",
  "of",
  // names the generated modules import or declare
  "defineTool",
  "project",
  "viewPlan",
  "buildView",
  "validateResult",
  "validateInput",
  "catalog",
  "Outcome",
  "Projection",
  "ViewPlan",
  "Object",
  "Array",
  "String",
  "Number",
  "Boolean",
  "Symbol",
  "Promise",
  "Error",
]);

/** Split a name into words at separators, case changes and digits boundaries; drop everything else. */
function words(name: string): string[] {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== "");
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/** `get_record` → `GetRecord`. Never empty, never starts with a digit. */
export function pascalCase(name: string): string {
  const joined = words(name).map(capitalize).join("");
  if (joined === "") return "Tool";
  return /^[0-9]/.test(joined) ? `T${joined}` : joined;
}

/** `get_record` → `getRecord`. Never empty, never starts with a digit, never reserved. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  const camel = pascal.charAt(0).toLowerCase() + pascal.slice(1);
  return RESERVED.has(camel) ? `${camel}Tool` : camel;
}

/** A folder name for a tool: lower-case ASCII words joined by `_`, never `.`/`..`, never empty. */
export function folderName(name: string): string {
  const joined = words(name)
    .map((word) => word.toLowerCase())
    .join("_");
  return joined === "" ? "tool" : joined;
}

/**
 * Hands out names that are unique within one scope, case-insensitively (folders on case-insensitive file systems,
 * and readers, must not confuse `GetRecord` and `Getrecord`). The first claimant keeps the plain name; later ones
 * get `_2`, `_3`, … Callers claim in a deterministic order (sorted by tool name, then file), so output is stable.
 */
export class NameScope {
  readonly #taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.#taken.add(name.toLowerCase());
  }

  /** Claim `wanted`, or the first free `wanted_N`. */
  claim(wanted: string): string {
    let candidate = wanted;
    for (let n = 2; this.#taken.has(candidate.toLowerCase()); n++) candidate = `${wanted}_${n}`;
    this.#taken.add(candidate.toLowerCase());
    return candidate;
  }
}
