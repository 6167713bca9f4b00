/**
 * The view plan: which fields of a valid result reach the model, and how each is bounded.
 *
 * Derived from the bundled output schema and the contract's `view` settings. Only declared properties are planned,
 * so an open object's unknown keys never reach the view; `omit` paths are left out; arrays named in `arrays` are cut;
 * strings are bounded. Every path the settings name must exist in the schema, or the contract is refused: a typo in
 * `omit` must not leak a private field.
 */

import type { StringOverflow, ViewPlan } from "@toolgate/runtime";
import { cleanText, codePointLength } from "@toolgate/runtime";
import { ContractError } from "../contract/errors.js";
import type { AppliedSettings, XToolgate } from "../contract/x-toolgate.js";
import { isSchemaObject } from "../schema/guards.js";
import { escapePointerToken, fragmentToPointer, pointerOf } from "../schema/pointer.js";
import type { JsonSchema, SchemaObject } from "../schema/shapes.js";
import { valueAt } from "../schema/walk.js";

/** A plan node with what the view type needs to know. */
export type TypedPlan =
  | { kind: "value"; types: ScalarType[] }
  | {
      kind: "string";
      max: number;
      overflow: StringOverflow;
      /** The only strings the schema allows, when they reach the view unchanged (clean and within `max`). */
      literals?: string[] | undefined;
    }
  | { kind: "object"; properties: Record<string, { plan: TypedPlan; required: boolean }> }
  | { kind: "array"; items: TypedPlan; take?: number | undefined }
  | { kind: "tuple"; items: TypedPlan[]; rest?: TypedPlan | undefined }
  | { kind: "union"; options: TypedPlan[] }
  /** A value the schema does not constrain (`{}`, `true`): shown whole, its strings bounded (see `ViewPlan`). */
  | { kind: "any" }
  /** Media declared inside the result, described in the view and handed on as a part (see `ViewPlan`). */
  | { kind: "media"; form: "block"; otherwise?: TypedPlan | undefined }
  | { kind: "media"; form: "base64"; mimeType?: string | undefined };

/** JSON scalar types a `value` node may hold. */
export type ScalarType = "string" | "number" | "boolean" | "null";

const ALL_SCALARS: ScalarType[] = ["boolean", "null", "number", "string"];

/** A schema object describing the value at a path, the references followed to it, and whether the value must match it. */
interface Shape {
  node: SchemaObject;
  refs: readonly string[];
  always: boolean;
}

/** Settings paths and the contract pointer each came from, for error messages. */
interface Settings {
  omit: Map<string, string>;
  arrays: Map<string, { take: number; pointer: string }>;
  strings: Map<string, { max?: number | undefined; overflow?: StringOverflow | undefined; pointer: string }>;
  maxStringChars: number;
}

/** How deep a plan may go through recursive references before it stops planning (the rest is left out). */
const MAX_PLAN_DEPTH = 32;

/**
 * Plan the view of a contract's result schema from its settings (defaults applied). Besides the view's own paths,
 * the continuation field and every field rule's path must name a field of the output schema.
 * @param fieldPaths the `fields` keys, in the order their errors are reported
 */
export function planContractView(
  bundled: JsonSchema,
  settings: AppliedSettings,
  file: string,
  fieldPaths: readonly string[],
): TypedPlan {
  const extraPaths: Array<readonly [string, string]> = fieldPaths.map((path) => [
    path,
    pointerOf("/x-toolgate/fields", path),
  ]);
  const { view } = settings;
  if (view.continuation !== undefined) extraPaths.push([view.continuation, "/x-toolgate/view/continuation"]);
  return planView(bundled, view, view.maxStringChars, file, extraPaths);
}

/**
 * Plan the view of a result schema.
 * @param extraPaths more settings paths that must exist (continuation, field kinds), by contract pointer
 */
export function planView(
  bundled: JsonSchema,
  view: NonNullable<XToolgate["view"]>,
  maxStringChars: number,
  file: string,
  extraPaths: ReadonlyArray<readonly [path: string, pointer: string]> = [],
): TypedPlan {
  const settings: Settings = {
    omit: new Map((view.omit ?? []).map((p, i) => [p, `/x-toolgate/view/omit/${i}`])),
    arrays: new Map(
      Object.entries(view.arrays ?? {}).map(([p, v]) => [
        p,
        { take: v.take, pointer: `/x-toolgate/view/arrays/${escapePointerToken(p)}` },
      ]),
    ),
    strings: new Map(
      Object.entries(view.strings ?? {}).map(([p, v]) => [
        p,
        { ...v, pointer: `/x-toolgate/view/strings/${escapePointerToken(p)}` },
      ]),
    ),
    maxStringChars,
  };
  const seen = new Set<string>();
  const planner = new Planner(bundled, settings, seen);
  const plan = planner.plan(bundled, "", 0, []);

  const hidden = omittedContinuation(view.continuation, settings.omit);
  if (hidden !== undefined) {
    throw new ContractError(
      file,
      "/x-toolgate/view/continuation",
      `${JSON.stringify(view.continuation)} is left out of the view by ${hidden}: the model would see a private value as the continuation token`,
    );
  }
  const named: Array<readonly [string, string]> = [
    ...[...settings.omit].map(([p, pointer]) => [p, pointer] as const),
    ...[...settings.arrays].map(([p, v]) => [p, v.pointer] as const),
    ...[...settings.strings].map(([p, v]) => [p, v.pointer] as const),
    ...extraPaths,
  ];
  for (const [path, pointer] of named) {
    if (!seen.has(path)) {
      throw new ContractError(file, pointer, `${JSON.stringify(path)} names no field of the output schema`);
    }
  }
  for (const [path, { pointer }] of settings.arrays) {
    if (!planner.arrays.has(path)) throw new ContractError(file, pointer, `${JSON.stringify(path)} is not an array`);
  }
  return plan;
}

/**
 * The contract pointer of the `omit` entry that leaves the continuation field out of the view (the field itself or
 * one of its parents), if any. The gate hands the continuation token to the model, so it must be a field the view
 * shows. Checked before paths are matched to the schema: an omitted parent is never planned, and its fields would
 * otherwise be reported as missing.
 */
function omittedContinuation(continuation: string | undefined, omit: ReadonlyMap<string, string>): string | undefined {
  if (continuation === undefined) return undefined;
  for (const [path, pointer] of omit) {
    if (continuation === path || continuation.startsWith(`${path}/`)) return pointer;
  }
  return undefined;
}

class Planner {
  /** Paths of array nodes met, so `arrays` settings can be checked to name arrays. */
  readonly arrays = new Set<string>();
  /**
   * Paths where a schema allows a string, each with whether every time it was met its schemas bound its length (one
   * of them with `maxLength`, `const` or `enum`).
   */
  readonly strings = new Map<string, boolean>();

  constructor(
    readonly root: JsonSchema,
    readonly settings: Settings,
    readonly seen: Set<string>,
  ) {}

  /** Plan one schema at one instance path. `refs` are the references followed to get here (cycle guard). */
  plan(schema: JsonSchema, path: string, depth: number, refs: readonly string[]): TypedPlan {
    this.seen.add(path);
    if (depth > MAX_PLAN_DEPTH) return { kind: "value", types: ALL_SCALARS };
    // A schema that says nothing of the value (`true`, `{}`, annotations only) is the user's "any JSON": shown whole
    // and bounded, not planned as an object with no properties, which would show the model `{}` or `[]`.
    if (schema === true || (isSchemaObject(schema) && unconstrained(schema))) return { kind: "any" };
    const shapes = this.shapes(schema, refs);
    if (shapes.length === 0) return { kind: "value", types: ALL_SCALARS };
    const kinds = new Set<string>();
    for (const { node } of shapes) for (const kind of typesOf(node)) kinds.add(kind);
    if (kinds.size === 0) for (const kind of ["object", "array", ...ALL_SCALARS]) kinds.add(kind);

    const options: TypedPlan[] = [];
    if (kinds.has("object")) {
      const object = this.object(shapes, path, depth);
      // An object that may be an MCP image or audio block is lifted out as media when it is one.
      options.push(
        shapes.some(({ node }) => isMediaBlock(node)) ? { kind: "media", form: "block", otherwise: object } : object,
      );
    }
    if (kinds.has("array")) options.push(this.array(shapes, path, depth));
    const base64 = kinds.has("string") ? shapes.find(({ node }) => node.contentEncoding === "base64") : undefined;
    if (base64 !== undefined) {
      const mimeType = base64.node.contentMediaType;
      options.push({ kind: "media", form: "base64", mimeType: typeof mimeType === "string" ? mimeType : undefined });
    } else if (kinds.has("string")) {
      const setting = this.settings.strings.get(path);
      const max = setting?.max ?? this.settings.maxStringChars;
      // Recorded where a schema says the value may be a string, not where nothing is known of it (`{}`).
      if (shapes.some(({ node }) => typesOf(node).includes("string"))) {
        const bounded = shapes.some(({ node }) => lengthBounded(node));
        this.strings.set(path, (this.strings.get(path) ?? true) && bounded);
      }
      options.push({
        kind: "string",
        max,
        overflow: setting?.overflow ?? "excerpt",
        literals: stringLiterals(
          shapes.map((s) => s.node),
          max,
        ),
      });
    }
    const scalars = (["number", "boolean", "null"] as const).filter((t) => kinds.has(t));
    if (scalars.length > 0) options.push({ kind: "value", types: [...scalars] });
    return options.length === 1 ? (options[0] as TypedPlan) : { kind: "union", options };
  }

  /**
   * The schema objects that together describe a value here: the schema itself, what its `$ref` points at, and the
   * branches of `allOf`/`anyOf`/`oneOf` (whose declared properties the view may show). `always` is false for a
   * shape reached through an `anyOf` or `oneOf` branch: the value need not match it, so its `required` is not the
   * value's.
   */
  shapes(schema: JsonSchema, refs: readonly string[]): Shape[] {
    const out: Shape[] = [];
    const stack: Array<{ node: JsonSchema; refs: readonly string[]; always: boolean }> = [
      { node: schema, refs, always: true },
    ];
    while (stack.length > 0) {
      const {
        node,
        refs: path,
        always,
      } = stack.pop() as { node: JsonSchema; refs: readonly string[]; always: boolean };
      if (!isSchemaObject(node)) continue;
      out.push({ node, refs: path, always });
      // A recursive schema is planned through each reference at most twice along a path: deeper levels of a tree
      // are left out of the view rather than planned without end.
      const ref = node.$ref;
      if (typeof ref === "string" && ref.startsWith("#") && path.filter((r) => r === ref).length < 2) {
        const target = valueAt(this.root, fragmentToPointer(ref.slice(1))) as JsonSchema | undefined;
        if (target !== undefined) stack.push({ node: target, refs: [...path, ref], always });
      }
      for (const keyword of ["allOf", "anyOf", "oneOf"]) {
        const branches = node[keyword];
        if (Array.isArray(branches))
          for (const branch of branches)
            stack.push({ node: branch as JsonSchema, refs: path, always: always && keyword === "allOf" });
      }
    }
    return out;
  }

  object(shapes: Shape[], path: string, depth: number): TypedPlan {
    const declared = new Map<
      string,
      { schemas: Array<{ node: JsonSchema; refs: readonly string[] }>; required: boolean }
    >();
    const required = new Set<string>();
    for (const { node, always } of shapes) {
      if (always && Array.isArray(node.required))
        for (const name of node.required) if (typeof name === "string") required.add(name);
    }
    for (const { node, refs } of shapes) {
      if (!isSchemaObject(node.properties)) continue;
      for (const [name, schema] of Object.entries(node.properties)) {
        const entry = declared.get(name) ?? { schemas: [], required: false };
        entry.schemas.push({ node: schema as JsonSchema, refs });
        declared.set(name, entry);
      }
    }
    const properties: Record<string, { plan: TypedPlan; required: boolean }> = {};
    for (const name of [...declared.keys()].sort()) {
      const childPath = `${path}/${escapePointerToken(name)}`;
      this.seen.add(childPath);
      if (this.settings.omit.has(childPath)) continue;
      const entry = declared.get(name) as { schemas: Array<{ node: JsonSchema; refs: readonly string[] }> };
      const schema: JsonSchema =
        entry.schemas.length === 1
          ? (entry.schemas[0]?.node as JsonSchema)
          : { allOf: entry.schemas.map((s) => s.node) };
      const plan = this.plan(schema, childPath, depth + 1, entry.schemas[0]?.refs ?? []);
      // Defined, not assigned: a property named `__proto__` must stay a key of the plan, not become its prototype.
      Object.defineProperty(properties, name, {
        value: { plan, required: required.has(name) && alwaysShown(plan) },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return { kind: "object", properties };
  }

  array(shapes: Shape[], path: string, depth: number): TypedPlan {
    const itemPath = `${path}/*`;
    this.arrays.add(path);
    const take = this.settings.arrays.get(path)?.take;
    const prefix = shapes.find(({ node }) => Array.isArray(node.prefixItems) || Array.isArray(node.items));
    const itemsOf = (node: SchemaObject): JsonSchema | undefined =>
      Array.isArray(node.items)
        ? (node.additionalItems as JsonSchema | undefined)
        : (node.items as JsonSchema | undefined);
    const rest = shapes.map(({ node, refs }) => ({ node: itemsOf(node), refs })).find((s) => s.node !== undefined);
    if (prefix !== undefined && take === undefined) {
      const tuple = (
        Array.isArray(prefix.node.prefixItems) ? prefix.node.prefixItems : prefix.node.items
      ) as JsonSchema[];
      return {
        kind: "tuple",
        items: tuple.map((item) => this.plan(item, itemPath, depth + 1, prefix.refs)),
        rest:
          rest?.node === undefined || rest.node === false
            ? undefined
            : this.plan(rest.node, itemPath, depth + 1, rest.refs),
      };
    }
    const itemSchema = rest?.node ?? true;
    return { kind: "array", items: this.plan(itemSchema, itemPath, depth + 1, rest?.refs ?? []), take };
  }
}

/**
 * The strings a value here can be, when one `enum` or `const` decides them and every one of them reaches the view
 * unchanged: text hygiene would leave it as it is and it is within `max`. Otherwise the view type is `string`.
 */
function stringLiterals(nodes: readonly SchemaObject[], max: number): string[] | undefined {
  const deciding = nodes.filter((node) => node.const !== undefined || Array.isArray(node.enum));
  if (deciding.length !== 1) return undefined;
  const node = deciding[0] as SchemaObject;
  const values = node.const !== undefined ? [node.const] : (node.enum as unknown[]);
  const strings = values.filter((v): v is string => typeof v === "string");
  const unchanged = strings.every((text) => cleanText(text) === text && codePointLength(text) <= max);
  return unchanged && strings.length > 0 ? [...new Set(strings)].sort() : undefined;
}

/** Keywords that say nothing of the value: a schema of only these is unconstrained. */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/** Whether a schema object constrains nothing: no keyword but annotations (`{}` as `import --json-text` writes it). */
function unconstrained(node: SchemaObject): boolean {
  return Object.keys(node).every((key) => ANNOTATIONS.has(key));
}

/** The strings a property schema allows, when one `const` or `enum` says so. */
function literalsOf(schema: unknown): unknown[] | undefined {
  if (!isSchemaObject(schema)) return undefined;
  if (schema.const !== undefined) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

/**
 * Whether an object schema is an MCP image or audio content block: `type` limited to `"image"` and `"audio"`, and
 * `data` and `mimeType` declared as strings (the shape the MCP SDK's `ImageContent` and `AudioContent` have).
 */
function isMediaBlock(node: SchemaObject): boolean {
  const properties = node.properties;
  if (!isSchemaObject(properties)) return false;
  const types = literalsOf(properties.type);
  if (types === undefined || types.length === 0 || !types.every((t) => t === "image" || t === "audio")) return false;
  const isString = (schema: unknown) => isSchemaObject(schema) && typesOf(schema).includes("string");
  return isString(properties.data) && isString(properties.mimeType);
}

/** Whether a schema object bounds a string's length by itself: a `maxLength`, or the values of `const` or `enum`. */
function lengthBounded(node: SchemaObject): boolean {
  return typeof node.maxLength === "number" || node.const !== undefined || Array.isArray(node.enum);
}

/**
 * The string fields of a result schema whose length no schema bounds (no `maxLength`, `const` or `enum`), as the
 * view paths `view.strings` takes (`/content`, `/entities/*\/name`), sorted: where `import` writes overflow
 * `lines`. Planned as the view is, so every path is one the view settings may name.
 */
export function unboundedStringPaths(bundled: JsonSchema): string[] {
  const settings: Settings = { omit: new Map(), arrays: new Map(), strings: new Map(), maxStringChars: 1 };
  const planner = new Planner(bundled, settings, new Set());
  planner.plan(bundled, "", 0, []);
  return [...planner.strings]
    .filter(([, bounded]) => !bounded)
    .map(([path]) => path)
    .sort();
}

/** Whether a planned property is always in the view when it is in the data. */
function alwaysShown(plan: TypedPlan): boolean {
  if (plan.kind === "string") return plan.overflow !== "omit";
  // Media whose data is not strict base64 is left out of the view.
  if (plan.kind === "media") return false;
  if (plan.kind === "union") return plan.options.every(alwaysShown);
  return true;
}

/** The JSON types a schema object allows, as far as its own `type`, `const` and `enum` tell. */
function typesOf(node: SchemaObject): string[] {
  const declared = node.type;
  if (typeof declared === "string") return declared === "integer" ? ["number"] : [declared];
  if (Array.isArray(declared)) return declared.map((t) => (t === "integer" ? "number" : String(t)));
  const values = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values !== undefined) return [...new Set(values.map(jsonType))];
  if (node.properties !== undefined || node.required !== undefined || node.additionalProperties !== undefined)
    return ["object"];
  if (node.items !== undefined || node.prefixItems !== undefined) return ["array"];
  return [];
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The plan as the runtime reads it: without the type information. */
export function runtimePlan(plan: TypedPlan): ViewPlan {
  switch (plan.kind) {
    case "value":
      return { kind: "value" };
    case "string":
      return { kind: "string", max: plan.max, overflow: plan.overflow };
    case "object":
      return {
        kind: "object",
        properties: Object.fromEntries(Object.entries(plan.properties).map(([k, v]) => [k, runtimePlan(v.plan)])),
      };
    case "array":
      return plan.take === undefined
        ? { kind: "array", items: runtimePlan(plan.items) }
        : { kind: "array", items: runtimePlan(plan.items), take: plan.take };
    case "tuple":
      return plan.rest === undefined
        ? { kind: "tuple", items: plan.items.map(runtimePlan) }
        : { kind: "tuple", items: plan.items.map(runtimePlan), rest: runtimePlan(plan.rest) };
    case "union":
      return { kind: "union", options: plan.options.map(runtimePlan) };
    case "any":
      return { kind: "any" };
    case "media":
      if (plan.form === "base64") {
        return plan.mimeType === undefined
          ? { kind: "media", form: "base64" }
          : { kind: "media", form: "base64", mimeType: plan.mimeType };
      }
      return plan.otherwise === undefined
        ? { kind: "media", form: "block" }
        : { kind: "media", form: "block", otherwise: runtimePlan(plan.otherwise) };
  }
}
