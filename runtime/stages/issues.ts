/**
 * Issues as the gate reports them. A result's issues carry location and keyword only, never a validator's `params`
 * or a value; a call's arguments' issues (`checkInput`) add a short message written here from the rule and the name
 * of the property it is about. Paths and names are chosen by the tool or the model, so they are bounded and every
 * control or invisible character in them is escaped.
 */
import { diagnosticText } from "../contract/failure.js";
import type { InputIssue, ValidateFunction, ValidationIssue } from "../contract/types.js";

/** Most validation issues reported: enough to fix a contract, bounded against a payload made of errors. */
export const MAX_ISSUES = 20;

/** The issue reported for a value nested deeper than the contract's `maxDepth`. */
export const TOO_DEEP_ISSUE: ValidationIssue = Object.freeze({
  instancePath: "",
  schemaPath: "x-toolgate/receive/maxDepth",
  keyword: "maxDepth",
});

/**
 * Location text for diagnostics and messages: paths hold key names chosen by the tool, so they are bounded, and
 * every control or invisible character in them is escaped (see `diagnosticText`).
 */
export function locationText(text: string, max?: number): string {
  return diagnosticText(text, max);
}

/** Validator errors as issues: location and keyword only, never `params` or values. */
export function toIssues(errors: ValidateFunction<unknown>["errors"]): ValidationIssue[] {
  return safeIssues(errors ?? []);
}

/** Issues found by someone else's code (a validator, field rules, hooks) with their locations made safe. */
export function safeIssues(issues: ReadonlyArray<{ instancePath: unknown; schemaPath: unknown; keyword: unknown }>) {
  return issues.slice(0, MAX_ISSUES).map(
    (issue): ValidationIssue => ({
      instancePath: locationText(String(issue.instancePath)),
      schemaPath: locationText(String(issue.schemaPath)),
      keyword: locationText(String(issue.keyword), 64),
    }),
  );
}

/** Longest message of an input issue, in code points. */
export const MAX_MESSAGE_CHARS = 200;
/** Longest property name an input issue holds, in code points. */
export const MAX_PROPERTY_CHARS = 64;
/** Longest schema text (a pattern, a format name) an input issue's message quotes, in code points. */
const MAX_QUOTED_CHARS = 64;

/** The issue reported for arguments nested deeper than the validator can follow. */
export const TOO_DEEP_INPUT_ISSUE: InputIssue = Object.freeze({
  instancePath: "",
  schemaPath: "",
  keyword: "maxDepth",
  message: "is nested too deeply to check",
});

type Params = Readonly<Record<string, unknown>>;

/** `text` cleaned and bounded, in double quotes (a quote inside escaped, so the message shows where it ends). */
function quoted(text: string, max: number): string {
  return `"${locationText(text, max).replaceAll('"', '\\"')}"`;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

const COMPARISONS = new Set(["<", "<=", ">", ">="]);
const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** The keywords that bound a count: the message's start, then the unit in the singular and the plural. */
const COUNT_BOUNDS: Readonly<Record<string, readonly [string, string, string]>> = {
  maxLength: ["must be at most", "character long", "characters long"],
  minLength: ["must be at least", "character long", "characters long"],
  maxItems: ["must have at most", "item", "items"],
  minItems: ["must have at least", "item", "items"],
  additionalItems: ["must have at most", "item", "items"],
  unevaluatedItems: ["must have at most", "item", "items"],
  items: ["must have at most", "item", "items"],
  maxProperties: ["must have at most", "property", "properties"],
  minProperties: ["must have at least", "property", "properties"],
  maxContains: ["must contain at most", "matching item", "matching items"],
  minContains: ["must contain at least", "matching item", "matching items"],
};

/** Messages that need nothing of the rule's parameters. */
const FIXED_MESSAGES: Readonly<Record<string, string>> = {
  enum: "must be one of the allowed values",
  const: "must be the allowed value",
  contains: "must contain a matching item",
  not: "must not match the excluded schema",
  anyOf: "must match one of the alternatives",
  oneOf: "must match exactly one alternative",
  "false schema": "is not allowed",
  maxDepth: "is nested too deeply to check",
};

/** The property a rule is about, by the parameter its validator names it with. */
const PROPERTY_PARAMS: Readonly<Record<string, string>> = {
  required: "missingProperty",
  dependentRequired: "missingProperty",
  dependencies: "missingProperty",
  additionalProperties: "additionalProperty",
  unevaluatedProperties: "unevaluatedProperty",
  propertyNames: "propertyName",
};

function propertyMessage(keyword: string, params: Params, property: string): string {
  const name = quoted(property, MAX_PROPERTY_CHARS);
  switch (keyword) {
    case "required":
      return `missing required property ${name}`;
    case "dependentRequired":
    case "dependencies":
      return typeof params.property === "string"
        ? `missing property ${name}, required with ${quoted(params.property, MAX_PROPERTY_CHARS)}`
        : `missing property ${name}`;
    case "propertyNames":
      return `property name ${name} is not allowed`;
    default:
      return `unexpected property ${name}`;
  }
}

/** The message of a rule that names no property, from its keyword and the numbers and names of its parameters. */
function ruleMessage(keyword: string, params: Params): string {
  const fixed = FIXED_MESSAGES[keyword];
  if (fixed !== undefined) return fixed;
  const bound = COUNT_BOUNDS[keyword];
  const limit = finite(params.limit);
  if (bound !== undefined && limit !== undefined) return `${bound[0]} ${counted(limit, bound[1], bound[2])}`;
  switch (keyword) {
    case "type": {
      const types = (Array.isArray(params.type) ? params.type : String(params.type).split(",")).map(String);
      if (types.length > 0 && types.every((type) => JSON_TYPES.has(type))) return `must be ${types.join(" or ")}`;
      break;
    }
    case "maximum":
    case "minimum":
    case "exclusiveMaximum":
    case "exclusiveMinimum":
      if (limit !== undefined && COMPARISONS.has(String(params.comparison))) {
        return `must be ${String(params.comparison)} ${limit}`;
      }
      break;
    case "multipleOf": {
      const divisor = finite(params.multipleOf);
      if (divisor !== undefined) return `must be a multiple of ${divisor}`;
      break;
    }
    case "pattern":
      if (typeof params.pattern === "string")
        return `must match the pattern ${quoted(params.pattern, MAX_QUOTED_CHARS)}`;
      break;
    case "format":
      if (typeof params.format === "string") return `must be a valid ${quoted(params.format, MAX_QUOTED_CHARS)}`;
      break;
    case "uniqueItems": {
      const [i, j] = [finite(params.i), finite(params.j)];
      if (i !== undefined && j !== undefined) return `must not repeat an item (items ${j} and ${i} are equal)`;
      return "must not repeat an item";
    }
    case "if":
      if (params.failingKeyword === "then" || params.failingKeyword === "else") {
        return `must match the "${params.failingKeyword}" schema`;
      }
      break;
  }
  return `breaks the rule ${quoted(keyword, MAX_QUOTED_CHARS)}`;
}

/** One validator error of a call's arguments as an input issue: location, keyword, message and property. */
function inputIssue(error: { instancePath: unknown; schemaPath: unknown; keyword: unknown; params?: unknown }) {
  const keyword = String(error.keyword);
  const params: Params = typeof error.params === "object" && error.params !== null ? (error.params as Params) : {};
  const param = Object.hasOwn(PROPERTY_PARAMS, keyword) ? PROPERTY_PARAMS[keyword] : undefined;
  const named = param === undefined ? undefined : params[param];
  const issue: InputIssue = {
    instancePath: locationText(String(error.instancePath)),
    schemaPath: locationText(String(error.schemaPath)),
    keyword: locationText(keyword, 64),
    message: "",
  };
  if (typeof named === "string") {
    issue.property = locationText(named, MAX_PROPERTY_CHARS);
    issue.message = locationText(propertyMessage(keyword, params, named), MAX_MESSAGE_CHARS);
  } else issue.message = locationText(ruleMessage(keyword, params), MAX_MESSAGE_CHARS);
  return issue;
}

/**
 * A call's arguments' validator errors as input issues (at most {@link MAX_ISSUES}): each with the rule's message,
 * and for `required` or `additionalProperties` the property, never a value of the arguments.
 */
export function toInputIssues(errors: ValidateFunction<unknown>["errors"]): InputIssue[] {
  return (errors ?? []).slice(0, MAX_ISSUES).map(inputIssue);
}
