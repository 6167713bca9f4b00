/** Stage `validate`: the generated validator on the whole value, before any view or shortening. */
import type { Admission } from "../gate/admission.js";
import type { Failure } from "../types.js";
import { toIssues } from "./issues.js";

/** The value's `schema_mismatch` failure, or `undefined` when it is valid. A validator that throws fails closed. */
export function validate<T, V, I>(admission: Admission<T, V, I>, value: unknown): Failure | undefined {
  const { spec, sizes, rawKind, flags } = admission;
  let valid: boolean;
  try {
    valid = spec.validateResult(value);
  } catch {
    return admission.fail(
      "schema_mismatch",
      { stage: "validate", sizes, detail: { reason: "validator_threw" } },
      { stage: "validate", rawKind, flags },
    );
  }
  if (valid) return undefined;
  const issues = toIssues(spec.validateResult.errors);
  return admission.fail("schema_mismatch", { stage: "validate", sizes, issues }, { stage: "validate", rawKind, flags });
}
