/**
 * The server side of the proxy: the server's process over stdio, as an MCP SDK `Transport` the SDK's `Client`
 * runs on, except that the server's output is read by {@link LineFramer}. A message past the ceiling never reaches
 * the client's buffer: `onOversize` is told its size and the id it answers, and the session goes on.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type Frame, LineFramer, type MessageId } from "./frames.js";

/** How to start the server, and what to do with a message past the ceiling. */
export interface UpstreamOptions {
  command: string;
  args?: readonly string[] | undefined;
  /** The server's environment, over the few variables every server needs (`PATH`, `HOME`, …, as the SDK does). */
  env?: Readonly<Record<string, string>> | undefined;
  cwd?: string | undefined;
  /** The largest message read from the server, in bytes. */
  maxMessageBytes: number;
  /**
   * A message past `maxMessageBytes` was dropped: its size and the id it answers, when it says. Whatever this does,
   * the request it answers gets a {@link MESSAGE_TOO_LARGE} error in its place, so the client's call ends.
   */
  onOversize?: ((oversize: { bytes: number; id: MessageId | undefined }) => void) | undefined;
  /** Where the server's stderr goes: `"inherit"` (the proxy's own, the default) or `"ignore"`. */
  stderr?: "inherit" | "ignore" | undefined;
}

/**
 * The JSON-RPC error code (in the range the spec leaves to implementations) answering a request whose response was
 * over the ceiling; its `data` is `{ reason: "message_too_large", bytes, maxBytes }`.
 */
export const MESSAGE_TOO_LARGE = -32097;

/** The variables a server inherits from the proxy when its environment is not given in full (as the MCP SDK). */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The server's process as an MCP transport whose reader cuts oversize messages. */
export class UpstreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child: ChildProcess | undefined;
  readonly #framer: LineFramer;
  #parse: ((text: string) => JSONRPCMessage) | undefined;

  constructor(readonly options: UpstreamOptions) {
    this.#framer = new LineFramer(options.maxMessageBytes);
  }

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    if (this.#child !== undefined) throw new Error("the server is already started");
    const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
    this.#parse = (text) => JSONRPCMessageSchema.parse(JSON.parse(text)) as JSONRPCMessage;
    const inherited = Object.fromEntries(
      INHERITED.flatMap((name) => {
        const value = process.env[name];
        return value === undefined || value.startsWith("()") ? [] : [[name, value]];
      }),
    );
    const child = spawn(this.options.command, [...(this.options.args ?? [])], {
      env: { ...inherited, ...this.options.env },
      cwd: this.options.cwd,
      stdio: ["pipe", "pipe", this.options.stderr ?? "inherit"],
      shell: false,
    });
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
    });
    child.on("close", () => {
      this.#child = undefined;
      this.onclose?.();
    });
    child.stdin?.on("error", (error) => this.onerror?.(error));
    child.stdout?.on("error", (error) => this.onerror?.(error));
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const frame of this.#framer.push(chunk)) this.#deliver(frame);
    });
  }

  #deliver(frame: Frame): void {
    if (frame.kind === "oversize") {
      const { bytes, id } = frame;
      const maxBytes = this.options.maxMessageBytes;
      this.options.onOversize?.({ bytes, id });
      if (id === undefined) {
        this.onerror?.(new Error(`the server sent a message of ${bytes} bytes, over the ceiling of ${maxBytes}`));
        return;
      }
      this.onmessage?.({
        jsonrpc: "2.0",
        id,
        error: {
          code: MESSAGE_TOO_LARGE,
          message: `The server's answer of ${bytes} bytes is over the proxy's ceiling of ${maxBytes} bytes.`,
          data: { reason: "message_too_large", bytes, maxBytes },
        },
      });
      return;
    }
    if (frame.text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = (this.#parse as (text: string) => JSONRPCMessage)(frame.text);
    } catch (error) {
      this.onerror?.(
        error instanceof Error ? error : new Error("the server sent a line that is not a JSON-RPC message"),
      );
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null) return Promise.reject(new Error("the server is not running"));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** Ends the server: stdin closed, then SIGTERM after 2 s, then SIGKILL after 2 s more (as the MCP SDK does). */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    this.#child = undefined;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const wait = (ms: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    child.stdin?.end();
    await wait(2000);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await wait(2000);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}
