/**
 * The projector of `view.ts`: a tool's `buildView` as straight-line code over its view plan, one function per object
 * and array node, so a result's view is made by reading and writing the plan's constant keys rather than by
 * interpreting the plan on every admit.
 *
 * It makes exactly the projection the runtime's interpreter (`project`) makes: the same view, the same omissions in
 * the same order, the same media. Nodes whose work is not a fixed shape (a tuple, an `any` or `media` node, a union
 * that needs a search) and values whose JSON type does not fit their node are handed to the interpreter at their
 * path (`viewNode`), into the same lists, and so is an object whose prototype is not `Object.prototype` (every
 * value the gate parses or copies has it). Only own keys are shown (the interpreter's rule): a key is read, and
 * asked for as an own key only when it reads undefined, since `Object.prototype` holds none of them; a key that is a
 * member of `Object.prototype` is asked for first and defined rather than assigned. Should anything add one of the
 * view's other keys to `Object.prototype` after generation, the whole view is the interpreter's (`viewKeysFree`),
 * which defines such keys, so no key written ever runs a setter and no inherited member is ever shown.
 *
 * It counts what it places, for the measure stage (`runtime/stages/projector.ts`): a string's cost is added where it
 * is cleaned (`viewText`), a number's, boolean's or null's by `viewValue`, each key by a constant written here (its
 * cost with its colon and a comma), and each container's brackets, less the last comma, once it is made.
 */

import type { ViewJsonType, ViewPlan } from "@toolgate/runtime";
import { pointerSegment, viewKeyBytes, viewPlanFits } from "@toolgate/runtime";
import { type Code, own, quote } from "./code.js";

/** A step of a node's path in the plan object: a property name or an index. */
type PlanStep = string | number;

/** What the projector's emission gathers: its functions, the plan nodes it hands on, the keys it assigns. */
interface Emission {
  readonly functions: string[];
  /** Constant name of each node handed to the interpreter, by its path in the plan. */
  readonly nodes: Map<string, { name: string; path: readonly PlanStep[] }>;
  /** Keys the view assigns (not members of `Object.prototype` when generated). */
  readonly keys: Set<string>;
  readonly maxStringChars: number;
}

/** The JSON types a union is resolved for, in the order the generated code tests them. */
const JSON_KINDS: readonly ViewJsonType[] = ["string", "array", "object", "primitive"];

/** What each JSON type is tested with, in generated code, for the value `v`. */
const KIND_TEST: Readonly<Record<ViewJsonType, string>> = {
  string: 'typeof v === "string"',
  array: "Array.isArray(v)",
  object: 'v !== null && typeof v === "object"',
  primitive: "true",
};

/** The keys `Object.prototype` has of its own: such a key is defined in the view, never assigned. */
const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * The index of the option of a union (whose options hold no union) a value of this type is projected with: the
 * first that fits, as the interpreter finds it; `undefined` when none does.
 */
function unionOption(plan: Extract<ViewPlan, { kind: "union" }>, type: ViewJsonType): number | undefined {
  const index = plan.options.findIndex((option) => viewPlanFits(option, type));
  return index < 0 ? undefined : index;
}

/**
 * The keys of an object node in the order the interpreter reads them: `view.ts` writes the plan's keys sorted, and
 * the plan object then lists integer-like keys first, as every object does.
 */
function planKeys(properties: Record<string, ViewPlan>): string[] {
  const written: Record<string, true> = {};
  for (const key of Object.keys(properties).sort()) {
    Object.defineProperty(written, key, { value: true, enumerable: true, configurable: true, writable: true });
  }
  return Object.keys(written);
}

/** A string literal of generated code. */
function text(value: string): string {
  return quote(value).text;
}

/**
 * Where a value sits, as expressions of generated code: its container's path (`base`), its key or index unescaped
 * (`segment`, `undefined` for the root), and its own path, written out only when a container is projected.
 */
interface Place {
  base: string;
  segment: string;
  path: string;
}

/** Statement lists that are one `if` statement, which an `else` can take as `else if`. */
const chains = new WeakSet<string[]>();

/**
 * The statements that place a value (an expression) in its container: the assignment, and, when `counted`, what the
 * count adds for its place (a key's constant). What the interpreter places is not counted (`viewNode` says so).
 */
type Put = (expression: string, counted?: boolean) => string[];

/** `lines` run when `test` holds: one statement as the `if`'s own, several in a block. */
function when(test: string, lines: readonly string[]): string[] {
  return lines.length === 1 ? [`if (${test}) ${lines[0]}`] : [`if (${test}) {`, ...lines.map((l) => `  ${l}`), "}"];
}

/** The statements that place the value `v` projected by `node`, at `at`, with `put`. */
function placeNode(emission: Emission, node: ViewPlan, path: readonly PlanStep[], at: Place, put: Put): string[] {
  const { base, segment } = at;
  // A node always handed on reads its constant; a value of the wrong type (which a valid result never has) finds its
  // node in the plan only then.
  const handOn = (always = false): string[] => [
    `const r = viewNode(b, v, ${always ? nodeConstant(emission, path) : planPath(path)}, ${base}, ${segment});`,
    ...when("r !== LEFT_OUT", put("r", false)),
  ];
  const branch = (test: string, then: string[], otherwise: string[]): string[] => {
    const lines = [`if (${test}) {`, ...then.map((line) => `  ${line}`)];
    // An `else` that is one `if` of its own reads as `else if`.
    if (chains.has(otherwise)) lines.push(`} else ${otherwise[0]}`, ...otherwise.slice(1));
    else lines.push("} else {", ...otherwise.map((line) => `  ${line}`), "}");
    chains.add(lines);
    return lines;
  };
  const string = (max: number, overflow: string): string[] => {
    const bounded = `viewText(b, v, ${max}, ${text(overflow)}, ${base}, ${segment})`;
    return overflow === "omit"
      ? [`const t = ${bounded};`, ...when("t !== undefined", put("t"))]
      : put(`${bounded} as string`);
  };
  switch (node.kind) {
    case "string":
      return branch('typeof v === "string"', string(node.max, node.overflow), handOn());
    case "value":
      return branch(
        'typeof v === "string"',
        string(node.max ?? emission.maxStringChars, "excerpt"),
        branch('v === null || typeof v !== "object"', put("viewValue(b, v)"), handOn()),
      );
    case "object": {
      const name = objectFunction(emission, node, path);
      return branch(
        'v !== null && typeof v === "object" && !Array.isArray(v) && getPrototypeOf(v) === ObjectPrototype',
        put(`${name}(b, v as Record<string, unknown>, ${at.path})`),
        handOn(),
      );
    }
    case "array": {
      const name = arrayFunction(emission, node, path);
      return branch("Array.isArray(v)", put(`${name}(b, v as readonly unknown[], ${at.path})`), handOn());
    }
    case "union": {
      if (node.options.some((option) => option.kind === "union")) return handOn(true);
      // One branch per JSON type, tested in the order of JSON_KINDS; the last takes what is left (primitives). A type
      // no option takes goes to the interpreter, which shows it by the `value` rule.
      let lines: string[] = [];
      for (let k = JSON_KINDS.length - 1; k >= 0; k--) {
        const index = unionOption(node, JSON_KINDS[k] as ViewJsonType);
        const option =
          index === undefined
            ? handOn()
            : placeNode(emission, node.options[index] as ViewPlan, [...path, "options", index], at, put);
        lines = k === JSON_KINDS.length - 1 ? option : branch(KIND_TEST[JSON_KINDS[k] as ViewJsonType], option, lines);
      }
      return lines;
    }
    default:
      return handOn(true);
  }
}

/** Where a node is found in `viewPlan`, as code. */
function planPath(path: readonly PlanStep[]): string {
  const steps = path.map((step) => (typeof step === "number" ? String(step) : text(step)));
  return `viewPlanAt(viewPlan, [${steps.join(", ")}])`;
}

/** The constant a node always handed to the interpreter is read from (`viewPlanAt` once, when the module loads). */
function nodeConstant(emission: Emission, path: readonly PlanStep[]): string {
  const id = JSON.stringify(path);
  let entry = emission.nodes.get(id);
  if (entry === undefined) {
    entry = { name: `node${emission.nodes.size + 1}`, path };
    emission.nodes.set(id, entry);
  }
  return entry.name;
}

/** Indents lines of a function body. */
function body(lines: readonly string[], indent = "  "): string {
  return lines.map((line) => `${indent}${line}`).join("\n");
}

/** Emits the function of an object node; returns its name. */
function objectFunction(emission: Emission, node: Extract<ViewPlan, { kind: "object" }>, path: readonly PlanStep[]) {
  const name = `viewObject${emission.functions.length + 1}`;
  const slot = emission.functions.length;
  emission.functions.push("");
  const lines: string[] = ["const out: Record<string, unknown> = {};", "const start = b.size;"];
  for (const key of planKeys(node.properties)) {
    const child = node.properties[key] as ViewPlan;
    const quoted = text(key);
    const defined = PROTOTYPE_KEYS.has(key);
    if (!defined) emission.keys.add(key);
    // A `toJSON` member is called by `JSON.stringify` when it is a function: a view with one is counted by the walk.
    const counting = key === "toJSON" ? "b.counted = false;" : `b.size += ${viewKeyBytes(key)};`;
    const put: Put = (value, counted = true) => [
      defined ? `viewDefine(out, ${quoted}, ${value});` : `out[${quoted}] = ${value};`,
      ...(counted ? [counting] : []),
    ];
    const at = { base: "path", segment: quoted, path: `path + ${text(`/${pointerSegment(key)}`)}` };
    const placed = placeNode(emission, child, [...path, "properties", key], at, put);
    if (defined) {
      // Absent, such a key reads the prototype's member: it is asked for as an own key first.
      lines.push(`if (hasOwn.call(s, ${quoted})) {`, `  const v = s[${quoted}];`, ...placed.map((l) => `  ${l}`), "}");
    } else {
      // `s` is an ordinary object and `Object.prototype` holds none of these keys (`viewKeysFree`): a member read as
      // anything but undefined is its own, and only an undefined one needs asking.
      lines.push(
        "{",
        `  const v = s[${quoted}];`,
        `  if (v !== undefined || hasOwn.call(s, ${quoted})) {`,
        ...placed.map((l) => `    ${l}`),
        "  }",
        "}",
      );
    }
  }
  // The braces, less the comma after the last member when there is one (every member placed adds to the size).
  lines.push("b.size += b.size === start ? 2 : 1;", "return out;");
  emission.functions[slot] =
    `function ${name}(b: ViewBuild, s: Record<string, unknown>, path: string): Record<string, unknown> {\n${body(lines)}\n}`;
  return name;
}

/** Emits the function of an array node; returns its name. */
function arrayFunction(emission: Emission, node: Extract<ViewPlan, { kind: "array" }>, path: readonly PlanStep[]) {
  const name = `viewArray${emission.functions.length + 1}`;
  const slot = emission.functions.length;
  emission.functions.push("");
  const lines: string[] = ["const out: unknown[] = [];", "const count = s.length;"];
  if (node.take === undefined) {
    lines.push("const shown = count;");
  } else {
    // What is left out is reported before the items' own omissions: the interpreter lists them in that order.
    const take = Math.max(0, node.take);
    lines.push(
      `const shown = count < ${take} ? count : ${take};`,
      'if (shown < count) b.omissions.push({ path, kind: "items", count: count - shown });',
    );
  }
  const at = { base: "path", segment: "i", path: 'path + "/" + i' };
  const placed = placeNode(emission, node.items, [...path, "items"], at, (value) => [`out.push(${value});`]);
  lines.push("for (let i = 0; i < shown; i++) {", "  const v = s[i];", ...placed.map((l) => `  ${l}`), "}");
  // The brackets, and a comma between each two items.
  lines.push("b.size += out.length === 0 ? 2 : out.length + 1;", "return out;");
  emission.functions[slot] =
    `function ${name}(b: ViewBuild, s: readonly unknown[], path: string): unknown[] {\n${body(lines)}\n}`;
  return name;
}

/**
 * The projector of a plan: the declarations `view.ts` holds after `viewPlan` (the helpers, the node constants and
 * one function per object and array node) and the body of its `buildView`, which returns the projection of `data`.
 */
export function projector(
  plan: ViewPlan,
  maxStringChars: number,
  viewType: string,
): { declarations: Code; buildBody: Code } {
  const emission: Emission = { functions: [], nodes: new Map(), keys: new Set(), maxStringChars };
  const root = placeNode(emission, plan, [], { base: '""', segment: "undefined", path: '""' }, (value) => [
    `view = ${value};`,
  ]);
  const keys = [...emission.keys].sort();
  const declarations = [
    "const hasOwn = Object.prototype.hasOwnProperty;",
    "const getPrototypeOf = Object.getPrototypeOf;",
    "const ObjectPrototype = Object.prototype;",
    "",
    "/** The keys the view assigns: should one become a member of `Object.prototype`, the interpreter makes the view. */",
    `const VIEW_KEYS: readonly string[] = [${keys.map(text).join(", ")}];`,
    ...[...emission.nodes.values()].map((entry) => `const ${entry.name} = ${planPath(entry.path)};`),
    ...emission.functions.flatMap((fn) => ["", fn]),
  ];
  const buildBody = [
    `if (!viewKeysFree(VIEW_KEYS)) return project(data, viewPlan, { maxStringChars: ${maxStringChars} }) as Projection<${viewType}>;`,
    `const b = startView(${maxStringChars}, true);`,
    "let view: unknown;",
    "const v: unknown = data;",
    ...root,
    `return finishView<${viewType}>(view, b);`,
  ];
  return { declarations: own(declarations.join("\n")), buildBody: own(body(buildBody)) };
}
