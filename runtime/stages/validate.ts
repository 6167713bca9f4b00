/** Stage `validate`: the generated validator on the whole value, before any view or shortening. */

import type { Failure } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { toIssues } from "./issues.js";

/**
 * The value's `schema_mismatch` failure, or `undefined` when it is valid. A validator that throws fails closed, and so
 * does a spec with none (`no_validator`).
 */
export function validate<T, V, I>(admission: Admission<T, V, I>, value: unknown): Failure | undefined {
  const { spec, sizes, rawKind, flags } = admission;
  const validator = spec.validateResult;
  if (validator === undefined) {
    // A JSON result with nothing to check it against is refused, never passed unchecked.
    return admission.fail(
      "schema_mismatch",
      { stage: "validate", sizes, detail: { reason: "no_validator" } },
      { stage: "validate", rawKind, flags },
    );
  }
  let valid: boolean;
  try {
    valid = validator(value);
  } catch {
    return admission.fail(
      "schema_mismatch",
      { stage: "validate", sizes, detail: { reason: "validator_threw" } },
      { stage: "validate", rawKind, flags },
    );
  }
  if (valid) return undefined;
  const issues = toIssues(validator.errors);
  return admission.fail("schema_mismatch", { stage: "validate", sizes, issues }, { stage: "validate", rawKind, flags });
}
