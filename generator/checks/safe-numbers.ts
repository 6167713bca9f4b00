/**
 * Whether every number of every value a schema accepts is within ±(2^53 − 1): what lets the runtime leave a valid
 * value's depth and number pass to the validator (see {@link validatorBoundsValues}).
 *
 * Read per JSON type, as the bounds walker reads a schema: for numbers, arrays and objects, whether every value of
 * that type the schema accepts holds only safe numbers. A conjunction (sibling keywords, `allOf`, a `$ref` from
 * 2019-09 on) is safe for a type when any conjunct is; a disjunction (`anyOf`, `oneOf`) when every alternative is.
 * Keywords that only narrow (`not`, `if`/`then`/`else`, `contains`, `dependentSchemas`) are not read, and a keyword
 * the reader does not know proves nothing: every answer it is unsure of is "not safe", which costs the run time
 * pass, never a wrong verdict.
 */
import { isSchemaObject } from "../schema/guards.js";
import type { Dialect, JsonSchema, SchemaObject } from "../schema/shapes.js";
import { resolvePointer, tupleOf, typeAdmits } from "./schema-reading.js";

/** Whether the values of each JSON type that can hold a number hold only safe ones. */
interface Safety {
  number: boolean;
  array: boolean;
  object: boolean;
}

/** Keywords that apply other schemas to the same value, and so may evaluate properties of their own. */
const IN_PLACE = ["$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "not"];

const ALL_SAFE: Safety = { number: true, array: true, object: true };
const NONE_SAFE: Safety = { number: false, array: false, object: false };

/** Whether a literal (an `enum` member, a `const`) holds only safe numbers, at any depth. */
function literalSafe(value: unknown): boolean {
  if (typeof value === "number") return Math.abs(value) <= Number.MAX_SAFE_INTEGER;
  if (value === null || typeof value !== "object") return true;
  return Object.values(value as object).every(literalSafe);
}

/** Whether a number keyword's value bounds numbers from above (`sign` 1) or below (−1) within the safe range. */
function boundedBy(node: SchemaObject, keywords: readonly string[], sign: 1 | -1): boolean {
  return keywords.some((keyword) => {
    const limit = node[keyword];
    return typeof limit === "number" && sign * limit <= Number.MAX_SAFE_INTEGER;
  });
}

class SafeNumbers {
  private readonly visiting = new Set<string>();

  constructor(
    private readonly root: JsonSchema,
    private readonly dialect: Dialect,
  ) {}

  /** Whether every value `schema` accepts holds only safe numbers. */
  valueSafe(schema: unknown, pointer: string): boolean {
    const safety = this.safety(schema, pointer);
    return safety.number && safety.array && safety.object;
  }

  private safety(schema: unknown, pointer: string): Safety {
    if (schema === false) return ALL_SAFE;
    if (!isSchemaObject(schema as JsonSchema)) return NONE_SAFE;
    const node = schema as SchemaObject;
    if (typeof node.$dynamicRef === "string" || typeof node.$recursiveRef === "string") return NONE_SAFE;
    // A reference being read is assumed safe where it recurs: a finite value is safe when every level of it is.
    if (this.visiting.has(pointer)) return ALL_SAFE;
    this.visiting.add(pointer);
    try {
      return this.objectSafety(node, pointer);
    } finally {
      this.visiting.delete(pointer);
    }
  }

  private objectSafety(node: SchemaObject, pointer: string): Safety {
    let safety = this.ownSafety(node, pointer);
    if (typeof node.$ref === "string") {
      const target = resolvePointer(this.root, node.$ref);
      const referred = target === undefined ? NONE_SAFE : this.safety(target.node, target.pointer);
      // Before 2019-09 a `$ref` replaces the keywords beside it.
      if (this.dialect === "draft-07") return referred;
      safety = either(safety, referred);
    }
    if (Array.isArray(node.allOf)) {
      node.allOf.forEach((member, i) => {
        safety = either(safety, this.safety(member, `${pointer}/allOf/${i}`));
      });
    }
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const options = node[keyword];
      if (!Array.isArray(options)) continue;
      let all = ALL_SAFE;
      options.forEach((option, i) => {
        all = both(all, this.safety(option, `${pointer}/${keyword}/${i}`));
      });
      safety = either(safety, all);
    }
    return safety;
  }

  /** What the schema object's own keywords prove, `$ref` and combinators aside. */
  private ownSafety(node: SchemaObject, pointer: string): Safety {
    if (Array.isArray(node.enum) && node.enum.every(literalSafe)) return ALL_SAFE;
    if (Object.hasOwn(node, "const") && literalSafe(node.const)) return ALL_SAFE;
    const type = node.type;
    return {
      number:
        !typeAdmits(type, "number") ||
        (boundedBy(node, ["maximum", "exclusiveMaximum"], 1) && boundedBy(node, ["minimum", "exclusiveMinimum"], -1)),
      array: !typeAdmits(type, "array") || this.itemsSafe(node, pointer),
      object: !typeAdmits(type, "object") || this.membersSafe(node, pointer),
    };
  }

  /** Whether every item of an array the schema accepts is safe: each tuple position and every item past them. */
  private itemsSafe(node: SchemaObject, pointer: string): boolean {
    const tuple = tupleOf(node);
    const rest = tuple === undefined ? "items" : tuple.keyword === "prefixItems" ? "items" : "additionalItems";
    if (tuple !== undefined && !tuple.list.every((item, i) => this.valueSafe(item, `${pointer}/${tuple.keyword}/${i}`)))
      return false;
    const restSchema = node[rest];
    return restSchema !== undefined && this.valueSafe(restSchema, `${pointer}/${rest}`);
  }

  /** Whether every member of an object the schema accepts is safe: declared, matched by a pattern, or additional. */
  private membersSafe(node: SchemaObject, pointer: string): boolean {
    for (const keyword of ["properties", "patternProperties"] as const) {
      const members = node[keyword];
      if (members === undefined) continue;
      if (!isSchemaObject(members as JsonSchema)) return false;
      for (const [key, member] of Object.entries(members as object)) {
        if (!this.valueSafe(member, `${pointer}/${keyword}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`))
          return false;
      }
    }
    const additional = node.additionalProperties;
    if (additional !== undefined) return this.valueSafe(additional, `${pointer}/additionalProperties`);
    // `unevaluatedProperties: false` closes the object only where nothing beside it evaluates members of its own.
    return node.unevaluatedProperties === false && !IN_PLACE.some((keyword) => node[keyword] !== undefined);
  }
}

/** A conjunction: a type is safe when either side proves it. */
function either(a: Safety, b: Safety): Safety {
  return { number: a.number || b.number, array: a.array || b.array, object: a.object || b.object };
}

/** A disjunction: a type is safe when both sides prove it. */
function both(a: Safety, b: Safety): Safety {
  return { number: a.number && b.number, array: a.array && b.array, object: a.object && b.object };
}

/** Whether a schema anywhere names `uniqueItems`, whose check compares items as deep as they go. */
function namesUniqueItems(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (!Array.isArray(value) && (value as Record<string, unknown>).uniqueItems === true) return true;
  return Object.values(value as object).some(namesUniqueItems);
}

/**
 * Whether the validator of a bundled output schema bounds every value it accepts as the parse stage's pass would:
 * the schema bounds nesting (`maxDepth`, from the bounds check, non-null only without recursion) within the
 * contract's `limit`, and every number within ±(2^53 − 1). Its generated code then descends no deeper than the
 * schema does, so it can run before that pass, and the pass is needed only for a value it refuses (the runtime's
 * `limits.validatorBounds`). A schema with `uniqueItems` is left out, since that check reads items whole.
 */
export function validatorBoundsValues(
  bundled: JsonSchema,
  dialect: Dialect,
  maxDepth: number | null,
  limit: number,
): boolean {
  if (maxDepth === null || maxDepth > limit || namesUniqueItems(bundled)) return false;
  return new SafeNumbers(bundled, dialect).valueSafe(bundled, "");
}
