/**
 * Issues as the gate reports them: location and keyword only, never a validator's `params` or a value. Paths hold
 * key names chosen by the tool, so they are bounded and every control or invisible character in them is escaped.
 */
import { diagnosticText } from "../failure.js";
import type { ValidateFunction, ValidationIssue } from "../types.js";

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
