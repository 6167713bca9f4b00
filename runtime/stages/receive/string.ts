/** A payload delivered as a string: refused over the ceiling without encoding it, parsed as it is. */
import { hashTextLater } from "../../record/hash-thread.js";
import type { KeyScreen } from "../../record/key-screen.js";
import { hashTextNow } from "../../record/provenance.js";
import { isWellFormedText, utf8Length } from "../../text/hygiene.js";
import { type NotReceived, type RawKind, type ReceivedText, refused } from "./received.js";

/**
 * The UTF-8 length of `text` when it is over `maxBytes`, else `undefined`. A UTF-16 unit is at most 3 UTF-8 bytes,
 * so a text of at most `maxBytes / 3` units is under the ceiling without counting.
 */
export function overCeiling(text: string, maxBytes: number): number | undefined {
  if (text.length * 3 <= maxBytes) return undefined;
  const bytes = utf8Length(text);
  return bytes > maxBytes ? bytes : undefined;
}

/**
 * A string payload: refused over the ceiling without encoding it; lone surrogates are not UTF-8 text. The string is
 * kept as it is: the gate parses it directly and encodes it only to hash it.
 */
export function receiveString(
  kind: RawKind,
  text: string,
  maxBytes: number,
  screen?: KeyScreen,
): ReceivedText | NotReceived {
  // Every UTF-16 unit is at least one UTF-8 byte, so a string longer than the ceiling in units is over it in bytes.
  if (text.length > maxBytes) {
    return refused(kind, "result_too_large", "receive", text.length, { reason: "over_ceiling" });
  }
  const over = overCeiling(text, maxBytes);
  if (over !== undefined) return refused(kind, "result_too_large", "receive", over, { reason: "over_ceiling" });
  // A large text is hashed on the helper thread while the gate parses it; whether it is well-formed is then known
  // when its hash settles, before anything leaves the gate (`Admission.settle`).
  const later = hashTextLater(text, screen);
  if (later !== undefined)
    return { ok: true, kind, text, hashed: undefined, hashing: { hash: later, unchecked: true }, flags: [] };
  // Encoding to hash shows for free (no U+FFFD bytes) that nearly every text is well-formed; only text whose bytes
  // hold U+FFFD, or a host that cannot hash synchronously, needs the scan for lone surrogates.
  const hashed = hashTextNow(text);
  if ((hashed === undefined || hashed.replacement) && !isWellFormedText(text)) {
    return refused(kind, "invalid_encoding", "decode", hashed?.byteLength ?? utf8Length(text), {
      reason: "lone_surrogate",
    });
  }
  return { ok: true, kind, text, hashed, flags: [] };
}
