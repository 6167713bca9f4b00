/**
 * Sample results for the corpus schemas, which come with none: a value built from the schema itself, with every
 * declared property filled in and two items per array, so a validator walks all of the schema, not only its root.
 * With `items`, arrays are filled to a count by how deeply they nest, so a sample can have the size of a real result
 * (a graph of tens of entities, each with a few observations) rather than of two tiny items. Whether a sample is
 * valid is decided afterwards by the validators being compared, never assumed here.
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
 * @param {{ root: unknown, full: boolean, items?: number[] }} options `root` resolves local `$ref`s; `items`, when
 *   `full`, is how many items an array gets by its nesting (the outermost array the first count, an array inside an
 *   item of it the second, …, the last count for every deeper one), each within the array's `maxItems`
 * @param {number} [depth]
 * @returns {unknown}
 */
export function sampleOf(schema, options, depth = 0) {
  return sampleAt(schema, options, { depth, arrays: 0, ordinal: 0 });
}

/**
 * @param {unknown} schema
 * @param {{ root: unknown, full: boolean, items?: number[] }} options
 * @param {{ depth: number, arrays: number, ordinal: number }} at how deep the value is, inside how many arrays, and
 *   which item of its array it is part of (plain strings carry it, so the items of a long list differ as real ones do)
 * @returns {unknown}
 */
function sampleAt(schema, options, at) {
  const { depth } = at;
  const deeper = { ...at, depth: depth + 1 };
  if (schema === true || schema === undefined) return "x";
  if (schema === false || schema === null || typeof schema !== "object") return null;
  const s = /** @type {Record<string, any>} */ (schema);
  if (typeof s.$ref === "string") return sampleAt(resolveLocal(options.root, s.$ref), options, deeper);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null) ?? s.enum[0];
  if (s.default !== undefined && s.default !== null && typeof s.default !== "object") return s.default;
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(s[key])) {
      const branch = s[key].find((b) => !(b && typeof b === "object" && b.type === "null")) ?? s[key][0];
      return sampleAt(branch, options, deeper);
    }
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((part) => sampleAt(part, options, deeper));
    const own =
      s.type !== undefined || s.properties !== undefined ? sampleAt({ ...s, allOf: undefined }, options, at) : {};
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
        if (full || required.has(key)) out[key] = sampleAt(sub, options, deeper);
      }
      for (const key of required) if (!(key in out)) out[key] = "x";
      return out;
    }
    case "array": {
      const wanted = options.items?.[Math.min(at.arrays, options.items.length - 1)] ?? 2;
      const count = Math.max(s.minItems ?? 0, full ? Math.min(wanted, s.maxItems ?? wanted) : 0);
      const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
      const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
      const out = [];
      for (let i = 0; i < Math.max(count, tuple.length); i++) {
        const item = { depth: depth + 1, arrays: at.arrays + 1, ordinal: options.items === undefined ? 0 : i + 1 };
        out.push(sampleAt(i < tuple.length ? tuple[i] : rest, options, item));
      }
      return out;
    }
    case "string": {
      let text = SAMPLE_STRINGS[s.format] ?? (at.ordinal === 0 ? "sample text" : `sample text ${at.ordinal}`);
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
