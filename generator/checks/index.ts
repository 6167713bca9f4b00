/** The check stage's entry: the bounds of a bundled schema, and the findings that explain where none exists. */
export * from "./bounds-walk.js";
