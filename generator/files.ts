/**
 * How the generator touches the file system when a path or a file's content comes from someone else (a contract,
 * a cloned repository, a server): bounded reads of regular files only, reads confined to the project's roots, and
 * writes that never pass through a symbolic link.
 *
 * - A file is opened first and checked after (`fstat` on the open handle), so what is checked is what is read: a
 *   FIFO, a device (`/dev/zero`) or a folder is refused, and at most `limit + 1` bytes are ever read.
 * - A write lands in a temporary file beside its target, created exclusively (`wx`), and is then renamed over the
 *   target: a rename replaces a link rather than following it. Every folder from the output folder down is checked
 *   with `lstat` first, so a link anywhere below it is refused before anything is written.
 *
 * The calls are the file system's synchronous ones, behind the same promise-returning functions: a run reads and
 * writes thousands of small files one after the other (1,000 contracts make 5,000 files), and a round trip through
 * the thread pool per call cost several times the call itself (a `--check` of 5,000 files: 7.5–9.9 s of reads
 * against 1.0–1.8 s, one run on a loaded machine).
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
} from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";

/**
 * The most bytes read from one input file (a contract, a referenced schema, a tool list to import): four times the
 * safety stage's 4 MiB bound on a schema's compact JSON (`SCHEMA_LIMITS.maxChars`), room for indentation, so any
 * file past it holds a schema the safety stage would refuse anyway.
 */
export const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** The most bytes read from `toolgate.config.json`. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Why a file was not read: not a regular file, or larger than the limit. (Errors of the system keep their code.) */
export class InputFileError extends Error {
  override readonly name = "InputFileError";
}

/**
 * Read a regular file, at most `limit` bytes. A FIFO, a device or a folder is refused without blocking (the file is
 * opened non-blocking, then checked), and a file past the limit is refused after reading `limit + 1` bytes.
 * With `noFollow`, a link as the last component is refused (ELOOP): for a path already resolved and checked.
 * @throws {InputFileError} for a file that is not regular or too large; the system's error (ENOENT…) otherwise
 */
export async function readBoundedFile(
  file: string,
  limit: number = MAX_INPUT_BYTES,
  options: { noFollow?: boolean } = {},
): Promise<Buffer> {
  return readBoundedFileSync(file, limit, options);
}

/** {@link readBoundedFile}, without the promise: for a caller that reads many files in a row. */
export function readBoundedFileSync(
  file: string,
  limit: number = MAX_INPUT_BYTES,
  options: { noFollow?: boolean } = {},
): Buffer {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0);
  const fd = openSync(file, flags);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new InputFileError(`not a regular file (${fileKind(stats)})`);
    if (stats.size > limit) throw new InputFileError(`${stats.size} bytes, more than the ${limit} a file may hold`);
    // The size may grow while reading (or read as 0 for a file like /proc/self/environ): read up to limit + 1.
    let buffer = Buffer.alloc(Math.min(limit + 1, Math.max(stats.size + 1, 64 * 1024)));
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (filled > limit) throw new InputFileError(`more than the ${limit} bytes a file may hold`);
        const grown = Buffer.alloc(Math.min(limit + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) return buffer.subarray(0, filled);
      filled += bytesRead;
    }
  } finally {
    closeSync(fd);
  }
}

/** {@link readBoundedFile} as UTF-8 text. */
export async function readBoundedText(file: string, limit: number = MAX_INPUT_BYTES): Promise<string> {
  return (await readBoundedFile(file, limit)).toString("utf8");
}

/** What kind of file a non-regular file is, for a message. */
function fileKind(stats: import("node:fs").Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  return "not a file";
}

/** Why a read error happened, in a few words for a contract error: `no such file`, a limit, or the system's code. */
export function readFailure(error: unknown): string {
  if (error instanceof InputFileError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "ELOOP") return "a symbolic link where a file was checked";
  return code ?? (error as Error).message;
}

/** Whether `inner` is `outer` or lies below it (both absolute, already resolved). */
export function isInside(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
}

/** The real path of a folder, or the folder itself when it does not exist (a root named but not made yet). */
export async function realFolder(folder: string): Promise<string> {
  try {
    return await realpath(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** A path toolgate refuses to write: a symbolic link (or something else than a folder) where it would write. */
export class UnsafeOutputError extends Error {
  override readonly name = "UnsafeOutputError";
}

/** What `lstat` says of a path (a link itself, not its target), or undefined when nothing is there. */
export async function lstatIfAny(file: string): Promise<Stats | undefined> {
  return lstatIfAnySync(file);
}

function lstatIfAnySync(file: string): Stats | undefined {
  // Nothing there is an answer, not an error: no exception is made for it (a fresh output folder asks 5,000 times).
  return lstatSync(file, { throwIfNoEntry: false });
}

/**
 * Check that writing `relative` below `root` passes through no symbolic link: `root` itself and every existing
 * component below it must be a real folder, and the target, when it exists, a regular file.
 * @throws {UnsafeOutputError} naming the first link (or non-folder) found
 */
export async function checkWritablePath(root: string, relative: string): Promise<void> {
  checkWritablePathSync(root, relative);
}

/** {@link checkWritablePath}, without the promise. */
export function checkWritablePathSync(root: string, relative: string): void {
  const parts = relative.split("/").filter((part) => part !== "");
  if (parts.some((part) => part === "." || part === "..")) {
    throw new UnsafeOutputError(`${relative}: a generated path may not hold "." or ".." segments`);
  }
  let current = root;
  for (let i = -1; i < parts.length; i++) {
    if (i >= 0) current = path.join(current, parts[i] as string);
    const stats = lstatIfAnySync(current);
    if (stats === undefined) return;
    const last = i === parts.length - 1;
    if (stats.isSymbolicLink()) {
      throw new UnsafeOutputError(
        `${current} is a symbolic link: toolgate never writes through a link; remove it (or pass the real folder)`,
      );
    }
    if (last ? !stats.isFile() : !stats.isDirectory()) {
      throw new UnsafeOutputError(
        `${current} is not a ${last ? "regular file" : "folder"}: toolgate will not replace it`,
      );
    }
  }
}

/**
 * What makes a temporary file's name this process's own: a random tag drawn once, and a count. The file is created
 * exclusively, so a name someone else took fails the write rather than sharing a file.
 */
const TEMPORARY_TAG = randomBytes(6).toString("hex");
let temporaries = 0;

/**
 * Whether a file name is one of {@link writeFileInside}'s temporary files, this process's or another's (a write in
 * progress, not yet renamed): `.NAME.PID.TAGCOUNT.tmp`, the tag 12 hex digits and the count a decimal number.
 */
export function isTemporaryFile(entry: string): boolean {
  return /^\..+\.\d+\.[0-9a-f]{12}\d+\.tmp$/.test(entry);
}

/**
 * Write `content` to `relative` below `root` without following a link: the path is checked with
 * {@link checkWritablePath}, missing folders below the root are made one at a time (and checked again), and the content goes to a
 * temporary file in the target's folder, created exclusively, then renamed over the target.
 */
export async function writeFileInside(root: string, relative: string, content: string | Uint8Array): Promise<void> {
  writeFileInsideSync(root, relative, content);
}

/**
 * {@link writeFileInside}, without the promise: for a caller that writes many files in a row. `rootMade` says the
 * caller made the root already (a catalog's 5,000 writes would otherwise ask for it 5,000 times, each a failed
 * `mkdir` of a folder that exists).
 */
export function writeFileInsideSync(
  root: string,
  relative: string,
  content: string | Uint8Array,
  rootMade = false,
): void {
  // The root is the folder the user named: made when missing, then checked like everything below it.
  if (!rootMade) mkdirSync(root, { recursive: true });
  checkWritablePathSync(root, relative);
  const parts = relative.split("/").filter((part) => part !== "");
  let folder = root;
  for (const part of parts.slice(0, -1)) {
    folder = path.join(folder, part);
    let stats = lstatIfAnySync(folder);
    if (stats === undefined) {
      try {
        mkdirSync(folder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      stats = lstatSync(folder);
    }
    // A folder swapped for a link between the check and now is caught here, before anything is written in it.
    if (!stats.isDirectory()) throw new UnsafeOutputError(`${folder} is not a folder (a link?)`);
  }
  const target = path.join(folder, parts.at(-1) as string);
  const temporary = path.join(folder, `.${parts.at(-1)}.${process.pid}.${TEMPORARY_TAG}${++temporaries}.tmp`);
  try {
    writeFileSync(temporary, content, { flag: "wx", mode: 0o666 });
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** C0 and C1 controls and DEL (`Cc`), and the bidirectional controls and line separators that reorder or break a line. */
const TERMINAL_UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text from a contract (a tool name, a file name, a pointer, a message quoting the contract) made safe for a
 * terminal: every control character, bidi control and line separator becomes its `\uXXXX` escape, so an OSC or ANSI
 * sequence is shown, never run, and one line stays one line.
 */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (char) => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`);
}

/** {@link terminalText} for each line of a text: the line breaks the program wrote itself stay. */
export function terminalLines(text: string): string {
  return text.split("\n").map(terminalText).join("\n");
}
