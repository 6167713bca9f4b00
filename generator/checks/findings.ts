/**
 * The check stage's findings: why part of a schema has no size bound, and the one line that says what to add.
 *
 * Every message is written here, so the wording a contract author reads is in one place, and every finding is
 * built the same way: a pointer into the schema given, a kind, a message.
 */

/** Why part of a schema has no size bound. */
export type FindingKind =
  /** A string with no `maxLength`, `enum`, `const`, anchored bounded `pattern` or fixed-size asserted `format`. */
  | "string-without-maxLength"
  /** An array with no `maxItems` that is not a closed tuple. */
  | "array-without-maxItems"
  /** An object that admits unknown keys without a bound on their number, names or values. */
  | "object-open"
  /** A `$ref` that leads back to a schema it is inside of: values may nest without limit. */
  | "nesting-unbounded"
  /** A schema that accepts any JSON value (`true`, `{}`, or items/values with no schema at all). */
  | "any-value"
  /** A `$ref` that is not a `#/…` pointer to a schema inside the bundled document. */
  | "ref-unresolved"
  /** A `$dynamicRef`/`$recursiveRef`: its target depends on the dynamic scope, so it is not bounded statically. */
  | "dynamic-ref"
  /** Schema nesting deeper than the checker follows; treated as unbounded rather than overflowing the stack. */
  | "schema-too-deep"
  /** The schema accepts no value at all (for example `false`): every result will be refused. */
  | "no-valid-value";

/** One place in a schema that leaves the result size unbounded. */
export interface Finding {
  /** JSON pointer into the schema given (the caller prefixes the contract pointer, e.g. /outputSchema). */
  pointer: string;
  kind: FindingKind;
  /** One line that says what to add. */
  message: string;
}

/** Where a finding points: a schema object at its pointer (its `type`, when written, decides the wording). */
export interface Anchor {
  pointer: string;
  node: { type?: unknown };
}

/** Subschema nesting the checker follows before it gives up (soundly, with a finding) instead of overflowing. */
export const MAX_SCHEMA_NESTING = 256;

/** The identity of a finding: two findings with the same pointer and kind say the same thing. */
export function findingKey(f: Finding): string {
  return `${f.pointer}\u0000${f.kind}`;
}

/** The findings in report order (by pointer, then kind), each once. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const f of findings) if (!byKey.has(findingKey(f))) byKey.set(findingKey(f), f);
  return [...byKey.values()].sort((a, b) =>
    a.pointer === b.pointer ? compareText(a.kind, b.kind) : compareText(a.pointer, b.pointer),
  );
}

/** Code-unit order, so the report is byte-identical everywhere (no locale collation). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The whole schema accepts no value (for example `false`). */
export function noValidValue(pointer: string): Finding {
  return { pointer, kind: "no-valid-value", message: "schema accepts no value: every result is refused" };
}

/** A schema that accepts any JSON value. */
export function anyValueFinding(pointer: string): Finding {
  return { pointer, kind: "any-value", message: "accepts any JSON value: add a type and its bounds" };
}

/** Strings at the anchor may be as long as they like. */
export function stringFinding(anchor: Anchor): Finding {
  return byType(
    anchor,
    "string-without-maxLength",
    "string without maxLength: add maxLength (or an enum, const, or anchored bounded pattern)",
    "strings of any length are valid here (no type): add type, or maxLength",
  );
}

/** Arrays at the anchor may hold any number of items. */
export function arrayFinding(anchor: Anchor): Finding {
  return byType(
    anchor,
    "array-without-maxItems",
    "array without maxItems: add maxItems (or close the tuple with items: false)",
    "arrays of any length are valid here (no type): add type, or maxItems",
  );
}

/** A finding worded for the anchor: where it names no type, the fix may be to add one. */
function byType(anchor: Anchor, kind: FindingKind, typed: string, untyped: string): Finding {
  return { pointer: anchor.pointer, kind, message: anchor.node.type !== undefined ? typed : untyped };
}

/** The anchor's array items have no schema at all. */
export function itemsFinding(anchor: Anchor): Finding {
  return {
    pointer: anchor.pointer,
    kind: "any-value",
    message: "array items accept any JSON value: add items with a type and its bounds",
  };
}

/** The anchor's object takes unknown keys without a bound: on how many (`count`), their names, or their values. */
export function objectFinding(anchor: Anchor, why: "open" | "count" | "names" | "values"): Finding {
  const messages = {
    open: "object open to unknown keys: add additionalProperties: false (or unevaluatedProperties: false)",
    count: "object takes any number of keys (additionalProperties/patternProperties): add maxProperties, or close it",
    names: "unknown key names have no length bound: add propertyNames with maxLength, or close the object",
    values: "property value accepts any JSON value: give the property a schema with bounds",
  };
  return { pointer: anchor.pointer, kind: "object-open", message: messages[why] };
}

/** A schema (or the `$ref` given) that leads back into itself: values may nest without limit. */
export function recursion(pointer: string, ref?: string): Finding {
  return {
    pointer,
    kind: "nesting-unbounded",
    message: `${ref === undefined ? "schema" : `$ref ${ref}`} recurses: nesting has no bound; declare x-toolgate receive.maxBytes and receive.maxDepth`,
  };
}

/** A `$ref` that is not a `#/…` pointer to a schema in the bundled document. */
export function unresolved(pointer: string, ref: string): Finding {
  return {
    pointer,
    kind: "ref-unresolved",
    message: `$ref ${ref} does not point into this schema: bundle it, or declare x-toolgate receive.maxBytes`,
  };
}

/** A `$dynamicRef`/`$recursiveRef`, whose target is not known statically. */
export function dynamic(pointer: string, keyword: string): Finding {
  return {
    pointer,
    kind: "dynamic-ref",
    message: `${keyword} depends on the dynamic scope: replace it with $ref, or declare x-toolgate receive.maxBytes`,
  };
}

/** Schema nesting past {@link MAX_SCHEMA_NESTING}: treated as unbounded rather than overflowing the stack. */
export function tooDeep(pointer: string): Finding {
  return {
    pointer,
    kind: "schema-too-deep",
    message: `schema nests deeper than ${MAX_SCHEMA_NESTING} levels: declare x-toolgate receive.maxBytes`,
  };
}
