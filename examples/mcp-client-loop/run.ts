/**
 * An agent loop on the MCP SDK's client that feeds the model only gated content: the filesystem server over stdio,
 * the client checking results with the generated validators (no schema compiled at run time), and each tool call
 * checked against its contract before it goes out. The model is scripted here; put yours in its place.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { lookupTool, mcpCallFailure, mcpValidatorProvider, toModelContent } from "@toolgate/runtime";
import { catalog, outputValidators } from "./generated/index.js";

interface Message {
  role: "user" | "assistant" | "tool";
  content: string;
  toolCallId?: string;
}
interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

const notes = await mkdtemp(path.join(os.tmpdir(), "toolgate-mcp-loop-example-"));
await writeFile(path.join(notes, "weather.md"), "Oslo, today: rain from noon, 6 °C. Take an umbrella.\n");

/** The model, scripted: a call the catalog has no contract for, bad arguments, a good call, then its answer. */
const script: ToolCall[] = [
  { id: "call-1", name: "__proto__", args: {} },
  { id: "call-2", name: "read_text_file", args: { file: "weather.md" } },
  { id: "call-3", name: "read_text_file", args: { path: path.join(notes, "weather.md") } },
];
const model = {
  async respond(_request: { messages: readonly Message[]; tools: readonly unknown[] }) {
    const toolCall = script.shift();
    return toolCall === undefined ? { text: "Yes: rain from noon." } : { toolCall };
  },
};

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const client = new Client(
  { name: "my-agent", version: "1.0.0" },
  { jsonSchemaValidator: mcpValidatorProvider(outputValidators) },
);
// The server's own log lines stay out of the example's output.
await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, notes], stderr: "ignore" }));
const { tools } = await client.listTools();

const messages: Message[] = [{ role: "user", content: "Do I need an umbrella in Oslo today?" }];
for (;;) {
  const reply = await model.respond({ messages, tools });
  if (reply.toolCall === undefined) {
    messages.push({ role: "assistant", content: reply.text });
    break;
  }
  const { id, name, args } = reply.toolCall;
  // Own keys only: the model chose `name`, and `constructor` or `__proto__` finds no tool.
  const tool = lookupTool(catalog, name);
  const input = tool?.checkInput(args);
  if (tool === undefined || !input?.ok) {
    // No contract, no call: a tool the gate cannot judge never runs, and bad arguments go back to the model.
    const why = input?.ok === false ? input.issues.map((issue) => issue.message).join("; ") : "unknown tool";
    messages.push({ role: "tool", toolCallId: id, content: `error: ${why}` });
    continue;
  }
  const raw = await client
    .callTool({ name: tool.spec.mcp.name ?? name, arguments: args }, undefined, { timeout: 15_000 })
    .catch(mcpCallFailure);
  const outcome = await tool.admit(raw, { args: input.value });
  // The bounded view inside a delimiter, or the failure code and whether a retry may help: never the raw body.
  messages.push({ role: "tool", toolCallId: id, content: toModelContent(outcome) });
}
await client.close();
await rm(notes, { recursive: true, force: true });

for (const message of messages)
  console.log(`${message.role}${message.toolCallId ? ` (${message.toolCallId})` : ""}: ${message.content}`);
