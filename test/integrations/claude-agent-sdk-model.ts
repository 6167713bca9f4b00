/**
 * A scripted model for Claude Code: a local HTTP server speaking the Anthropic Messages API (`POST /v1/messages`,
 * streamed as server-sent events, as the binary asks for it). It records each request body (the prompt the model
 * receives: the system prompt, the tools it is offered, the messages with their `tool_result` blocks) and answers
 * each request with the next step of its script, a function of that request.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A block the model answers with. */
export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** One `tool_result` block of a request, its content flattened to text. */
export interface SeenToolResult {
  toolUseId: string;
  text: string;
  isError: boolean;
}

/** A Messages API request, as far as the tests read it. */
export interface ModelRequest {
  url: string;
  stream: boolean;
  tools: Array<{ name: string; input_schema?: Record<string, unknown> }>;
  messages: Array<{ role: string; content: unknown }>;
}

export interface ScriptedModel {
  /** `ANTHROPIC_BASE_URL` for the binary. */
  baseUrl: string;
  /** Every Messages API request received, in order. */
  requests: ModelRequest[];
  /** What the model answered each request with, in the same order. */
  answers: ScriptedBlock[][];
  /** Any other request (method and path), which the tests expect none of. */
  others: string[];
  close(): Promise<void>;
}

/** Every `tool_result` block of a request's messages (the binary may add its own messages after them). */
export function toolResults(request: ModelRequest): SeenToolResult[] {
  const results: SeenToolResult[] = [];
  for (const message of request.messages) {
    if (message.role !== "user" || !Array.isArray(message.content)) continue;
    for (const block of message.content as Array<Record<string, unknown>>) {
      if (block.type !== "tool_result") continue;
      const toolUseId = String(block.tool_use_id);
      results.push({ toolUseId, text: flatten(block.content), isError: block.is_error === true });
    }
  }
  return results;
}

function flatten(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { type?: string; text?: string }) => (part.type === "text" ? part.text : "")).join("\n");
}

/** Starts the model on 127.0.0.1 (a free port); step `i` of `script` answers the `i`-th Messages request. */
export async function scriptedModel(script: Array<(request: ModelRequest) => ScriptedBlock[]>): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const answers: ScriptedBlock[][] = [];
  const others: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || !/^\/v1\/messages(\?|$)/.test(req.url ?? "")) {
        others.push(`${req.method} ${req.url}`);
        res.writeHead(404, { "content-type": "application/json" }).end("{}");
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const request: ModelRequest = {
        url: req.url ?? "",
        stream: body.stream === true,
        tools: body.tools ?? [],
        messages: body.messages,
      };
      requests.push(request);
      const step = script[requests.length - 1];
      const blocks = step === undefined ? [{ type: "text" as const, text: "done" }] : step(request);
      answers.push(blocks);
      stream(res, requests.length, blocks);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    answers,
    others,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Writes one streamed message: `message_start`, each block, then the stop reason and `message_stop`. */
function stream(res: http.ServerResponse, n: number, blocks: ScriptedBlock[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: string, data: Record<string, unknown>) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = { id: `msg_${n}`, type: "message", role: "assistant", model: "claude-scripted", content: [] };
  send("message_start", { message: { ...message, stop_reason: null, stop_sequence: null, usage } });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      send("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      send("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    send("content_block_stop", { index });
  });
  const stopReason = blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } });
  send("message_stop", {});
  res.end();
}
