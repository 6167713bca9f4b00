/**
 * `toolgate proxy`: the gate in front of any MCP host, with no code. It reaches the server (`-- COMMAND ARGS…`
 * over stdio, or `--url` over Streamable HTTP: `transports.ts`), generates the contracts folder's adapters in
 * memory, and serves the host the same tools, gated (see `serve.ts`), over stdio or, with `--listen`, over
 * Streamable HTTP (`http-host.ts`). Everything it says goes to stderr: over stdio, its stdout is the host's channel.
 */
import { constants, type WriteStream } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type EventSink,
  FileSpillStore,
  fanOut,
  jsonLinesSink,
  MemorySpillStore,
  openTelemetrySink,
  readBack,
  type TurnStore,
} from "@toolgate/runtime";
import { configFolders, readConfig } from "../cli/config.js";
import { type Console, parseCommandArgs, UsageError } from "../cli/console.js";
import { UnsafeOutputError } from "../files.js";
import type { ProxyCatalog } from "./catalog.js";
import type { CatalogVersions } from "./catalog-version.js";
import type { HostedProxy } from "./http-host.js";
import type { LiveCatalog } from "./reload.js";
import type { RunningProxy } from "./serve.js";
import type { SessionStore, SharedSession } from "./sessions.js";
import type { ProxyTelemetry, ProxyTelemetryInfo } from "./telemetry.js";
import type { ServerTarget } from "./transports.js";
import type { TurnSettings } from "./turns.js";

export const PROXY_HELP = `  toolgate proxy [--schemas DIR | --generated DIR] [--server PREFIX] [--allow-ungated] [--observe]
                 [--events FILE] [--otel] [--spill-dir DIR | --redis URL] [--max-message-bytes N]
                 [--listen PORT [--host ADDR]] [--watch [--reload-redis URL [--reload-key KEY]]]
                 [--turns session|named] [--turn-budget BYTES] [--turn-budget-tokens TOKENS]
                 (--url URL [--header "Name: value"]... | [--cwd DIR] -- COMMAND [ARGS...])
      Start the MCP server COMMAND over stdio (or reach it over Streamable HTTP at --url, each --header sent
      with every request) and serve its tools to the host over stdio, each result admitted by its contract
      (DIR, default schemas/; or --generated DIR: exactly that folder's adapters, refused when its contracts
      no longer generate it) first: the host receives the gated content and, as structured content, the
      view, whose schema replaces the tool's output schema in tools/list; or a typed failure.
      --server PREFIX: the prefix the server's tools were imported under (toolgate import --prefix), so its
      read_file is gated under PREFIX_read_file's contract and no other server's (without it, a prefixed
      contract is found only by its own name). A tool without a contract is hidden (said on stderr), or with
      --allow-ungated served with its text cleaned, bounded and delimited. Spilled results are read back with read_tool_result (kept in memory,
      or in --spill-dir). --events appends one JSON line per gated call (what toolgate report reads), and
      --otel records each as OpenTelemetry metrics and span events (@opentelemetry/api, with the SDK the
      process registers, e.g. through NODE_OPTIONS=--import), and each tools/call as spans and duration
      metrics by the MCP semantic conventions, in the trace the host sent in _meta (traceparent). An
      answer over --max-message-bytes (default 8388608) is cut on the wire: result_too_large, and the session
      goes on. In a host's configuration, put "npx toolgate proxy --schemas DIR --" before the server's command.
      --listen PORT: serve hosts over Streamable HTTP at http://ADDR:PORT/mcp instead (ADDR default 127.0.0.1;
      PORT 0 picks a free one; the URL is printed on stderr), each host session with a server connection of
      its own (closed by the host's DELETE, or after 30 minutes with no request open), until SIGINT or SIGTERM.
      --watch: reload the catalog when DIR changes: a catalog that verifies replaces the served one (calls under
      way finish on the old one, the host is told tools/list_changed); one that does not is refused, named on
      stderr, and the served one kept. --reload-redis URL: the replicas agree on the catalog through the Redis
      key KEY (default toolgate:catalog): a reload here sets it, and every replica serves that version once its
      own folder verifies as it.
      --observe: gate nothing, measure everything. Each call is admitted as above and its event (marked
      mode "observe") records what enforcement would have done, but the host receives the server's answer
      and tool list as the server sent them: observe mode protects nothing. A contract can ask for it alone
      with x-toolgate.mode "observe"; without --observe, every other contract enforces.
      --redis URL (redis://HOST:PORT, needs the redis package): spills go to Redis, and with --listen and --url
      host sessions are kept there too, so replicas behind a round-robin balancer serve one host session on
      any replica (docs/operations.md, "Running replicas"); in front of a stdio server, balance by Mcp-Session-Id instead.
      Turns: a call whose _meta["toolgate/turn"] names a turn is counted in that turn of its host session, and
      with --turns session every other call in its session's one turn (default --turns named: in none). In a
      turn, a gated tool called again with the same arguments is a re-call: its contract's recall.max of them
      pass, the next is refused (recall_limit) without calling the server. --turn-budget BYTES and
      --turn-budget-tokens TOKENS: once a turn's gated results take that much, its calls are refused
      (turn_budget). With --redis the counts are kept in Redis, the same on every replica.`;

/** The flags of `toolgate proxy`; the server's command follows `--`. */
export const PROXY_OPTIONS = {
  schemas: { type: "string" },
  generated: { type: "string" },
  server: { type: "string" },
  "allow-ungated": { type: "boolean" },
  observe: { type: "boolean" },
  events: { type: "string" },
  otel: { type: "boolean" },
  "spill-dir": { type: "string" },
  redis: { type: "string" },
  "max-message-bytes": { type: "string" },
  cwd: { type: "string" },
  url: { type: "string" },
  header: { type: "string", multiple: true },
  listen: { type: "string" },
  host: { type: "string" },
  watch: { type: "boolean" },
  "reload-redis": { type: "string" },
  "reload-key": { type: "string" },
  turns: { type: "string" },
  "turn-budget": { type: "string" },
  "turn-budget-tokens": { type: "string" },
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
    const option = (PROXY_OPTIONS as Record<string, { type: string }>)[name];
    if (option?.type === "string" && !word.includes("=")) i++;
  }
  return { own: [...argv], server: [] };
}

type Values = ReturnType<typeof parseCommandArgs<typeof PROXY_OPTIONS>>["values"];
type Transports = typeof import("./transports.js");

/**
 * Runs the proxy: over stdio, until the host or the server goes (0 when the host closed, 1 when the server did);
 * with `--listen`, until SIGINT or SIGTERM (0). Over stdio, SIGINT or SIGTERM closes it too (0).
 */
export async function runProxy(argv: readonly string[], io: Console): Promise<number> {
  const { own, server } = splitServerCommand(argv);
  // Every word of `own` is an option or an option's value: the first other word began the server's command.
  const { values } = parseCommandArgs(own, PROXY_OPTIONS);
  if (values.help) {
    io.out(PROXY_HELP);
    return 0;
  }
  const maxMessageBytes =
    values["max-message-bytes"] === undefined ? DEFAULT_MAX_MESSAGE_BYTES : Number(values["max-message-bytes"]);
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1024) {
    throw new UsageError("--max-message-bytes must be a whole number of bytes, at least 1024");
  }
  const listen = listenAddress(values);
  // Loaded here, not at the top: every other command starts without the generator and the MCP SDK.
  const [{ loadProxyCatalog, ProxyContractsError, ProxyStaleError }, { startProxy }, transports] = await Promise.all([
    import("./catalog.js"),
    import("./serve.js"),
    import("./transports.js"),
  ]);
  const target = serverTarget(values, server, transports);

  const cwd = process.cwd();
  const config = await readConfig(cwd);
  const { remotes, roots } = configFolders(config, cwd);
  if (values.schemas !== undefined && values.generated !== undefined) {
    throw new UsageError("--schemas and --generated are two answers to one question: give one");
  }
  const generated = values.generated === undefined ? undefined : path.resolve(values.generated);
  const schemas = generated === undefined ? path.resolve(values.schemas ?? config.schemas ?? "schemas") : undefined;
  const load = () => loadProxyCatalog({ schemas, generated, server: values.server, projectRoot: cwd, remotes, roots });
  let catalog: ProxyCatalog;
  try {
    catalog = await load();
  } catch (error) {
    if (error instanceof ProxyStaleError) {
      io.err(`toolgate proxy: ${error.message}`);
      return 1;
    }
    if (!(error instanceof ProxyContractsError)) throw error;
    for (const contractError of error.errors) io.err(`toolgate proxy: ${contractError.toString()}`);
    return 1;
  }
  // One refused contract costs its own tool, not the server's others: each is named, then the rest is served.
  for (const contractError of catalog.refused.errors) io.err(`toolgate proxy: ${contractError.toString()}`);
  if (catalog.refused.tools.size > 0) {
    const names = [...catalog.refused.tools].map((name) => JSON.stringify(name)).join(", ");
    io.err(`toolgate proxy: not serving ${names}: the contract is refused (above); every other tool is served`);
  }
  if (values.server === undefined && catalog.prefixes.length > 0) {
    const prefixes = catalog.prefixes.map((prefix) => JSON.stringify(prefix)).join(", ");
    io.err(
      `toolgate proxy: contracts imported under a prefix (${prefixes}) gate the server's tools with --server PREFIX`,
    );
  }
  // A contract file that did not load names no tool, and its tool must not slip through as an ungated one.
  const allowUngated = values["allow-ungated"] === true && catalog.refused.unnamed === 0;
  if (values["allow-ungated"] === true && !allowUngated) {
    io.err("toolgate proxy: --allow-ungated is off: a contract that did not load may be one of the server's tools");
  }
  const watched =
    generated === undefined
      ? [schemas as string, ...remotes.map(([, folder]) => folder), ...(roots ?? [])]
      : [generated];
  const reloading = await startReloading(values, catalog, load, watched, io);
  // Under --watch a reload may bring a contract that spills: the read-back tool is there from the start.
  const spills =
    reloading !== undefined ||
    catalog.names.some((name) => catalog.findTool(name)?.adapter.spec.oversize.includes("spill"));
  const { redis, store } = await spillPlace(values, io);
  const events = values.events === undefined ? undefined : await appendEvents(path.resolve(values.events));

  const { sinks, telemetry } = await recorders(values, events, {
    hostTransport: listen === undefined ? "pipe" : "tcp",
    serverTransport: "url" in target ? "tcp" : "pipe",
  });

  const upstream = transports.upstreamFactory(target, maxMessageBytes, (line) => io.err(line));
  // Shared by every host session: a spilled result is still read back only in the session it was spilled in.
  const shared = {
    findTool: reloading?.live.findTool ?? catalog.findTool,
    refused: reloading?.live.refused ?? catalog.refused.tools,
    toolsChanged: reloading?.live.subscribe,
    allowUngated,
    observe: values.observe === true,
    readBack: spills ? readBack(store) : undefined,
    sink: sinks.length === 0 ? undefined : fanOut(...sinks),
    telemetry,
    turns: await turnSettings(values, redis),
    log: (line: string) => io.err(line),
  };
  const open = async (host: Transport, resumed?: SharedSession): Promise<HostedProxy> => {
    const transport = upstream(resumed?.upstream);
    const resume = resumed === undefined ? undefined : { server: resumed.server, readBack: resumed.readBack };
    const running = await startProxy({ ...shared, upstream: transport, host, resume });
    if (!(transport instanceof transports.HttpUpstream)) return running;
    const release = () => {
      transport.keepSession();
      return running.close();
    };
    return { ...running, upstreamSession: () => transport.serverSession(), release };
  };
  const reached = "url" in target ? target.url.href : JSON.stringify(target.command);
  const gating = `toolgate proxy: ${values.observe === true ? "observing (gating nothing)" : "gating"} ${catalog.names.length} tool(s) of ${reached}`;
  // A stdio server's state is in this process's child: its sessions cannot be shared, only routed to this replica.
  const sessions = redis !== undefined && "url" in target ? redis.sessions : undefined;
  try {
    return listen === undefined
      ? await serveStdio(open, gating, io)
      : await serveHttp(open, { ...listen, store: sessions }, gating, io);
  } finally {
    await reloading?.close();
    await new Promise<void>((resolve) => (events === undefined ? resolve() : events.end(resolve)));
    await redis?.close();
  }
}

/**
 * How calls are counted in turns (`turns.ts`): `--turns session` or `named` (default), `--turn-budget BYTES` and
 * `--turn-budget-tokens TOKENS`, counted in Redis with `--redis` (every replica the same turn), else in memory.
 */
async function turnSettings(values: Values, redis: { turns: TurnStore } | undefined): Promise<TurnSettings> {
  const scope = values.turns ?? "named";
  if (scope !== "session" && scope !== "named") throw new UsageError("--turns must be session or named");
  const count = (flag: "turn-budget" | "turn-budget-tokens") => {
    const text = values[flag];
    if (text === undefined) return undefined;
    if (!/^\d{1,15}$/.test(text) || Number(text) < 1) throw new UsageError(`--${flag} must be a whole number above 0`);
    return Number(text);
  };
  const bytes = count("turn-budget");
  const tokens = count("turn-budget-tokens");
  const budget = bytes === undefined && tokens === undefined ? undefined : { bytes, tokens };
  const store = redis?.turns ?? new (await import("@toolgate/runtime")).MemoryTurnStore();
  return { store, scope, budget };
}

/** Where spills go: Redis (`--redis`, whose connection the host sessions share), `--spill-dir`, or memory. */
async function spillPlace(values: Values, io: Console) {
  if (values.redis !== undefined && values["spill-dir"] !== undefined) {
    throw new UsageError("--spill-dir and --redis are two places for spills: give one");
  }
  const redis = values.redis === undefined ? undefined : await connectRedis(values.redis, io);
  const store =
    redis !== undefined
      ? redis.spills
      : values["spill-dir"] === undefined
        ? new MemorySpillStore()
        : new FileSpillStore({ directory: path.resolve(values["spill-dir"]) });
  return { redis, store };
}

/**
 * Where each gated call is recorded: the events file (`--events`), and under `--otel` the OpenTelemetry sink and
 * the spans and duration metrics of each `tools/call`.
 */
async function recorders(
  values: Values,
  events: WriteStream | undefined,
  transports: ProxyTelemetryInfo,
): Promise<{ sinks: EventSink[]; telemetry: ProxyTelemetry | undefined }> {
  const sinks: EventSink[] = events === undefined ? [] : [jsonLinesSink(events)];
  if (values.otel !== true) return { sinks, telemetry: undefined };
  const otel = await import("@opentelemetry/api").catch(() => undefined);
  if (otel === undefined) throw new UsageError("--otel needs @opentelemetry/api installed beside toolgate");
  sinks.push(openTelemetrySink(otel));
  const { proxyTelemetry } = await import("./telemetry.js");
  return { sinks, telemetry: proxyTelemetry(otel, transports) };
}

/** One Redis connection for the spills and the host sessions (`--redis`). */
async function connectRedis(url: string, io: Console) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--redis must be a redis:// URL, not ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new UsageError(`--redis must be a redis:// or rediss:// URL, not ${JSON.stringify(url)}`);
  }
  const loaded = await import("redis").catch(() => undefined);
  if (loaded === undefined) throw new UsageError("--redis needs the redis package installed beside toolgate");
  const [{ RedisSpillStore, RedisTurnStore }, { RedisSessionStore }, { IDLE_MS }] = await Promise.all([
    import("@toolgate/runtime/redis"),
    import("./sessions.js"),
    import("./http-host.js"),
  ]);
  const client = loaded.createClient({ url });
  // A lost connection fails the commands that meet it (each a typed failure or a refused request), not the process.
  client.on("error", (error: Error) => io.err(`toolgate proxy: redis: ${error.message}`));
  await client.connect();
  const commands = client as unknown as ConstructorParameters<typeof RedisSessionStore>[0]["client"] &
    ConstructorParameters<typeof RedisSpillStore>[0]["client"] &
    ConstructorParameters<typeof RedisTurnStore>[0]["client"];
  return {
    spills: new RedisSpillStore({ client: commands }),
    // A session the host left without DELETE expires from Redis after the idle time, as it closes on one proxy.
    sessions: new RedisSessionStore({ client: commands, ttlMs: IDLE_MS }),
    // A turn's counters outlive its last call as long as its session does.
    turns: new RedisTurnStore({ client: commands, ttlMs: IDLE_MS }),
    close: async () => {
      await client.close().catch(() => undefined);
    },
  };
}

/**
 * With `--watch`, the live catalog and its reloader watching `folders` (see `reload.ts`), and with `--reload-redis`
 * the replicas' version (`catalog-version.ts`); without it, undefined.
 */
async function startReloading(
  values: Values,
  catalog: ProxyCatalog,
  load: () => Promise<ProxyCatalog>,
  folders: readonly string[],
  io: Console,
): Promise<{ live: LiveCatalog; close(): Promise<void> } | undefined> {
  const redis = values["reload-redis"];
  if (values.watch !== true) {
    if (redis !== undefined || values["reload-key"] !== undefined) {
      throw new UsageError("--reload-redis and --reload-key agree on the reloads of --watch: give --watch");
    }
    return undefined;
  }
  if (values["reload-key"] !== undefined && redis === undefined) {
    throw new UsageError("--reload-key names the key in --reload-redis: give --reload-redis URL");
  }
  const { LiveCatalog, CatalogReloader } = await import("./reload.js");
  const live = new LiveCatalog(catalog);
  const log = (line: string) => io.err(line);
  let versions: CatalogVersions | undefined;
  const reloader = new CatalogReloader({
    live,
    load,
    folders,
    log,
    onChange: async (next) => versions?.publish(next.version),
  });
  if (redis !== undefined) {
    const { connectCatalogVersions } = await import("./catalog-version.js");
    try {
      versions = await connectCatalogVersions({
        url: redis,
        key: values["reload-key"],
        serving: catalog.version,
        follow: (version) => void reloader.follow(version),
        log,
      });
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND";
      if (missing)
        throw new UsageError("--reload-redis needs the redis package (node-redis) installed beside toolgate");
      // The URL is not repeated: it may carry a password.
      throw new UsageError(`--reload-redis: ${(error as Error).message}`);
    }
  }
  reloader.start();
  io.err(`toolgate proxy: watching ${folders.join(", ")} (catalog ${catalog.version})`);
  return {
    live,
    close: async () => {
      await reloader.close();
      await versions?.close();
    },
  };
}

/** `--listen PORT` and `--host ADDR`, or undefined when the host is served over stdio. */
function listenAddress(values: Values): { port: number; host: string } | undefined {
  if (values.listen === undefined) {
    if (values.host !== undefined) throw new UsageError("--host is the address --listen binds: give --listen PORT");
    return undefined;
  }
  const port = Number(values.listen);
  if (!/^\d+$/.test(values.listen) || port > 65535) {
    throw new UsageError("--listen must be a port number, 0 to 65535 (0: a free one)");
  }
  return { port, host: values.host ?? "127.0.0.1" };
}

/** The server: `--url` (with its `--header`s) or the command after the options, not both. */
function serverTarget(values: Values, server: readonly string[], transports: Transports): ServerTarget {
  const [command, ...args] = server;
  if (values.url !== undefined) {
    if (command !== undefined) throw new UsageError("give the server as --url URL or as -- COMMAND, not both");
    if (values.cwd !== undefined) throw new UsageError("--cwd is the server command's folder: --url has none");
    return { url: transports.parseServerUrl(values.url), headers: transports.parseHeaders(values.header ?? []) };
  }
  if (values.header !== undefined) throw new UsageError("--header is sent to a server at --url");
  if (command === undefined) {
    throw new UsageError(
      "no server: toolgate proxy [options] --url URL, or toolgate proxy [options] -- COMMAND [ARGS...]",
    );
  }
  return { command, args, cwd: values.cwd === undefined ? undefined : path.resolve(values.cwd) };
}

/** Serves one host over stdio; its exit code (see {@link runProxy}). */
async function serveStdio(
  open: (host: Transport) => Promise<RunningProxy>,
  gating: string,
  io: Console,
): Promise<number> {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  // The host ends a stdio session by closing the proxy's stdin, which the SDK's transport does not watch.
  const hostLeft = new Promise<void>((resolve) => process.stdin.once("end", resolve));
  const proxy = await Promise.race([open(new StdioServerTransport()), hostLeft]);
  // Gone before it initialized: the server was not started yet.
  if (proxy === undefined) return 0;
  io.err(gating);
  const signal = stopSignal();
  const { by } = await Promise.race([
    proxy.closed,
    Promise.race([signal.stopped, hostLeft]).then(() => ({ by: "stopped" as const })),
  ]);
  signal.dispose();
  if (by === "stopped") await proxy.close();
  if (by === "server") io.err("toolgate proxy: the server exited");
  return by === "server" ? 1 : 0;
}

/** Serves hosts over Streamable HTTP until SIGINT or SIGTERM; 1 when it cannot listen. */
async function serveHttp(
  open: (host: Transport, resumed?: SharedSession) => Promise<HostedProxy>,
  address: { port: number; host: string; store: SessionStore | undefined },
  gating: string,
  io: Console,
): Promise<number> {
  const { listenForHosts } = await import("./http-host.js");
  const signal = stopSignal();
  let listener: Awaited<ReturnType<typeof listenForHosts>>;
  try {
    listener = await listenForHosts({ ...address, open, log: (line) => io.err(line) });
  } catch (error) {
    signal.dispose();
    io.err(`toolgate proxy: cannot listen on ${address.host}:${address.port}: ${(error as Error).message}`);
    return 1;
  }
  io.err(gating);
  io.err(`toolgate proxy: listening on ${listener.url}`);
  await signal.stopped;
  signal.dispose();
  await listener.close();
  return 0;
}

/** Settles at the first SIGINT or SIGTERM; `dispose` removes the handlers (a later signal then acts as usual). */
function stopSignal(): { stopped: Promise<void>; dispose(): void } {
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = () => resolve();
  });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return {
    stopped,
    dispose: () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    },
  };
}

/**
 * The events file, opened to append without following a link (`O_NOFOLLOW`): a link planted where the log goes
 * would have the proxy append to a file of someone else's choosing. A FIFO or a device is refused the same way.
 * @throws {UnsafeOutputError} for a link or anything but a regular file
 */
async function appendEvents(file: string): Promise<WriteStream> {
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ELOOP" && code !== "ENXIO") throw error;
    throw new UnsafeOutputError(
      `${file} is ${code === "ELOOP" ? "a symbolic link" : "not a regular file"}: toolgate never writes events through it`,
    );
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new UnsafeOutputError(`${file} is not a regular file: toolgate writes events to a file only`);
  }
  return handle.createWriteStream();
}
