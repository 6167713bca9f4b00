/**
 * Generated text with nothing hidden in it. A contract's strings reach generated code as string literals (enum
 * values, property names, patterns, tool names in the lock), and a bidi control or an invisible character kept raw
 * there reorders or hides what a reviewer reads in a diff ("Trojan Source", CVE-2021-42574), though the code means
 * the same. Written as escapes, the characters keep their meaning and show.
 */

/**
 * The characters written as escapes in generated files: C1 controls, the line and paragraph separators, the bidi
 * controls (embeddings, overrides, isolates, marks, the Arabic letter mark), zero-width and invisible formatting
 * characters, the byte order mark, and the tag characters (U+E0000–U+E007F, which hide ASCII text).
 */
const HIDDEN = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

/** A UTF-16 code unit as a `\uXXXX` escape (valid in JavaScript strings, templates, regular expressions and JSON). */
function unitEscape(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, "0")}`;
}

/**
 * Generated source or JSON text with every {@link HIDDEN} character written as its `\uXXXX` escape (a tag character
 * as its surrogate pair's two escapes). Only for text the generator writes, where such a character can stand only
 * inside a string, a regular expression or a comment, and never right after a lone backslash (string literals are
 * written with `JSON.stringify`, which escapes every backslash): there the escape means the same character.
 */
export function spellHidden(text: string): string {
  return text.replace(HIDDEN, (found) =>
    [...Array(found.length).keys()].map((i) => unitEscape(found.charCodeAt(i))).join(""),
  );
}
