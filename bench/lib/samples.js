/**
 * Sample results for the corpus schemas, which come with none: a value built from the schema itself, with every
 * declared property filled in and two items per array, so a validator walks all of the schema, not only its root.
 * Whether a sample is valid is decided afterwards by the validators being compared, never assumed here.
 */

const SAMPLE_STRINGS = {
  "date-time": "2026-03-04T05:06:07Z",
  date: "2026-03-04",
  time: "05:06:07Z",
  uri: "https://example.com/a/b?c=d",
  "uri-reference": "/a/b",
  url: "https://example.com/a/b",
  email: "someone@example.com",
  uuid: "123e4567-e89b-42d3-a456-426614174000",
  hostname: "example.com",
  ipv4: "192.0.2.1",
};

/** How deep a recursive schema is followed before only required properties and empty arrays are made. */
const FULL_DEPTH = 6;

/**
 * A value of `schema`: every property when `full`, only the required ones otherwise.
 * @param {unknown} schema the schema (or subschema) to sample
 * @param {{ root: unknown, full: boolean }} options `root` resolves local `$ref`s
 * @param {number} [depth]
 * @returns {unknown}
 */
export function sampleOf(schema, options, depth = 0) {
  if (schema === true || schema === undefined) return "x";
  if (schema === false || schema === null || typeof schema !== "object") return null;
  const s = /** @type {Record<string, any>} */ (schema);
  if (typeof s.$ref === "string") return sampleOf(resolveLocal(options.root, s.$ref), options, depth + 1);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null) ?? s.enum[0];
  if (s.default !== undefined && s.default !== null && typeof s.default !== "object") return s.default;
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(s[key])) {
      const branch = s[key].find((b) => !(b && typeof b === "object" && b.type === "null")) ?? s[key][0];
      return sampleOf(branch, options, depth + 1);
    }
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((part) => sampleOf(part, options, depth + 1));
    const own =
      s.type !== undefined || s.properties !== undefined ? sampleOf({ ...s, allOf: undefined }, options, depth) : {};
    if (parts.every((p) => p && typeof p === "object" && !Array.isArray(p))) return Object.assign({}, own, ...parts);
    return parts[0];
  }
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [guessType(s)] : [s.type];
  const type = types.find((t) => t !== "null") ?? types[0];
  const full = options.full && depth < FULL_DEPTH;
  switch (type) {
    case "object": {
      const out = {};
      const properties = s.properties ?? {};
      const required = new Set(s.required ?? []);
      for (const [key, sub] of Object.entries(properties)) {
        if (full || required.has(key)) out[key] = sampleOf(sub, options, depth + 1);
      }
      for (const key of required) if (!(key in out)) out[key] = "x";
      return out;
    }
    case "array": {
      const count = Math.max(s.minItems ?? 0, full ? Math.min(2, s.maxItems ?? 2) : 0);
      const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
      const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
      const out = [];
      for (let i = 0; i < Math.max(count, tuple.length); i++) {
        out.push(sampleOf(i < tuple.length ? tuple[i] : rest, options, depth + 1));
      }
      return out;
    }
    case "string": {
      let text = SAMPLE_STRINGS[s.format] ?? "sample text";
      if (s.maxLength !== undefined && text.length > s.maxLength) text = text.slice(0, s.maxLength);
      while (s.minLength !== undefined && text.length < s.minLength) text += "x";
      return text;
    }
    case "integer":
    case "number": {
      let n = s.minimum ?? (s.exclusiveMinimum !== undefined ? Math.floor(s.exclusiveMinimum) + 1 : 1);
      if (s.maximum !== undefined && n > s.maximum) n = s.maximum;
      return n;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return "x";
  }
}

function guessType(s) {
  if (s.properties || s.required || s.additionalProperties !== undefined) return "object";
  if (s.items || s.prefixItems) return "array";
  if (s.minLength !== undefined || s.maxLength !== undefined || s.pattern || s.format) return "string";
  if (s.minimum !== undefined || s.maximum !== undefined) return "number";
  return "string";
}

/** The subschema a local `$ref` ("#", "#/$defs/x", "#/definitions/x") points at. */
function resolveLocal(root, ref) {
  if (!ref.startsWith("#")) return true;
  let node = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    node = node?.[token];
  }
  return node ?? true;
}
