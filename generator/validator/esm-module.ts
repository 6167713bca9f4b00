/**
 * Turning Ajv's standalone output into one real ES module that imports only toolgate's run-time entries.
 *
 * Ajv's `standaloneCode` with `code.esm` still reaches its run-time helpers through `require()`. Each such call is
 * replaced by a name imported from a light entry of `@toolgate/runtime` (`@toolgate/runtime/validators`, and
 * `@toolgate/runtime/formats` where formats are asserted): a cold start loads every validator, and none of them
 * needs the gate. A `require` that toolgate does not know is an error, and a syntax-level check proves none
 * survives. Each validator is wrapped in its own function scope, so validators
 * compiled by different Ajv instances (whose local names overlap: `validate10`, `schema31`, …) share one module.
 */
import { ts } from "ts-morph";
import { RESERVED_WORDS } from "../model/names.js";
import { FAIL_FUNCTION, FAIL_NAME, withSharedFailures } from "./error-returns.js";
import { RELOCATE_FUNCTION, RELOCATE_NAME, withFastPaths } from "./fast-paths.js";

/** The entry every generated validator imports its helpers from: no other part of the runtime comes with it. */
export const VALIDATORS_MODULE = "@toolgate/runtime/validators";
/** The entry of the format checks, imported only by validators that assert `format`. */
export const FORMATS_MODULE = "@toolgate/runtime/formats";

/** A name a generated validator imports, and the entry that exports it. */
interface RuntimeImport {
  module: string;
  name: string;
}

/** Every `require(…)` expression Ajv or ajv-formats emits, and the run-time export that replaces it. */
const RUNTIME_REPLACEMENTS: ReadonlyMap<string, RuntimeImport> = new Map([
  ['require("ajv/dist/runtime/equal").default', { module: VALIDATORS_MODULE, name: "jsonEqual" }],
  ['require("ajv/dist/runtime/ucs2length").default', { module: VALIDATORS_MODULE, name: "codePointLength" }],
  ['require("@toolgate/runtime/validators").jsonKey', { module: VALIDATORS_MODULE, name: "jsonKey" }],
  ['require("@toolgate/runtime/validators").firstDuplicate', { module: VALIDATORS_MODULE, name: "firstDuplicate" }],
  ['require("@toolgate/runtime/validators").inEnum', { module: VALIDATORS_MODULE, name: "inEnum" }],
  ['require("ajv-formats/dist/formats").fullFormats', { module: FORMATS_MODULE, name: "formatValidators" }],
]);

/** Matches one `require("…")` call with the property read right after it. */
const REQUIRE_CALL = /require\("([^"\\]*)"\)(\.[A-Za-z_$][\w$]*)?/g;

/** One validator's standalone code, ready to be placed in a module. */
export interface StandaloneValidator {
  exportName: string;
  /** Ajv's standalone module text for this validator alone. */
  code: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const EXPORT_LINE = /^export const ([A-Za-z_$][\w$]*) = ([A-Za-z_$][\w$]*);$/m;

/** Throws unless a name can be an `export const` binding that does not shadow a runtime import. */
export function assertExportName(name: string): void {
  if (!IDENTIFIER.test(name) || RESERVED_WORDS.has(name)) {
    throw new TypeError(`validator export name ${JSON.stringify(name)} is not a JavaScript identifier`);
  }
  const taken = [...RUNTIME_REPLACEMENTS.values()].find((runtimeImport) => runtimeImport.name === name);
  if (taken !== undefined) {
    throw new TypeError(`validator export name ${JSON.stringify(name)} is taken by an import from ${taken.module}`);
  }
  if (name === FAIL_NAME || name === RELOCATE_NAME) {
    throw new TypeError(`validator export name ${JSON.stringify(name)} is taken by the module's error function`);
  }
}

/** The same standalone code, exported under another name (Ajv writes the name into its export line). */
export function exportedAs(validator: StandaloneValidator, exportName: string): StandaloneValidator {
  if (validator.exportName === exportName) return validator;
  assertExportName(exportName);
  const exported = EXPORT_LINE.exec(validator.code);
  if (exported === null || exported[1] !== validator.exportName) {
    throw new Error(`Ajv's standalone code for ${validator.exportName} has no export line`);
  }
  return {
    exportName,
    code: validator.code.replace(EXPORT_LINE, () => `export const ${exportName} = ${exported[2] as string};`),
  };
}

/** A line on which Ajv declares a schema literal (always one line: Ajv writes it with `JSON.stringify`). */
const SCHEMA_LITERAL = /^const (schema\d+) = .*;$/gm;

/**
 * Ajv declares a literal for every schema it compiles, but the code reads one only where an error or a keyword
 * needs it. A literal whose name occurs nowhere else is dead weight at load time: leave it out.
 */
export function withoutUnusedSchemas(body: string): string {
  const uses = new Map<string, number>();
  for (const match of body.matchAll(/\bschema\d+\b/g)) uses.set(match[0], (uses.get(match[0]) ?? 0) + 1);
  return body
    .replace(SCHEMA_LITERAL, (line, name: string) => ((uses.get(name) ?? 0) > 1 ? line : ""))
    .replace(/\n{3,}/g, "\n\n");
}

/**
 * One ES module body exporting every validator, importing Ajv's helpers from toolgate's run-time entries, with one
 * function for the validators' first-error returns (see `error-returns.ts`).
 */
export function assembleModule(validators: readonly StandaloneValidator[]): string {
  const imports = new Map<string, Set<string>>();
  const sections: string[] = [];
  let failures = false;
  let relocates = false;
  // The rewrites are a function of a validator's body alone, and a catalog's module often holds one body many times
  // (tools that return the same schema): each distinct body is rewritten once.
  const rewritten = new Map<string, { code: string; calls: boolean; relocates: boolean }>();
  for (const { exportName, code } of validators) {
    const exported = EXPORT_LINE.exec(code);
    if (exported === null || exported[1] !== exportName) {
      throw new Error(`Ajv's standalone code for ${exportName} has no export line`);
    }
    const functionName = exported[2] as string;
    const body = code
      .replace(/^"use strict";\n?/, "")
      .replace(EXPORT_LINE, "")
      .replace(REQUIRE_CALL, (call) => {
        const replacement = RUNTIME_REPLACEMENTS.get(call);
        if (replacement === undefined) {
          throw new Error(`the standalone validator needs ${call}, which @toolgate/runtime does not provide`);
        }
        const names = imports.get(replacement.module) ?? new Set<string>();
        names.add(replacement.name);
        imports.set(replacement.module, names);
        return replacement.name;
      })
      .trim();
    let section = rewritten.get(body);
    if (section === undefined) {
      const fast = withFastPaths(withoutUnusedSchemas(body));
      // A rewrite may leave a literal unread (a lookup in a schema's names, now comparisons).
      const shared = withSharedFailures(withoutUnusedSchemas(fast.code));
      section = { code: shared.code, calls: shared.calls, relocates: fast.relocates };
      rewritten.set(body, section);
    }
    relocates ||= section.relocates;
    failures ||= section.calls;
    sections.push(`export const ${exportName} = (() => {\n${section.code}\nreturn ${functionName};\n})();\n`);
  }
  const helpers = (failures ? `${FAIL_FUNCTION}\n` : "") + (relocates ? `${RELOCATE_FUNCTION}\n` : "");
  const head = importLines(imports) + helpers;
  // Each section is a whole statement, and the head is this module's own text (import lines of the names in
  // RUNTIME_REPLACEMENTS, the helper functions), which neither calls `require` nor writes a `__proto__` key: the
  // module parsed whole finds what its sections parsed one by one find, each moved by the text before it. Only a
  // section whose text could spell either name is parsed (see `mayNameGuarded`).
  const fixed: string[] = [];
  for (const section of sections) {
    const own = mayNameGuarded(section) ? withOwnPrototypeKeys(section) : section;
    // A `require` is reported with its line in the whole module.
    if (own === undefined) return ownPrototypeKeys(head + sections.join("\n"));
    fixed.push(own);
  }
  return head + fixed.join("\n");
}

/**
 * Whether a text could spell the identifier `require` or the key `__proto__`: the names as written, or any escape
 * but those that only ever stand for a quote, a backslash, a slash or a control character (in an identifier,
 * `\u0072`; in a string, `\x5f`, `\_`, a line continuation). A backslash pair is taken as one escape first, so a
 * backslash followed by `u` is not taken for `\u`. A text for which this is false holds neither name.
 */
function mayNameGuarded(text: string): boolean {
  for (const [match] of text.matchAll(/\\\\|\\[^"/bfnrt]|\brequire\b|__proto__/g)) if (match !== "\\\\") return true;
  return false;
}

/** One sorted import line per run-time entry, entries in name order (the same input gives the same bytes). */
function importLines(imports: ReadonlyMap<string, ReadonlySet<string>>): string {
  if (imports.size === 0) return "";
  const lines = [...imports.keys()]
    .sort()
    .map((module) => `import { ${[...(imports.get(module) ?? [])].sort().join(", ")} } from "${module}";\n`);
  return `${lines.join("")}\n`;
}

/** What one parse of a module finds: where `require` is mentioned, and the `__proto__` keys of object literals. */
function scanModule(code: string): { file: ts.SourceFile; requireAt?: number; prototypeKeys: ts.PropertyName[] } {
  const file = ts.createSourceFile("validators.js", code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  const prototypeKeys: ts.PropertyName[] = [];
  let requireAt: number | undefined;
  const stack: ts.Node[] = [file];
  while (stack.length > 0) {
    const node = stack.pop() as ts.Node;
    if (ts.isIdentifier(node) && node.text === "require") requireAt ??= node.getStart(file);
    if (
      ts.isPropertyAssignment(node) &&
      (ts.isStringLiteral(node.name) || ts.isIdentifier(node.name)) &&
      node.name.text === "__proto__"
    ) {
      prototypeKeys.push(node.name);
    }
    node.forEachChild((child) => {
      stack.push(child);
    });
  }
  return { file, requireAt, prototypeKeys };
}

/**
 * Checks that no `require` survives (see {@link assertNoRequire}), then fixes `__proto__` keys: Ajv writes schema
 * values (`const`, `enum`, the schema itself) into the module as object literals. In a literal, a
 * `"__proto__": value` entry sets the object's prototype instead of creating a property, so a schema value such as
 * `{"const": {"__proto__": 1}}` would change meaning. Every such entry becomes a computed key, `["__proto__"]`, which
 * creates an own property exactly as `JSON.parse` does.
 */
export function ownPrototypeKeys(code: string): string {
  const fixed = withOwnPrototypeKeys(code);
  if (fixed === undefined) {
    const { file, requireAt } = scanModule(code);
    throwRequire(file, requireAt as number);
  }
  return fixed;
}

/** {@link ownPrototypeKeys}' rewrite, or undefined when the code still calls `require`. */
function withOwnPrototypeKeys(code: string): string | undefined {
  const { file, requireAt, prototypeKeys } = scanModule(code);
  if (requireAt !== undefined) return undefined;
  let rewritten = code;
  for (const name of prototypeKeys.sort((a, b) => b.getStart(file) - a.getStart(file))) {
    rewritten = `${rewritten.slice(0, name.getStart(file))}["__proto__"]${rewritten.slice(name.getEnd())}`;
  }
  return rewritten;
}

function throwRequire(file: ts.SourceFile, position: number): never {
  const { line } = file.getLineAndCharacterOfPosition(position);
  throw new Error(`the generated validator module still calls require() (line ${line + 1})`);
}

/**
 * Throws when the code still mentions `require` as an identifier. Parsed rather than searched: a schema's strings
 * (a `pattern`, a `const`) may well contain the text `require(`.
 */
export function assertNoRequire(code: string): void {
  const { file, requireAt } = scanModule(code);
  if (requireAt !== undefined) throwRequire(file, requireAt);
}
