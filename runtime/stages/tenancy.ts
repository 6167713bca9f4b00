/**
 * A ready-made semantic hook for the most common rule a schema cannot express: a record must belong to the
 * caller's tenant.
 */

import type { FieldPath } from "../contract/types.js";
import type { SemanticHook, SemanticViolation } from "../gate/context.js";
import { locate } from "./field-paths.js";

/**
 * A semantic hook that fails the call (`semantic_violation`, rule `tenant`) when any value at `pointer` (`*` for
 * every array item) is not the caller's tenant (`ctx.tenant`). Without a tenant in the context it fails closed,
 * since the rule cannot be checked. Values that are absent pass: the schema says whether the field is required.
 *
 * ```ts
 * await getRecord.admit(raw, { tenant: "acme", hooks: { semantic: ownedByTenant("/owner") } });
 * ```
 */
export function ownedByTenant(pointer: FieldPath): SemanticHook<unknown, unknown> {
  return (data, info) => {
    if (info.tenant === undefined) return { path: "", rule: "tenant_unknown" };
    const violations: SemanticViolation[] = [];
    for (const { path, value } of locate(data, pointer)) {
      if (value !== info.tenant) violations.push({ path, rule: "tenant" });
    }
    return violations;
  };
}
