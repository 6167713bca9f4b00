/**
 * The `enum` keyword (2020-12 validation, section 6.1.2), decided by lookup once the list is long.
 *
 * Ajv compares a value with every allowed value in turn, so a long enum costs its length per value validated: with
 * 20,000 allowed strings, 1.1 MB of strings took 30 s. From {@link LOOKUP_FROM} values on, the generated code asks
 * the run-time `inEnum`, which files the allowed values once (scalars by value, objects and arrays by their
 * canonical text, `jsonKey`) and answers each value in one lookup. Shorter lists keep Ajv's code, which compares
 * inline and is as fast for them.
 */

import { inEnum } from "@toolgate/runtime/validators";
import type { CodeKeywordDefinition, KeywordCxt } from "ajv";
import { _ } from "ajv";
import { useFunc } from "ajv/dist/compile/util.js";
import enumModule from "ajv/dist/vocabularies/validation/enum.js";

/** Ajv's own definition (CommonJS: Node's ESM import puts it under `.default`, bundlers hand it over directly). */
const ajvEnum = ((enumModule as unknown as { default?: unknown }).default ?? enumModule) as CodeKeywordDefinition;

/** How many allowed values make a lookup worth it: below, Ajv's inline comparisons are as fast. */
export const LOOKUP_FROM = 16;

/** The run-time `inEnum` as Ajv's code generator takes a helper (see `unique-items.ts`). */
const inEnumFunc = Object.assign((values: readonly unknown[], value: unknown) => inEnum(values, value), {
  code: 'require("@toolgate/runtime/validators").inEnum',
});

/** Ajv keyword definition for `enum`; add it after `ajv.removeKeyword("enum")`. */
export const enumKeyword: CodeKeywordDefinition = {
  ...ajvEnum,
  code(cxt: KeywordCxt) {
    const { gen, data, $data, schema, schemaCode } = cxt;
    if ($data || !Array.isArray(schema) || schema.length < LOOKUP_FROM) {
      (ajvEnum.code as (cxt: KeywordCxt) => void)(cxt);
      return;
    }
    const lookup = useFunc(gen, inEnumFunc);
    cxt.pass(_`${lookup}(${schemaCode}, ${data})`);
  },
};
