/**
 * Golden tests for the types stage: one row per precision point, `[name, {schema, want}]`, `want` being the exact
 * emitted text for a request named `T` (plus `more` requests). Every `want` must also type-check under strict.
 */
import { describe, expect, it } from "vitest";
import { emitTypes, type TypeRequest } from "../../../generator/types/index.js";
import { typeCheck } from "./typecheck.js";

interface Row {
  schema: TypeRequest["schema"];
  more?: TypeRequest[];
  want: string;
}

const table: Array<[string, Row]> = [
  [
    "true schema is unknown",
    {
      schema: true,
      want: `export type T = unknown;
`,
    },
  ],
  [
    "false schema is never",
    {
      schema: false,
      want: `export type T = never;
`,
    },
  ],
  [
    "a schema that constrains no type is unknown",
    {
      schema: { description: "Anything.", minLength: 2, format: "email" },
      want: `/**
 * Anything.
 */
export type T = unknown;
`,
    },
  ],
  [
    "properties without type still accept non-objects",
    {
      schema: { properties: { a: { type: "string" } } },
      want: `export type T =
  | {
      a?: string;
      [k: string]: unknown;
    }
  | unknown[]
  | string
  | number
  | boolean
  | null;
`,
    },
  ],
  [
    "type object, open by default",
    {
      schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      want: `export interface T {
  a: string;
  [k: string]: unknown;
}
`,
    },
  ],
  [
    "additionalProperties false closes the object",
    {
      schema: { type: "object", properties: { a: { type: "integer" } }, additionalProperties: false },
      want: `export interface T {
  a?: number;
}
`,
    },
  ],
  [
    "closed object without properties",
    {
      schema: { type: "object", additionalProperties: false },
      want: `export interface T {
  [k: string]: never;
}
`,
    },
  ],
  [
    "index signature kept when it covers every property",
    {
      schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
      want: `export interface T {
  a?: string;
  [k: string]: string | undefined;
}
`,
    },
  ],
  [
    "index signature widened to unknown when it cannot",
    {
      schema: { type: "object", properties: { n: { type: "number" } }, additionalProperties: { type: "string" } },
      want: `export interface T {
  n?: number;
  [k: string]: unknown;
}
`,
    },
  ],
  [
    "patternProperties join the index signature",
    {
      schema: {
        type: "object",
        patternProperties: { "^x-": { type: "string" }, "^n-": { type: "number" } },
        additionalProperties: false,
      },
      want: `export interface T {
  [k: string]: string | number;
}
`,
    },
  ],
  [
    "required names a property not in properties",
    {
      schema: {
        type: "object",
        properties: { a: { type: "string" } },
        patternProperties: { "^n": { type: "number" } },
        required: ["a", "b", "nn"],
      },
      want: `export interface T {
  a: string;
  b: unknown;
  nn: number;
  [k: string]: unknown;
}
`,
    },
  ],
  [
    "unevaluatedProperties false alone closes the object",
    {
      schema: { type: "object", properties: { a: { type: "string" } }, unevaluatedProperties: false },
      want: `export interface T {
  a?: string;
}
`,
    },
  ],
  [
    "unevaluatedProperties false beside allOf leaves it open",
    {
      schema: {
        type: "object",
        allOf: [{ properties: { b: { type: "string" } } }],
        properties: { a: { type: "string" } },
        unevaluatedProperties: false,
      },
      want: `export type T = {
  b?: string;
  [k: string]: unknown;
} & {
  a?: string;
  [k: string]: unknown;
};
`,
    },
  ],
  [
    "prefixItems give a tuple, optional past minItems, items is the rest",
    {
      schema: {
        type: "array",
        prefixItems: [{ type: "string" }, { type: "number" }, { type: "boolean" }],
        minItems: 1,
        items: { type: "null" },
      },
      want: `export type T = [string, number?, boolean?, ...null[]];
`,
    },
  ],
  [
    "items false closes the tuple",
    {
      schema: { type: "array", prefixItems: [{ type: "string" }, { enum: [1, -1] }], items: false, minItems: 2 },
      want: `export type T = [string, 1 | -1];
`,
    },
  ],
  [
    "maxItems shorter than prefixItems closes the tuple there",
    {
      schema: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], maxItems: 1 },
      want: `export type T = [string?];
`,
    },
  ],
  [
    "plain arrays ignore minItems and maxItems",
    {
      schema: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 3 },
      want: `export type T = string[];
`,
    },
  ],
  [
    "draft-07 items array is a tuple, additionalItems the rest",
    {
      schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "array",
        items: [{ type: "string" }],
        additionalItems: { type: "integer" },
      },
      want: `export type T = [string?, ...number[]];
`,
    },
  ],
  [
    "const and enum give literal types",
    {
      schema: {
        type: "object",
        properties: {
          s: { const: 'a"b' },
          n: { enum: [1, -2.5, 1e21] },
          m: { enum: ["x", null, true, { k: [1] }, []] },
          e: { enum: [] },
        },
        additionalProperties: false,
      },
      want: `export interface T {
  s?: 'a"b';
  n?: 1 | -2.5 | 1e21;
  m?: "x" | null | true | { k: [1] } | [];
  e?: never;
}
`,
    },
  ],
  [
    "enum values outside type are left out",
    {
      schema: { type: "string", enum: ["a", 1, null] },
      want: `export type T = "a";
`,
    },
  ],
  [
    "integer is number, type arrays are unions",
    {
      schema: { type: ["integer", "null", "string"] },
      want: `export type T = string | number | null;
`,
    },
  ],
  [
    "nullable through anyOf with null",
    {
      schema: { anyOf: [{ type: "string" }, { type: "null" }], description: "Maybe a string." },
      want: `/**
 * Maybe a string.
 */
export type T = string | null;
`,
    },
  ],
  [
    "allOf is an intersection, anyOf and oneOf unions",
    {
      schema: {
        type: "object",
        allOf: [{ properties: { a: { type: "string" } }, required: ["a"] }],
        oneOf: [{ properties: { k: { const: 1 } } }, { properties: { k: { const: 2 } } }],
      },
      want: `export type T = {
  a: string;
  [k: string]: unknown;
} & (
  | {
      k?: 1;
      [k: string]: unknown;
    }
  | {
      k?: 2;
      [k: string]: unknown;
    }
);
`,
    },
  ],
  [
    "anyOf branches only describe the sibling type",
    {
      schema: { type: "string", anyOf: [{ minLength: 1 }, { const: "" }] },
      want: `export type T = string;
`,
    },
  ],
  [
    "$ref to $defs is a named type, prefixed by the request name",
    {
      schema: {
        type: "object",
        properties: { user: { $ref: "#/$defs/user-record" } },
        $defs: {
          "user-record": {
            type: "object",
            description: "A user.",
            properties: { id: { type: "string" } },
            required: ["id"],
            additionalProperties: false,
          },
          unused: { type: "string" },
        },
      },
      want: `export interface T {
  user?: TUserRecord;
  [k: string]: unknown;
}

/**
 * A user.
 */
export interface TUserRecord {
  id: string;
}
`,
    },
  ],
  [
    "recursive $ref",
    {
      schema: {
        $defs: {
          node: {
            type: "object",
            properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } },
            additionalProperties: false,
          },
        },
        $ref: "#/$defs/node",
      },
      want: `export type T = TNode;

export interface TNode {
  children?: TNode[];
}
`,
    },
  ],
  [
    "$ref to the root",
    {
      schema: { type: "object", properties: { next: { $ref: "#" } }, additionalProperties: false },
      want: `export interface T {
  next?: T;
}
`,
    },
  ],
  [
    "$ref with sibling keywords is the intersection of both",
    {
      schema: {
        $ref: "#/$defs/base",
        properties: { extra: { type: "number" } },
        $defs: { base: { type: "object", properties: { id: { type: "string" } } } },
      },
      want: `export type T = TBase & {
  extra?: number;
  [k: string]: unknown;
};

export interface TBase {
  id?: string;
  [k: string]: unknown;
}
`,
    },
  ],
  [
    "draft-07 ignores $ref siblings, definitions are named too",
    {
      schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        definitions: { s: { type: "string" } },
        $ref: "#/definitions/s",
        type: "number",
      },
      want: `export type T = TS;

export type TS = string;
`,
    },
  ],
  [
    "a reference that makes an alias circular becomes unknown",
    {
      schema: { $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }, { type: "string" }] } }, $ref: "#/$defs/a" },
      want: `export type T = TA;

export type TA = unknown;
`,
    },
  ],
  [
    "$dynamicRef is unknown",
    {
      schema: { type: "object", properties: { x: { $dynamicRef: "#meta" } }, additionalProperties: false },
      want: `export interface T {
  x?: unknown;
}
`,
    },
  ],
  [
    "a reference that is not a local pointer is unknown",
    {
      schema: { type: "object", properties: { x: { $ref: "other.json#/a" } }, additionalProperties: false },
      want: `export interface T {
  x?: unknown;
}
`,
    },
  ],
  [
    "titles, $id, default and examples never reach the output",
    {
      schema: {
        $id: "https://example.com/evil.json",
        title: "Evil",
        type: "object",
        properties: { a: { title: "Other", type: "string", default: "*/ x", examples: ["*/"] } },
        additionalProperties: false,
      },
      want: `export interface T {
  a?: string;
}
`,
    },
  ],
  [
    "JSDoc from descriptions, deprecated",
    {
      schema: {
        type: "object",
        description: "Line one.\nLine two.",
        properties: { old: { type: "string", description: "Use new.", deprecated: true } },
        additionalProperties: false,
      },
      want: `/**
 * Line one.
 * Line two.
 */
export interface T {
  /**
   * @deprecated
   * Use new.
   */
  old?: string;
}
`,
    },
  ],
  [
    "optional properties named like inherited members",
    {
      schema: {
        type: "object",
        properties: { toString: { type: "string" }, constructor: { type: "number" } },
        required: ["constructor"],
        additionalProperties: false,
      },
      want: `export interface T {
  toString?: string | Object["toString"];
  constructor: number;
}
`,
    },
  ],
  [
    "objects inside a tuple are hoisted into named types",
    {
      schema: { type: "array", prefixItems: [{ type: "object", properties: { a: { type: "string" } } }], items: false },
      want: `export type T = [TItem?];

export interface TItem {
  a?: string;
  [k: string]: unknown;
}
`,
    },
  ],
  [
    "names never collide across requests",
    {
      schema: { $defs: { result: { type: "string" } }, $ref: "#/$defs/result" },
      more: [{ name: "TResult", schema: { type: "number" } }],
      want: `export type T = TResult2;

export type TResult2 = string;

export type TResult = number;
`,
    },
  ],
];

function requestsOf(row: Row): TypeRequest[] {
  return [{ name: "T", schema: row.schema }, ...(row.more ?? [])];
}

describe("emitTypes golden", () => {
  it.each(table)("%s", async (_name, row) => {
    expect(await emitTypes(requestsOf(row))).toBe(row.want);
  });

  it("every golden output type-checks under strict", () => {
    const files = Object.fromEntries(table.map(([, row], n) => [`g${n}.ts`, row.want]));
    expect(typeCheck(files)).toEqual([]);
  });

  it("is deterministic and never mutates its input", async () => {
    for (const [, row] of table) {
      const before = JSON.stringify(requestsOf(row));
      const first = await emitTypes(requestsOf(row));
      expect(await emitTypes(requestsOf(row))).toBe(first);
      expect(JSON.stringify(requestsOf(row))).toBe(before);
    }
  });

  it("gives every golden output when all of them are emitted at once (formatted in one pass)", async () => {
    // Emitted side by side, as a run emits its tools: each caller still gets exactly its own declarations.
    const together = await Promise.all(table.map(([, row]) => emitTypes(requestsOf(row))));
    expect(together).toEqual(table.map(([, row]) => row.want));
  });

  it("gives each caller its own declarations when several ask for the same text in one pass", async () => {
    // Each row twice, interleaved with the others: a text met again is formatted once and handed to every caller.
    const rows = [...table, ...table].map(([, row]) => row);
    const together = await Promise.all(rows.map((row) => emitTypes(requestsOf(row))));
    expect(together).toEqual(rows.map((row) => row.want));
  });

  it("an already dereferenced schema (a cyclic object graph) still gives a named recursive type", async () => {
    const tree: Record<string, unknown> = { type: "object", additionalProperties: false };
    tree.properties = { children: { type: "array", items: tree } };
    expect(await emitTypes([{ name: "T", schema: tree as TypeRequest["schema"] }])).toBe(
      "export interface T {\n  children?: T[];\n}\n",
    );
  });

  it("refuses a name that cannot be a type, and a name requested twice", async () => {
    await expect(emitTypes([{ name: "get-record", schema: true }])).rejects.toThrow(/not a valid TypeScript type name/);
    await expect(emitTypes([{ name: "string", schema: true }])).rejects.toThrow(/not a valid TypeScript type name/);
    await expect(
      emitTypes([
        { name: "A", schema: true },
        { name: "A", schema: false },
      ]),
    ).rejects.toThrow(/twice/);
  });
});
