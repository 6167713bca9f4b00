/**
 * The safety stage: contract checks a schema alone cannot fail, but that would hurt the people who run it.
 *
 * A schema can be perfectly valid JSON Schema and still be a weapon against the program that validates with it:
 * - a `pattern` (or a `patternProperties` key) prone to catastrophic backtracking lets one short string from a tool,
 *   or from a model's arguments, pin a CPU for minutes (ReDoS);
 * - a `pattern` that is no regular expression under the `u` flag would be compiled differently, or not at all, by
 *   the generated validator: JSON Schema patterns are ECMA-262 expressions read as Unicode (2020-12 core, 6.4);
 * - an absurdly large or deep schema makes the build slow and the generated validator huge, and recursive
 *   compilers (Ajv's code generator, the type printer) run out of stack;
 * - a `format` no validator knows, where the contract asserts formats, asserts nothing at all: the author meant a
 *   check (`"date_time"` for `"date-time"`) and would get none, silently.
 *
 * Each is a {@link ContractError} naming the file, the JSON pointer and, for patterns, the pattern itself.
 */
import { fileURLToPath } from "node:url";
import type { Diagnostics } from "recheck";
import { ContractError } from "../contract/errors.js";
import { displayPath } from "../contract/load.js";
import { isSchemaObject } from "../schema/guards.js";
import { canonicalJson } from "../schema/json.js";
import { escapePointerToken } from "../schema/pointer.js";
import type { JsonSchema, ResolvedSchema } from "../schema/shapes.js";
import { subschemas } from "../schema/walk.js";
import { ASSERTABLE_FORMATS, DEFINED_FORMATS } from "../validator/unsupported.js";

/**
 * The bounds a contract schema must stay within. The largest real schema in the test corpus (SchemaStore's
 * `vector.json`: 977 KB as compact JSON, 4,381 subschemas, 8 levels of subschemas) fits with a wide margin; a
 * schema past these is a generated or hostile one, and is refused before anything recursive compiles it.
 */
export const SCHEMA_LIMITS = {
  /** Compact JSON of the schema and every document it references, in UTF-16 code units (about bytes). */
  maxChars: 4 * 1024 * 1024,
  /** Subschemas (every object or boolean in a schema position), the schema and its documents together. */
  maxSubschemas: 20_000,
  /**
   * Levels of subschemas below a root. Ajv's code generator and the types stage recurse once per level, and a
   * validator for a 64-level schema is already unreadable; real schemas stay under 10.
   */
  maxDepth: 64,
} as const;

/**
 * How long the ReDoS checker may take per pattern, in milliseconds. A pattern it cannot decide in this time is
 * refused (failing closed): a pattern that hard to analyse is one to simplify anyway.
 */
export const PATTERN_CHECK_TIMEOUT_MS = 10_000;

/**
 * The most backtracking steps a polynomial pattern may cost on the longest string that reaches it, counted as
 * `n^k` for a pattern of degree `k` at `n` code points (recheck's degree counts the search over start positions
 * too, so `x+x+y` is degree 3).
 *
 * Why 100,000: on a shared 2-core machine V8 spends 1 to 7 ns per counted step on recheck's attack strings pumped
 * to their bound (the DNS label at 63 characters, 3,969 steps: 17 µs; a git ref at 255, 65,025 steps: 0.6 ms; a
 * degree-2 pattern at 1,000 characters, 10⁶ steps: 4 to 7 ms), so a value stays within about a millisecond, the
 * order of what validating a whole result costs anyway, and a receive ceiling filled with such values stays within
 * `ceiling / n` of them. The two shapes real servers use (a DNS label at 63, a git ref at 255) fit; a degree-2
 * pattern is accepted up to 316 characters, degree 3 up to 46, degree 4 up to 17.
 *
 * The cost is computed from the degree, not measured by running the attack string: a measurement depends on the
 * machine and its load (the figures above vary threefold between runs here), so the same contract could generate
 * on one machine and be refused on the next, and a build would no longer be a function of its inputs. The degree
 * is recheck's deterministic analysis (its automaton checker's degree of ambiguity, or its fuzzer under a fixed
 * seed), so the verdict is the same everywhere.
 */
export const PATTERN_STEP_BUDGET = 100_000;

/** One regular expression a schema holds, and where. */
export interface SchemaPattern {
  /** The pattern's source as written. */
  source: string;
  /** `pattern` for the keyword, `patternProperties` for a key of that keyword. */
  keyword: "pattern" | "patternProperties";
  /** The file to report (the contract, or a document it references). */
  file: string;
  /** JSON pointer of the pattern inside that file. */
  pointer: string;
  /**
   * The longest string, in code points, the pattern is ever run on: the `maxLength` beside a `pattern`, the
   * `propertyNames.maxLength` beside a `patternProperties` key; absent when nothing bounds it. The generated
   * validator tests the length first and never runs the pattern on a longer string (`test/hardening/redos-bound`).
   */
  maxLength?: number | undefined;
}

/** What the ReDoS checker found out about one pattern. */
export type PatternVerdict =
  | { status: "safe" }
  | {
      status: "vulnerable";
      /** `search`: as JSON Schema runs it; `full-match`: when the whole string must match (`^(?:…)$`). */
      mode: "search" | "full-match";
      complexity: "exponential" | "polynomial";
      degree?: number | undefined;
      /** recheck's attack string, as a JavaScript expression (`'a'.repeat(31) + '\x00'`). */
      attack: string;
    }
  | { status: "unknown"; reason: string };

/** One schema of a contract to check: the schema as resolved, and where it sits. */
export interface SafetyInput {
  /** The contract file as the user named it. */
  file: string;
  schemas: readonly ResolvedSchema[];
  /** The contract's `x-toolgate.formats`: under `assert`, a format no validator knows is an error. */
  formats?: "annotate" | "assert" | undefined;
}

/**
 * Every safety problem of a contract's schemas (output and input), as contract errors; empty when there is none.
 * Size and depth are checked first: a schema past them is not searched for patterns.
 */
export async function checkSchemaSafety(input: SafetyInput): Promise<ContractError[]> {
  const errors: ContractError[] = [];
  const patterns: SchemaPattern[] = [];
  for (const resolved of input.schemas) {
    const roots = schemaRoots(input.file, resolved);
    const sizeErrors = schemaSizeProblems(input.file, resolved);
    errors.push(...sizeErrors);
    if (sizeErrors.length > 0) continue;
    for (const root of roots) {
      patterns.push(...patternsOf(root.schema, root.file, root.pointer));
      if (input.formats === "assert") errors.push(...unknownFormats(root.schema, root.file, root.pointer));
    }
  }
  // Two schemas of a contract may hold the same pattern at the same place (the output schema refined and as
  // advertised): one error for it.
  const seen = new Set<string>();
  for (const pattern of patterns) {
    const problem = await patternProblem(pattern);
    if (problem !== undefined && !seen.has(String(problem))) errors.push(problem);
    if (problem !== undefined) seen.add(String(problem));
  }
  return errors;
}

/** The schema itself and every document it references, each with the file and pointer errors are reported at. */
function schemaRoots(
  file: string,
  resolved: ResolvedSchema,
): Array<{ schema: JsonSchema; file: string; pointer: string }> {
  return [
    { schema: resolved.root, file, pointer: resolved.pointer },
    ...Object.entries(resolved.documents).map(([uri, schema]) => ({ schema, file: documentFile(uri), pointer: "" })),
  ];
}

/** A referenced document's URI as the user knows the file: project files by their path, others by URI. */
function documentFile(uri: string): string {
  const project = "file:///project/";
  if (uri.startsWith(project)) return uri.slice(project.length).split("/").map(decodeURIComponent).join("/");
  if (uri.startsWith("file:")) return displayPath(fileURLToPath(uri));
  return uri;
}

/** A schema's size, subschema count and depth against {@link SCHEMA_LIMITS}, with the documents it references. */
export function schemaSizeProblems(file: string, resolved: ResolvedSchema): ContractError[] {
  const roots = schemaRoots(file, resolved);
  let chars = 0;
  for (const root of roots) {
    try {
      chars += canonicalJson(root.schema).length;
    } catch {
      // Only nesting past what serialisation survives throws here: far past the depth bound checked below.
      return [new ContractError(root.file, root.pointer, tooDeep(Number.POSITIVE_INFINITY))];
    }
  }
  if (chars > SCHEMA_LIMITS.maxChars) {
    return [
      new ContractError(
        file,
        resolved.pointer,
        `the schema and the documents it references take ${chars} characters of compact JSON, more than the ` +
          `${SCHEMA_LIMITS.maxChars} toolgate compiles: split it, or reference shared parts once through $defs`,
      ),
    ];
  }
  let count = 0;
  for (const root of roots) {
    for (const visit of subschemas(root.schema, root.pointer)) {
      count += 1;
      if (visit.depth > SCHEMA_LIMITS.maxDepth)
        return [new ContractError(root.file, visit.pointer, tooDeep(visit.depth))];
      if (count > SCHEMA_LIMITS.maxSubschemas) {
        return [
          new ContractError(
            file,
            resolved.pointer,
            `the schema holds more than ${SCHEMA_LIMITS.maxSubschemas} subschemas (counting the documents it ` +
              "references): split it, or reference repeated parts through $defs instead of copying them",
          ),
        ];
      }
    }
  }
  return [];
}

function tooDeep(depth: number): string {
  const found = Number.isFinite(depth) ? `${depth} levels` : "too many levels";
  return (
    `subschemas nest ${found} deep, past the ${SCHEMA_LIMITS.maxDepth} toolgate compiles: ` +
    "name the inner parts in $defs, or use a $ref that recurses"
  );
}

/**
 * Every `pattern` and `patternProperties` key in a schema, with the pointer of each inside the file. Unused
 * `$defs` are searched too: the validator compiles what the schema holds, and a risky pattern is risky anywhere.
 */
export function patternsOf(schema: JsonSchema, file: string, pointer = ""): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  for (const visit of subschemas(schema, pointer)) {
    if (!isSchemaObject(visit.schema)) continue;
    const { pattern, patternProperties, propertyNames } = visit.schema;
    if (typeof pattern === "string") {
      const maxLength = lengthBound(visit.schema.maxLength);
      found.push({ source: pattern, keyword: "pattern", file, pointer: `${visit.pointer}/pattern`, maxLength });
    }
    if (isSchemaObject(patternProperties)) {
      // Property names reach these patterns; only `propertyNames` bounds them, and Ajv checks it first.
      const maxLength = isSchemaObject(propertyNames) ? lengthBound(propertyNames.maxLength) : undefined;
      for (const key of Object.keys(patternProperties)) {
        found.push({
          source: key,
          keyword: "patternProperties",
          file,
          pointer: `${visit.pointer}/patternProperties/${escapePointerToken(key)}`,
          maxLength,
        });
      }
    }
  }
  return found;
}

/** A `maxLength` value that bounds a string (a whole number, 0 or more), or `undefined`. */
function lengthBound(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Verdicts by pattern source: contracts share patterns, and one process generates many contracts. */
const verdicts = new Map<string, Promise<PatternVerdict>>();

/**
 * Whether a pattern, compiled with the `u` flag as the generated validators compile it, can backtrack
 * catastrophically, according to the recheck ReDoS checker (https://makenowjust-labs.github.io/recheck/).
 *
 * The pattern is judged twice. First as JSON Schema runs it: an unanchored search (2020-12 validation, 6.3.3).
 * Then as a full match, `^(?:…)$`: the same contract is published to the tool's server and its clients, and
 * validators that anchor patterns (Java's `String.matches` behind Bean Validation's `@Pattern`, Python's
 * `re.fullmatch`, XML Schema facets) run it that way. `(a+)+` is harmless as a search, since it succeeds at the
 * first `a`, and exponential as a full match. The verdict is the worse of the two: one that cannot be decided, then
 * an exponential one, then the polynomial one of the higher degree (the search's on a tie).
 *
 * recheck runs as a native binary when its package ships one for the platform, else on the JVM, else in a worker
 * thread; `RECHECK_BACKEND=pure` runs it in this thread. Every backend is the same analysis with a fixed seed.
 */
export function judgePattern(source: string): Promise<PatternVerdict> {
  let verdict = verdicts.get(source);
  if (verdict === undefined) {
    verdict = judgeOnce(source, "search").then(async (search) => {
      if (search.status === "unknown" || (search.status === "vulnerable" && search.complexity === "exponential")) {
        return search;
      }
      const full = await judgeOnce(`^(?:${source})$`, "full-match");
      return severity(full) > severity(search) ? full : search;
    });
    verdicts.set(source, verdict);
  }
  return verdict;
}

/** How bad a verdict is, for choosing the worse of two: safe 0, polynomial its degree, exponential, unknown. */
function severity(verdict: PatternVerdict): number {
  if (verdict.status === "safe") return 0;
  if (verdict.status === "unknown") return Number.POSITIVE_INFINITY;
  return verdict.complexity === "exponential" ? Number.MAX_VALUE : (verdict.degree ?? 2);
}

async function judgeOnce(source: string, mode: "search" | "full-match"): Promise<PatternVerdict> {
  let diagnostics: Diagnostics;
  try {
    // Loaded on first use: contracts without patterns never start the checker.
    const { check } = await import("recheck");
    diagnostics = await check(source, "u", { timeout: PATTERN_CHECK_TIMEOUT_MS });
  } catch (error) {
    return { status: "unknown", reason: `the checker failed: ${error instanceof Error ? error.message : error}` };
  }
  if (diagnostics.status === "safe") return { status: "safe" };
  if (diagnostics.status === "vulnerable") {
    const complexity = diagnostics.complexity;
    return {
      status: "vulnerable",
      mode,
      complexity: complexity.type,
      degree: complexity.type === "polynomial" ? complexity.degree : undefined,
      attack: diagnostics.attack.pattern,
    };
  }
  const error = diagnostics.error;
  const reason =
    error.kind === "timeout"
      ? `it could not be analysed within ${PATTERN_CHECK_TIMEOUT_MS} ms`
      : error.kind === "cancel"
        ? "its analysis was cancelled"
        : `the checker cannot read it (${error.message})`;
  return { status: "unknown", reason };
}

/**
 * Why a pattern must not be compiled, or `undefined` when it is fine.
 *
 * An exponential pattern is refused whatever bounds it: at 63 characters it already takes longer than anyone waits.
 * A polynomial one is costed at the longest string that reaches it ({@link SchemaPattern.maxLength}: the generated
 * validator checks `maxLength` before the pattern and stops at the first error, inside `anyOf`, `oneOf` and `not`
 * too) and accepted when that cost stays within {@link PATTERN_STEP_BUDGET}; with nothing bounding the string it is
 * refused, since JSON Schema patterns are unanchored searches and an input has no receive ceiling. The worse of the
 * search and the full match is costed (see {@link judgePattern}); a pattern the checker cannot decide is refused,
 * failing closed.
 */
export async function patternProblem(pattern: SchemaPattern): Promise<ContractError | undefined> {
  const shown = JSON.stringify(pattern.source);
  const what = pattern.keyword === "pattern" ? "the pattern" : "the patternProperties key";
  try {
    new RegExp(pattern.source, "u");
  } catch (error) {
    const reason = (error as SyntaxError).message.replace(/^Invalid regular expression: /, "");
    return new ContractError(
      pattern.file,
      pattern.pointer,
      `${what} ${shown} is not an ECMA-262 regular expression with the u flag (${reason}); JSON Schema patterns ` +
        "are read as Unicode: escape only syntax characters, and write { and } as \\{ and \\}",
    );
  }
  const verdict = await judgePattern(pattern.source);
  if (verdict.status === "safe") return undefined;
  if (verdict.status === "unknown") {
    return new ContractError(
      pattern.file,
      pattern.pointer,
      `${what} ${shown} cannot be proven free of catastrophic backtracking: ${verdict.reason}; simplify it`,
    );
  }
  const degree = verdict.degree ?? 2;
  const steps = pattern.maxLength === undefined ? undefined : pattern.maxLength ** degree;
  if (verdict.complexity === "polynomial" && steps !== undefined && steps <= PATTERN_STEP_BUDGET) return undefined;
  const cost = verdict.complexity === "exponential" ? "exponential" : `polynomial (degree ${degree})`;
  const where =
    verdict.mode === "search"
      ? "as JSON Schema runs it (a search)"
      : "when the whole string must match (^…$), as validators that anchor patterns run it";
  return new ContractError(
    pattern.file,
    pattern.pointer,
    `${what} ${shown} backtracks catastrophically ${where}: matching takes ${cost} time in the length of the ` +
      `string (for example on ${verdict.attack}), so one crafted value can stall whoever validates with it ` +
      `(ReDoS); ${patternAdvice(pattern, verdict.complexity, degree, steps)}`,
  );
}

/** How to mend a pattern in a schema the user does not own (a server's), without editing it. */
const OVERLAY_HINT =
  "; in a server's schema, mend it in the contract without editing the schema: x-toolgate.refineInput (input) at " +
  'its subschema, {"maxLength": N} or {"pattern": NEW, "replaces": OLD}; x-toolgate.refine (output), ' +
  '{"pattern": NEW, "replaces": OLD}';

/** What to do about a refused pattern: the bound that would make a polynomial one acceptable, or a rewrite. */
function patternAdvice(
  pattern: SchemaPattern,
  complexity: "exponential" | "polynomial",
  degree: number,
  steps: number | undefined,
): string {
  const rewrite = "remove nested or adjacent quantifiers over the same characters";
  if (complexity === "exponential")
    return `${rewrite} (no length bound makes an exponential pattern safe)${OVERLAY_HINT}`;
  // The longest bound whose cost stays within the budget (floating point may land one off either way).
  let longest = Math.floor(PATTERN_STEP_BUDGET ** (1 / degree));
  while ((longest + 1) ** degree <= PATTERN_STEP_BUDGET) longest += 1;
  while (longest > 0 && longest ** degree > PATTERN_STEP_BUDGET) longest -= 1;
  const bound = pattern.keyword === "pattern" ? "maxLength" : "propertyNames.maxLength";
  const now =
    steps === undefined
      ? `nothing bounds the strings it runs on`
      : `at ${bound} ${pattern.maxLength} its worst case is ${steps.toExponential(1)} steps, past the budget of ${PATTERN_STEP_BUDGET}`;
  return `${now}: ${rewrite}, or bound it with ${bound} ${longest} or less beside it${OVERLAY_HINT}`;
}

/** Every format name a validator knows: those toolgate asserts and those JSON Schema defines (refused elsewhere). */
const KNOWN_FORMATS: readonly string[] = [...new Set([...ASSERTABLE_FORMATS, ...DEFINED_FORMATS])].sort();

/**
 * Every `format` in a schema that names no known format, as contract errors, each with the nearest known name when
 * one is close. Only asserted formats are checked: as an annotation (the 2020-12 default) any name is fine, and JSON
 * Schema lets an annotation carry a vocabulary of its own. Unused `$defs` are searched too, as for patterns.
 */
export function unknownFormats(schema: JsonSchema, file: string, pointer = ""): ContractError[] {
  const errors: ContractError[] = [];
  for (const visit of subschemas(schema, pointer)) {
    if (!isSchemaObject(visit.schema)) continue;
    const format = visit.schema.format;
    if (typeof format !== "string" || KNOWN_FORMATS.includes(format)) continue;
    const nearest = nearestFormat(format);
    const shown = JSON.stringify(format.length > 100 ? `${format.slice(0, 100)}…` : format);
    const hint =
      nearest === undefined
        ? `use one of ${KNOWN_FORMATS.map((name) => JSON.stringify(name)).join(", ")}`
        : `did you mean ${JSON.stringify(nearest)}?`;
    errors.push(
      new ContractError(
        file,
        `${visit.pointer}/format`,
        `the format ${shown} is not one toolgate knows, so under "formats": "assert" it would assert nothing: ` +
          `${hint} (or keep formats as annotations, "formats": "annotate")`,
      ),
    );
  }
  return errors;
}

/**
 * The known format closest to `name` by edit distance (insertions, deletions, substitutions and swaps of
 * neighbours, ignoring case), when it is close enough to be a slip: at most 2 edits, and fewer than a third of the
 * name's length. Ties go to the first name in code unit order, so the hint is the same on every run.
 */
export function nearestFormat(name: string): string | undefined {
  const wanted = name.toLowerCase();
  let best: { format: string; distance: number } | undefined;
  for (const format of KNOWN_FORMATS) {
    const distance = editDistance(wanted, format);
    if (best === undefined || distance < best.distance) best = { format, distance };
  }
  if (best === undefined || best.distance > 2 || best.distance * 3 > Math.max(wanted.length, 3)) return undefined;
  return best.format;
}

/** Optimal string alignment distance between two short strings (Levenshtein plus swaps of neighbours). */
function editDistance(a: string, b: string): number {
  // Format names are short; a hostile name is bounded by the schema size limit, and only its length times the
  // longest known name (21) is computed.
  let beforeLast: number[] = [];
  let last = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((last[j] as number) + 1, (row[j - 1] as number) + 1, (last[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (beforeLast[j - 2] as number) + 1);
      }
      row.push(value);
    }
    beforeLast = last;
    last = row;
  }
  return last[b.length] as number;
}
