/**
 * The content blocks of an MCP `CallToolResult` (text, image, audio, resource link, embedded resource), read as the
 * contract expects them: which kinds may appear, how many of each, which media types, how many bytes per block.
 *
 * Every block is read property by property, once, and copied into a part of the gate's own: nothing of the raw block
 * survives, so a getter cannot answer differently later. Media data is checked as strict base64 (no white space, the
 * padding where it belongs) and its size computed from its length; only its first bytes are decoded, to check that
 * they are of the declared media type (`media-signatures.ts`). A URI is kept as data: never resolved, fetched or
 * followed.
 */
import { isWellFormedText, utf8Length } from "../../text/hygiene.js";
import { matchesSignature } from "./media-signatures.js";

/** What a contract allows of one media kind (`image`, `audio`). */
export interface MediaRule {
  /** Media types, exactly (`image/png`) or by their top-level type (`image/*`); parameters are ignored. */
  mimeTypes: readonly string[];
  /** Decoded bytes per block. */
  maxBytes: number;
  maxCount: number;
}

/** What a contract allows of a result's content blocks. A kind without a rule may not appear. */
export interface ContentRules {
  /** Blocks in all. */
  maxBlocks: number;
  text?: { maxCount: number };
  image?: MediaRule;
  audio?: MediaRule;
  resourceLink?: { maxCount: number };
  /** Embedded resources; `maxBytes` bounds the text (UTF-8) or the decoded blob. */
  resource?: { maxCount: number; maxBytes: number; mimeTypes?: readonly string[] };
}

/** A content block as the gate keeps it. */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; mimeType: string; data: string; bytes: number }
  | {
      type: "resource_link";
      uri: string;
      name: string;
      mimeType?: string | undefined;
      title?: string | undefined;
      description?: string | undefined;
    }
  | {
      type: "resource";
      uri: string;
      mimeType?: string | undefined;
      text?: string | undefined;
      blob?: string | undefined;
      bytes: number;
    };

/** Why the blocks were refused, and which block (0-based) decided it. */
export type BlockProblem =
  /** More blocks in all, or of one kind, than the contract allows. */
  | "too_many_blocks"
  /** A kind the contract does not expect (or not a block at all). */
  | "unexpected_block"
  /** A media type outside the contract's list. */
  | "media_type"
  /** Media whose bytes are not of its declared type (an SVG, a page, a program declared `image/png`). */
  | "media_mismatch"
  /** A block over its byte bound. */
  | "block_too_large"
  /** Media data that is not strict base64. */
  | "invalid_base64"
  /** A text with a lone surrogate: it has no UTF-8 form. */
  | "lone_surrogate"
  /** A required property missing or of the wrong type. */
  | "malformed_block";

export type ContentRead =
  | {
      ok: true;
      parts: ContentPart[];
      /**
       * With `deferText`, the text blocks whose well-formedness is still to be checked: each part's index among
       * `parts` and its block's index (see {@link readContentBlocks}).
       */
      unchecked?: Array<{ part: number; block: number }>;
    }
  | { ok: false; problem: BlockProblem; index: number };

/** Decoded bytes of strict base64, or -1 when `data` is not strict base64. Linear, no backtracking. */
export function base64Bytes(data: string): number {
  const length = data.length;
  if (length % 4 !== 0) return -1;
  let padding = 0;
  if (length > 0 && data.charCodeAt(length - 1) === 0x3d) padding = data.charCodeAt(length - 2) === 0x3d ? 2 : 1;
  for (let i = 0; i < length - padding; i++) {
    const unit = data.charCodeAt(i);
    const ok =
      (unit >= 0x41 && unit <= 0x5a) ||
      (unit >= 0x61 && unit <= 0x7a) ||
      (unit >= 0x30 && unit <= 0x39) ||
      unit === 0x2b ||
      unit === 0x2f;
    if (!ok) return -1;
  }
  return (length / 4) * 3 - padding;
}

/** The media type without parameters, lower-cased: `Image/PNG; q=1` is `image/png`. */
export function essence(mimeType: string): string {
  const semicolon = mimeType.indexOf(";");
  return (semicolon < 0 ? mimeType : mimeType.slice(0, semicolon)).trim().toLowerCase();
}

/** Whether a media type is on a contract's list (`image/png`, or `image/*` for every image type). */
export function mediaTypeAllowed(mimeType: string, allowed: readonly string[]): boolean {
  const type = essence(mimeType);
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) return false;
  const top = type.slice(0, type.indexOf("/"));
  return allowed.some((entry) => {
    const wanted = essence(entry);
    return wanted === type || wanted === `${top}/*`;
  });
}

/**
 * Whether media may pass under a contract's list of media types: its type on the list, and its bytes of that type.
 * They must begin with the type's signature; a type toolgate knows no signature for (`image/svg+xml`) passes only when
 * the contract names it exactly, never through a wildcard such as `image/*`. `data` is strict base64.
 */
export function mediaAllowed(mimeType: string, data: string, allowed: readonly string[]): boolean {
  if (!mediaTypeAllowed(mimeType, allowed)) return false;
  const type = essence(mimeType);
  return matchesSignature(type, data) ?? allowed.some((entry) => essence(entry) === type);
}

function optionalString(value: unknown): string | undefined | false {
  if (value === undefined) return undefined;
  return typeof value === "string" && isWellFormedText(value) ? value : false;
}

type Counted = "text" | "image" | "audio" | "resourceLink" | "resource";

/**
 * One block as the gate's part, or the problem with it. Reads each property of the block once. With `deferText`, a
 * text block's text is not checked for lone surrogates here (its caller does it).
 */
function readBlock(block: unknown, rules: ContentRules, deferText: boolean): ContentPart | BlockProblem {
  if (block === null || typeof block !== "object" || Array.isArray(block)) return "malformed_block";
  const { type } = block as { type?: unknown };
  switch (type) {
    case "text": {
      if (rules.text === undefined) return "unexpected_block";
      const { text } = block as { text?: unknown };
      if (typeof text !== "string") return "malformed_block";
      return deferText || isWellFormedText(text) ? { type, text } : "lone_surrogate";
    }
    case "image":
    case "audio": {
      const rule = rules[type];
      if (rule === undefined) return "unexpected_block";
      const { data, mimeType } = block as { data?: unknown; mimeType?: unknown };
      if (typeof data !== "string" || typeof mimeType !== "string") return "malformed_block";
      if (!mediaTypeAllowed(mimeType, rule.mimeTypes)) return "media_type";
      // Past the bound the data is not scanned: its length alone decides.
      if (Math.floor(data.length / 4) * 3 - 2 > rule.maxBytes) return "block_too_large";
      const bytes = base64Bytes(data);
      if (bytes < 0) return "invalid_base64";
      if (bytes > rule.maxBytes) return "block_too_large";
      if (!mediaAllowed(mimeType, data, rule.mimeTypes)) return "media_mismatch";
      return { type, mimeType: essence(mimeType), data, bytes };
    }
    case "resource_link": {
      if (rules.resourceLink === undefined) return "unexpected_block";
      const { uri, name, mimeType, title, description } = block as Record<string, unknown>;
      if (typeof uri !== "string" || typeof name !== "string" || !isWellFormedText(uri) || !isWellFormedText(name))
        return "malformed_block";
      const optional = [optionalString(mimeType), optionalString(title), optionalString(description)] as const;
      if (optional.includes(false)) return "malformed_block";
      const [mime, heading, about] = optional as readonly (string | undefined)[];
      return { type, uri, name, mimeType: mime, title: heading, description: about };
    }
    case "resource": {
      const rule = rules.resource;
      if (rule === undefined) return "unexpected_block";
      const { resource } = block as { resource?: unknown };
      if (resource === null || typeof resource !== "object" || Array.isArray(resource)) return "malformed_block";
      const { uri, mimeType, text, blob } = resource as Record<string, unknown>;
      const mime = optionalString(mimeType);
      if (typeof uri !== "string" || !isWellFormedText(uri) || mime === false) return "malformed_block";
      if (rule.mimeTypes !== undefined && (mime === undefined || !mediaTypeAllowed(mime, rule.mimeTypes)))
        return "media_type";
      if (typeof text === "string" && blob === undefined) {
        if (!isWellFormedText(text)) return "lone_surrogate";
        const bytes = utf8Length(text);
        return bytes > rule.maxBytes ? "block_too_large" : { type, uri, mimeType: mime, text, bytes };
      }
      if (typeof blob === "string" && text === undefined) {
        if (Math.floor(blob.length / 4) * 3 - 2 > rule.maxBytes) return "block_too_large";
        const bytes = base64Bytes(blob);
        if (bytes < 0) return "invalid_base64";
        return bytes > rule.maxBytes ? "block_too_large" : { type, uri, mimeType: mime, blob, bytes };
      }
      return "malformed_block";
    }
    default:
      return "unexpected_block";
  }
}

const COUNTED: Record<ContentPart["type"], Counted> = {
  text: "text",
  image: "image",
  audio: "audio",
  resource_link: "resourceLink",
  resource: "resource",
};

/**
 * Reads every block of `content` under the contract's rules, in order, stopping at the first problem. `content` is
 * an array the receive stage has already read once (its length and items are read once here).
 *
 * With `deferText`, text blocks are read without the scan for lone surrogates, and listed as `unchecked`: a caller
 * that can vouch for a text another way (it equals JSON text the gate wrote itself) spares the scan, and checks the
 * others with {@link firstLoneSurrogate} before anything else it refuses. A problem found past such a block is
 * reported only after the blocks before it are checked, so the first problem is the same either way.
 */
export function readContentBlocks(content: readonly unknown[], rules: ContentRules, deferText = false): ContentRead {
  const count = content.length;
  if (count > rules.maxBlocks) return { ok: false, problem: "too_many_blocks", index: rules.maxBlocks };
  const parts: ContentPart[] = [];
  const unchecked: Array<{ part: number; block: number }> = [];
  const seen: Record<Counted, number> = { text: 0, image: 0, audio: 0, resourceLink: 0, resource: 0 };
  for (let index = 0; index < count; index++) {
    const part = readBlock(content[index], rules, deferText);
    let problem: BlockProblem | undefined;
    if (typeof part === "string") problem = part;
    else {
      const kind = COUNTED[part.type];
      seen[kind]++;
      if (seen[kind] > (rules[kind]?.maxCount ?? 0)) problem = "too_many_blocks";
    }
    if (problem !== undefined) {
      // The text blocks before it, and this one, would have been refused for a lone surrogate first.
      const earlier = firstLoneSurrogate(parts, unchecked);
      if (earlier !== undefined) return earlier;
      const here = typeof part === "string" || part.type !== "text" || isWellFormedText(part.text);
      return { ok: false, problem: here ? problem : "lone_surrogate", index };
    }
    const read = part as ContentPart;
    if (deferText && read.type === "text") unchecked.push({ part: parts.length, block: index });
    parts.push(read);
  }
  return deferText ? { ok: true, parts, unchecked } : { ok: true, parts };
}

/**
 * The `lone_surrogate` problem of the first of the `unchecked` text parts holding half a surrogate pair, if any
 * (see {@link readContentBlocks}); `vouched` says which of them need no scan, given the text and its place among
 * the unchecked (the text parts, in order).
 */
export function firstLoneSurrogate(
  parts: readonly ContentPart[],
  unchecked: ReadonlyArray<{ part: number; block: number }>,
  vouched?: (text: string, ordinal: number) => boolean,
): { ok: false; problem: "lone_surrogate"; index: number } | undefined {
  for (let ordinal = 0; ordinal < unchecked.length; ordinal++) {
    const { part, block } = unchecked[ordinal] as { part: number; block: number };
    const text = (parts[part] as { text: string }).text;
    if (vouched?.(text, ordinal) !== true && !isWellFormedText(text)) {
      return { ok: false, problem: "lone_surrogate", index: block };
    }
  }
  return undefined;
}
