/**
 * The subset of JSON Schema that json-schema-to-typescript (the project's chosen printer) turns into TypeScript
 * soundly. The pre-passes lower every schema into this subset; nothing else reaches the printer, so keywords it
 * would misread (`title`, `$id`, `default`, `nullable`, `tsType` from the input, `extends`, …) never reach it.
 */

/** One node of the subset. Exactly one of the shapes below; `description`/`deprecated` are JSDoc only. */
import { ALL_TYPES, JsonType, type TypeSet } from "./typeset.js";

export type SafeSchema =
  | SafeCustom
  | SafePrimitive
  | SafeObject
  | SafeArray
  | { kind: "union"; members: SafeSchema[]; description?: string; deprecated?: boolean }
  | { kind: "intersection"; members: SafeSchema[]; description?: string; deprecated?: boolean };

/** A type written as TypeScript text (the printer's `tsType` escape hatch): `unknown`, literals, tuples, names. */
export interface SafeCustom {
  kind: "custom";
  text: string;
  /**
   * How `text` binds: `atom` may stand anywhere; `intersection` needs parentheses before `[]` and `?` (a negative
   * number literal binds like that too); `union` also needs them inside `&`.
   */
  binding: "atom" | "union" | "intersection";
  /** The named type this refers to, when it is a bare reference (tracked to break alias cycles). */
  ref?: string;
  /** The JSON types a value of this type can have (a superset; default: all). */
  types?: TypeSet;
  description?: string;
  deprecated?: boolean;
}

export interface SafePrimitive {
  kind: "string" | "number" | "boolean" | "null";
  description?: string;
  deprecated?: boolean;
}

export interface SafeObject {
  kind: "object";
  /** Declared properties, in schema order. Names are raw (hostile) strings: printed by `propertyKey` only. */
  properties: Array<{ name: string; schema: SafeSchema; required: boolean }>;
  /** What every other key's value is: `unknown` (open), `never` (closed) or a schema. */
  additional: SafeSchema;
  description?: string;
  deprecated?: boolean;
}

export interface SafeArray {
  kind: "array";
  items: SafeSchema;
  description?: string;
  deprecated?: boolean;
}

export const UNKNOWN: SafeSchema = { kind: "custom", text: "unknown", binding: "atom" };
export const NEVER: SafeSchema = { kind: "custom", text: "never", binding: "atom" };

/** Whether `schema` accepts every value (its JSDoc, if any, is lost where it is absorbed). */
export function isUnknown(schema: SafeSchema): boolean {
  return schema.kind === "custom" && schema.text === "unknown";
}

/** Whether `schema` accepts no value. */
export function isNever(schema: SafeSchema): boolean {
  return schema.kind === "custom" && schema.text === "never";
}

/** A reference to a named type whose values have the JSON types `types`. */
export function refTo(name: string, types: TypeSet): SafeCustom {
  return types === ALL_TYPES
    ? { kind: "custom", text: name, binding: "atom", ref: name }
    : { kind: "custom", text: name, binding: "atom", ref: name, types };
}

/** The JSON types a value of `schema` can have (a superset). */
export function coverage(schema: SafeSchema): TypeSet {
  switch (schema.kind) {
    case "custom":
      return schema.text === "never" ? 0 : (schema.types ?? ALL_TYPES);
    case "object":
      return JsonType.object;
    case "array":
      return JsonType.array;
    case "union":
      return schema.members.reduce((set, member) => set | coverage(member), 0);
    case "intersection":
      return schema.members.reduce((set, member) => set & coverage(member), ALL_TYPES);
    default:
      return JsonType[schema.kind];
  }
}

/** A canonical text of a node, to drop duplicate union/intersection members. */
function keyOf(schema: SafeSchema): string {
  return JSON.stringify(schema);
}

/** The union of `members`: nested unions flattened, `never` dropped, `unknown` absorbing, duplicates dropped. */
export function unionOf(members: SafeSchema[]): SafeSchema {
  return combined("union", members, { neutral: isNever, absorbing: isUnknown, empty: NEVER, absorbed: UNKNOWN });
}

/** The intersection of `members`: nested intersections flattened, `unknown` dropped, `never` absorbing. */
export function intersectionOf(members: SafeSchema[]): SafeSchema {
  return combined("intersection", members, { neutral: isUnknown, absorbing: isNever, empty: UNKNOWN, absorbed: NEVER });
}

/** What a union or an intersection drops, what swallows it whole, and what it is with no members or swallowed. */
interface Algebra {
  neutral: (member: SafeSchema) => boolean;
  absorbing: (member: SafeSchema) => boolean;
  empty: SafeSchema;
  absorbed: SafeSchema;
}

/**
 * Members of the same kind without annotations flattened into one, neutral members and duplicates dropped; an
 * absorbing member stands for the whole, and one member for itself.
 */
function combined(kind: "union" | "intersection", members: SafeSchema[], algebra: Algebra): SafeSchema {
  const flat: SafeSchema[] = [];
  const seen = new Set<string>();
  const add = (member: SafeSchema): void => {
    if (member.kind === kind && member.description === undefined && !member.deprecated) {
      member.members.forEach(add);
    } else if (!algebra.neutral(member) && !seen.has(keyOf(member))) {
      seen.add(keyOf(member));
      flat.push(member);
    }
  };
  members.forEach(add);
  if (flat.some(algebra.absorbing)) return algebra.absorbed;
  if (flat.length === 0) return algebra.empty;
  return flat.length === 1 ? (flat[0] as SafeSchema) : { kind, members: flat };
}

/** `schema` with JSDoc annotations added (a copy; the argument is not changed). */
export function annotated(schema: SafeSchema, description: string | undefined, deprecated: boolean): SafeSchema {
  if (description === undefined && !deprecated) return schema;
  const copy = { ...schema };
  if (description !== undefined) copy.description = description;
  if (deprecated) copy.deprecated = true;
  return copy;
}
