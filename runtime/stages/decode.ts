/**
 * Stage `decode`: the payload's provenance hash and size, then its text. Text received as a string was hashed as it
 * was received where the host can do it synchronously, else it is encoded here; bytes are hashed before they are
 * decoded, so a payload refused as invalid UTF-8 still has its hash. Decoding is strict UTF-8, and a BOM is kept so
 * that parse refuses it by name.
 */

import type { Failure } from "../contract/types.js";
import type { Admission } from "../gate/admission.js";
import { hashBytesLater } from "../record/hash-thread.js";
import { sha256HexNow, sha256HexWebCrypto } from "../record/provenance.js";
import { decodeUtf8 } from "../text/hygiene.js";
import type { Received } from "./receive/received.js";

const encoder = new TextEncoder();

/**
 * Writes the payload's size and sha256 into the admission's provenance, or hands the admission the hash still being
 * taken on the helper thread (`admission.pending`, settled before anything reads it). Returns a promise only when
 * the host cannot hash synchronously, so the usual call waits for nothing.
 */
export function hashPayload<T, V, I>(admission: Admission<T, V, I>, received: Received): Promise<void> | undefined {
  const { provenance } = admission;
  if (received.text !== undefined) {
    const { hashed, hashing } = received;
    if (hashed !== undefined) {
      provenance.rawBytes = hashed.byteLength;
      provenance.rawSha256 = hashed.sha256;
      return undefined;
    }
    if (hashing !== undefined) {
      admission.pending = { ...hashing, text: received.text };
      return undefined;
    }
    const bytes = encoder.encode(received.text);
    provenance.rawBytes = bytes.byteLength;
    return sha256HexWebCrypto(bytes).then((sha256) => {
      provenance.rawSha256 = sha256;
    });
  }
  const { bytes } = received;
  provenance.rawBytes = bytes.byteLength;
  if (received.sha256 !== undefined) {
    provenance.rawSha256 = received.sha256;
    return undefined;
  }
  const later = hashBytesLater(bytes, admission.screen);
  if (later !== undefined) {
    admission.pending = { hash: later, unchecked: false, text: "" };
    return undefined;
  }
  const now = sha256HexNow(bytes);
  if (now !== undefined) {
    provenance.rawSha256 = now;
    return undefined;
  }
  return sha256HexWebCrypto(bytes).then((sha256) => {
    provenance.rawSha256 = sha256;
  });
}

/** The payload's text, or its `invalid_encoding` failure (`invalid_utf8`). */
export function decode<T, V, I>(admission: Admission<T, V, I>, received: Received): string | Failure {
  const text = received.text ?? decodeUtf8(received.bytes);
  if (text !== undefined) return text;
  return admission.fail(
    "invalid_encoding",
    { stage: "decode", sizes: admission.sizes, detail: { reason: "invalid_utf8" } },
    { stage: "decode", rawKind: admission.rawKind },
  );
}
