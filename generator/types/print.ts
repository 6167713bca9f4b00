/**
 * Printing: each unit goes through json-schema-to-typescript, the project's chosen printer, on its own. The
 * printer only ever sees the subset built by the lowering (no `$ref`: references are `tsType` names, so its
 * resolver never fetches anything and never names anything after a `title` or `$id`). Two things are kept away
 * from it and put back into its output afterwards:
 * - the unit's name: it would re-case it (`toSafeString`), so it prints a placeholder and the real name is
 *   written over that placeholder in the declaration line;
 * - property names: hostile names (`hasOwnProperty`, `__proto__`, U+2028, …) would reach its internals and its
 *   quoting, so it prints identifier placeholders that are replaced with keys quoted by `propertyKey`.
 */
import { compile, type Options } from "json-schema-to-typescript";
import { format } from "json-schema-to-typescript/dist/src/formatter.js";
import type { Unit } from "./lower.js";
import { annotated, intersectionOf, isNever, isUnknown, type SafeSchema, UNKNOWN, unionOf } from "./safe.js";
import { propertyKey } from "./text.js";

/** The printer's options; every one that changes the output is set here, on purpose. */
const PRINTER_OPTIONS: Partial<Options> = {
  bannerComment: "", // the write stage adds the `@generated` header to the whole file
  format: true, // prettier, with the style below: readable, deterministic output
  style: { bracketSpacing: true, printWidth: 120, semi: true, singleQuote: false, tabWidth: 2, trailingComma: "all" },
  additionalProperties: true, // never consulted: the lowering always sets `additionalProperties`
  declareExternallyReferenced: true, // never consulted: units hold no `$ref`
  unreachableDefinitions: false,
  strictIndexSignatures: false, // sound without it; `noUncheckedIndexedAccess` adds `| undefined` on reads
  unknownAny: true, // `unknown`, never `any`
  ignoreMinAndMaxItems: true, // no unions of tuples; tuples come from `prefixItems` only
  maxItems: -1,
  enableConstEnums: false,
  inferStringEnumKeysFromValues: false,
  $refOptions: { resolve: { external: false } }, // belt and braces: nothing is ever fetched
};

/** The name every unit is printed under before its real name is written in. */
const UNIT_PLACEHOLDER = "ToolgateTypesUnit";

/** Property-name placeholders: `<prefix><n>$`, with a prefix that occurs in no input string. */
export class KeyPlaceholders {
  readonly #prefix: string;
  readonly #names: string[] = [];

  /** `inputStrings`: every string of the input (names, keys, values); the prefix occurs in none of them. */
  constructor(inputStrings: string[]) {
    let prefix = "$$k";
    while (inputStrings.some((text) => text.includes(prefix))) prefix = `$${prefix}`;
    this.#prefix = prefix;
  }

  placeholder(name: string): string {
    this.#names.push(name);
    return `${this.#prefix}${this.#names.length - 1}$`;
  }

  /** `code` with every placeholder replaced by its property name, quoted where it must be. */
  restore(code: string): string {
    const pattern = new RegExp(`${this.#prefix.replaceAll("$", "\\$")}(\\d+)\\$`, "g");
    return code.replace(pattern, (_, index: string) => propertyKey(this.#names[Number(index)] as string));
  }
}

/** The printer's input for one subset node. */
function printerSchema(schema: SafeSchema, keys: KeyPlaceholders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  switch (schema.kind) {
    case "custom":
      out.tsType = schema.binding === "atom" ? schema.text : `(${schema.text})`;
      break;
    case "string":
    case "number":
    case "boolean":
    case "null":
      out.type = schema.kind;
      break;
    case "array":
      out.type = "array";
      out.items = printerSchema(schema.items, keys);
      break;
    case "union":
      out.anyOf = schema.members.map((m) => printerSchema(m, keys));
      break;
    case "intersection":
      out.allOf = schema.members.map((m) => printerSchema(m, keys));
      break;
    case "object": {
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      for (const property of schema.properties) {
        const key = keys.placeholder(property.name);
        properties[key] = printerSchema(property.schema, keys);
        if (property.required) required.push(key);
      }
      out.type = "object";
      out.properties = properties;
      out.required = required;
      if (isUnknown(schema.additional)) out.additionalProperties = true;
      else if (isNever(schema.additional) && schema.properties.length > 0) out.additionalProperties = false;
      else out.additionalProperties = printerSchema(schema.additional, keys); // `[k: string]: never` when empty
      break;
    }
  }
  if (schema.description !== undefined) out.description = schema.description;
  if (schema.deprecated) out.deprecated = true;
  return out;
}

/** The printer's options for one unit: the same, minus formatting, which runs once over the whole file. */
const UNFORMATTED: Partial<Options> = { ...PRINTER_OPTIONS, format: false };

/**
 * Every unit as TypeScript, in order, joined by a blank line: `export type Name = …` or `export interface Name {…}`,
 * each with its JSDoc.
 *
 * The printer prints each unit unformatted; prettier then formats all of them in one pass, with the printer's own
 * formatter and options. One pass gives the same text as formatting each unit on its own and joining them (prettier
 * formats top-level declarations independently and keeps one blank line between them), at a fraction of the cost:
 * most of prettier's time per call is set-up, not text.
 */
export async function printUnits(units: readonly Unit[], keys: KeyPlaceholders): Promise<string> {
  const header = new RegExp(`^export (interface|type) ${UNIT_PLACEHOLDER}\\b`, "gm");
  const printed: string[] = [];
  for (const unit of units) {
    const code = await compile(
      printerSchema(unit.schema, keys) as Parameters<typeof compile>[0],
      UNIT_PLACEHOLDER,
      UNFORMATTED,
    );
    const headers = code.match(header)?.length ?? 0;
    if (headers !== 1) throw new Error(`emitTypes: expected one declaration for ${unit.name}, got ${headers}`);
    printed.push(code);
  }
  if (printed.length === 0) return "";
  const formatted = await formatTogether(printed.join("\n"));
  // The placeholders come out in unit order: prettier never reorders declarations.
  let next = 0;
  const named = formatted.replace(header, (_, kind: string) => `export ${kind} ${(units[next++] as Unit).name}`);
  if (next !== units.length) throw new Error(`emitTypes: expected ${units.length} declarations, got ${next}`);
  return keys.restore(named);
}

/** The name of the declarations that mark where one caller's text ends in a batch: one no unit is printed under. */
const BATCH_SEPARATOR = "ToolgateTypesBatch";
const SEPARATOR_LINE = new RegExp(`^export type ${BATCH_SEPARATOR}\\d+ = 0;\n`, "m");

/** Texts waiting for the next formatter pass, each with its caller. */
let waiting: Array<{ text: string; resolve: (code: string) => void; reject: (error: unknown) => void }> = [];

/**
 * `text` formatted with the printer's formatter and options, in one pass with every other text asked for meanwhile.
 * A run emits the types of each tool on its own, and prettier's set-up (options, plugins) costs about as much as
 * formatting a tool's few declarations; the tools' types are emitted side by side, so one pass formats all of them.
 * The texts are joined with a one-line declaration between them and cut apart at those lines: prettier formats
 * top-level declarations independently (see {@link printUnits}), so each part is the text formatting it alone gives.
 */
function formatTogether(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // After the pending promise jobs: every emit running beside this one reaches its formatting first.
    if (waiting.length === 0) setImmediate(formatWaiting);
    waiting.push({ text, resolve, reject });
  });
}

async function formatWaiting(): Promise<void> {
  const callers = waiting;
  waiting = [];
  // Tools that return the same schema ask for the same text: it is formatted once, and each caller gets that part.
  const byText = new Map<string, Array<(typeof callers)[number]>>();
  for (const caller of callers) {
    const same = byText.get(caller.text);
    if (same === undefined) byText.set(caller.text, [caller]);
    else same.push(caller);
  }
  const batch = [...byText.entries()].map(([text, same]) => ({
    text,
    resolve: (code: string) => {
      for (const caller of same) caller.resolve(code);
    },
    reject: (error: unknown) => {
      for (const caller of same) caller.reject(error);
    },
  }));
  let parts: string[] | undefined;
  if (batch.length > 1) {
    const joined = batch.map(({ text }, i) => (i === 0 ? text : `${separatorDeclaration(i)}\n${text}`));
    try {
      const cut = (await format(joined.join("\n"), PRINTER_OPTIONS as Options)).split(SEPARATOR_LINE);
      // Each part but the last ends with the blank line before its separator.
      if (cut.length === batch.length) parts = cut.map((part, i) => (i < cut.length - 1 ? part.slice(0, -1) : part));
    } catch {
      // One text the formatter refuses: format each alone, so the error reaches the caller whose text it is.
    }
  }
  for (const [i, { text, resolve, reject }] of batch.entries()) {
    const part = parts?.[i];
    if (part !== undefined) resolve(part);
    else format(text, PRINTER_OPTIONS as Options).then(resolve, reject);
  }
}

function separatorDeclaration(index: number): string {
  return `export type ${BATCH_SEPARATOR}${index} = 0;`;
}

/** Named types a node refers to without an object or array in between (where TypeScript needs no deferral). */
function immediateRefs(schema: SafeSchema): string[] {
  if (schema.kind === "custom") return schema.ref === undefined ? [] : [schema.ref];
  if (schema.kind === "union" || schema.kind === "intersection") return schema.members.flatMap(immediateRefs);
  return [];
}

function withoutImmediateRef(schema: SafeSchema, name: string): SafeSchema {
  if (schema.kind === "custom") return schema.ref === name ? UNKNOWN : schema;
  if (schema.kind === "union" || schema.kind === "intersection") {
    const members = schema.members.map((m) => withoutImmediateRef(m, name));
    const rebuilt = schema.kind === "union" ? unionOf(members) : intersectionOf(members);
    return annotated(rebuilt, schema.description, schema.deprecated === true);
  }
  return schema;
}

/**
 * A type alias may not refer to itself except through an object or array (`type A = A | string` is an error).
 * Such a schema (`$defs: {a: {anyOf: [{$ref: "#/$defs/a"}, …]}}`) loops in every validator; each reference that
 * closes such a cycle becomes `unknown`, which only widens.
 */
export function breakAliasCycles(units: Unit[]): Unit[] {
  const byName = new Map(units.map((unit) => [unit.name, unit.schema]));
  const state = new Map<string, "active" | "done">();
  const cut = new Map<string, Set<string>>();
  const visit = (name: string): void => {
    state.set(name, "active");
    const schema = byName.get(name);
    for (const target of schema === undefined ? [] : immediateRefs(schema)) {
      const targetState = state.get(target);
      if (targetState === "active") {
        cut.set(name, (cut.get(name) ?? new Set()).add(target));
      } else if (targetState === undefined && byName.has(target)) {
        visit(target);
      }
    }
    state.set(name, "done");
  };
  for (const unit of units) if (!state.has(unit.name)) visit(unit.name);
  return units.map((unit) => {
    const targets = cut.get(unit.name);
    if (targets === undefined) return unit;
    let schema = unit.schema;
    for (const target of targets) schema = withoutImmediateRef(schema, target);
    return { name: unit.name, schema };
  });
}
