/**
 * Compare two snapshots of a project's contracts, tool by tool: tools added and removed, the result and input
 * schemas (semantically, see `schema-diff/compare.ts`), the fields that reach the model view, the `x-toolgate`
 * settings with their defaults applied, dialects and MCP metadata. Every change gets a class (see `classes.ts`).
 */
import { compareText } from "../contract/load.js";
import { refinedKeywordPointers } from "../contract/refine.js";
import { isSchemaObject } from "../schema/guards.js";
import { canonicalJson } from "../schema/json.js";
import { escapePointerToken, fragmentToPointer, unescapePointerToken } from "../schema/pointer.js";
import type { JsonSchema } from "../schema/shapes.js";
import { valueAt } from "../schema/walk.js";
import { CHANGE_CLASSES, type ChangeClass, classify, type SchemaRole } from "./classes.js";
import { compareSchemas, type SchemaVersion } from "./schema-diff/compare.js";
import type { Snapshot, ToolSnapshot } from "./snapshot.js";

/** Canonical JSON text at any depth (iterative): two values are the same JSON exactly when their texts are. */
function canonical(value: unknown): string {
  return canonicalJson(value, Number.POSITIVE_INFINITY);
}

/**
 * The value of `record`'s own key `key`, or `undefined`. Keys come from contracts (metadata, annotations, settings
 * keyed by result paths), so a key present on one side only must read as absent on the other, not as an inherited
 * member of `Object.prototype` (`constructor`, `toString`, `__proto__`).
 */
function own(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** What part of a contract a change is in. */
export type ChangeArea = "tool" | "result" | "arguments" | "view" | "settings";

/** One change of one tool's contract, as reports show it. */
export interface ContractChange {
  /** The tool's name. */
  tool: string;
  class: ChangeClass;
  /** A stable id of the kind of change: `enum-value-added`, `view-field-added`, `receive-changed`, … */
  kind: string;
  area: ChangeArea;
  /**
   * JSON pointer into the contract file: into the new version where the changed part exists there, else into the
   * old one. A pointer under `$defs/externalN` names a schema that a `$ref` pulled in from another file.
   */
  pointer: string;
  /** For result, arguments and view changes: the field's location in a value (`*` for every item). */
  path?: string;
  /** One line for a reader. */
  summary: string;
  /** The old value; absent when there was none. */
  before?: unknown;
  /** The new value; absent when there is none. */
  after?: unknown;
}

/** Contract keys that are compared on their own; the rest of an MCP Tool object is metadata. */
const CONTRACT_KEYS = new Set(["name", "description", "inputSchema", "outputSchema", "x-toolgate"]);

/** What a setting is, for the summary of its change. */
const SETTING_NAMES: Record<string, string> = {
  version: "contract version",
  formats: "format checking",
  receive: "receive bound",
  context: "context budget",
  view: "view setting",
  oversize: "oversize policy chain",
  summarize: "summary budget",
  spill: "spill preview",
  recall: "recall limit",
  retry: "retry override",
  fields: "field kind",
  toolError: "tool error exposure",
  result: "result kind",
  mode: "gate mode",
};

/** Every change between two snapshots, tools in name order, each tool's changes most severe class first. */
export function diffSnapshots(base: Snapshot, head: Snapshot): ContractChange[] {
  const names = [...new Set([...base.tools.keys(), ...head.tools.keys()])].sort(compareText);
  const changes: ContractChange[] = [];
  for (const name of names) {
    const before = base.tools.get(name);
    const after = head.tools.get(name);
    let found: ContractChange[];
    if (before === undefined) {
      found = [
        {
          tool: name,
          class: "added",
          kind: "tool-added",
          area: "tool",
          pointer: "",
          summary: "tool added",
          after: after?.file,
        },
      ];
    } else if (after === undefined) {
      found = [
        {
          tool: name,
          class: "removed",
          kind: "tool-removed",
          area: "tool",
          pointer: "",
          summary: "tool removed",
          before: before.file,
        },
      ];
    } else {
      found = diffTool(before, after);
    }
    const rank = (c: ContractChange) => CHANGE_CLASSES.indexOf(c.class);
    changes.push(
      ...found
        .map((c, i) => ({ c, i }))
        .sort((x, y) => rank(x.c) - rank(y.c) || x.i - y.i)
        .map(({ c }) => c),
    );
  }
  return changes;
}

/** Records one change of the tool being compared. */
type Add = (change: Omit<ContractChange, "tool">) => void;

/** The changes of one tool present on both sides. */
export function diffTool(before: ToolSnapshot, after: ToolSnapshot): ContractChange[] {
  const tool = after.name;
  const out: ContractChange[] = [];
  const add: Add = (change) => out.push({ tool, ...change });
  documentChanges(before.document, after.document, add);
  dialectChanges(before, after, add);
  diffSettings(before.settings, after.settings, "/x-toolgate", add);
  viewChanges(before, after, add);
  const side = (snapshot: ToolSnapshot, schema: JsonSchema) => ({
    schema,
    formatsAsserted: snapshot.formatsAsserted,
  });
  if (before.result !== undefined && after.result !== undefined) {
    // A change at a keyword an overlay sets is the overlay's: named at its place in `x-toolgate.refine`.
    const overlay = new Map([
      ...refinedKeywordPointers(before.refine ?? {}),
      ...refinedKeywordPointers(after.refine ?? {}),
    ]);
    schemaChanges(side(before, before.result.bundled), side(after, after.result.bundled), "result", add, overlay);
  } else if (before.result !== undefined || after.result !== undefined) {
    const added = after.result !== undefined;
    add({
      class: "breaking",
      kind: added ? "output-schema-added" : "output-schema-removed",
      area: "result",
      pointer: "/outputSchema",
      path: "",
      summary: added
        ? "output schema added: the result is now JSON checked against it, no longer text"
        : "output schema removed: the result is no longer checked JSON",
    });
  }
  if (before.input === undefined && after.input !== undefined)
    add({
      class: "breaking",
      kind: "input-schema-added",
      area: "arguments",
      pointer: "/inputSchema",
      path: "",
      summary: "input schema added: arguments are now checked",
    });
  if (before.input !== undefined && after.input === undefined)
    add({
      class: "loosened",
      kind: "input-schema-removed",
      area: "arguments",
      pointer: "/inputSchema",
      path: "",
      summary: "input schema removed: arguments are no longer checked",
    });
  if (before.input !== undefined && after.input !== undefined)
    schemaChanges(side(before, before.input.bundled), side(after, after.input.bundled), "arguments", add);
  return out;
}

/** The tool's description, its MCP annotations (hint by hint) and any other member of the Tool object. */
function documentChanges(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  add: Add,
): void {
  const [db, da] = [before.description, after.description];
  if (db !== da)
    add(
      withValues(
        {
          class: "annotation",
          kind: "description-changed",
          area: "tool",
          pointer: "/description",
          summary: "tool description changed (the model reads it)",
        },
        db,
        da,
      ),
    );
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareText)) {
    if (CONTRACT_KEYS.has(key)) continue;
    const [x, y] = [own(before, key), own(after, key)];
    if (key === "annotations" && (isSchemaObject(x) || isSchemaObject(y))) {
      annotationChanges(isSchemaObject(x) ? x : {}, isSchemaObject(y) ? y : {}, add);
      continue;
    }
    if (canonical(x ?? null) === canonical(y ?? null) && (x === undefined) === (y === undefined)) continue;
    add(
      withValues(
        {
          class: "annotation",
          kind: "metadata-changed",
          area: "tool",
          pointer: `/${escapePointerToken(key)}`,
          summary: `${key} changed`,
        },
        x,
        y,
      ),
    );
  }
}

/** The MCP annotations (`readOnlyHint`, …), hint by hint: they are settings a host acts on. */
function annotationChanges(hx: Record<string, unknown>, hy: Record<string, unknown>, add: Add): void {
  for (const hint of [...new Set([...Object.keys(hx), ...Object.keys(hy)])].sort(compareText)) {
    if (
      canonical(own(hx, hint) ?? null) === canonical(own(hy, hint) ?? null) &&
      Object.hasOwn(hx, hint) === Object.hasOwn(hy, hint)
    )
      continue;
    add(
      withValues(
        {
          class: "settings",
          kind: "mcp-annotation-changed",
          area: "tool",
          pointer: `/annotations/${escapePointerToken(hint)}`,
          summary: `MCP annotation ${hint} changed`,
        },
        own(hx, hint),
        own(hy, hint),
      ),
    );
  }
}

/** The dialect of the result schema, and of the input schema where both versions have one. */
function dialectChanges(before: ToolSnapshot, after: ToolSnapshot, add: Add): void {
  const sides = [
    { pointer: "/outputSchema/$schema", summary: "result schema dialect changed", of: (s: ToolSnapshot) => s.result },
    { pointer: "/inputSchema/$schema", summary: "input schema dialect changed", of: (s: ToolSnapshot) => s.input },
  ];
  for (const { pointer, summary, of } of sides) {
    const [x, y] = [of(before)?.dialect, of(after)?.dialect];
    if (x !== undefined && y !== undefined && x !== y)
      add({ class: "settings", kind: "dialect-changed", area: "settings", pointer, summary, before: x, after: y });
  }
}

/** Fields that newly reach the model view (an exposure), and fields that leave it. */
function viewChanges(before: ToolSnapshot, after: ToolSnapshot, add: Add): void {
  const views = [
    {
      from: after,
      to: before,
      class: "exposure",
      kind: "view-field-added",
      summary: "field newly reaches the model view",
    },
    {
      from: before,
      to: after,
      class: "settings",
      kind: "view-field-removed",
      summary: "field no longer reaches the model view",
    },
  ] as const;
  for (const view of views) {
    const other = new Set(view.to.viewFields);
    for (const path of view.from.viewFields) {
      if (other.has(path)) continue;
      const pointer = fieldPointer(view.from.result?.bundled ?? true, path, "/outputSchema");
      // Keys in the order the JSON report has always shown them.
      add({ class: view.class, kind: view.kind, area: "view", pointer, path, summary: view.summary });
    }
  }
}

/**
 * Semantic changes of one schema, classed for its role.
 * @param overlay schema pointers of keywords `x-toolgate.refine` sets → their pointers in the contract file
 */
function schemaChanges(
  before: SchemaVersion,
  after: SchemaVersion,
  role: SchemaRole,
  add: Add,
  overlay: ReadonlyMap<string, string> = new Map(),
): void {
  const prefix = role === "result" ? "/outputSchema" : "/inputSchema";
  for (const change of compareSchemas(before, after)) {
    const refined = overlay.get(change.pointer);
    add(
      withValues(
        {
          class: classify(change.direction, role),
          kind: change.kind,
          area: role,
          pointer: refined ?? prefix + change.pointer,
          path: change.path,
          summary: refined === undefined ? change.summary : `${change.summary} (x-toolgate.refine)`,
        },
        change.before,
        change.after,
      ),
    );
  }
}

/**
 * Leaf by leaf comparison of the effective settings. Objects are compared key by key; lists as a whole (the order of
 * an oversize policy chain matters; `omit` is sorted beforehand).
 */
function diffSettings(before: unknown, after: unknown, pointer: string, add: Add): void {
  if (isSchemaObject(before) && isSchemaObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareText)) {
      diffSettings(own(before, key), own(after, key), `${pointer}/${escapePointerToken(key)}`, add);
    }
    return;
  }
  if (canonical(before ?? null) === canonical(after ?? null) && (before === undefined) === (after === undefined))
    return;
  // Keys below `x-toolgate` may be result paths (`/hits/*/snippet`): shown unescaped, they read as the contract has them.
  const tokens = pointer.split("/").slice(2).map(unescapePointerToken);
  const top = tokens[0] ?? "";
  const name = Object.hasOwn(SETTING_NAMES, top) ? (SETTING_NAMES[top] as string) : top;
  const exposes =
    (pointer === "/x-toolgate/toolError/expose" && after === true) ||
    (pointer === "/x-toolgate/mode" && after === "observe");
  add(
    withValues(
      {
        class: exposes ? "exposure" : "settings",
        kind: `${top}-changed`,
        area: "settings",
        pointer,
        summary: exposes
          ? top === "mode"
            ? "observe mode: every result reaches the model ungated"
            : "tool errors newly shown to the model"
          : `${name} changed: ${tokens.slice(1).join(" ") || top}`,
      },
      before,
      after,
    ),
  );
}

/** Set `before`/`after` only when there is a value, so that "absent" stays distinct from `null`. */
function withValues<T extends object>(
  change: T,
  before: unknown,
  after: unknown,
): T & { before?: unknown; after?: unknown } {
  const out: T & { before?: unknown; after?: unknown } = { ...change };
  if (before !== undefined) out.before = shown(before);
  if (after !== undefined) out.after = shown(after);
  return out;
}

/** Deepest value a report shows; a deeper one would be unreadable, and too deep for `JSON.stringify`. */
const MAX_SHOWN_DEPTH = 64;

/** A value as a report shows it: itself, or a note in its place when it nests deeper than {@link MAX_SHOWN_DEPTH}. */
function shown(value: unknown): unknown {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (typeof node !== "object" || node === null) continue;
    if (depth >= MAX_SHOWN_DEPTH)
      return `(nested more than ${MAX_SHOWN_DEPTH} levels deep: see the contract at the pointer)`;
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return value;
}

/**
 * Where a field of the result is declared: the schema pointer reached from the root through `$ref`, `properties`,
 * `items`/`prefixItems` and the branches of `allOf`/`anyOf`/`oneOf`. Falls back to `prefix` when it cannot tell.
 */
export function fieldPointer(bundled: JsonSchema, path: string, prefix: string): string {
  let candidates: Array<{ schema: unknown; at: string }> = [{ schema: bundled, at: "" }];
  const tokens = path === "" ? [] : path.slice(1).split("/");
  for (const token of tokens) {
    const name = unescapePointerToken(token);
    const next: Array<{ schema: unknown; at: string }> = [];
    const queue = [...candidates];
    const seen = new Set<string>();
    while (queue.length > 0 && seen.size < 256) {
      const { schema, at } = queue.shift() as { schema: unknown; at: string };
      if (seen.has(at) || !isSchemaObject(schema)) continue;
      seen.add(at);
      if (typeof schema.$ref === "string" && schema.$ref.startsWith("#")) {
        const target = fragmentToPointer(schema.$ref.slice(1));
        queue.push({ schema: valueAt(bundled, target), at: target });
      }
      for (const keyword of ["allOf", "anyOf", "oneOf"]) {
        const branches = schema[keyword];
        if (Array.isArray(branches))
          for (const [i, branch] of branches.entries()) queue.push({ schema: branch, at: `${at}/${keyword}/${i}` });
      }
      if (name === "*") {
        if (isSchemaObject(schema.items) || typeof schema.items === "boolean")
          next.push({ schema: schema.items, at: `${at}/items` });
        for (const keyword of ["prefixItems", "items"]) {
          const list = schema[keyword];
          if (Array.isArray(list))
            for (const [i, item] of list.entries()) next.push({ schema: item, at: `${at}/${keyword}/${i}` });
        }
      } else if (isSchemaObject(schema.properties) && Object.hasOwn(schema.properties, name)) {
        next.push({ schema: schema.properties[name], at: `${at}/properties/${token}` });
      }
    }
    if (next.length === 0) return prefix;
    candidates = next;
  }
  return prefix + (candidates[0]?.at ?? "");
}
