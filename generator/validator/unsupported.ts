/**
 * The schema features Ajv 8 compiles into validators that give wrong verdicts, found by running the official JSON
 * Schema Test Suite and reading Ajv's code generators. A contract using one of them is refused: a gate whose
 * validator answers wrongly is worse than no gate.
 *
 * Each check names the keyword and the structural condition that makes Ajv wrong, never a particular schema:
 *
 * - `properties` (also `patternProperties`, `dependencies`) naming `__proto__`: Ajv drops that entry.
 * - `$vocabulary`: Ajv applies every vocabulary whatever the meta-schema enables.
 * - `$dynamicRef` / `$recursiveRef`: Ajv supports only the "extensible recursive schema" shape (the reference
 *   points at the root of its own document, which carries the dynamic anchor; dynamic anchors only on document
 *   roots). Anything else resolves to the wrong schema.
 * - `unevaluatedItems` / `unevaluatedProperties`: Ajv's record of evaluated locations ignores `contains` and
 *   dynamic references; keeps what an `if` evaluated when `then` evaluates nothing, when the `if` evaluates
 *   everything or branches itself; loses what `$ref`/`allOf`/`properties` evaluated when a conditional keyword
 *   after it (`anyOf`, `oneOf`, `then`/`else`, `dependentSchemas`) also evaluates; keeps what a failed first branch
 *   of `anyOf`/`oneOf` evaluated when that branch records at run time; and compares an item count that can be
 *   `true` or unset after a conditional branch.
 * - `patternProperties` after such a run-time record: Ajv's code throws a TypeError (only when the record is kept,
 *   which `createCompiler` limits to schemas that read it).
 * - `contains` beside a tuple: skipped for arrays shorter than the tuple.
 * - draft-07 keywords beside `$ref`: ignored by the spec, applied by Ajv.
 *
 * The suite shows the first of these; `test/validator/unevaluated.property.test.ts` found the rest, by comparing
 * Ajv with a direct reading of the spec on generated schemas.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { isSchemaObject } from "../schema/guards.js";
import { pointerOf } from "../schema/pointer.js";
import type { SchemaObject } from "../schema.js";
import { readsEvaluatedLocations } from "./compiler.js";
import { type SchemaIndex, type SchemaNode, withoutFragment } from "./schema-index.js";

/** A feature that makes the generated validator wrong, located in its document. */
export interface UnsupportedFeature {
  node: SchemaNode;
  /** Pointer tokens from the node to the offending keyword or entry. */
  tokens: readonly string[];
  reason: string;
}

/** Every feature of the schema (and of the documents it references) that Ajv would validate wrongly. */
export function findUnsupportedFeatures(index: SchemaIndex): UnsupportedFeature[] {
  return [
    ...prototypePropertyNames(index),
    ...disabledVocabularies(index),
    ...dynamicReferences(index),
    ...unevaluatedLocations(index),
    ...patternPropertiesAfterBranches(index),
    ...containsAfterTuple(index),
    ...keywordsBesideDraft07Ref(index),
  ];
}

/**
 * Draft-07 ignores every keyword beside `$ref` (draft-07 core, section 8.3); Ajv applies them anyway, so a sibling
 * that asserts something would reject what the contract accepts.
 */
function* keywordsBesideDraft07Ref(index: SchemaIndex): Generator<UnsupportedFeature> {
  if (index.dialect !== "draft-07") return;
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema) || typeof node.schema.$ref !== "string") continue;
    for (const keyword of Object.keys(node.schema)) {
      if (!ASSERTING_KEYWORDS.has(keyword)) continue;
      yield {
        node,
        tokens: [keyword],
        reason: `"${keyword}" beside "$ref" is ignored in draft-07, but Ajv would apply it; wrap the "$ref" in "allOf" to keep both, or remove "${keyword}"`,
      };
    }
  }
}

/**
 * `contains` beside a tuple (`prefixItems`, or `items` as an array before 2020-12): Ajv's tuple code leaves its
 * result unset for an array shorter than the first tuple schema that checks anything, and every keyword it runs
 * after the tuple, `contains` among them, is then skipped. `items` and `unevaluatedItems` come after it too, but
 * have nothing to check on such a short array.
 */
function* containsAfterTuple(index: SchemaIndex): Generator<UnsupportedFeature> {
  for (const node of index.nodes) {
    const schema = node.schema;
    if (!isSchemaObject(schema) || !("contains" in schema)) continue;
    // With minContains 0 and no maxContains, Ajv ignores "contains" altogether, which is right.
    if (schema.minContains === 0 && !("maxContains" in schema)) continue;
    const tupleKeyword = index.dialect === "2020-12" ? "prefixItems" : "items";
    const tuple = schema[tupleKeyword];
    if (
      !Array.isArray(tuple) ||
      tuple.every((item) => item === true || (isSchemaObject(item) && Object.keys(item).length === 0))
    ) {
      continue;
    }
    yield {
      node,
      tokens: ["contains"],
      reason: `"contains" beside "${tupleKeyword}": Ajv skips it for arrays shorter than the tuple, accepting arrays that do not contain a match`,
    };
  }
}

const PROTOTYPE_NAME = "__proto__";

function* prototypePropertyNames(index: SchemaIndex): Generator<UnsupportedFeature> {
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    for (const keyword of ["properties", "patternProperties", "dependencies"]) {
      const map = node.schema[keyword];
      if (isSchemaObject(map) && Object.hasOwn(map, PROTOTYPE_NAME)) {
        yield {
          node,
          tokens: [keyword, PROTOTYPE_NAME],
          reason: `"${keyword}" names the property "${PROTOTYPE_NAME}", which Ajv ignores: the validator would accept any value for it`,
        };
      }
    }
  }
}

/** The keywords of each standard vocabulary Ajv enforces (2020-12 core section 8.1.2; 2019-09 section 8.1.2). */
const VOCABULARY_KEYWORDS: Record<string, readonly string[]> = {
  applicator: [
    "prefixItems",
    "items",
    "additionalItems",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
  ],
  unevaluated: ["unevaluatedItems", "unevaluatedProperties"],
  validation: [
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
  ],
};

/** Keywords Ajv validates with (all dialects together). */
const ASSERTING_KEYWORDS: ReadonlySet<string> = new Set([
  ...Object.values(VOCABULARY_KEYWORDS).flat(),
  "dependencies",
  "format",
  "contentSchema",
]);

const VOCABULARY_PREFIXES = [
  "https://json-schema.org/draft/2020-12/vocab/",
  "https://json-schema.org/draft/2019-09/vocab/",
];
const KNOWN_VOCABULARIES = new Set([
  "core",
  "applicator",
  "unevaluated",
  "validation",
  "meta-data",
  "format",
  "format-annotation",
  "format-assertion",
  "content",
]);

function* disabledVocabularies(index: SchemaIndex): Generator<UnsupportedFeature> {
  if (index.dialect === "draft-07") return;
  const root = index.root;
  if (!isSchemaObject(root.schema) || typeof root.schema.$schema !== "string") return;
  const metaUri = withoutFragment(root.schema.$schema);
  const meta = index.documentRoots.find((d) => d.document === metaUri || d.resource === metaUri);
  if (meta === undefined || !isSchemaObject(meta.schema) || !isSchemaObject(meta.schema.$vocabulary)) return;
  const declared = meta.schema.$vocabulary;
  const enabled = new Set<string>();
  for (const [uri, required] of Object.entries(declared)) {
    const prefix = VOCABULARY_PREFIXES.find((p) => uri.startsWith(p));
    const name = prefix === undefined ? undefined : uri.slice(prefix.length);
    if (name !== undefined && KNOWN_VOCABULARIES.has(name)) {
      enabled.add(name);
    } else if (required === true) {
      yield {
        node: root,
        tokens: ["$schema"],
        reason: `the meta-schema ${metaUri} requires the vocabulary ${uri}, which the validator does not implement`,
      };
    }
  }
  // 2019-09 puts the unevaluated keywords in the applicator vocabulary.
  if (index.dialect === "2019-09" && enabled.has("applicator")) enabled.add("unevaluated");
  for (const node of index.nodes) {
    if (node.document !== root.document || !isSchemaObject(node.schema)) continue;
    for (const [vocabulary, keywords] of Object.entries(VOCABULARY_KEYWORDS)) {
      if (enabled.has(vocabulary)) continue;
      for (const keyword of keywords) {
        if (!(keyword in node.schema)) continue;
        yield {
          node,
          tokens: [keyword],
          reason: `"${keyword}" belongs to the ${vocabulary} vocabulary, which the meta-schema ${metaUri} does not enable; Ajv would enforce it anyway`,
        };
      }
    }
  }
}

/** A dynamic reference keyword and the anchor name it looks for ("" for 2019-09's `$recursiveRef`). */
interface DynamicReference {
  node: SchemaNode;
  keyword: "$dynamicRef" | "$recursiveRef";
  reference: string;
}

function dynamicAnchorOf(schema: SchemaObject, keyword: DynamicReference["keyword"]): string | undefined {
  if (keyword === "$dynamicRef") return typeof schema.$dynamicAnchor === "string" ? schema.$dynamicAnchor : undefined;
  return schema.$recursiveAnchor === true ? "" : undefined;
}

const APPLIED_ELSEWHERE = new Set(["$defs", "definitions"]);

function* dynamicReferences(index: SchemaIndex): Generator<UnsupportedFeature> {
  const references: DynamicReference[] = [];
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    for (const keyword of ["$dynamicRef", "$recursiveRef"] as const) {
      const reference = node.schema[keyword];
      if (typeof reference === "string") references.push({ node, keyword, reference });
    }
  }
  if (references.length === 0) return;
  // Subschemas that some `$ref` lands on: Ajv compiles each as its own function.
  const refTargets = new Set<SchemaNode>();
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema) || typeof node.schema.$ref !== "string") continue;
    const target = index.resolveReference(node.schema.$ref, node);
    if (target !== undefined) refTargets.add(target);
  }
  for (const { node, keyword, reference } of references) {
    const fail = (why: string): UnsupportedFeature => ({
      node,
      tokens: [keyword],
      reason: `"${keyword}": "${reference}" ${why}; Ajv supports only a reference to the root of its own document, where the dynamic anchor is declared, and would resolve this one wrongly`,
    });
    const name =
      keyword === "$recursiveRef"
        ? reference === "#"
          ? ""
          : undefined
        : /^#[^/]+$/.test(reference)
          ? reference.slice(1)
          : undefined;
    if (name === undefined) {
      yield fail("is not a plain-name fragment");
      continue;
    }
    const documentRoot = index.documentRoots.find((d) => d.document === node.document);
    if (documentRoot === undefined || !isSchemaObject(documentRoot.schema)) continue;
    if (node.resource !== documentRoot.resource) {
      yield fail("sits in an embedded schema resource");
      continue;
    }
    if (node.keywords.some((k) => APPLIED_ELSEWHERE.has(k))) {
      yield fail(`sits under "$defs"`);
      continue;
    }
    if (
      [...refTargets].some((t) => t.document === node.document && t.pointer !== "" && isPrefix(t.pointer, node.pointer))
    ) {
      yield fail('is reached through a "$ref" into its document');
      continue;
    }
    if (dynamicAnchorOf(documentRoot.schema, keyword) !== name) {
      yield fail("does not point at a document root declaring that dynamic anchor");
      continue;
    }
    const anchored = index.nodes.filter((n) => isSchemaObject(n.schema) && dynamicAnchorOf(n.schema, keyword) === name);
    if (anchored.some((n) => n.pointer !== "")) {
      yield fail("shares its anchor name with a dynamic anchor below a document root");
      continue;
    }
    const rootAnchored = anchored.some((n) => n.document === index.root.document);
    if (!rootAnchored && anchored.length > 1) {
      yield fail("can land on several documents declaring the anchor, which Ajv does not scope");
    }
  }
}

function isPrefix(prefix: string, pointer: string): boolean {
  return pointer === prefix || pointer.startsWith(`${prefix}/`);
}

/** Which evaluated locations an `unevaluated*` keyword reads. */
type Location = "items" | "properties";

const CONTRIBUTORS: Record<Location, readonly string[]> = {
  items: ["prefixItems", "items", "additionalItems", "unevaluatedItems", "contains"],
  properties: ["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"],
};

/** Keywords that evaluate every item: after them the evaluated-items record is `true`, not a count. */
const EVALUATES_ALL_ITEMS = ["additionalItems", "unevaluatedItems"];

/**
 * The keywords that add to the record of evaluated locations, in the order Ajv generates their code (core, then
 * untyped applicators, then the object and array groups, `unevaluated*` last), and whether Ajv merges what each
 * evaluated only on some paths (`conditional`). `if` merges unconditionally, before `then` and `else`.
 */
const EVALUATION_ORDER: ReadonlyArray<{ keyword: string; conditional: boolean; direct: boolean }> = [
  { keyword: "$ref", conditional: false, direct: false },
  { keyword: "$dynamicRef", conditional: false, direct: false },
  { keyword: "$recursiveRef", conditional: false, direct: false },
  { keyword: "anyOf", conditional: true, direct: false },
  { keyword: "oneOf", conditional: true, direct: false },
  { keyword: "allOf", conditional: false, direct: false },
  { keyword: "if", conditional: false, direct: false },
  { keyword: "then", conditional: true, direct: false },
  { keyword: "else", conditional: true, direct: false },
  { keyword: "additionalProperties", conditional: false, direct: true },
  { keyword: "properties", conditional: false, direct: true },
  { keyword: "patternProperties", conditional: false, direct: true },
  { keyword: "dependentSchemas", conditional: true, direct: false },
  { keyword: "prefixItems", conditional: false, direct: true },
  { keyword: "items", conditional: false, direct: true },
  { keyword: "additionalItems", conditional: false, direct: true },
  { keyword: "unevaluatedProperties", conditional: false, direct: true },
  { keyword: "unevaluatedItems", conditional: false, direct: true },
];

/**
 * The subschemas applied to the same instance location as a node whose evaluation can count for it, with the
 * keyword that applies each.
 */
function* inPlaceChildren(index: SchemaIndex, node: SchemaNode): Generator<{ keyword: string; child: SchemaNode }> {
  const schema = node.schema;
  if (!isSchemaObject(schema)) return;
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i < list.length; i++) {
      const child = index.nodeAt(node.document, pointerOf(node.pointer, keyword, i));
      if (child !== undefined) yield { keyword, child };
    }
  }
  // "not" is left out: what its subschema evaluates never counts (it passes only when that subschema fails).
  for (const keyword of ["if", "then", "else"]) {
    // Without "if", "then" and "else" apply to nothing (2020-12 core, section 10.2.2).
    if ((keyword === "then" || keyword === "else") && !("if" in schema)) continue;
    const child = index.nodeAt(node.document, pointerOf(node.pointer, keyword));
    if (child !== undefined) yield { keyword, child };
  }
  const dependents = schema.dependentSchemas;
  if (isSchemaObject(dependents)) {
    for (const name of Object.keys(dependents)) {
      const child = index.nodeAt(node.document, pointerOf(node.pointer, "dependentSchemas", name));
      if (child !== undefined) yield { keyword: "dependentSchemas", child };
    }
  }
  for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    const reference = schema[keyword];
    if (typeof reference !== "string") continue;
    const child = index.resolveReference(keyword === "$recursiveRef" ? "#" : reference, node);
    if (child !== undefined) yield { keyword, child };
  }
}

/** Every node applied in place from a start node (itself included), following references, each once. */
function inPlaceClosure(index: SchemaIndex, start: SchemaNode): SchemaNode[] {
  const seen = new Set<SchemaNode>([start]);
  const stack = [start];
  while (stack.length > 0) {
    const node = stack.pop() as SchemaNode;
    for (const { child } of inPlaceChildren(index, node)) {
      if (seen.has(child)) continue;
      seen.add(child);
      stack.push(child);
    }
  }
  return [...seen];
}

/**
 * Whether one schema object's own keywords record evaluated locations, as Ajv's code generators decide it: an empty
 * `properties`, `patternProperties` or `prefixItems` records nothing.
 */
function hasDirectContributor(schema: SchemaObject, location: Location, index: SchemaIndex): boolean {
  return CONTRIBUTORS[location].some((k) => {
    if (!(k in schema)) return false;
    if (k === "contains") return index.dialect === "2020-12";
    const value = schema[k];
    if (k === "properties" || k === "patternProperties") {
      return isSchemaObject(value) && Object.keys(value).some((name) => name !== PROTOTYPE_NAME);
    }
    if (Array.isArray(value)) return value.length > 0;
    return true;
  });
}

/** Whether a subschema, with everything applied in place from it, evaluates every location of a kind. */
function evaluatesAll(index: SchemaIndex, node: SchemaNode, location: Location): boolean {
  return inPlaceClosure(index, node).some((n) => {
    if (!isSchemaObject(n.schema)) return false;
    if (location === "items") return evaluatesAllItems(n.schema, index, false);
    return "additionalProperties" in n.schema || "unevaluatedProperties" in n.schema;
  });
}

/**
 * Whether Ajv keeps the record of a subschema in a variable set at run time (rather than in its generated code):
 * so it is when a conditional applicator somewhere in place below it evaluates locations of the kind, or, for
 * properties, when `patternProperties` records the names it matched.
 */
function recordIsDynamic(index: SchemaIndex, node: SchemaNode, location: Location): boolean {
  return inPlaceClosure(index, node).some(
    (n) =>
      (location === "properties" &&
        isSchemaObject(n.schema) &&
        hasDirectContributor({ patternProperties: n.schema.patternProperties }, "properties", index)) ||
      [...inPlaceChildren(index, n)].some(
        ({ keyword, child }) => CONDITIONAL_KEYWORDS.has(keyword) && contributes(index, child, location),
      ),
  );
}

const CONDITIONAL_KEYWORDS = new Set(
  EVALUATION_ORDER.filter((entry) => entry.conditional).map((entry) => entry.keyword),
);

/** Answers of {@link contributes}, per node: large schemas ask about the same subschemas many times. */
const contributionCache = new WeakMap<SchemaNode, Partial<Record<Location, boolean>>>();

/** Whether a subschema, with everything applied in place from it, records evaluated locations of a kind. */
function contributes(index: SchemaIndex, node: SchemaNode, location: Location): boolean {
  const cached = contributionCache.get(node) ?? {};
  let answer = cached[location];
  if (answer === undefined) {
    answer = inPlaceClosure(index, node).some(
      (n) => isSchemaObject(n.schema) && hasDirectContributor(n.schema, location, index),
    );
    cached[location] = answer;
    contributionCache.set(node, cached);
  }
  return answer;
}

function evaluatesAllItems(schema: SchemaObject, index: SchemaIndex, isHolder: boolean): boolean {
  // The holder's own `unevaluatedItems` reads the record; it does not add to it before being read.
  if (EVALUATES_ALL_ITEMS.some((k) => k in schema && !(isHolder && k === "unevaluatedItems"))) return true;
  // 2020-12 `items` takes every item after `prefixItems`; before 2020-12 its schema form takes all items.
  return "items" in schema && (index.dialect === "2020-12" || !Array.isArray(schema.items));
}

function* unevaluatedLocations(index: SchemaIndex): Generator<UnsupportedFeature> {
  if (index.dialect === "draft-07") return;
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema)) continue;
    for (const [keyword, location] of [
      ["unevaluatedItems", "items"],
      ["unevaluatedProperties", "properties"],
    ] as const) {
      if (!(keyword in node.schema) || node.schema[keyword] === true) continue;
      const why = unevaluatedProblem(index, node, location);
      if (why !== undefined) {
        yield { node, tokens: [keyword], reason: `"${keyword}" ${why}; Ajv would report wrong verdicts` };
      }
    }
  }
}

/** The keywords of one schema object that record evaluated locations of a kind, in Ajv's order. */
function contributions(index: SchemaIndex, node: SchemaNode, location: Location, holder: SchemaNode) {
  const schema = node.schema as SchemaObject;
  const children = [...inPlaceChildren(index, node)];
  return EVALUATION_ORDER.filter(({ keyword, direct }) => {
    if (!(keyword in schema)) return false;
    if (direct) {
      // The holder's own `unevaluated*` reads the record; it does not add to it before being read.
      if (node === holder && keyword.startsWith("unevaluated")) return false;
      return CONTRIBUTORS[location].includes(keyword);
    }
    return children.some((c) => c.keyword === keyword && contributes(index, c.child, location));
  });
}

/**
 * Whether what `properties` evaluated is lost only on paths where it does not matter: Ajv records it inside the
 * branch of the first `dependentSchemas` trigger that evaluates anything, so the loss is harmless when every name
 * `properties` declares is that trigger (absent trigger, absent property).
 */
function onlyWithTrigger(index: SchemaIndex, node: SchemaNode, lost: string, conditional: string): boolean {
  const schema = node.schema as SchemaObject;
  if (lost !== "properties" || conditional !== "dependentSchemas") return false;
  if (!isSchemaObject(schema.properties) || !isSchemaObject(schema.dependentSchemas)) return false;
  const trigger = Object.keys(schema.dependentSchemas).find((name) => {
    const child = index.nodeAt(node.document, pointerOf(node.pointer, "dependentSchemas", name));
    return child !== undefined && contributes(index, child, "properties");
  });
  return Object.keys(schema.properties).every((name) => name === trigger);
}

/** Why Ajv's record of evaluated locations is wrong for the `unevaluated*` keyword at a node, if it is. */
function unevaluatedProblem(index: SchemaIndex, holder: SchemaNode, location: Location): string | undefined {
  const scope = inPlaceClosure(index, holder);
  let conditionalItems = false;
  for (const node of scope) {
    const schema = node.schema;
    if (!isSchemaObject(schema)) continue;
    if ("$dynamicRef" in schema || "$recursiveRef" in schema) {
      return "depends on locations evaluated through a dynamic reference, which Ajv does not track";
    }
    if (location === "items" && index.dialect === "2020-12" && "contains" in schema) {
      return `depends on items matched by "contains", which Ajv does not count as evaluated`;
    }
    const merged = contributions(index, node, location, holder);
    const keywords = merged.map((m) => m.keyword);
    if (keywords.includes("if")) {
      const ifNode = index.nodeAt(node.document, pointerOf(node.pointer, "if")) as SchemaNode;
      if (!keywords.includes("then")) {
        return `depends on locations evaluated by an "if" whose "then" evaluates none; Ajv keeps the "if" annotations when it fails`;
      }
      if (evaluatesAll(index, ifNode, location) || recordIsDynamic(index, ifNode, location)) {
        return `depends on locations evaluated by an "if" that evaluates every location or branches itself; Ajv keeps those annotations when the "if" fails`;
      }
    }
    const firstConditional = merged.findIndex((m) => m.conditional);
    if (firstConditional < 0) continue;
    const conditional = merged[firstConditional]?.keyword as string;
    const lost = merged
      .slice(0, firstConditional)
      .find(
        (m) => !(m.keyword === "if" && conditional === "then") && !onlyWithTrigger(index, node, m.keyword, conditional),
      );
    if (lost !== undefined) {
      return `depends on locations evaluated by "${lost.keyword}" and by the conditional "${conditional}" after it; Ajv records the first only on the paths where the second applies`;
    }
    // Ajv makes the first branch's record its own: a branch that fails after a nested branch evaluated leaks.
    if (conditional === "anyOf" || conditional === "oneOf") {
      const first = [...inPlaceChildren(index, node)].find(
        ({ keyword, child }) => keyword === conditional && contributes(index, child, location),
      );
      if (first !== undefined && recordIsDynamic(index, first.child, location)) {
        return `depends on locations evaluated inside the first branch of "${conditional}" that evaluates any, which Ajv records at run time and keeps when that branch fails`;
      }
    }
    if (location === "items") conditionalItems = true;
  }
  if (conditionalItems) {
    const holderSchema = holder.schema as SchemaObject;
    const allItems = scope.some((n) => isSchemaObject(n.schema) && evaluatesAllItems(n.schema, index, n === holder));
    const countsPrefix =
      index.dialect === "2020-12" ? "prefixItems" in holderSchema : Array.isArray(holderSchema.items);
    if (allItems || !countsPrefix) {
      return `depends on items evaluated by a conditional subschema; Ajv compares that count wrongly when it is unset or covers every item`;
    }
  }
  return undefined;
}

/**
 * `patternProperties` after a keyword that leaves the record of evaluated properties in a run-time variable (a
 * conditional branch, or a subschema holding one): Ajv's code writes `record[name] = true` into it unguarded, and
 * throws a TypeError when no branch applied. Only compiled code that records evaluation has it (see
 * `createCompiler`).
 */
function* patternPropertiesAfterBranches(index: SchemaIndex): Generator<UnsupportedFeature> {
  if (!readsEvaluatedLocations(index)) return;
  for (const node of index.nodes) {
    if (
      !isSchemaObject(node.schema) ||
      !hasDirectContributor({ patternProperties: node.schema.patternProperties }, "properties", index)
    )
      continue;
    const before = [...inPlaceChildren(index, node)].find(({ keyword, child }) =>
      ["anyOf", "oneOf", "then", "else"].includes(keyword)
        ? contributes(index, child, "properties")
        : keyword !== "dependentSchemas" && recordIsDynamic(index, child, "properties"),
    );
    if (before === undefined) continue;
    yield {
      node,
      tokens: ["patternProperties"],
      reason: `"patternProperties" beside "${before.keyword}", whose evaluated properties Ajv records at run time: the generated code would throw a TypeError when no branch applies`,
    };
  }
}

/** The formats the validator can assert: ajv-formats' full set. */
export const ASSERTABLE_FORMATS: ReadonlySet<string> = new Set(Object.keys(fullFormats));

/** The formats JSON Schema defines (2020-12 validation, section 7.3; the earlier drafts define a subset). */
export const DEFINED_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

/**
 * Defined formats the validator cannot check. When formats are asserted, an implementation without full support
 * for a defined format must refuse the schema (2020-12 validation, section 7.2.3). A format name JSON Schema does
 * not define stays an annotation, as the suite expects (`optional/format/unknown.json`).
 */
export function* unassertableFormats(index: SchemaIndex): Generator<UnsupportedFeature> {
  for (const node of index.nodes) {
    if (!isSchemaObject(node.schema) || typeof node.schema.format !== "string") continue;
    const format = node.schema.format;
    if (!DEFINED_FORMATS.has(format) || ASSERTABLE_FORMATS.has(format)) continue;
    yield {
      node,
      tokens: ["format"],
      reason: `"format": "${format}" cannot be asserted: the validator has no check for it`,
    };
  }
}
