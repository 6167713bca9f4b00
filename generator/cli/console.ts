/**
 * Where every command prints, and how a usage mistake is reported: one console and one usage error for `generate`,
 * `import` and `diff`.
 *
 * Everything printed goes through {@link terminalLines}: tool names, file names, pointers and messages come from
 * contracts, and a control character in them is shown as its `\uXXXX` escape, never sent to the terminal. Output to
 * a closed pipe (`toolgate generate | head -1`) is dropped quietly and the run goes on.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { terminalLines } from "../files.js";

/** Where output goes; tests pass their own. */
export interface Console {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Streams whose reader went away (EPIPE): what is still printed to them is dropped, and the run goes on. */
const closed = new WeakSet<NodeJS.WriteStream>();

/** Write a line to a standard stream, unless its reader has gone. */
function writeLine(stream: NodeJS.WriteStream, line: string): void {
  if (closed.has(stream)) return;
  if (stream.listenerCount("error") === 0) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      // `toolgate generate | head -1`: the reader closed the pipe. Nothing more can be shown there, and a stack
      // trace for it would be noise; any other error of the stream is a real fault.
      if (error.code !== "EPIPE") throw error;
      closed.add(stream);
    });
  }
  stream.write(`${line}\n`);
}

/** The process's standard output and error. */
export const stdio: Console = {
  out: (line) => writeLine(process.stdout, line),
  err: (line) => writeLine(process.stderr, line),
};

/** A console whose every line is made safe for a terminal ({@link terminalLines}). */
export function terminalConsole(io: Console): Console {
  return { out: (line) => io.out(terminalLines(line)), err: (line) => io.err(terminalLines(line)) };
}

/** A mistake on the command line (an unknown option or command, a missing argument): one line, then exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  /**
   * @param usage what is printed after the message: the command's usage, or by default where to find it
   */
  constructor(
    message: string,
    readonly usage = "Run `toolgate --help` for usage.",
  ) {
    super(message);
  }
}

/** Report a usage error; resolves the command's exit code, 2. */
export function reportUsage(io: Console, error: UsageError): number {
  io.err(`toolgate: ${error.message}`);
  io.err(error.usage);
  return 2;
}

/** Whether `parseArgs` refused the arguments (an unknown option, a missing value): a usage error too. */
export function isParseArgsError(error: unknown): error is Error {
  return String((error as NodeJS.ErrnoException | undefined)?.code ?? "").startsWith("ERR_PARSE_ARGS");
}

/** The options a command takes, as `parseArgs` describes them. */
export type CommandOptions = NonNullable<ParseArgsConfig["options"]>;

/** What {@link parseCommandArgs} returns for a command's options. */
export type ParsedCommand<T extends CommandOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: T }>
>;

/**
 * A command's arguments: positionals allowed, every option known (an unknown one is a `parseArgs` error, which
 * {@link isParseArgsError} recognises).
 */
export function parseCommandArgs<T extends CommandOptions>(argv: readonly string[], options: T): ParsedCommand<T> {
  return parseArgs({ args: [...argv], allowPositionals: true as const, strict: true as const, options });
}
