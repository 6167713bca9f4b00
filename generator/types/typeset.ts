/**
 * The JSON types a schema can accept, as a bit set: a conservative superset, used only to leave out
 * union members that no valid value can reach (so `properties` next to `$ref: Obj` stays an object).
 */

/** One bit per JSON type (`integer` counts as `number`: TypeScript has one number type). */
export const JsonType = {
  object: 1,
  array: 2,
  string: 4,
  number: 8,
  boolean: 16,
  null: 32,
} as const;

/** A set of JSON types. */
export type TypeSet = number;

/** Every JSON value. */
export const ALL_TYPES: TypeSet = 63;

/** The JSON types in the order their parts are printed in a union. */
export const TYPE_ORDER = ["object", "array", "string", "number", "boolean", "null"] as const;

/** The set for one `type` keyword value; unknown names (hostile input) add nothing. */
export function typeSetOfName(name: unknown): TypeSet {
  if (name === "integer") return JsonType.number;
  if (typeof name === "string" && Object.hasOwn(JsonType, name)) return JsonType[name as keyof typeof JsonType];
  return 0;
}

/** The JSON type of a JSON value. */
export function typeSetOfValue(value: unknown): TypeSet {
  if (value === null) return JsonType.null;
  if (Array.isArray(value)) return JsonType.array;
  switch (typeof value) {
    case "string":
      return JsonType.string;
    case "number":
      return JsonType.number;
    case "boolean":
      return JsonType.boolean;
    case "object":
      return JsonType.object;
    default:
      return 0;
  }
}

/** Whether `set` contains the type called `name`. */
export function hasType(set: TypeSet, name: keyof typeof JsonType): boolean {
  return (set & JsonType[name]) !== 0;
}
