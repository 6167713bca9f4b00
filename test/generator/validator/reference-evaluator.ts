/**
 * A small, direct reading of JSON Schema 2020-12 for the keywords that record evaluated locations, used as the
 * oracle when checking the validator stage's `unevaluated*` refusals on generated schemas.
 *
 * It follows the spec's annotation model literally (2020-12 core, sections 7.7 and 11): every subschema is
 * evaluated, annotations survive only from subschemas that pass, and `unevaluatedItems`/`unevaluatedProperties`
 * see the annotations of adjacent keywords and of in-place subschemas. Only what the generated schemas use is
 * covered (see {@link withinReach}): `$ref` must be `#/$defs/<name>`, `type` a single name.
 */

type Schema = boolean | Record<string, unknown>;

/** The outcome of one subschema on one instance: whether it passes and which locations it evaluated. */
interface Evaluation {
  valid: boolean;
  properties: Set<string>;
  items: Set<number>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    default:
      return isObject(value);
  }
}

/** The keywords {@link evaluate} implements; a schema using any other one is outside its reach. */
export const EVALUATED_KEYWORDS: ReadonlySet<string> = new Set([
  "$schema",
  "$comment",
  "$defs",
  "$ref",
  "const",
  "type",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "properties",
  "patternProperties",
  "additionalProperties",
  "required",
  "dependentSchemas",
  "unevaluatedProperties",
  "prefixItems",
  "items",
  "contains",
  "minContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "maxContains",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "dependentRequired",
  "enum",
  "maxLength",
  "minimum",
  "unevaluatedItems",
]);

/** Whether every keyword of a schema and its subschemas is one {@link evaluate} implements. */
export function withinReach(schema: unknown): boolean {
  if (typeof schema === "boolean") return true;
  if (!isObject(schema)) return false;
  return Object.entries(schema).every(([keyword, value]) => {
    if (!EVALUATED_KEYWORDS.has(keyword)) return false;
    if (keyword === "$ref") return typeof value === "string" && value.startsWith("#/$defs/");
    if (keyword === "type") return typeof value === "string";
    if (!isObject(value) && !Array.isArray(value) && typeof value !== "boolean") return true;
    if (["const", "enum", "required", "dependentRequired"].includes(keyword)) return true;
    if (Array.isArray(value)) return value.every(withinReach);
    if (["properties", "patternProperties", "dependentSchemas", "$defs"].includes(keyword)) {
      return isObject(value) && Object.values(value).every(withinReach);
    }
    return withinReach(value);
  });
}

/** Evaluate a schema against an instance, with `root` for `$ref`. */
export function evaluate(schema: Schema, instance: unknown, root: Schema = schema): Evaluation {
  const result: Evaluation = { valid: true, properties: new Set(), items: new Set() };
  if (schema === true) return result;
  if (schema === false) return { ...result, valid: false };
  const fail = () => {
    result.valid = false;
  };
  const absorb = (sub: Evaluation) => {
    for (const p of sub.properties) result.properties.add(p);
    for (const i of sub.items) result.items.add(i);
  };
  const apply = (sub: unknown, value: unknown = instance) => evaluate(sub as Schema, value, root);

  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace("#/$defs/", "");
    const target = (root as Record<string, Record<string, unknown>>).$defs?.[name];
    const sub = apply(target);
    if (sub.valid) absorb(sub);
    else fail();
  }
  if ("const" in schema && !equal(schema.const, instance)) fail();
  if (typeof schema.type === "string" && !hasType(instance, schema.type)) fail();
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => equal(v, instance))) fail();
  if (typeof instance === "string" && typeof schema.maxLength === "number" && [...instance].length > schema.maxLength) {
    fail();
  }
  if (typeof instance === "number" && typeof schema.minimum === "number" && instance < schema.minimum) fail();
  for (const sub of (schema.allOf as unknown[] | undefined) ?? []) {
    const e = apply(sub);
    if (e.valid) absorb(e);
    else fail();
  }
  if (Array.isArray(schema.anyOf)) {
    const results = schema.anyOf.map((s) => apply(s));
    for (const e of results) if (e.valid) absorb(e);
    if (!results.some((e) => e.valid)) fail();
  }
  if (Array.isArray(schema.oneOf)) {
    const results = schema.oneOf.map((s) => apply(s));
    for (const e of results) if (e.valid) absorb(e);
    if (results.filter((e) => e.valid).length !== 1) fail();
  }
  if ("not" in schema && apply(schema.not).valid) fail();
  if ("if" in schema) {
    const condition = apply(schema.if);
    if (condition.valid) absorb(condition);
    const branch = condition.valid ? schema.then : schema.else;
    if (branch !== undefined) {
      const e = apply(branch);
      if (e.valid) absorb(e);
      else fail();
    }
  }
  if (isObject(instance)) {
    const names = Object.keys(instance);
    const declared = isObject(schema.properties) ? schema.properties : {};
    const patterns = isObject(schema.patternProperties) ? schema.patternProperties : {};
    for (const name of names) {
      let matched = false;
      if (Object.hasOwn(declared, name)) {
        matched = true;
        result.properties.add(name);
        if (!apply(declared[name], instance[name]).valid) fail();
      }
      for (const [pattern, sub] of Object.entries(patterns)) {
        if (!new RegExp(pattern, "u").test(name)) continue;
        matched = true;
        result.properties.add(name);
        if (!apply(sub, instance[name]).valid) fail();
      }
      if (!matched && "additionalProperties" in schema) {
        result.properties.add(name);
        if (!apply(schema.additionalProperties, instance[name]).valid) fail();
      }
    }
    for (const name of (schema.required as string[] | undefined) ?? []) if (!Object.hasOwn(instance, name)) fail();
    if (typeof schema.minProperties === "number" && names.length < schema.minProperties) fail();
    if (typeof schema.maxProperties === "number" && names.length > schema.maxProperties) fail();
    if ("propertyNames" in schema && names.some((name) => !apply(schema.propertyNames, name).valid)) fail();
    if (isObject(schema.dependentRequired)) {
      for (const [name, needed] of Object.entries(schema.dependentRequired)) {
        if (Object.hasOwn(instance, name) && !(needed as string[]).every((n) => Object.hasOwn(instance, n))) fail();
      }
    }
    if (isObject(schema.dependentSchemas)) {
      for (const [name, sub] of Object.entries(schema.dependentSchemas)) {
        if (!Object.hasOwn(instance, name)) continue;
        const e = apply(sub);
        if (e.valid) absorb(e);
        else fail();
      }
    }
    if ("unevaluatedProperties" in schema) {
      for (const name of names) {
        if (result.properties.has(name)) continue;
        if (!apply(schema.unevaluatedProperties, instance[name]).valid) fail();
      }
      for (const name of names) result.properties.add(name);
    }
  }
  if (Array.isArray(instance)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    instance.forEach((item, i) => {
      if (i < prefix.length) {
        result.items.add(i);
        if (!apply(prefix[i], item).valid) fail();
      } else if ("items" in schema) {
        result.items.add(i);
        if (!apply(schema.items, item).valid) fail();
      }
    });
    if ("contains" in schema) {
      const matching = instance.map((item, i) => (apply(schema.contains, item).valid ? i : -1)).filter((i) => i >= 0);
      for (const i of matching) result.items.add(i);
      const min = typeof schema.minContains === "number" ? schema.minContains : 1;
      if (matching.length < min) fail();
      if (typeof schema.maxContains === "number" && matching.length > schema.maxContains) fail();
    }
    if (typeof schema.minItems === "number" && instance.length < schema.minItems) fail();
    if (typeof schema.maxItems === "number" && instance.length > schema.maxItems) fail();
    if (schema.uniqueItems === true && new Set(instance.map((item) => JSON.stringify(item))).size < instance.length) {
      fail();
    }
    if ("unevaluatedItems" in schema) {
      instance.forEach((item, i) => {
        if (!result.items.has(i) && !apply(schema.unevaluatedItems, item).valid) fail();
      });
      instance.forEach((_item, i) => {
        result.items.add(i);
      });
    }
  }
  if (!result.valid) return { valid: false, properties: new Set(), items: new Set() };
  return result;
}
