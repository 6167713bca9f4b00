/**
 * Hashes for provenance, with the Web Crypto API (`crypto.subtle`), which Node 20, Deno, Bun, workers and browsers
 * all provide, so the runtime needs no Node-only module for them.
 */
import { canonicalJson } from "./json-text.js";

const encoder = new TextEncoder();

/** sha256 of bytes, as lowercase hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * sha256 of a call's arguments serialised as JSON with sorted keys, so the same arguments in any key order hash
 * the same. `undefined` when there are no arguments or they cannot be serialised (nested past 1000 levels).
 */
export async function hashArguments(args: unknown): Promise<string | undefined> {
  if (args === undefined) return undefined;
  let json: string;
  try {
    json = canonicalJson(args);
  } catch {
    return undefined;
  }
  return sha256Hex(encoder.encode(json));
}
