/**
 * The hash the lock's record keeps of each input file (a contract, or a local file one of its schemas references),
 * taken from the content the generator parsed: a file edited while a run reads it then shows in the record as
 * the content the output came from, and the next `--check` sees the difference.
 */
import { createHash } from "node:crypto";

/** sha256 (hex) of text (as UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * sha256 of an input file's content as the generator reads it. A JSON file is read with `JSON.parse`, so its hash
 * is that of the parsed value ({@link parsedInputHash}): reformatting it (white space, escapes, `1.0` for `1`)
 * changes neither the output nor the lock, while a change of key order, which does change the output, changes the
 * hash. Any other file, or one `JSON.parse` refuses, is hashed as bytes.
 */
export function inputHashOf(file: string, bytes: Uint8Array): string {
  if (file.endsWith(".json")) {
    try {
      return parsedInputHash(
        JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")),
      );
    } catch {
      // Not JSON, or nested deeper than the stack: the bytes stand for it.
    }
  }
  return sha256Hex(bytes);
}

/** {@link inputHashOf} of a JSON file, from the value `JSON.parse` made of it (for a reader that parsed it already). */
export function parsedInputHash(value: unknown): string {
  return sha256Hex(`json:${exactJson(value)}`);
}

/**
 * A parsed JSON value as text that tells apart every two values that differ: key order kept, and unlike
 * `JSON.stringify`, `-0`, `1e400` (Infinity) and `null` stay distinct.
 */
function exactJson(value: unknown): string {
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(exactJson).join(",")}]`;
  const record = value as { [key: string]: unknown };
  return `{${Object.keys(record)
    .map((key) => `${JSON.stringify(key)}:${exactJson(record[key])}`)
    .join(",")}}`;
}
