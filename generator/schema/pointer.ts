/**
 * JSON pointers (RFC 6901): writing reference tokens, reading a pointer back into tokens, and pointers written as URI
 * fragments (section 6). Every stage that names a place in a schema or a result uses these.
 */

/** Escape one reference token for a JSON pointer (RFC 6901 section 4). */
export function escapePointerToken(token: string | number): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Decode one reference token of a JSON pointer: `~1` is `/`, then `~0` is `~` (in that order, section 4). */
export function unescapePointerToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Join reference tokens onto a JSON pointer. */
export function pointerOf(base: string, ...tokens: Array<string | number>): string {
  return base + tokens.map((t) => `/${escapePointerToken(t)}`).join("");
}

/** The decoded reference tokens of a JSON pointer (`""` is the whole document), or undefined when it is not one. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer.slice(1).split("/").map(unescapePointerToken);
}

/** A JSON pointer written in a URI fragment is percent-encoded (RFC 6901 section 6); a bad escape is taken literally. */
export function fragmentToPointer(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
