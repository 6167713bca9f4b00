/**
 * A trace file's lines, streamed: a file of millions of events is read in chunks and never held whole. A gzip file
 * (told by its first two bytes, whatever its name) is inflated on the way with `node:zlib`.
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";

/**
 * The longest line kept, in UTF-16 code units. A gate event is a few hundred characters (codes and numbers, never
 * payload text), so a line past this is no event: it is handed as `overlong` with its text dropped, and never held
 * whole, however long it runs.
 */
export const MAX_LINE_CHARS = 1 << 20;

/**
 * What the reader is handed for each line: its text (no line break), its number from 1, whether it ended, and
 * whether it was longer than {@link MAX_LINE_CHARS} (its text is then empty).
 */
export type LineHandler = (text: string, line: number, ended: boolean, overlong: boolean) => void;

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
 *
 * Each character is looked at once: a line's pieces are kept as they come and joined when its break arrives, so a
 * line that spans many chunks costs its length, not its length times the chunks (the joined text was re-scanned on
 * every chunk before, and a gzip file of one long line took minutes).
 */
export async function forEachLine(file: string, onLine: LineHandler): Promise<LinesRead> {
  const gzip = await isGzip(file);
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  const stream = gzip ? raw.pipe(createGunzip()) : raw;
  if (gzip) raw.on("error", (error) => stream.destroy(error));
  const decoder = new StringDecoder("utf8");
  const line = new PendingLine();
  let count = 0;
  let cutOff = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = decoder.write(chunk);
      let start = 0;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        line.add(text, start, end);
        count++;
        line.hand(onLine, count, true);
        start = end + 1;
      }
      line.add(text, start, text.length);
    }
  } catch (error) {
    // zlib's "unexpected end of file": the gzip stream stops before its end. Anything else is a real fault.
    if (!gzip || (error as NodeJS.ErrnoException).code !== "Z_BUF_ERROR") throw error;
    cutOff = true;
  }
  const last = decoder.end();
  line.add(last, 0, last.length);
  // A cut-off gzip stream's last piece is part of the cut, reported as such by the caller.
  if (!line.empty && !cutOff) line.hand(onLine, ++count, false);
  return { lines: count, cutOff };
}

/** The line being read: its pieces so far, or only its length once past {@link MAX_LINE_CHARS}. */
class PendingLine {
  private pieces: string[] = [];
  private length = 0;

  get empty(): boolean {
    return this.length === 0;
  }

  add(text: string, start: number, end: number): void {
    if (end <= start) return;
    if (this.length <= MAX_LINE_CHARS) {
      if (this.length + (end - start) > MAX_LINE_CHARS) this.pieces = [];
      else this.pieces.push(text.slice(start, end));
    }
    this.length += end - start;
  }

  /** Hands the line (when it has any text) and starts the next. */
  hand(onLine: LineHandler, number: number, ended: boolean): void {
    if (this.length > MAX_LINE_CHARS) onLine("", number, ended, true);
    else if (this.length > 0)
      onLine(this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join(""), number, ended, false);
    this.pieces = [];
    this.length = 0;
  }
}
