/**
 * Ask a live MCP server for its tools: start it over stdio with the official SDK client, run `initialize` and
 * `tools/list` (following `nextCursor` to the last page), and stop it.
 *
 * The tool definitions are read with the SDK's loose `ResultSchema`, not `ListToolsResultSchema`: the latter drops
 * keys it does not know and rejects a whole page when one tool's `outputSchema` has a non-object root (which the
 * 2026-07-28 revision of the spec allows). The import stage checks every definition itself, one tool at a time.
 *
 * The SDK is loaded only when this runs, so `toolgate generate` works without it installed.
 */

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
  /** Where the server's stderr goes. Default `inherit` (the user sees the server's own messages). */
  stderr?: "inherit" | "pipe" | "ignore";
  /** The server's working directory. Default: this process's. */
  cwd?: string;
}

/** Most pages followed: a server that keeps handing out new cursors is not listing a finite set of tools. */
export const MAX_TOOL_PAGES = 1000;

/** A command line toolgate could not run, or a server that did not answer `tools/list` properly. */
export class ServerListError extends Error {
  override readonly name = "ServerListError";
}

/**
 * Split a command line into the program and its arguments, the way a POSIX shell splits words, without a shell:
 * no variables, globs or redirection are interpreted, so nothing in the text can run a second command.
 * `'…'` is literal, `"…"` honours `\"` and `\\`, and a backslash outside quotes escapes the next character.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
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
    } else if (char === "\\") {
      if (i + 1 >= line.length) throw new ServerListError("the command line ends in a lone backslash");
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new ServerListError(`the command line has an unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}

/**
 * Start `commandLine` as an MCP server over stdio, list its tools through the SDK client, and stop it (also when
 * listing fails). Throws {@link ServerListError} for an empty command, a repeated cursor or too many pages; errors
 * from the SDK (the server did not start, a request timed out, an MCP error response) are passed on.
 */
export async function listServerTools(
  commandLine: string,
  options: ListServerToolsOptions = {},
): Promise<ServerToolList> {
  const [command, ...args] = splitCommandLine(commandLine);
  if (command === undefined) throw new ServerListError("no server command given");
  const [{ Client }, { StdioClientTransport }, { ResultSchema }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: options.stderr ?? "inherit",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const client = new Client({ name: "toolgate-import", version: "1" });
  const requestOptions = { timeout: options.timeoutMs ?? 30_000 };
  try {
    await client.connect(transport, requestOptions);
    const info = client.getServerVersion();
    const tools: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (pages >= MAX_TOOL_PAGES)
        throw new ServerListError(`the server's tools/list ran past ${MAX_TOOL_PAGES} pages`);
      const params = cursor === undefined ? {} : { cursor };
      const page = await client.request({ method: "tools/list", params }, ResultSchema, requestOptions);
      pages++;
      const entries = (page as { tools?: unknown }).tools;
      if (!Array.isArray(entries)) throw new ServerListError(`page ${pages} of tools/list has no \`tools\` array`);
      tools.push(...entries);
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
  } finally {
    await client.close();
  }
}
