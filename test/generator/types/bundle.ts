/**
 * A tiny local bundler for the test harness only, standing in for the resolve stage (owned elsewhere) until it
 * lands: it rewrites `$id`-relative, `$anchor` and remote (`http://localhost:1234/…`) references into `#/…`
 * pointers, copying remote documents under `$defs`. References it cannot make local are left as they are (the
 * types stage then types them as `unknown`) and listed.
 */

const SCHEMA_KEYWORDS = [
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
];
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function encodePointer(tokens: string[]): string {
  return tokens.map((t) => `/${encodeURIComponent(t.replaceAll("~", "~0").replaceAll("/", "~1"))}`).join("");
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash === -1 ? uri : uri.slice(0, hash);
}

function resolveUri(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    if (ref.startsWith("#")) return withoutFragment(base) + ref;
    return undefined;
  }
}

/** Every subschema of `node` with the pointer tokens leading to it. */
function children(node: JsonObject): Array<[string[], Json]> {
  const out: Array<[string[], Json]> = [];
  for (const key of SCHEMA_KEYWORDS) {
    const value = node[key];
    if (Object.hasOwn(node, key) && value !== undefined && !Array.isArray(value)) out.push([[key], value]);
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const value = node[key];
    if (Object.hasOwn(node, key) && Array.isArray(value)) {
      for (const [i, v] of value.entries()) out.push([[key, String(i)], v]);
    }
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const value = node[key];
    if (Object.hasOwn(node, key) && isObject(value))
      for (const [k, v] of Object.entries(value)) out.push([[key, k], v]);
  }
  return out;
}

export interface Bundled {
  schema: unknown;
  /** References that could not be made local. */
  unresolved: string[];
}

/** Bundle `schema` (its own base: a placeholder URI) with `remotes` (by absolute URI) available to copy in. */
export function bundle(schema: unknown, remotes: Map<string, unknown>): Bundled {
  const root = structuredClone(schema) as Json;
  const unresolved: string[] = [];
  if (!isObject(root)) return { schema: root, unresolved };
  /** Absolute URI (resource or anchor, with fragment for anchors) → pointer tokens in `root`. */
  const locations = new Map<string, string[]>();
  const refs: Array<{ node: JsonObject; base: string }> = [];
  const defs: JsonObject = isObject(root.$defs) ? root.$defs : {};

  const index = (node: Json, base: string, tokens: string[]): void => {
    if (!isObject(node)) return;
    let here = base;
    if (typeof node.$id === "string") {
      const id = resolveUri(node.$id, base);
      if (id !== undefined) {
        if (node.$id.startsWith("#")) {
          locations.set(id, tokens); // draft-06/07 plain-name fragment `$id: "#foo"`
        } else {
          here = withoutFragment(id);
          locations.set(here, tokens);
        }
      }
    }
    for (const key of ["$anchor", "$dynamicAnchor"]) {
      const anchor = node[key];
      if (typeof anchor === "string" && !locations.has(`${here}#${anchor}`)) locations.set(`${here}#${anchor}`, tokens);
    }
    if (typeof node.$ref === "string") refs.push({ node, base: here });
    for (const [path, child] of children(node)) index(child, here, [...tokens, ...path]);
  };

  const rootBase = "urn:toolgate:test-root";
  locations.set(rootBase, []);
  index(root, rootBase, []);

  let remoteCount = 0;
  for (let i = 0; i < refs.length; i++) {
    const { node, base } = refs[i] as { node: JsonObject; base: string };
    const ref = node.$ref as string;
    const target = resolveUri(ref, base);
    if (target === undefined) {
      unresolved.push(ref);
      continue;
    }
    const document = withoutFragment(target);
    const fragment = target.slice(document.length + 1);
    if (!locations.has(document) && remotes.has(document)) {
      const key = `remote${remoteCount++}`;
      defs[key] = structuredClone(remotes.get(document)) as Json;
      root.$defs = defs;
      locations.set(document, ["$defs", key]);
      index(defs[key] as Json, document, ["$defs", key]);
    }
    const resource = locations.get(document);
    let tokens: string[] | undefined;
    if (resource !== undefined && (fragment === "" || fragment.startsWith("/"))) {
      const inside = fragment === "" ? [] : decodeURIComponent(fragment).slice(1).split("/");
      tokens = [...resource, ...inside.map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))];
    } else {
      tokens = locations.get(target);
    }
    if (tokens === undefined) {
      unresolved.push(ref);
      continue;
    }
    node.$ref = `#${encodePointer(tokens)}`;
  }
  return { schema: root, unresolved };
}
