/**
 * Checks for what a schema cannot say about a field (`x-toolgate.fields`), and the semantic hooks a caller passes.
 *
 * - `opaque`: a token the model may pass back (a cursor, a handle). It must not be a URL, a file path or a shell
 *   command, since a model handed one may be steered into fetching, opening or running it.
 * - `text`: plain prose from the tool. Text that reads like instructions to the model (prompt injection) is flagged
 *   (`instruction_like_text`) or, when the contract says `reject`, fails the call as `semantic_violation`.
 */
import { pointerSegment } from "./project.js";
import { cleanText } from "./text.js";
import type { FieldPath, FieldRule, ValidationIssue } from "./types.js";

/** A value found at a path, with its concrete instance path. */
export interface Located {
  path: string;
  value: unknown;
}

/** Decodes one JSON pointer segment (RFC 6901 §4). */
function decodeSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * Every value at `pointer` in `data`, where a `*` segment stands for every item of an array (and every value of an
 * object). Iterative; a path that does not exist yields nothing.
 */
export function locate(data: unknown, pointer: FieldPath): Located[] {
  let found: Located[] = [{ path: "", value: data }];
  if (pointer === "") return found;
  for (const raw of pointer.split("/").slice(1)) {
    const next: Located[] = [];
    for (const { path, value } of found) {
      if (value === null || typeof value !== "object") continue;
      if (raw === "*") {
        const entries = Array.isArray(value)
          ? value.map((item, index) => [String(index), item] as const)
          : Object.entries(value);
        for (const [key, item] of entries) next.push({ path: `${path}/${pointerSegment(key)}`, value: item });
        continue;
      }
      const key = decodeSegment(raw);
      if (Object.hasOwn(value, key))
        next.push({ path: `${path}/${raw}`, value: (value as Record<string, unknown>)[key] });
    }
    found = next;
  }
  return found;
}

/** Looks like something to fetch, open or run rather than a token. */
const NOT_OPAQUE: ReadonlyArray<readonly [string, RegExp]> = [
  // A URL: a scheme followed by `//`, or a scheme that runs or embeds content without one.
  ["url", /^[a-z][a-z0-9+.-]*:\/\/|^(javascript|data|file|vbscript|mailto):/i],
  // A file path: absolute, home- or dot-relative, a Windows drive or UNC path, or a parent-directory step.
  ["path", /^(\/|~\/|\.{1,2}\/|[a-z]:[\\/]|\\\\)|(^|[\\/])\.\.([\\/]|$)/i],
  // A command: whitespace or shell metacharacters, which no cursor or handle needs.
  ["command", /[\s;|&$`<>(){}[\]!*?'"]/],
];

/** Text that reads like instructions addressed to the model rather than content about the world. */
const INSTRUCTION_LIKE: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|preceding|all|any|your)\b[^.\n]{0,40}\b(instructions?|prompts?|rules|directions|guidelines|messages?)\b/i,
  /\b(system prompt|developer message|new instructions|you are now|from now on you)\b/i,
  /<\|?\s*(im_start|im_end|endoftext|system)\s*\|?>/i,
  /\[\/?INST\]|<<\/?SYS>>/,
  /<\/?\s*(tool_result|system|assistant|instructions?)\b/i,
];

/** Whether text reads like instructions to the model (see {@link INSTRUCTION_LIKE}). Checked on cleaned text. */
export function looksLikeInstructions(text: string): boolean {
  const cleaned = cleanText(text);
  return INSTRUCTION_LIKE.some((pattern) => pattern.test(cleaned));
}

/** Why an opaque token is not one, or `undefined` when it is fine. */
export function opaqueTokenProblem(value: unknown): string | undefined {
  if (typeof value === "number") return undefined;
  if (typeof value !== "string") return "not_a_token";
  for (const [problem, pattern] of NOT_OPAQUE) if (pattern.test(value)) return problem;
  return undefined;
}

/** What the field rules found: violations fail the call; `instructionLike` only flags it. */
export interface FieldFindings {
  violations: ValidationIssue[];
  instructionLike: boolean;
}

/** Applies the contract's field rules to validated data. */
export function checkFieldRules(data: unknown, rules: readonly FieldRule[]): FieldFindings {
  const findings: FieldFindings = { violations: [], instructionLike: false };
  for (const rule of rules) {
    for (const { path, value } of locate(data, rule.path)) {
      if (rule.kind === "opaque") {
        const problem = opaqueTokenProblem(value);
        if (problem !== undefined)
          findings.violations.push({
            instancePath: path,
            schemaPath: `x-toolgate/fields/opaque/${problem}`,
            keyword: "opaque",
          });
      } else if (typeof value === "string" && looksLikeInstructions(value)) {
        if (rule.onInstruction === "reject") {
          findings.violations.push({
            instancePath: path,
            schemaPath: "x-toolgate/fields/text",
            keyword: "instruction",
          });
        } else findings.instructionLike = true;
      }
    }
  }
  return findings;
}
