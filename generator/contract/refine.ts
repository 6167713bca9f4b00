/**
 * Bounds as an overlay: `x-toolgate.refine` merged into the output schema after resolve, before the safety check,
 * the bounds check and the model, so the validator, the types, the bounds and the view all follow the refined schema.
 *
 * `refine` maps a JSON pointer into the contract's output schema (the subschema as written: `/properties/content`)
 * to keywords merged into that subschema. Only keywords that narrow what the schema accepts are allowed (see
 * {@link NARROWING_KEYWORDS}); where the subschema already has one, the tighter of the two holds, so a refined schema
 * never accepts a value the schema as written refuses. Anything else is a contract error at
 * `/x-toolgate/refine/<pointer>/<keyword>`.
 *
 * The schema as written stays untouched: it is what the MCP server advertises, and what `mcpValidatorProvider` finds
 * a validator for by its hash. `import --force` replaces the schema and keeps `x-toolgate`, so the overlay survives.
 *
 * `x-toolgate.refineInput` is the same overlay for the input schema: the generated `validateInput` checks the
 * refined schema, while the server and the host keep the one as written.
 *
 * One change does not narrow, and is allowed because the safety stage may refuse a server's pattern the user cannot
 * edit: `{"pattern": NEW, "replaces": OLD}` puts NEW in place of the subschema's own `pattern`, which must be OLD
 * exactly (so a server that changes its pattern makes the contract fail until the replacement is reviewed). The
 * output schema's replacements apply to the advertised schema's validator too, so the refused pattern is compiled
 * nowhere. Choose NEW to accept what OLD accepts within the field's bounds (a linear rewrite, or the same language
 * with a `maxLength`): the gate then checks NEW, and the server still checks what it receives with OLD.
 */
import { isSchemaObject } from "../schema/guards.js";
import { canonicalJson } from "../schema/json.js";
import { escapePointerToken, pointerTokens } from "../schema/pointer.js";
import type { JsonSchema, ResolvedSchema, SchemaObject } from "../schema/shapes.js";
import { subschemas } from "../schema/walk.js";
import { ContractError, ContractErrors } from "./errors.js";

/** Every keyword a refinement may add, and how it is merged with the same keyword already in the schema. */
export const NARROWING_KEYWORDS = [
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "maximum",
  "minimum",
  "exclusiveMaximum",
  "exclusiveMinimum",
  "pattern",
  "enum",
  "const",
  "required",
  "additionalProperties",
  "format",
] as const;

type Keyword = (typeof NARROWING_KEYWORDS)[number];

const UPPER = new Set<string>(["maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum"]);
const LOWER = new Set<string>(["minLength", "minItems", "minimum", "exclusiveMinimum"]);
const COUNTS = new Set<string>(["maxLength", "minLength", "maxItems", "minItems", "maxProperties"]);

/** The overlays: `x-toolgate` keys, each for one schema of the contract. */
export type Overlay = "refine" | "refineInput";

/** Where a refinement sits in the contract file. */
function refinePointer(pointer: string, keyword?: string, overlay: Overlay = "refine"): string {
  const at = `/x-toolgate/${overlay}/${escapePointerToken(pointer)}`;
  return keyword === undefined ? at : `${at}/${escapePointerToken(keyword)}`;
}

/** What a contract's refinement needs to know of the contract. */
export interface RefineContext {
  /** The contract file as shown to the user. */
  file: string;
  /** Whether the validator asserts `format` (`x-toolgate.formats`): only then does a format narrow. */
  formats: "annotate" | "assert";
  /** Which overlay this is: `refine` (the output schema, the default) or `refineInput` (the input schema). */
  overlay?: Overlay | undefined;
}

/** The keyword that names the pattern an overlay's `pattern` replaces (see the module comment). */
const REPLACES = "replaces";

/**
 * The output schema with the refinements merged in: a new {@link ResolvedSchema} whose `root` (for the validator)
 * and `bundled` copy (for types, bounds and the view) both carry them. Pure: `resolved` is not changed. Throws
 * {@link ContractErrors}, one per refinement at fault.
 */
export function refineSchema(
  resolved: ResolvedSchema,
  refine: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  context: RefineContext,
): ResolvedSchema {
  const pointers = Object.keys(refine).sort();
  if (pointers.length === 0) return resolved;
  const known = new Set<string>();
  for (const visit of subschemas(resolved.root)) known.add(visit.pointer);
  const root = structuredClone(resolved.root);
  const bundled = structuredClone(resolved.bundled);
  const errors: ContractError[] = [];
  let refinedRoot: JsonSchema = root;
  let refinedBundled: JsonSchema = bundled;
  for (const pointer of pointers) {
    const keywords = refine[pointer] as Readonly<Record<string, unknown>>;
    if (!known.has(pointer)) {
      errors.push(
        new ContractError(
          context.file,
          refinePointer(pointer, undefined, context.overlay),
          `${JSON.stringify(pointer)} names no subschema of the ${schemaName(context)} as written (a pointer such as "/properties/content" or "/items")`,
        ),
      );
      continue;
    }
    const found = checkKeywords(keywords, pointer, context, resolved);
    if (found.length > 0) {
      errors.push(...found);
      continue;
    }
    try {
      refinedRoot = mergeAt(refinedRoot, pointer, keywords, context, resolved.dialect);
      refinedBundled = mergeAt(refinedBundled, pointer, keywords, context, resolved.dialect);
    } catch (error) {
      if (!(error instanceof ContractError)) throw error;
      errors.push(error);
    }
  }
  if (errors.length > 0) throw new ContractErrors(errors);
  return { ...resolved, root: refinedRoot, bundled: refinedBundled };
}

/** The problems of one refinement's keywords, on their own. */
function checkKeywords(
  keywords: Readonly<Record<string, unknown>>,
  pointer: string,
  context: RefineContext,
  resolved: ResolvedSchema,
): ContractError[] {
  const errors: ContractError[] = [];
  const fail = (keyword: string, message: string) =>
    errors.push(new ContractError(context.file, refinePointer(pointer, keyword, context.overlay), message));
  for (const keyword of Object.keys(keywords)) {
    const value = keywords[keyword];
    if (keyword === REPLACES) {
      if (typeof value !== "string") fail(keyword, "must be a string: the subschema's own pattern, as written");
      else if (typeof keywords.pattern !== "string")
        fail(keyword, "names the pattern that `pattern` replaces: give `pattern` too");
      continue;
    }
    if (!(NARROWING_KEYWORDS as readonly string[]).includes(keyword)) {
      fail(
        keyword,
        `\`${keyword}\` cannot refine a schema: an overlay may only narrow what the schema accepts, with ${NARROWING_KEYWORDS.join(", ")}`,
      );
      continue;
    }
    const problem = valueProblem(keyword as Keyword, value, context, resolved);
    if (problem !== undefined) fail(keyword, problem);
  }
  return errors;
}

/** What is wrong with one keyword's value, if anything. */
function valueProblem(
  keyword: Keyword,
  value: unknown,
  context: RefineContext,
  resolved: ResolvedSchema,
): string | undefined {
  if (COUNTS.has(keyword)) {
    return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : "must be a non-negative integer";
  }
  if (UPPER.has(keyword) || LOWER.has(keyword)) {
    return typeof value === "number" && Number.isFinite(value) ? undefined : "must be a number";
  }
  switch (keyword) {
    case "pattern":
      if (typeof value !== "string") return "must be a string (a regular expression)";
      try {
        new RegExp(value, "u");
      } catch {
        return "is not a Unicode regular expression";
      }
      return undefined;
    case "enum":
      return Array.isArray(value) && value.length > 0 ? undefined : "must be a non-empty array of values";
    case "const":
      return undefined;
    case "required":
      return Array.isArray(value) && value.every((name) => typeof name === "string")
        ? undefined
        : "must be an array of property names";
    case "additionalProperties":
      return value === false
        ? undefined
        : "only `false` narrows: a schema for the other properties may accept what the contract refuses today";
    case "format":
      if (typeof value !== "string") return "must be a format name";
      return context.formats === "assert"
        ? undefined
        : `a format narrows only when the validator asserts it: set "formats": "assert" in x-toolgate (the ${resolved.dialect} default is an annotation)`;
    default:
      return undefined;
  }
}

/** `document` with the keywords merged into the subschema at `pointer` (copied already: changed in place). */
function mergeAt(
  document: JsonSchema,
  pointer: string,
  keywords: Readonly<Record<string, unknown>>,
  context: RefineContext,
  dialect: ResolvedSchema["dialect"],
): JsonSchema {
  const tokens = pointerTokens(pointer) ?? [];
  const at = refinePointer(pointer, undefined, context.overlay);
  let parent: SchemaObject | unknown[] | undefined;
  let node: unknown = document;
  for (const token of tokens) {
    parent = node as SchemaObject | unknown[];
    node = Array.isArray(node) ? node[Number(token)] : (node as SchemaObject)[token];
  }
  if (node === false) {
    throw new ContractError(
      context.file,
      at,
      "names a `false` schema, which accepts nothing: there is nothing to narrow",
    );
  }
  let target: SchemaObject;
  if (node === true || node === undefined) {
    target = {};
    if (parent === undefined) document = target;
    else if (Array.isArray(parent)) parent[Number(tokens[tokens.length - 1])] = target;
    else parent[tokens[tokens.length - 1] as string] = target;
  } else {
    target = node as SchemaObject;
  }
  if (dialect === "draft-07" && typeof target.$ref === "string") {
    throw new ContractError(
      context.file,
      at,
      "names a draft-07 schema with `$ref`, whose other keywords draft-07 ignores: refine the schema the `$ref` points to",
    );
  }
  const replaced = keywords[REPLACES];
  if (typeof replaced === "string") {
    if (target.pattern !== replaced) {
      throw new ContractError(
        context.file,
        refinePointer(pointer, REPLACES, context.overlay),
        `the subschema's pattern is ${target.pattern === undefined ? "absent" : JSON.stringify(target.pattern)}, not ` +
          `${JSON.stringify(replaced)}: the server changed it; review the replacement, then name the pattern it replaces`,
      );
    }
    target.pattern = keywords.pattern;
  }
  for (const keyword of Object.keys(keywords).sort()) {
    if (typeof replaced === "string" && (keyword === REPLACES || keyword === "pattern")) continue;
    merge(target, keyword, keywords[keyword], context, pointer);
  }
  return document;
}

/** What an overlay's schema is called in messages. */
function schemaName(context: RefineContext): string {
  return context.overlay === "refineInput" ? "input schema" : "output schema";
}

/**
 * Only the pattern replacements of an overlay (`{pattern, replaces}` entries): what the advertised output schema's
 * validator takes from it, so a pattern the safety stage refuses is compiled nowhere.
 */
export function replacementsOf(
  refine: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [pointer, keywords] of Object.entries(refine)) {
    if (isSchemaObject(keywords) && typeof keywords[REPLACES] === "string") {
      out[pointer] = { pattern: keywords.pattern, [REPLACES]: keywords[REPLACES] };
    }
  }
  return out;
}

/** Merge one keyword so that the result accepts no more than either side. */
function merge(target: SchemaObject, keyword: string, value: unknown, context: RefineContext, pointer: string): void {
  const existing = Object.hasOwn(target, keyword) ? target[keyword] : undefined;
  const conflict = (message: string) =>
    new ContractError(context.file, refinePointer(pointer, keyword, context.overlay), message);
  if (UPPER.has(keyword)) {
    target[keyword] = typeof existing === "number" ? Math.min(existing, value as number) : value;
    return;
  }
  if (LOWER.has(keyword)) {
    target[keyword] = typeof existing === "number" ? Math.max(existing, value as number) : value;
    return;
  }
  switch (keyword) {
    case "pattern":
    case "format":
      if (existing === undefined || existing === value) {
        target[keyword] = value;
        return;
      }
      if (keyword === "format") {
        throw conflict(`the schema already asserts the format ${JSON.stringify(existing)}: a value cannot have two`);
      }
      // Both patterns must match: the schema's stays, the overlay's joins as one more conjunct.
      target.allOf = [...(Array.isArray(target.allOf) ? target.allOf : []), { pattern: value }];
      return;
    case "enum": {
      if (!Array.isArray(existing)) {
        target.enum = structuredClone(value);
        return;
      }
      const allowed = new Set((value as unknown[]).map((item) => canonicalJson(item)));
      const kept = existing.filter((item) => allowed.has(canonicalJson(item)));
      if (kept.length === 0)
        throw conflict("no value of the schema's own enum is left: the result could never be valid");
      target.enum = kept;
      return;
    }
    case "const":
      if (existing !== undefined && canonicalJson(existing) !== canonicalJson(value)) {
        throw conflict("the schema already has another const: the result could never be valid");
      }
      target.const = structuredClone(value);
      return;
    case "required": {
      const names = Array.isArray(existing) ? existing.filter((name) => typeof name === "string") : [];
      for (const name of value as string[]) if (!names.includes(name)) names.push(name);
      target.required = names;
      return;
    }
    case "additionalProperties":
      target.additionalProperties = false;
      return;
    default:
      throw conflict(`\`${keyword}\` cannot refine a schema`);
  }
}

/** Whether a contract refines its output schema. */
export function refines(refine: Readonly<Record<string, unknown>> | undefined): boolean {
  return refine !== undefined && Object.keys(refine).length > 0;
}

/** The pointers of a refinement's keywords, for `diff`: `<schema pointer>/<keyword>` → the contract pointer. */
export function refinedKeywordPointers(
  refine: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const pointer of Object.keys(refine)) {
    const keywords = refine[pointer];
    if (!isSchemaObject(keywords)) continue;
    for (const keyword of Object.keys(keywords)) {
      out.set(`${pointer}/${escapePointerToken(keyword)}`, refinePointer(pointer, keyword));
    }
  }
  return out;
}
