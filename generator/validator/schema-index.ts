/**
 * Every subschema of a resolved schema and of the documents it references, indexed the way a validator resolves
 * references: by schema resource (`$id`), JSON pointer and anchor (2020-12 core, sections 8.2 and 9).
 *
 * The feature checks in `unsupported.ts` use it to follow `$ref` and to know which schema resource a keyword sits in.
 * Walks are iterative: a hostile contract may nest deeper than the call stack allows.
 */
import { isSchema, isSchemaObject } from "../schema/guards.js";
import { SINGLE_SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP } from "../schema/keywords.js";
import { escapePointerToken, pointerTokens } from "../schema/pointer.js";
import type { Dialect, JsonSchema, ResolvedSchema, SchemaObject } from "../schema/shapes.js";

/** One subschema and where it sits. */
export interface SchemaNode {
  schema: JsonSchema;
  /** Retrieval URI of the document holding it (the root's `baseUri` without fragment, or a `documents` key). */
  document: string;
  /** JSON pointer from the document's root schema. */
  pointer: string;
  /** Absolute URI of the schema resource it belongs to (the nearest enclosing `$id`, or the document). */
  resource: string;
  /** JSON pointer from that resource's root. */
  resourcePointer: string;
  /** The keywords passed through from the document root, outermost first (no property names or indexes). */
  keywords: readonly string[];
}

/** The direct subschemas of one schema object in a dialect, each with the keyword tokens leading to it. */
export function* childSchemas(
  schema: SchemaObject,
  dialect: Dialect,
): Generator<{ tokens: string[]; child: JsonSchema }> {
  for (const keyword of SINGLE_SUBSCHEMA[dialect]) {
    const value = schema[keyword];
    if (isSchema(value)) yield { tokens: [keyword], child: value };
  }
  for (const keyword of SUBSCHEMA_LIST[dialect]) {
    const value = schema[keyword];
    if (!Array.isArray(value)) continue;
    for (const [i, item] of value.entries()) if (isSchema(item)) yield { tokens: [keyword, String(i)], child: item };
  }
  for (const keyword of SUBSCHEMA_MAP[dialect]) {
    const value = schema[keyword];
    if (!isSchemaObject(value)) continue;
    for (const name of Object.keys(value)) {
      const item = value[name];
      if (isSchema(item)) yield { tokens: [keyword, name], child: item };
    }
  }
}

/** URI without its fragment. */
export function withoutFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash < 0 ? uri : uri.slice(0, hash);
}

/** Resolve a URI reference against a base; undefined when either cannot be parsed. */
export function resolveUri(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    // `urn:` and other opaque bases only take fragment-only references.
    if (reference.startsWith("#")) return withoutFragment(base) + reference;
    try {
      return new URL(reference).href;
    } catch {
      return undefined;
    }
  }
}

/** Decode the reference tokens of a JSON pointer written as a URI fragment (RFC 6901 sections 4 and 6). */
function fragmentTokens(fragment: string): string[] | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  return pointerTokens(decoded);
}

/** All subschemas reachable from a resolved schema: its root and every referenced document. */
export class SchemaIndex {
  /** The root of the contract schema. */
  readonly root: SchemaNode;
  /** Every subschema of every document, documents in sorted order, each in document order. */
  readonly nodes: readonly SchemaNode[] = [];
  /** Roots of the documents: the contract schema's first, then `documents` sorted by URI. */
  readonly documentRoots: readonly SchemaNode[] = [];
  private readonly byResource = new Map<string, SchemaNode>();
  private readonly byAnchor = new Map<string, SchemaNode>();
  private readonly byLocation = new Map<string, SchemaNode>();

  constructor(readonly resolved: ResolvedSchema) {
    const rootDocument = withoutFragment(resolved.baseUri);
    this.root = this.addDocument(resolved.root, rootDocument);
    for (const uri of Object.keys(resolved.documents).sort()) {
      const document = resolved.documents[uri];
      if (document !== undefined && uri !== rootDocument) this.addDocument(document, withoutFragment(uri));
    }
  }

  /** The dialect every document is read in. */
  get dialect(): Dialect {
    return this.resolved.dialect;
  }

  /** The node for a schema value met while walking (by identity), if it belongs to the index. */
  nodeAt(document: string, pointer: string): SchemaNode | undefined {
    return this.byLocation.get(`${document}#${pointer}`);
  }

  /**
   * The subschema a `$ref` (or `$dynamicRef`, read statically) written in `from` points to, or undefined when it
   * leaves the loaded documents or names nothing.
   */
  resolveReference(reference: string, from: SchemaNode): SchemaNode | undefined {
    const target = resolveUri(reference, from.resource);
    if (target === undefined) return undefined;
    const hash = target.indexOf("#");
    const resource = hash < 0 ? target : target.slice(0, hash);
    const fragment = hash < 0 ? "" : target.slice(hash + 1);
    const tokens = fragmentTokens(fragment);
    if (tokens === undefined) return this.byAnchor.get(`${resource}#${fragment}`);
    const resourceRoot = this.byResource.get(resource);
    if (resourceRoot === undefined) return undefined;
    const pointer = resourceRoot.pointer + tokens.map((t) => `/${escapePointerToken(t)}`).join("");
    return this.byLocation.get(`${resourceRoot.document}#${pointer}`);
  }

  private addDocument(schema: JsonSchema, document: string): SchemaNode {
    const stack: SchemaNode[] = [];
    const rootId =
      isSchemaObject(schema) && typeof schema.$id === "string" ? resolveUri(schema.$id, document) : undefined;
    const resource = rootId === undefined ? document : withoutFragment(rootId);
    const root: SchemaNode = { schema, document, pointer: "", resource, resourcePointer: "", keywords: [] };
    this.byResource.set(document, root);
    stack.push(root);
    while (stack.length > 0) {
      const node = stack.pop() as SchemaNode;
      this.register(node);
      if (!isSchemaObject(node.schema)) continue;
      const children = [...childSchemas(node.schema, this.dialect)].reverse();
      for (const { tokens, child } of children) {
        const pointer = node.pointer + tokens.map((t) => `/${escapePointerToken(t)}`).join("");
        let childResource = node.resource;
        let childResourcePointer = node.resourcePointer + tokens.map((t) => `/${escapePointerToken(t)}`).join("");
        const id = isSchemaObject(child) && typeof child.$id === "string" ? child.$id : undefined;
        // Before 2019-09 an `$id` beside `$ref` is ignored, and `$id: "#name"` is a plain-name anchor.
        const ignoresId = this.dialect === "draft-07" && isSchemaObject(child) && "$ref" in child;
        if (id !== undefined && !id.startsWith("#") && !ignoresId) {
          const absolute = resolveUri(id, node.resource);
          if (absolute !== undefined) {
            childResource = withoutFragment(absolute);
            childResourcePointer = "";
          }
        }
        stack.push({
          schema: child,
          document,
          pointer,
          resource: childResource,
          resourcePointer: childResourcePointer,
          keywords: [...node.keywords, tokens[0] as string],
        });
      }
    }
    (this.documentRoots as SchemaNode[]).push(root);
    return root;
  }

  private register(node: SchemaNode): void {
    (this.nodes as SchemaNode[]).push(node);
    this.byLocation.set(`${node.document}#${node.pointer}`, node);
    if (node.resourcePointer === "" && !this.byResource.has(node.resource)) this.byResource.set(node.resource, node);
    if (!isSchemaObject(node.schema)) return;
    const anchors = [node.schema.$anchor, node.schema.$dynamicAnchor];
    const id = node.schema.$id;
    if (this.dialect === "draft-07" && typeof id === "string" && id.startsWith("#")) anchors.push(id.slice(1));
    for (const anchor of anchors) {
      if (typeof anchor === "string") this.byAnchor.set(`${node.resource}#${anchor}`, node);
    }
  }
}

/** A feature that makes the generated validator wrong, located in its document. */
export interface UnsupportedFeature {
  node: SchemaNode;
  /** Pointer tokens from the node to the offending keyword or entry. */
  tokens: readonly string[];
  reason: string;
}
