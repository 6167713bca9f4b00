/**
 * A trace file's lines, streamed: a file of millions of events is read in chunks and never held whole. A gzip file
 * (told by its first two bytes, whatever its name) is inflated on the way with `node:zlib`.
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";

/** What the reader is handed for each line: its text (no line break), its number from 1, and whether it ended. */
export type LineHandler = (text: string, line: number, ended: boolean) => void;

/** Whether the file starts with gzip's magic bytes. */
async function isGzip(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** How a file's reading ended: its number of lines, and whether a gzip stream was cut off before its end. */
export interface LinesRead {
  lines: number;
  cutOff: boolean;
}

/**
 * Calls `onLine` for every line of `file`, in order. The last line is handed with `ended: false` when the file
 * stops without a line break (a writer cut off mid-line). Empty lines are skipped but counted. A gzip file cut off
 * short hands every whole line read before the cut, and says it was cut off (line `lines + 1` is where).
 */
export async function forEachLine(file: string, onLine: LineHandler): Promise<LinesRead> {
  const gzip = await isGzip(file);
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  const stream = gzip ? raw.pipe(createGunzip()) : raw;
  if (gzip) raw.on("error", (error) => stream.destroy(error));
  const decoder = new StringDecoder("utf8");
  let rest = "";
  let line = 0;
  let cutOff = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = rest + decoder.write(chunk);
      let start = 0;
      for (let end = text.indexOf("\n", start); end >= 0; end = text.indexOf("\n", start)) {
        line++;
        if (end > start) onLine(text.slice(start, end), line, true);
        start = end + 1;
      }
      rest = text.slice(start);
    }
  } catch (error) {
    // zlib's "unexpected end of file": the gzip stream stops before its end. Anything else is a real fault.
    if (!gzip || (error as NodeJS.ErrnoException).code !== "Z_BUF_ERROR") throw error;
    cutOff = true;
  }
  rest += decoder.end();
  // A cut-off gzip stream's last piece is part of the cut, reported as such by the caller.
  if (rest !== "" && !cutOff) onLine(rest, ++line, false);
  return { lines: line, cutOff };
}
