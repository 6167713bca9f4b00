/**
 * `toolgate proxy`: the gate in front of any MCP host, with no code. It starts the server (`-- COMMAND ARGS…`),
 * generates the contracts folder's adapters in memory, and serves the host over stdio the same tools, gated (see
 * `serve.ts`). Its stdout is the host's channel: everything it says goes to stderr.
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { FileSpillStore, jsonLinesSink, MemorySpillStore, readBack } from "@toolgate/runtime";
import { configFolders, readConfig } from "../cli/config.js";
import { type Console, parseCommandArgs, UsageError } from "../cli/console.js";
import type { ProxyCatalog } from "./catalog.js";

export const PROXY_HELP = `  toolgate proxy [--schemas DIR] [--allow-ungated] [--events FILE] [--spill-dir DIR]
                 [--max-message-bytes N] [--cwd DIR] -- COMMAND [ARGS...]
      Start the MCP server COMMAND over stdio and serve its tools to the host over stdio, each result admitted
      by its contract (DIR, default schemas/) first: the host receives the gated content and, as structured
      content, the view, whose schema replaces the tool's output schema in tools/list; or a typed failure.
      A tool without a contract is hidden (said on stderr), or with --allow-ungated served with its text
      cleaned, bounded and delimited. Spilled results are read back with read_tool_result (kept in memory,
      or in --spill-dir). --events appends one JSON line per gated call (what toolgate report reads). An
      answer over --max-message-bytes (default 8388608) is cut on the wire: result_too_large, and the session
      goes on. In a host's configuration, put "npx toolgate proxy --schemas DIR --" before the server's command.`;

const OPTIONS = {
  schemas: { type: "string" },
  "allow-ungated": { type: "boolean" },
  events: { type: "string" },
  "spill-dir": { type: "string" },
  "max-message-bytes": { type: "string" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/**
 * The proxy's own arguments and the server's command: what follows `--`, or else everything from the first word
 * that is neither an option nor an option's value (some launchers, such as the MCP Inspector's, drop a `--`).
 */
export function splitServerCommand(argv: readonly string[]): { own: string[]; server: string[] } {
  const split = argv.indexOf("--");
  if (split !== -1) return { own: argv.slice(0, split), server: argv.slice(split + 1) };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (!word.startsWith("-")) return { own: argv.slice(0, i), server: argv.slice(i) };
    const name = word.replace(/^--?/, "").split("=")[0] as string;
    const option = (OPTIONS as Record<string, { type: string }>)[name];
    if (option?.type === "string" && !word.includes("=")) i++;
  }
  return { own: [...argv], server: [] };
}

/** Runs the proxy until the host or the server goes: 0 when the host closed, 1 when the server did. */
export async function runProxy(argv: readonly string[], io: Console): Promise<number> {
  const { own, server } = splitServerCommand(argv);
  // Every word of `own` is an option or an option's value: the first other word began the server's command.
  const { values } = parseCommandArgs(own, OPTIONS);
  if (values.help) {
    io.out(PROXY_HELP);
    return 0;
  }
  const [command, ...args] = server;
  if (command === undefined) throw new UsageError("no server command: toolgate proxy [options] -- COMMAND [ARGS...]");
  const maxMessageBytes =
    values["max-message-bytes"] === undefined ? DEFAULT_MAX_MESSAGE_BYTES : Number(values["max-message-bytes"]);
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1024) {
    throw new UsageError("--max-message-bytes must be a whole number of bytes, at least 1024");
  }

  const cwd = process.cwd();
  const config = await readConfig(cwd);
  const { remotes, roots } = configFolders(config, cwd);
  const schemas = path.resolve(values.schemas ?? config.schemas ?? "schemas");
  // Loaded here, not at the top: every other command starts without the generator and the MCP SDK.
  const [{ loadProxyCatalog, ProxyContractsError }, { startProxy }, { UpstreamTransport }] = await Promise.all([
    import("./catalog.js"),
    import("./serve.js"),
    import("./upstream.js"),
  ]);
  let catalog: ProxyCatalog;
  try {
    catalog = await loadProxyCatalog({ schemas, projectRoot: cwd, remotes, roots });
  } catch (error) {
    if (!(error instanceof ProxyContractsError)) throw error;
    for (const contractError of error.errors) io.err(`toolgate proxy: ${contractError.toString()}`);
    return 1;
  }
  const spills = catalog.names.some((name) => catalog.findTool(name)?.adapter.spec.oversize.includes("spill"));
  const store =
    values["spill-dir"] === undefined
      ? new MemorySpillStore()
      : new FileSpillStore({ directory: path.resolve(values["spill-dir"]) });
  const events =
    values.events === undefined ? undefined : createWriteStream(path.resolve(values.events), { flags: "a" });

  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const upstream = new UpstreamTransport({
    command,
    args,
    // The host set the proxy's environment for the server (a host config's `env` block): all of it is the server's.
    env: Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    cwd: values.cwd === undefined ? undefined : path.resolve(values.cwd),
    maxMessageBytes,
    onOversize: ({ bytes }) =>
      io.err(`toolgate proxy: cut an answer of ${bytes} bytes on the wire (over ${maxMessageBytes})`),
  });
  const proxy = await startProxy({
    findTool: catalog.findTool,
    upstream,
    host: new StdioServerTransport(),
    allowUngated: values["allow-ungated"] === true,
    readBack: spills ? readBack(store) : undefined,
    sink: events === undefined ? undefined : jsonLinesSink(events),
    log: (line) => io.err(line),
  });
  io.err(`toolgate proxy: gating ${catalog.names.length} tool(s) of ${JSON.stringify(command)}`);
  const { by } = await proxy.closed;
  await new Promise<void>((resolve) => (events === undefined ? resolve() : events.end(resolve)));
  if (by === "server") io.err("toolgate proxy: the server exited");
  return by === "server" ? 1 : 0;
}
