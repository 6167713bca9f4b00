/**
 * Stage `semantic`: the contract's field rules (`x-toolgate.fields`), then the caller's hooks, in order, until one
 * finds a violation. A hook that throws fails closed. Hooks are the caller's code: their verdicts are reduced to
 * locations and short rule codes.
 */

import type { Failure, ValidationIssue } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import type { SemanticHook, SemanticInfo, SemanticVerdict, SemanticViolation } from "../gate/context.js";
import { checkFieldRules } from "./fields.js";
import { locationText, MAX_ISSUES, safeIssues } from "./issues.js";

/** A semantic hook's verdict as issues. */
function verdictIssues(verdict: SemanticVerdict | undefined, hook: number): ValidationIssue[] {
  if (verdict === undefined || verdict === true) return [];
  const violations =
    verdict === false ? [{ path: "", rule: "semantic" }] : Array.isArray(verdict) ? verdict : [verdict];
  return (violations as SemanticViolation[]).slice(0, MAX_ISSUES).map((violation) => ({
    instancePath: locationText(String(violation.path)),
    schemaPath: `hooks/semantic/${hook}`,
    keyword:
      String(violation.rule)
        .replace(/[^A-Za-z0-9_.:-]/g, "_")
        .slice(0, 64) || "semantic",
  }));
}

/** The `semantic_violation` failure for the issues found, or `undefined` when there are none. */
function violationOf<T, V, I>(admission: Admission<T, V, I>, issues: ValidationIssue[]): Failure | undefined {
  if (issues.length === 0) return undefined;
  const { sizes, rawKind, flags } = admission;
  return admission.fail(
    "semantic_violation",
    { stage: "semantic", sizes, issues: issues.slice(0, MAX_ISSUES), ...(flags.length ? { flags } : {}) },
    { stage: "semantic", rawKind, flags },
  );
}

/** Runs the caller's hooks in order until one finds a violation. */
async function runHooks<T, V, I>(
  admission: Admission<T, V, I>,
  data: T,
  hooks: SemanticHook<T, I> | ReadonlyArray<SemanticHook<T, I>>,
): Promise<Failure | undefined> {
  const { spec, ctx } = admission;
  const list = typeof hooks === "function" ? [hooks] : [...hooks];
  const info: SemanticInfo<I> = {
    tool: spec.name,
    tenant: ctx.tenant,
    args: ctx.args,
    correlationId: ctx.correlationId,
  };
  const issues: ValidationIssue[] = [];
  for (const [index, hook] of list.entries()) {
    if (issues.length > 0) break;
    try {
      issues.push(...verdictIssues(await hook(data, info), index));
    } catch {
      return admission.fail(
        "semantic_violation",
        { stage: "semantic", sizes: admission.sizes, detail: { reason: "hook_threw", hook: index } },
        { stage: "semantic", rawKind: admission.rawKind, flags: admission.flags },
      );
    }
  }
  return violationOf(admission, issues);
}

/**
 * The value's `semantic_violation` failure, or `undefined`. Synchronous when the call has no semantic hook, so a
 * call without one waits for nothing; field rules flag instruction-like text on the admission.
 */
export function semantic<T, V, I>(
  admission: Admission<T, V, I>,
  data: T,
): Failure | undefined | Promise<Failure | undefined> {
  const findings = checkFieldRules(data, admission.spec.fields, admission.flagsScreened());
  if (findings.instructionLike) admission.flags.push("instruction_like_text");
  const issues = safeIssues(findings.violations);
  const hooks = admission.ctx.hooks?.semantic;
  if (issues.length > 0 || hooks === undefined) return violationOf(admission, issues);
  return runHooks(admission, data, hooks);
}
