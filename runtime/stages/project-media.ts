/**
 * Media inside a structured result, lifted out of the view: an object shaped as an MCP image or audio content block
 * (`{ type: "image" | "audio", data, mimeType }`, which servers such as the filesystem server's `read_media_file`
 * declare in their output schema), or a base64 string the schema marks with `contentEncoding: "base64"`. The view
 * keeps a description of it, never its data: base64 read as text costs the model thousands of tokens and says
 * nothing. The media itself goes on as a part, which the view stage holds to the contract's media rules.
 */

import type { LiftedMedia, MediaDescription, ViewPlan } from "../contract/types.js";
import { boundText } from "../text/hygiene.js";
import { base64Bytes, essence } from "./receive/content-blocks.js";
import { matchesSignature } from "./receive/media-signatures.js";

/** Longest media type kept: longer is no media type, and is cut like any text. */
const MAX_MEDIA_TYPE_CHARS = 128;

/** What a media node makes of a value: its description, and the part to hand on (image or audio only). */
export interface Lifted {
  description: MediaDescription;
  part?: LiftedMedia["part"] | undefined;
}

/** The kind a media type is handed on as: its top-level type when that is `image` or `audio`. */
function mediaKind(mimeType: string): "image" | "audio" | "blob" {
  const top = mimeType.slice(0, mimeType.indexOf("/")).trim().toLowerCase();
  return top === "image" || top === "audio" ? top : "blob";
}

/**
 * The value under a `media` node, lifted. `undefined` when it is not media after all (an object whose `type` is not
 * `image` or `audio`), which the projection then shows by the node's `otherwise` plan; `"malformed"` for media that
 * cannot be handed on (data that is not strict base64 or not of its declared type, a media type that is not a string), which the projection
 * leaves out: never shown as text. Each property is read once; the media type is cleaned and bounded.
 */
export function liftMedia(
  value: unknown,
  node: Extract<ViewPlan, { kind: "media" }>,
): Lifted | "malformed" | undefined {
  let data: unknown;
  let mimeType: unknown;
  let kind: "image" | "audio" | "blob";
  if (node.form === "block") {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const block = value as Record<string, unknown>;
    const type = block.type;
    if (type !== "image" && type !== "audio") return undefined;
    data = block.data;
    mimeType = block.mimeType;
    kind = type;
  } else {
    data = value;
    mimeType = node.mimeType ?? "application/octet-stream";
    kind = mediaKind(mimeType as string);
  }
  if (typeof data !== "string" || typeof mimeType !== "string") return "malformed";
  const bytes = base64Bytes(data);
  if (bytes < 0) return "malformed";
  // Bytes that are not of the declared type (an SVG or a program called `image/png`) are no such media: left out,
  // never described as it. A type with no known signature is held to the contract's list by the view stage.
  if (kind !== "blob" && matchesSignature(essence(mimeType), data) === false) return "malformed";
  const shownType = boundText(mimeType, MAX_MEDIA_TYPE_CHARS).text;
  const description: MediaDescription = { type: kind, mimeType: shownType, bytes };
  if (kind === "blob") return { description };
  return { description, part: { type: kind, mimeType: shownType, data, bytes } };
}
