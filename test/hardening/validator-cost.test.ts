/**
 * Validator costs the generator does not see (issue 12, class 5).
 *
 * - `uniqueItems` over objects and arrays: Ajv compares every pair of items (469 KB of objects took 36.8 s). The
 *   generated check files each item under a canonical key (`jsonKey`: its JSON text with object keys sorted), so it
 *   is linear in the array, and gives the verdict run-time Ajv gives on every ordinary input.
 * - Recursive schemas that apply themselves twice to the same child: the work doubles with every level of nesting,
 *   so a tiny deep value stalls the validator. They are refused (`generator/validator/recursion-cost.ts`).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../generator/schema/shapes.js";
import { jsonEqual, jsonKey } from "../../runtime/validators.js";
import { emitValidators } from "../generator/validator/emit-module.js";
import { type GeneratedValidator, generatedValidator, resolved } from "../generator/validator/load.js";

/** Milliseconds one call takes. */
function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** The same JSON value with every object's keys in reverse order (a fresh copy, `__proto__` kept an own key). */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((key) => [key, reordered((value as Record<string, unknown>)[key])]),
  );
}

/**
 * Run-time Ajv as an MCP SDK runs it, on the same schema. Its deep equality (fast-deep-equal) calls an object's own
 * `toString` or `valueOf` key as a method and throws when that key holds data (`{"toString": []}`); for those items
 * the reference is the pairwise comparison JSON Schema defines, with `jsonEqual`.
 */
function runtimeAjv(schema: object): (value: unknown) => boolean {
  const validate = new Ajv2020({ strict: false }).compile(schema) as (value: unknown) => boolean;
  return (value) => {
    try {
      return validate(value);
    } catch {
      const items = value as unknown[];
      return items.every((item, i) => items.every((other, j) => j <= i || !jsonEqual(item, other)));
    }
  };
}

const UNIQUE = { type: "array", uniqueItems: true };

describe("uniqueItems over objects and arrays", () => {
  let validate: GeneratedValidator;
  const reference = runtimeAjv(UNIQUE);

  it("gives run-time Ajv's verdict on arrays of JSON values, with and without reordered duplicates (property)", async () => {
    validate = await generatedValidator(resolved(UNIQUE));
    // Invariant: for every array of JSON values (parsed, as the gate hands them over), possibly with a copy of one
    // item whose object keys are in another order, the generated check and run-time Ajv agree.
    const items = fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 });
    const arrays = fc.oneof(
      items,
      fc.tuple(items, fc.nat(), fc.nat()).map(([list, from, to]) => {
        if (list.length === 0) return list;
        const copy = reordered(list[from % list.length]);
        const at = to % (list.length + 1);
        return [...list.slice(0, at), copy, ...list.slice(at)];
      }),
    );
    fc.assert(
      fc.property(arrays, (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(validate(parsed), JSON.stringify(parsed)).toBe(reference(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["objects with keys in another order", '[{"a":1,"b":[2]},{"b":[2],"a":1}]', false],
    [
      "nested objects with keys in another order",
      '[{"x":{"p":1,"q":{"r":2,"s":3}}},{"x":{"q":{"s":3,"r":2},"p":1}}]',
      false,
    ],
    ["arrays of arrays", "[[1,[2,3]],[1,[2,3]]]", false],
    ["arrays in another order are different", "[[1,2],[2,1]]", true],
    ["1 and 1.0 are one number", "[[1],[1.0]]", false],
    ["0 and -0 are one number", '[{"n":0},{"n":-0}]', false],
    ["1e2 and 100 are one number", "[[1e2],[100]]", false],
    ["a string is not the number it spells", '[["1"],[1]]', true],
    ["a string is not structure", '[["a\\",\\"b"],["a","b"]]', true],
    ["__proto__ keys are own keys", '[{"__proto__":{"x":1}},{"__proto__":{"x":1}}]', false],
    ["different __proto__ values differ", '[{"__proto__":{"x":1}},{"__proto__":{"x":2}}]', true],
    ["an object is not an empty one because of __proto__", '[{"__proto__":{}},{}]', true],
    ["an object is not an array", '[{"0":1},[1]]', true],
    ["null in an object is not a missing key", '[{"a":null},{}]', true],
    ["lone surrogates stay distinct", '[["\\ud800"],["\\udc00"]]', true],
    ["scalars still compare by value", '[1,"1",true,null,1.0]', false],
  ])("%s", async (_label, text, valid) => {
    validate ??= await generatedValidator(resolved(UNIQUE));
    const value = JSON.parse(text) as unknown;
    expect(reference(value)).toBe(valid);
    expect(validate(value)).toBe(valid);
  });

  it("reports the same pair of items as the pairwise check did: the last item with an equal one after it", async () => {
    validate ??= await generatedValidator(resolved(UNIQUE));
    expect(validate(JSON.parse('[{"a":1},{"b":2},{"a":1},{"b":2}]'))).toBe(false);
    expect(validate.errors).toEqual([expect.objectContaining({ keyword: "uniqueItems", params: { i: 1, j: 3 } })]);
  });

  it("decides the issue's example, 469 KB of distinct objects, and 1 MB neighbours well within 2 s", async () => {
    validate ??= await generatedValidator(resolved(UNIQUE));
    const records = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b"], owner: { id: i % 7 } }));
    const payloads: Array<[string, unknown, boolean]> = [
      ["469 KB of objects", records(7_000), true],
      [
        "1 MB of objects, a duplicate at the very start with its keys reordered",
        [reordered(records(1)[0]), ...records(14_500)],
        false,
      ],
      ["1 MB of one-item arrays", Array.from({ length: 150_000 }, (_, i) => [i]), true],
      [
        "1 MB of objects with 60 keys each, in scrambled order",
        Array.from({ length: 2_000 }, (_, i) =>
          Object.fromEntries(Array.from({ length: 60 }, (_, k) => [`k${(k * 37) % 60}`, i])),
        ),
        true,
      ],
      ["1 MB of arrays nested 4 deep", Array.from({ length: 50_000 }, (_, i) => [[[[i]]]]), true],
    ];
    for (const [label, value, valid] of payloads) {
      const parsed = JSON.parse(JSON.stringify(value)) as unknown;
      let verdict: boolean | undefined;
      expect(
        timed(() => (verdict = validate(parsed))),
        label,
      ).toBeLessThan(2000);
      expect(verdict, label).toBe(valid);
    }
  });

  it("compares items nested far deeper than the call stack allows", async () => {
    validate ??= await generatedValidator(resolved(UNIQUE));
    const deep = (leaf: number) => JSON.parse(`${"[".repeat(100_000)}${leaf}${"]".repeat(100_000)}`) as unknown;
    const deepObject = (leaf: number) => JSON.parse(`${'{"a":'.repeat(50_000)}${leaf}${"}".repeat(50_000)}`) as unknown;
    expect(validate([deep(1), deep(2)])).toBe(true);
    expect(validate([deep(1), deep(1)])).toBe(false);
    expect(validate([deepObject(1), deepObject(2), deep(1)])).toBe(true);
    expect(validate([deepObject(1), deepObject(1)])).toBe(false);
  });
});

describe("jsonKey", () => {
  it("is equal for two JSON values exactly when jsonEqual finds them equal (property)", () => {
    // Invariant: jsonKey(a) === jsonKey(b) ⇔ jsonEqual(a, b), for parsed JSON values, including a value and a copy
    // of it with reordered keys.
    const value = fc.jsonValue({ maxDepth: 4 });
    const pairs = fc.oneof(
      fc.tuple(value, value),
      value.map((v) => [v, reordered(v)] as [unknown, unknown]),
    );
    fc.assert(
      fc.property(pairs, ([a, b]) => {
        const [left, right] = [JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b))] as [unknown, unknown];
        expect(jsonKey(left) === jsonKey(right)).toBe(jsonEqual(left, right));
      }),
      { numRuns: 5000 },
    );
  });

  it("refuses a value that contains itself instead of looping, however deep the loop starts", () => {
    const loop: unknown[] = [];
    loop.push(loop);
    expect(() => jsonKey(loop)).toThrow(TypeError);
    let deep: unknown = loop;
    for (let i = 0; i < 2_000; i++) deep = { a: deep };
    expect(() => jsonKey(deep)).toThrow(TypeError);
  });

  it("keeps the same function in two items one identity, and two functions two", () => {
    const f = () => 1;
    const identities = new Map<unknown, number>();
    expect(jsonKey({ f }, identities)).toBe(jsonKey({ f }, identities));
    expect(jsonKey({ f }, identities)).not.toBe(jsonKey({ f: () => 1 }, identities));
  });
});

describe("recursive schemas whose validation doubles with every level of nesting are refused", () => {
  // Measured with run-time Ajv before the check: the items-beside-contains schema below took 197 ms on a 40-byte
  // array nested 18 deep, the two-oneOf-branches one 258 ms, and each further level doubles it (the gate allows up
  // to 64 levels; checkInput has no gate in front of it).
  const refusedSchemas: Array<[string, JsonSchema, string]> = [
    [
      "items beside contains, both recursive",
      {
        $defs: {
          n: {
            anyOf: [
              { type: "number" },
              { type: "array", items: { $ref: "#/$defs/n" }, contains: { $ref: "#/$defs/n" } },
            ],
          },
        },
        $ref: "#/$defs/n",
      },
      "/outputSchema/$defs/n/anyOf/1/items",
    ],
    [
      "two oneOf branches that both describe the children",
      {
        $defs: {
          n: {
            oneOf: [
              { type: "array", items: { $ref: "#/$defs/n" } },
              { type: "array", items: { $ref: "#/$defs/n" }, description: "again" },
              { type: "number" },
            ],
          },
        },
        $ref: "#/$defs/n",
      },
      "/outputSchema/$defs/n/oneOf/0/items",
    ],
    [
      "an allOf base and the schema itself both declaring the children",
      {
        $defs: {
          base: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } },
          node: { allOf: [{ $ref: "#/$defs/base" }], properties: { children: { items: { $ref: "#/$defs/node" } } } },
        },
        $ref: "#/$defs/node",
      },
      "/outputSchema/$defs/base/properties/children",
    ],
    [
      "a property and a patternProperties key matching it, both recursive",
      { type: "object", properties: { x: { $ref: "#" } }, patternProperties: { "^x": { $ref: "#" } } },
      "/outputSchema/properties/x",
    ],
  ];
  it.each(refusedSchemas)("%s", (_label, schema, pointer) => {
    const emitted = emitValidators([{ exportName: "validate", schema: resolved(schema), formats: "annotate" }]);
    expect("refusals" in emitted && emitted.refusals.map((r) => r.pointer)).toEqual([pointer]);
    expect("refusals" in emitted && emitted.refusals[0]?.reason).toContain("doubles with each level");
  });

  const acceptedSchemas: Array<[string, JsonSchema, unknown]> = [
    [
      "any JSON value (one route per kind of child)",
      {
        $defs: {
          v: {
            anyOf: [
              { type: "string" },
              { type: "number" },
              { type: "array", items: { $ref: "#/$defs/v" } },
              { type: "object", additionalProperties: { $ref: "#/$defs/v" } },
            ],
          },
        },
        $ref: "#/$defs/v",
      },
      JSON.parse(`${"[".repeat(60)}1${"]".repeat(60)}`),
    ],
    [
      "a tree with children and a parent (different children)",
      {
        type: "object",
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#" } },
          parent: { $ref: "#" },
        },
      },
      JSON.parse(`${'{"children":['.repeat(60)}{}${"]}".repeat(60)}`),
    ],
    [
      "oneOf branches told apart by a guard before they descend",
      {
        $defs: {
          item: { oneOf: [{ $ref: "#/$defs/set" }, { $ref: "#/$defs/group" }, { type: "string" }] },
          set: {
            type: "object",
            properties: { label: { type: "string" }, items: { type: "array", items: { $ref: "#/$defs/item" } } },
            additionalProperties: false,
          },
          group: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, items: { type: "array", items: { $ref: "#/$defs/item" } } },
          },
        },
        $ref: "#/$defs/item",
      },
      JSON.parse(`${'{"name":"n","items":['.repeat(40)}"leaf"${"]}".repeat(40)}`),
    ],
  ];
  it.each(acceptedSchemas)(
    "%s stays accepted and decides a deep value well within 2 s",
    async (_label, schema, value) => {
      const validate = await generatedValidator(resolved(schema));
      expect(timed(() => validate(value))).toBeLessThan(2000);
    },
  );
});

describe("a long enum is decided by lookup, not value by value", () => {
  // Run-time Ajv compares a value with every allowed value: with 20,000 allowed strings, 1.1 MB of strings took 30 s.
  const strings = Array.from({ length: 20_000 }, (_, i) => `value-${i}`);
  const composites = [
    { a: 1, b: [1, 2] },
    [1, { x: "y" }],
    JSON.parse('{"__proto__":{"x":2},"k":1}'),
    { nested: { p: 1, q: 2 } },
  ];
  const mixed = [...strings.slice(0, 40), 0, 1.5, true, null, ...composites.map((v) => JSON.parse(JSON.stringify(v)))];

  it("decides 1 MB of values against 20,000 allowed strings well within 2 s", async () => {
    const validate = await generatedValidator(resolved({ type: "array", items: { enum: strings } }));
    const last = Array.from({ length: 80_000 }, () => "value-19999");
    const missing = [...last.slice(1), "value-20000"];
    expect(timed(() => expect(validate(last)).toBe(true))).toBeLessThan(2000);
    expect(timed(() => expect(validate(missing)).toBe(false))).toBeLessThan(2000);
  });

  it("gives run-time Ajv's verdict on values from the enum, reordered copies and others (property)", async () => {
    const schema = { enum: mixed };
    const validate = await generatedValidator(resolved(schema));
    const ajv = new Ajv2020({ strict: false }).compile(schema) as (value: unknown) => boolean;
    // Run-time Ajv throws on an object with a data-valued toString or valueOf key (see runtimeAjv above).
    const reference = (value: unknown) => {
      try {
        return ajv(value);
      } catch {
        return mixed.some((allowed) => jsonEqual(value, allowed));
      }
    };
    // Invariant: for every JSON value (an allowed one, a copy of one with reordered keys, or any other), the lookup
    // and run-time Ajv's value-by-value comparison agree.
    const candidates = fc.oneof(
      fc.constantFrom(...mixed),
      fc.constantFrom(...mixed).map(reordered),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom("value-40", "value-1x", -0, 1.0, 2, false, "", [], {}, { a: 1 }, { a: 1, b: [2, 1] }),
    );
    fc.assert(
      fc.property(candidates, (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(validate(parsed), JSON.stringify(parsed)).toBe(reference(parsed));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ["an allowed object with its keys in another order", '{"b":[1,2],"a":1}', true],
    ["1.0 for 1.5's neighbour 1", "1.0", false],
    ["-0 for 0", "-0", true],
    ["an own __proto__ key is a key", '{"__proto__":{"x":1}}', false],
    ["an allowed array", '[1,{"x":"y"}]', true],
    ["an array in another order", '[{"x":"y"},1]', false],
  ])("%s", async (_label, text, valid) => {
    const validate = await generatedValidator(resolved({ enum: mixed }));
    expect(validate(JSON.parse(text))).toBe(valid);
  });
});
