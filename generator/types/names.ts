import { RESERVED_WORDS } from "../model/names.js";

/**
 * Type names: the requested root names are used exactly; every other name is derived from a `$defs` key (or a
 * pointer), never from `title` (hostile input), and allocated through one registry so names never collide.
 */

/** Words that cannot name a type: reserved words and TypeScript's predefined type names. */
const NOT_A_TYPE_NAME = new Set([
  ...RESERVED_WORDS,
  "any",
  "bigint",
  "boolean",
  "intrinsic",
  "never",
  "number",
  "object",
  "Object", // generated types refer to the global `Object` (see `orInherited`)
  "string",
  "symbol",
  "undefined",
  "unknown",
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Whether `name` can be declared as an exported type exactly as written. */
export function isTypeName(name: string): boolean {
  return IDENTIFIER.test(name) && !NOT_A_TYPE_NAME.has(name);
}

/**
 * PascalCase of a `$defs` key or pointer token, ASCII letters and digits only: `user-id` → `UserId`,
 * `v1beta` → `V1Beta`, accents dropped; a key of punctuation only gives `` (the caller always adds a prefix).
 */
export function pascalCase(text: string): string {
  const ascii = text.normalize("NFKD").replace(/\p{M}/gu, "").replace(/ß/g, "ss");
  return ascii
    .split(/[^A-Za-z0-9]+|(?<=[0-9])(?=[A-Za-z])|(?<=[a-z])(?=[A-Z])/)
    .filter((word) => word !== "")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/** Hands out type names: each name once, clashes suffixed with a counter (`A`, `A2`, `A3`, …). */
export class NameRegistry {
  readonly #used = new Set<string>();

  /** Claim a name exactly (the requested root names); throws if it is taken or not a valid type name. */
  claimExact(name: string): string {
    if (!isTypeName(name)) {
      throw new Error(`emitTypes: ${JSON.stringify(name)} is not a valid TypeScript type name`);
    }
    if (this.#used.has(name)) {
      throw new Error(`emitTypes: the type name ${JSON.stringify(name)} is requested twice`);
    }
    this.#used.add(name);
    return name;
  }

  /** A fresh name starting with `base` (a valid identifier), suffixed when taken. */
  claimFresh(base: string): string {
    let name = base;
    for (let n = 2; this.#used.has(name) || NOT_A_TYPE_NAME.has(name); n++) name = `${base}${n}`;
    this.#used.add(name);
    return name;
  }

  /** Whether some claimed name contains `text` (used to pick placeholders that clash with nothing). */
  someContains(text: string): boolean {
    for (const name of this.#used) if (name.includes(text)) return true;
    return false;
  }
}
