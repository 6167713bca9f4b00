/**
 * Ask a live MCP server for its tools: start it over stdio with the official SDK client, run `initialize` and
 * `tools/list` (following `nextCursor` to the last page), and stop it.
 *
 * The tool definitions are read with the SDK's loose `ResultSchema`, not `ListToolsResultSchema`: the latter drops
 * keys it does not know and rejects a whole page when one tool's `outputSchema` has a non-object root (which the
 * 2026-07-28 revision of the spec allows). The import stage checks every definition itself, one tool at a time.
 *
 * The server is started the way a POSIX shell would start the command line, without a shell: leading `NAME=value`
 * words set variables for the server alone (over the SDK's default environment: HOME, LOGNAME, PATH, SHELL, TERM,
 * USER), and `cwd` is its working directory. Its stderr is kept, bounded ({@link STDERR_TAIL_LINES} lines,
 * {@link STDERR_TAIL_BYTES} bytes), and shown cleaned when listing fails: a server that dies on connect says why.
 *
 * The SDK is loaded only when this runs, so `toolgate generate` works without it installed.
 */
import { terminalText } from "../files.js";

/** What a server's `tools/list` pages held, in the order the server sent them. */
export interface ServerToolList {
  /** Every entry of every page's `tools` array, unchecked. */
  tools: unknown[];
  /** Pages read (1 when the server does not paginate). */
  pages: number;
  /** `serverInfo` from `initialize`, when the server sent one. */
  server?: { name: string; version: string } | undefined;
}

/** How the server is run and how long it may take. */
export interface ListServerToolsOptions {
  /** Per request (initialize, each tools/list page), in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /**
   * What becomes of the server's stderr. Default `tail`: kept, bounded, and attached to a {@link ServerListError}
   * when listing fails (nothing is shown when it succeeds); `inherit` passes it to this process's stderr.
   */
  stderr?: "tail" | "inherit" | "ignore";
  /** The server's working directory. Default: this process's. */
  cwd?: string | undefined;
}

/** Most pages followed: a server that keeps handing out new cursors is not listing a finite set of tools. */
export const MAX_TOOL_PAGES = 1000;

/**
 * Most tools taken from one server. The largest real servers list a few hundred (GitHub's about 120); a server
 * listing more is not describing tools a model picks from, and import would write a file for each.
 */
export const MAX_SERVER_TOOLS = 5000;

/**
 * Most characters of `tools/list` pages taken from one server, as JSON (the definitions as listed). The largest real
 * tool lists are a few hundred kilobytes; this bounds the memory and the files import spends on one server.
 */
export const MAX_TOOL_LIST_CHARS = 32 * 1024 * 1024;

/** The most stderr lines a failure shows: the last ones the server wrote. */
export const STDERR_TAIL_LINES = 20;

/** The most stderr bytes kept (the last ones): a server that floods stderr costs no more than this. */
export const STDERR_TAIL_BYTES = 4096;

/** A command line toolgate could not run, or a server that did not answer `tools/list` properly. */
export class ServerListError extends Error {
  override readonly name = "ServerListError";
  /**
   * @param stderrTail the last lines the server wrote to stderr, cleaned for a terminal (empty when it wrote none,
   *   or when the command never started)
   */
  constructor(
    message: string,
    readonly stderrTail: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A server to start: the program, its arguments, the variables set for it alone, and where it runs. */
export interface ServerLaunch {
  command: string;
  args: string[];
  /** From the `NAME=value` words before the program, in order (a later one wins). */
  env: Record<string, string>;
  cwd?: string | undefined;
}

/** A word of a command line, and whether it is an assignment (`NAME=value` with `NAME=` written unquoted). */
interface Word {
  text: string;
  assignment?: { name: string; value: string };
}

/** What an environment variable's name may be in a `NAME=value` word (POSIX: a letter or `_`, then alphanumerics). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Split a command line into the program and its arguments, the way a POSIX shell splits words, without a shell:
 * no variables, globs or redirection are interpreted, so nothing in the text can run a second command.
 * `'…'` is literal, `"…"` honours `\"` and `\\`, and a backslash outside quotes escapes the next character.
 */
export function splitCommandLine(line: string): string[] {
  return splitWords(line).map((word) => word.text);
}

/**
 * A command line as a server to start: leading `NAME=value` words (the name written unquoted, as a shell reads an
 * assignment) set the server's environment; the first other word is the program. `"A=b" cmd` runs `A=b`.
 */
export function parseServerCommand(line: string, cwd?: string): ServerLaunch {
  const words = splitWords(line);
  const env: Record<string, string> = {};
  let first = 0;
  for (; first < words.length; first++) {
    const assignment = (words[first] as Word).assignment;
    if (assignment === undefined) break;
    env[assignment.name] = assignment.value;
  }
  const [command, ...args] = words.slice(first).map((word) => word.text);
  if (command === undefined) {
    throw new ServerListError(
      first > 0 ? "the command line sets variables but names no server command" : "no server command given",
    );
  }
  return { command, args, env, cwd };
}

function splitWords(line: string): Word[] {
  const words: Word[] = [];
  let word = "";
  let inWord = false;
  // How long the word was when its first quoted or escaped character came: an `=` past it is not an assignment's.
  let literalUpTo: number | undefined;
  const finish = () => {
    const eq = word.indexOf("=");
    const name = word.slice(0, eq);
    const assigns = eq > 0 && (literalUpTo === undefined || eq < literalUpTo) && ENV_NAME.test(name);
    words.push(assigns ? { text: word, assignment: { name, value: word.slice(eq + 1) } } : { text: word });
    word = "";
    inWord = false;
    literalUpTo = undefined;
  };
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
      literalUpTo ??= word.length;
    } else if (char === "\\") {
      if (i + 1 >= line.length) throw new ServerListError("the command line ends in a lone backslash");
      literalUpTo ??= word.length;
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) finish();
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new ServerListError(`the command line has an unterminated ${quote} quote`);
  if (inWord) finish();
  return words;
}

/** The last bytes a stream wrote, bounded; read as the last few lines, cleaned for a terminal. */
export class StderrTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.chunks.push(bytes);
    this.size += bytes.length;
    while (this.size - (this.chunks[0] as Buffer).length >= STDERR_TAIL_BYTES) {
      this.size -= (this.chunks.shift() as Buffer).length;
      this.dropped = true;
    }
  }

  /** The last {@link STDERR_TAIL_LINES} non-empty lines, colour codes removed and controls escaped (`\uXXXX`). */
  lines(): string[] {
    let bytes = Buffer.concat(this.chunks);
    let cut = this.dropped;
    if (bytes.length > STDERR_TAIL_BYTES) {
      bytes = bytes.subarray(bytes.length - STDERR_TAIL_BYTES);
      cut = true;
    }
    // A character cut in two at the start is dropped whole: no replacement character for it.
    let start = 0;
    while (cut && start < bytes.length && ((bytes[start] as number) & 0xc0) === 0x80) start++;
    const text = bytes.subarray(start).toString("utf8");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a terminal colour code
    const plain = text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "");
    const lines = plain.split(/\r\n|\r|\n/).map((line) => terminalText(line.trimEnd()));
    const shown = lines.filter((line) => line !== "").slice(-STDERR_TAIL_LINES);
    if (cut && shown.length > 0 && shown.length === lines.filter((line) => line !== "").length) {
      shown[0] = `…${shown[0]}`;
    }
    return shown;
  }
}

/** A failure to list, in words a user can act on, with what the server wrote to stderr. */
function listFailure(error: unknown, launch: ServerLaunch, step: string, timeoutMs: number, tail: string[]) {
  if (error instanceof ServerListError) return new ServerListError(error.message, tail, { cause: error });
  const { code, message, syscall } = (error ?? {}) as { code?: unknown; message?: unknown; syscall?: unknown };
  const text = typeof message === "string" ? message : String(error);
  // The program could not be started at all: spawn's own error.
  const spawning = typeof syscall === "string" && syscall.startsWith("spawn");
  let said: string;
  if (spawning && code === "ENOENT") {
    said = `cannot start ${JSON.stringify(launch.command)}: no such program (give its path, or check PATH)`;
  } else if (spawning && code === "EACCES") {
    said = `cannot start ${JSON.stringify(launch.command)}: permission denied (is it executable?)`;
  } else if (spawning) {
    said = `cannot start ${JSON.stringify(launch.command)}: ${text}`;
  } else if (code === -32000) {
    said = `the server closed the connection during ${step} (it exited, or closed its stdout): ${text}`;
  } else if (code === -32001) {
    said = `the server did not answer ${step} within ${timeoutMs} ms: ${text}`;
  } else {
    said = `${step} failed: ${text}`;
  }
  return new ServerListError(said, tail, { cause: error });
}

/**
 * Start `commandLine` as an MCP server over stdio (see {@link parseServerCommand}), list its tools through the SDK
 * client, and stop it (also when listing fails). Every failure is a {@link ServerListError} that says which step
 * failed (start, initialize, a tools/list page) and carries the tail of the server's stderr: an empty command, a
 * program that does not exist, a server that exits or times out, an MCP error response, a repeated cursor, too many
 * pages, tools or characters of definitions ({@link MAX_TOOL_PAGES}, {@link MAX_SERVER_TOOLS},
 * {@link MAX_TOOL_LIST_CHARS}).
 */
export async function listServerTools(
  commandLine: string,
  options: ListServerToolsOptions = {},
): Promise<ServerToolList> {
  const launch = parseServerCommand(commandLine, options.cwd);
  const [{ Client }, { StdioClientTransport }, { ResultSchema }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const mode = options.stderr ?? "tail";
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    stderr: mode === "tail" ? "pipe" : mode,
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
  });
  const tail = new StderrTail();
  // Attached before the server starts, so its first words are kept; reading it also keeps its pipe from filling.
  const stderr = transport.stderr;
  const stderrEnded = new Promise<void>((resolve) => {
    if (stderr === null) return resolve();
    stderr.on("data", (chunk: Buffer) => tail.push(chunk));
    stderr.once("end", resolve);
    stderr.once("error", () => resolve());
  });
  const client = new Client({ name: "toolgate-import", version: "1" });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const requestOptions = { timeout: timeoutMs };
  let step = "initialize";
  let failure: unknown;
  try {
    await client.connect(transport, requestOptions);
    const info = client.getServerVersion();
    const tools: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    let listed = 0;
    do {
      if (pages >= MAX_TOOL_PAGES)
        throw new ServerListError(`the server's tools/list ran past ${MAX_TOOL_PAGES} pages`);
      step = pages === 0 ? "tools/list" : `tools/list (page ${pages + 1})`;
      const params = cursor === undefined ? {} : { cursor };
      const page = await client.request({ method: "tools/list", params }, ResultSchema, requestOptions);
      pages++;
      const entries = (page as { tools?: unknown }).tools;
      if (!Array.isArray(entries)) throw new ServerListError(`page ${pages} of tools/list has no \`tools\` array`);
      if (tools.length + entries.length > MAX_SERVER_TOOLS) {
        throw new ServerListError(
          `the server lists more than ${MAX_SERVER_TOOLS} tools (page ${pages} brings the count to ${tools.length + entries.length}): import takes at most ${MAX_SERVER_TOOLS} from one server`,
        );
      }
      listed += JSON.stringify(entries).length;
      if (listed > MAX_TOOL_LIST_CHARS) {
        throw new ServerListError(
          `the server's tools/list pages hold more than ${MAX_TOOL_LIST_CHARS} characters of definitions (page ${pages}): import takes at most that from one server`,
        );
      }
      for (const entry of entries) tools.push(entry);
      const next = (page as { nextCursor?: unknown }).nextCursor;
      if (next !== undefined && typeof next !== "string") {
        throw new ServerListError(`page ${pages} of tools/list has a \`nextCursor\` that is not a string`);
      }
      if (next !== undefined && seen.has(next)) {
        throw new ServerListError(
          `the server handed out the same cursor twice (page ${pages}): the list would never end`,
        );
      }
      if (next !== undefined) seen.add(next);
      cursor = next;
    } while (cursor !== undefined);
    return { tools, pages, server: info === undefined ? undefined : { name: info.name, version: info.version } };
  } catch (error) {
    failure = error;
  } finally {
    await client.close();
  }
  // The server is stopped: what it wrote last is read to its end (or for a moment, should a child keep it open).
  await Promise.race([stderrEnded, new Promise((resolve) => setTimeout(resolve, 500).unref())]);
  throw listFailure(failure, launch, step, timeoutMs, tail.lines());
}
