/**
 * Lowering: one bundled schema → named units in the subset json-schema-to-typescript prints soundly.
 *
 * The one hard rule is soundness: a type accepts every value the schema accepts. Every keyword is either
 * translated exactly (`type`, `const`, `enum`, `properties`, `required`, `additionalProperties`,
 * `patternProperties`, `prefixItems`, `items`, `allOf`, `anyOf`, `oneOf`, `$ref`) or dropped where dropping only
 * widens (`not`, `if`/`then`/`else`, `dependentSchemas`, `dependentRequired`, `contains`, `propertyNames`,
 * numeric/string/size bounds, `format`, `uniqueItems`). `$dynamicRef`/`$recursiveRef` and references this stage
 * cannot follow become `unknown`.
 */

import { dialectNamed } from "../schema/dialects.js";
import { isSchemaObject } from "../schema/guards.js";
import { LIST, MAP, SINGLE } from "../schema/keywords.js";
import { fragmentToPointer, pointerTokens } from "../schema/pointer.js";
import type { Dialect, JsonSchema, SchemaObject } from "../schema/shapes.js";
import { type NameRegistry, pascalCase } from "./names.js";
import { normalizeSchema } from "./rules.js";
import {
  annotated,
  coverage,
  intersectionOf,
  isNever,
  isUnknown,
  NEVER,
  refTo,
  type SafeObject,
  type SafeSchema,
  UNKNOWN,
  unionOf,
} from "./safe.js";
import { commentText, literalType } from "./text.js";
import { ALL_TYPES, JsonType, TYPE_ORDER, type TypeSet, typeSetOfName, typeSetOfValue } from "./typeset.js";

/** One exported type: its name and its schema in the printable subset. */
export interface Unit {
  name: string;
  schema: SafeSchema;
}

/** Keywords that make a schema constrain objects / arrays (after the pre-pass rules). */
const OBJECT_KEYWORDS = ["properties", "patternProperties", "additionalProperties", "required"];
const ARRAY_KEYWORDS = ["prefixItems", "items"];

/** Decode a `#/…` reference into pointer tokens (RFC 6901 section 6), or undefined when it is not one. */
function refTokens(ref: string): string[] | undefined {
  // a literal `%` that is not an escape: the fragment is read as written
  return ref.startsWith("#") ? pointerTokens(fragmentToPointer(ref.slice(1))) : undefined;
}

/** The value at `tokens` inside `root` (own keys only), or undefined. */
function valueAt(root: unknown, tokens: string[]): { value: unknown } | undefined {
  let node = root;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length) return undefined;
      node = node[Number(token)];
    } else if (isSchemaObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return { value: node };
}

/** A JSON Schema regular expression, or undefined when JavaScript cannot compile it. */
function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

/** The name a referenced non-root location gets, after its pointer: `$defs` key in PascalCase, never a title. */
function nameForPointer(tokens: string[]): string {
  const container = tokens[tokens.length - 2];
  if (container === "$defs" || container === "definitions") return pascalCase(tokens[tokens.length - 1] ?? "");
  return pascalCase(tokens.filter((t) => !["properties", "$defs", "definitions"].includes(t)).join(" "));
}

/** Printed text of a subset node inside a tuple, with how it binds (objects are hoisted into named units). */
interface Inline {
  text: string;
  binding: "atom" | "union" | "intersection";
}

/** Lowers one request: its root and every location it references. */
export class RequestLowering {
  readonly #root: JsonSchema;
  readonly #rootName: string;
  readonly #dialect: Dialect;
  readonly #registry: NameRegistry;
  /** Every object some `$ref` in the document points at, with its pointer tokens and the dialect there. */
  readonly #targets = new Map<SchemaObject, { tokens: string[]; dialect: Dialect }>();
  readonly #names = new Map<object, string>();
  readonly #queue: Array<{ node: SchemaObject; name: string }> = [];
  readonly #units: Array<{ name: string; schema?: SafeSchema }> = [];
  readonly #typeSets = new WeakMap<object, TypeSet>();
  readonly #typeSetsInProgress = new WeakSet<object>();
  /** Nodes being lowered right now: meeting one again means the input is a cyclic object graph. */
  readonly #lowering = new Set<object>();
  #unitName = "";

  constructor(root: JsonSchema, rootName: string, dialect: Dialect, registry: NameRegistry) {
    this.#root = root;
    this.#rootName = rootName;
    this.#dialect = dialectNamed(isSchemaObject(root) ? root.$schema : undefined) ?? dialect;
    this.#registry = registry;
    this.#findTargets(root, this.#dialect);
  }

  /** The units of this request: the root (under exactly its name) first, then what it references. */
  lower(): Unit[] {
    const rootEntry: { name: string; schema?: SafeSchema } = { name: this.#rootName };
    this.#units.push(rootEntry);
    if (isSchemaObject(this.#root)) this.#names.set(this.#root, this.#rootName);
    this.#unitName = this.#rootName;
    rootEntry.schema = this.#lower(this.#root, this.#dialect, ALL_TYPES, true);
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      const entry: { name: string; schema?: SafeSchema } = { name: next.name };
      this.#units.push(entry);
      this.#unitName = next.name;
      const dialect = this.#targets.get(next.node)?.dialect ?? this.#dialect;
      entry.schema = this.#lower(next.node, dialect, ALL_TYPES, true);
    }
    return this.#units.map(({ name, schema }) => ({ name, schema: schema ?? UNKNOWN }));
  }

  // ---- references ---------------------------------------------------------------------------------------

  #findTargets(schema: unknown, dialect: Dialect): void {
    const seen = new WeakSet<object>();
    const visit = (node: unknown, inherited: Dialect): void => {
      if (!isSchemaObject(node) || seen.has(node)) return;
      seen.add(node);
      const here = dialectNamed(node.$schema) ?? inherited;
      if (typeof node.$ref === "string") {
        const tokens = refTokens(node.$ref);
        const target = tokens && valueAt(this.#root, tokens);
        if (target && isSchemaObject(target.value) && !this.#targets.has(target.value)) {
          this.#targets.set(target.value, { tokens, dialect: here });
        }
      }
      for (const key of SINGLE) if (Object.hasOwn(node, key)) visit(node[key], here);
      for (const key of LIST) {
        const list = node[key];
        if (Object.hasOwn(node, key) && Array.isArray(list)) for (const item of list) visit(item, here);
      }
      for (const key of MAP) {
        const map = node[key];
        if (Object.hasOwn(node, key) && isSchemaObject(map)) for (const item of Object.values(map)) visit(item, here);
      }
    };
    visit(schema, dialect);
    // A target's dialect is the one in force where it sits, not where it is referenced from.
    for (const [target, info] of this.#targets) {
      let inherited = this.#dialect;
      let node: unknown = this.#root;
      for (const token of info.tokens) {
        if (isSchemaObject(node)) inherited = dialectNamed(node.$schema) ?? inherited;
        node = Array.isArray(node) ? node[Number(token)] : isSchemaObject(node) ? node[token] : undefined;
      }
      info.dialect = dialectNamed((target as SchemaObject).$schema) ?? inherited;
    }
  }

  #nameOf(node: SchemaObject, tokens: string[]): string {
    const known = this.#names.get(node);
    if (known !== undefined) return known;
    const name = this.#registry.claimFresh(`${this.#rootName}${nameForPointer(tokens) || "Def"}`);
    this.#names.set(node, name);
    if (!this.#targets.has(node)) this.#targets.set(node, { tokens, dialect: this.#dialect });
    this.#queue.push({ node, name });
    return name;
  }

  #resolve(ref: string): { value: unknown; tokens: string[] } | undefined {
    const tokens = refTokens(ref);
    const found = tokens && valueAt(this.#root, tokens);
    return found && tokens ? { value: found.value, tokens } : undefined;
  }

  /** `$ref` → the named type of its target (the resolve stage has made every reference a `#/…` pointer). */
  #lowerRef(ref: string): SafeSchema {
    const target = this.#resolve(ref);
    if (target === undefined) return UNKNOWN; // not a local pointer: cannot be followed here
    if (target.value === false) return NEVER;
    if (!isSchemaObject(target.value)) return UNKNOWN;
    return refTo(this.#nameOf(target.value, target.tokens), this.#typeSet(target.value, this.#dialectAt(target.value)));
  }

  #dialectAt(node: SchemaObject): Dialect {
    return this.#targets.get(node)?.dialect ?? this.#dialect;
  }

  // ---- type sets ----------------------------------------------------------------------------------------

  /** The JSON types `schema` can accept (a superset), following references. */
  #typeSet(schema: unknown, dialect: Dialect): TypeSet {
    if (schema === false) return 0;
    if (!isSchemaObject(schema)) return ALL_TYPES;
    const memo = this.#typeSets.get(schema);
    if (memo !== undefined) return memo;
    if (this.#typeSetsInProgress.has(schema)) return ALL_TYPES;
    this.#typeSetsInProgress.add(schema);
    const here = dialectNamed(schema.$schema) ?? dialect;
    const node = normalizeSchema(schema, here);
    const set = ownTypeSet(node) & this.#applicatorTypeSet(node, here);
    this.#typeSetsInProgress.delete(schema);
    this.#typeSets.set(schema, set);
    return set;
  }

  #applicatorTypeSet(node: SchemaObject, dialect: Dialect): TypeSet {
    let set = ALL_TYPES;
    if (typeof node.$ref === "string") {
      const target = this.#resolve(node.$ref);
      if (target)
        set &= this.#typeSet(target.value, this.#targets.get(target.value as SchemaObject)?.dialect ?? dialect);
    }
    if (Array.isArray(node.allOf)) for (const member of node.allOf) set &= this.#typeSet(member, dialect);
    for (const key of ["anyOf", "oneOf"]) {
      const members = node[key];
      if (Array.isArray(members)) set &= members.reduce((acc: TypeSet, m) => acc | this.#typeSet(m, dialect), 0);
    }
    return set;
  }

  // ---- lowering -----------------------------------------------------------------------------------------

  /**
   * One schema → the subset. `within` is the set of JSON types the caller already restricts the value to (an
   * `anyOf` branch next to `type: object` only has to describe objects). `isUnitTop` is true for the node a
   * named unit is made of; anywhere else a referenced node becomes a reference to its name.
   */
  #lower(schema: unknown, dialect: Dialect, within: TypeSet, isUnitTop = false): SafeSchema {
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isSchemaObject(schema)) return UNKNOWN; // not a schema: the check stage reports it
    if ((!isUnitTop && this.#targets.has(schema)) || this.#lowering.has(schema)) {
      // A referenced node (or, in an already dereferenced input, a node that contains itself) is a named type.
      const types = this.#typeSet(schema, this.#dialectAt(schema));
      return refTo(this.#nameOf(schema, this.#targets.get(schema)?.tokens ?? []), types);
    }
    this.#lowering.add(schema);
    try {
      return this.#lowerObject(schema, dialect, within);
    } finally {
      this.#lowering.delete(schema);
    }
  }

  #lowerObject(schema: SchemaObject, dialect: Dialect, within: TypeSet): SafeSchema {
    const here = dialectNamed(schema.$schema) ?? dialect;
    const node = normalizeSchema(schema, here);
    const description = typeof node.description === "string" ? commentText(node.description) : undefined;
    const deprecated = node.deprecated === true;
    const types = within & this.#typeSet(schema, here);
    if (types === 0) return annotated(NEVER, description, deprecated);

    const parts: SafeSchema[] = [];
    if (typeof node.$ref === "string") parts.push(this.#lowerRef(node.$ref));
    if (Array.isArray(node.allOf)) for (const member of node.allOf) parts.push(this.#lower(member, here, types));
    for (const key of ["anyOf", "oneOf"]) {
      const members = node[key];
      if (Array.isArray(members)) parts.push(unionOf(members.map((m) => this.#lower(m, here, types))));
    }
    const own = this.#ownPart(node, here, types);
    if (own !== undefined) {
      // `type: object` beside `$ref: Obj` (or beside `allOf` branches that only describe objects) adds nothing:
      // leave it out rather than print `Obj & {[k: string]: unknown}`.
      const redundant = own.trivial && parts.length > 0 && (coverage(intersectionOf(parts)) & ~types) === 0;
      if (!redundant) parts.push(own.schema);
    }
    return annotated(intersectionOf(parts), description, deprecated);
  }

  /** What the schema's own keywords (not its applicators) say, restricted to `types`; undefined if nothing. */
  #ownPart(node: SchemaObject, dialect: Dialect, types: TypeSet): { schema: SafeSchema; trivial: boolean } | undefined {
    if (Object.hasOwn(node, "const")) return { schema: literalUnion([node.const], types), trivial: false };
    if (Array.isArray(node.enum)) return { schema: literalUnion(node.enum, types), trivial: false };
    const constrains =
      Object.hasOwn(node, "type") ||
      OBJECT_KEYWORDS.some((k) => Object.hasOwn(node, k)) ||
      ARRAY_KEYWORDS.some((k) => Object.hasOwn(node, k));
    if (!constrains) return undefined;
    const parts: SafeSchema[] = [];
    let trivial = true;
    for (const name of TYPE_ORDER) {
      if ((types & JsonType[name]) === 0) continue;
      if (name === "object") {
        const object = this.#objectPart(node, dialect);
        trivial &&= isOpenEmptyObject(object);
        parts.push(object);
      } else if (name === "array") {
        const array = this.#arrayPart(node, dialect);
        trivial &&= array.kind === "array" && isUnknown(array.items);
        parts.push(array);
      } else {
        parts.push({ kind: name });
      }
    }
    if (types === ALL_TYPES && trivial) return { schema: UNKNOWN, trivial };
    return { schema: unionOf(parts), trivial };
  }

  /**
   * The object part: declared properties, `required` (also names not in `properties`), and one index signature
   * for every other key, typed as the union of what `patternProperties` and `additionalProperties` allow.
   */
  #objectPart(node: SchemaObject, dialect: Dialect): SafeObject {
    const required = new Set(Array.isArray(node.required) ? node.required.filter((r) => typeof r === "string") : []);
    const declared = isSchemaObject(node.properties) ? Object.entries(node.properties) : [];
    const patterns = isSchemaObject(node.patternProperties)
      ? Object.entries(node.patternProperties).map(([pattern, schema]) => ({
          regex: compilePattern(pattern),
          schema: this.#lower(schema, dialect, ALL_TYPES),
        }))
      : [];
    const hasAdditional = Object.hasOwn(node, "additionalProperties");
    const additional = hasAdditional ? this.#lower(node.additionalProperties, dialect, ALL_TYPES) : UNKNOWN;
    // Keys outside `properties`: a key matching some patterns satisfies all of them, any other `additional`.
    const otherKeys = hasAdditional ? unionOf([...patterns.map((p) => p.schema), additional]) : UNKNOWN;
    const typeOfUndeclared = (name: string): SafeSchema => {
      if (patterns.some((p) => p.regex === undefined)) return otherKeys;
      const matching = patterns.filter((p) => p.regex?.test(name));
      return matching.length > 0 ? intersectionOf(matching.map((p) => p.schema)) : additional;
    };
    const properties = declared.map(([name, schema]) => {
      const type = this.#lower(schema, dialect, ALL_TYPES);
      return { name, schema: required.has(name) ? type : orInherited(name, type), required: required.has(name) };
    });
    const declaredNames = new Set(declared.map(([name]) => name));
    for (const name of required) {
      if (!declaredNames.has(name)) properties.push({ name, schema: typeOfUndeclared(name), required: true });
    }
    return { kind: "object", properties, additional: indexCovering(otherKeys, properties) };
  }

  /** The array part: `T[]`, or a tuple `[A, B?, ...R[]]` for `prefixItems` (elements past `minItems` optional). */
  #arrayPart(node: SchemaObject, dialect: Dialect): SafeSchema {
    const items = node.items;
    if (!Array.isArray(node.prefixItems)) {
      if (items === undefined || items === true) return { kind: "array", items: UNKNOWN };
      const element = this.#lower(items, dialect, ALL_TYPES);
      if (isNever(element)) return { kind: "custom", text: "[]", binding: "atom", types: JsonType.array };
      return { kind: "array", items: element };
    }
    const minItems = nonNegativeInteger(node.minItems) ?? 0;
    const maxItems = nonNegativeInteger(node.maxItems);
    let prefix = node.prefixItems.map((element) => this.#lower(element, dialect, ALL_TYPES));
    let rest = items === undefined ? UNKNOWN : this.#lower(items, dialect, ALL_TYPES);
    if (maxItems !== undefined && maxItems <= prefix.length) {
      prefix = prefix.slice(0, maxItems);
      rest = NEVER;
    }
    const elements = prefix.map((element, index) => {
      const inline = this.#inline(element);
      if (index < minItems) return inline.text;
      return inline.binding === "atom" ? `${inline.text}?` : `(${inline.text})?`;
    });
    if (!isNever(rest)) elements.push(`...${atom(this.#inline(rest))}[]`);
    return { kind: "custom", text: `[${elements.join(", ")}]`, binding: "atom", types: JsonType.array };
  }

  /** TypeScript text for a subset node inside a tuple; an object is hoisted into a unit of its own. */
  #inline(schema: SafeSchema): Inline {
    switch (schema.kind) {
      case "custom":
        return { text: schema.text, binding: schema.binding };
      case "string":
      case "number":
      case "boolean":
      case "null":
        return { text: schema.kind, binding: "atom" };
      case "array":
        return { text: `${atom(this.#inline(schema.items))}[]`, binding: "atom" };
      case "union":
        return { text: schema.members.map((m) => this.#inline(m).text).join(" | "), binding: "union" };
      case "intersection":
        return {
          text: schema.members
            .map((m) => this.#inline(m))
            .map((m) => (m.binding === "union" ? `(${m.text})` : m.text))
            .join(" & "),
          binding: "intersection",
        };
      case "object": {
        const name = this.#registry.claimFresh(`${this.#unitName}Item`);
        this.#units.push({ name, schema });
        return { text: name, binding: "atom" };
      }
    }
  }
}

function atom(inline: Inline): string {
  return inline.binding === "atom" ? inline.text : `(${inline.text})`;
}

function nonNegativeInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The members every object inherits from `Object.prototype`, as TypeScript's `Object` interface declares them. */
const INHERITED = new Set([
  "constructor",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
]);

/**
 * An optional property named like an inherited member (`toString?: number`) would reject `{}`: TypeScript reads
 * the missing property as the inherited method. Reading it really does give the method when the key is absent,
 * so the type says so: `number | Object["toString"]`.
 */
function orInherited(name: string, type: SafeSchema): SafeSchema {
  if (!INHERITED.has(name)) return type;
  const { description, deprecated, ...bare } = type;
  const inherited: SafeSchema = { kind: "custom", text: `Object[${JSON.stringify(name)}]`, binding: "atom" };
  return annotated(unionOf([bare as SafeSchema, inherited]), description, deprecated === true);
}

/** A node without its JSDoc, as text: two nodes with the same key are the same type. */
function typeKey(schema: SafeSchema): string {
  const { description: _description, deprecated: _deprecated, ...type } = schema;
  return JSON.stringify(type);
}

/**
 * TypeScript requires every declared property to fit the index signature (`[k: string]: string` beside
 * `n: number` does not compile). An index type that does not plainly cover every declared property's type is
 * widened to `unknown` (sound, and readable; the printer would otherwise spell out the union of them all).
 */
function indexCovering(index: SafeSchema, properties: SafeObject["properties"]): SafeSchema {
  if (isUnknown(index) || isNever(index)) return index;
  const covered = new Set(index.kind === "union" ? [index, ...index.members].map(typeKey) : [typeKey(index)]);
  const fits = properties.every(({ schema }) => isNever(schema) || covered.has(typeKey(schema)));
  return fits ? index : UNKNOWN;
}

function isOpenEmptyObject(object: SafeSchema): boolean {
  return object.kind === "object" && object.properties.length === 0 && isUnknown(object.additional);
}

/** The type of every value of one JSON type. */
function topOf(type: TypeSet): SafeSchema {
  if (type === JsonType.object) return { kind: "object", properties: [], additional: UNKNOWN };
  if (type === JsonType.array) return { kind: "array", items: UNKNOWN };
  if (type === JsonType.number) return { kind: "number" };
  return UNKNOWN;
}

/** The JSON types `type`, `const` and `enum` allow. */
function ownTypeSet(node: SchemaObject): TypeSet {
  let set = ALL_TYPES;
  if (Object.hasOwn(node, "type")) {
    const names = Array.isArray(node.type) ? node.type : [node.type];
    set &= names.reduce((acc: TypeSet, name) => acc | typeSetOfNameOrAll(name), 0);
  }
  if (Object.hasOwn(node, "const")) set &= typeSetOfValue(node.const);
  if (Array.isArray(node.enum)) set &= node.enum.reduce((acc: TypeSet, value) => acc | typeSetOfValue(value), 0);
  return set;
}

/** An unrecognized type name (draft-03 `any`, a typo) restricts nothing: the type must stay sound. */
function typeSetOfNameOrAll(name: unknown): TypeSet {
  return typeSetOfName(name) || ALL_TYPES;
}

/** `const`/`enum` values → the union of their literal types (values of a type outside `types` left out). */
function literalUnion(values: unknown[], types: TypeSet): SafeSchema {
  const members: SafeSchema[] = [];
  for (const value of values) {
    if ((typeSetOfValue(value) & types) === 0) continue;
    const text = literalType(value);
    if (text === undefined) {
      // a number too large for a literal (JSON parsing made it Infinity), or a value holding one
      members.push(topOf(typeSetOfValue(value)));
    } else {
      const binding = text.startsWith("-") ? "intersection" : "atom";
      members.push({ kind: "custom", text, binding, types: typeSetOfValue(value) });
    }
  }
  return unionOf(members);
}
