/**
 * The JSON Schema of a tool's view: what a host that reads the gated result (`structuredContent` through
 * `toolgate proxy`) actually receives, as the view type (`templates/view.ts`) says it in TypeScript. Every view the
 * gate builds for the plan is valid under it (`test/generator/model/view-schema.test.ts` checks that on every
 * example payload): a property is required only where the projection always places it, an array says its `take`
 * as `maxItems`, and a tuple is an array of its members, since the projection drops a member it leaves out.
 */
import type { SchemaObject } from "../schema/shapes.js";
import type { TypedPlan } from "./view-plan.js";

const DIALECT = "https://json-schema.org/draft/2020-12/schema";

/** The view schema of a structured result planned as `plan`. */
export function viewSchema(plan: TypedPlan): SchemaObject {
  return { $schema: DIALECT, ...schemaOf(plan) };
}

/**
 * The view schema of a `text` or `content` result: the runtime's `TextView`, whole lines of the cleaned text with
 * the gap they leave, and the media and links described.
 */
export function textViewSchema(): SchemaObject {
  const count = { type: "integer", minimum: 0 };
  return {
    $schema: DIALECT,
    type: "object",
    properties: {
      text: { type: "string" },
      lines: count,
      gap: {
        type: "object",
        properties: { from: count, to: count },
        required: ["from", "to"],
        additionalProperties: false,
      },
      media: {
        type: "array",
        items: {
          type: "object",
          properties: { type: { enum: ["image", "audio"] }, mimeType: { type: "string" }, bytes: count },
          required: ["type", "mimeType", "bytes"],
          additionalProperties: false,
        },
      },
      links: {
        type: "array",
        items: {
          type: "object",
          properties: { uri: { type: "string" }, name: { type: "string" } },
          required: ["uri", "name"],
          additionalProperties: false,
        },
      },
    },
    required: ["text", "lines", "media", "links"],
    additionalProperties: false,
  };
}

function schemaOf(plan: TypedPlan): SchemaObject {
  switch (plan.kind) {
    case "value": {
      const types = plan.types.length === 0 ? ["boolean", "null", "number", "string"] : [...plan.types].sort();
      return types.length === 1 ? { type: types[0] } : { type: types };
    }
    case "string":
      return plan.literals === undefined ? { type: "string" } : { enum: [...plan.literals] };
    case "array":
      return {
        type: "array",
        items: schemaOf(plan.items),
        ...(plan.take === undefined ? {} : { maxItems: Math.max(0, plan.take) }),
      };
    case "tuple": {
      const members = [...plan.items, ...(plan.rest === undefined ? [] : [plan.rest])];
      if (members.length === 0) return { type: "array", maxItems: 0 };
      return {
        type: "array",
        items: members.length === 1 ? schemaOf(members[0] as TypedPlan) : { anyOf: members.map(schemaOf) },
        ...(plan.rest === undefined ? { maxItems: plan.items.length } : {}),
      };
    }
    case "union":
      return { anyOf: plan.options.map(schemaOf) };
    case "any":
      return {};
    case "media": {
      const description: SchemaObject = {
        type: "object",
        properties: {
          type: { enum: ["image", "audio", "blob"] },
          mimeType: { type: "string" },
          bytes: { type: "integer", minimum: 0 },
        },
        required: ["type", "mimeType", "bytes"],
        additionalProperties: false,
      };
      return plan.form === "block" && plan.otherwise !== undefined
        ? { anyOf: [description, schemaOf(plan.otherwise)] }
        : description;
    }
    case "object": {
      const names = Object.keys(plan.properties).sort();
      const properties: Record<string, SchemaObject> = {};
      const required: string[] = [];
      for (const name of names) {
        const property = plan.properties[name] as { plan: TypedPlan; required: boolean };
        // Defined, not assigned: a property named `__proto__` is a key of the schema like any other.
        Object.defineProperty(properties, name, {
          value: schemaOf(property.plan),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        if (property.required) required.push(name);
      }
      return {
        type: "object",
        properties,
        ...(required.length === 0 ? {} : { required }),
        additionalProperties: false,
      };
    }
  }
}
