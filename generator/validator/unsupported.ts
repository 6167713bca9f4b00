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
 * The suite shows the first of these; `test/generator/validator/unevaluated.property.test.ts` found the rest, by comparing
 * Ajv with a direct reading of the spec on generated schemas.
 */

import { fullFormats } from "ajv-formats/dist/formats.js";
import { isSchemaObject } from "../schema/guards.js";
import type { SchemaObject } from "../schema/shapes.js";
import type { UnsupportedFeature } from "./schema-index.js";
import { type SchemaIndex, type SchemaNode, withoutFragment } from "./schema-index.js";
import { PROTOTYPE_NAME, patternPropertiesAfterBranches, unevaluatedLocations } from "./unevaluated.js";

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

/** `properties`, `patternProperties` or `dependencies` naming `__proto__`: Ajv drops that entry. */
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
