/**
 * Mastra: an `Agent` whose tool reads files through the real filesystem server over stdio (the MCP SDK's client),
 * wrapped by `gateTools` so the result is admitted by its contract before the model reads it. The model is the AI
 * SDK's mock (`MockLanguageModelV4` from `ai/test`), which Mastra drives as any model: it calls the tool, then answers.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Turn } from "@toolgate/runtime";
import { gateTools } from "@toolgate/runtime/mastra";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { catalog } from "./generated/index.js";

const notes = await mkdtemp(path.join(os.tmpdir(), "toolgate-mastra-example-"));
const note = path.join(notes, "menu.md");
await writeFile(note, "Friday lunch: lentil soup, bread, apples.\n");

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const client = new Client({ name: "mastra-example", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, notes], stderr: "ignore" }));

/**
 * The tool as Mastra's MCP client makes it of the server's `read_text_file`: named `<server>_<tool>`, marked with the
 * server's name, its value the server's CallToolResult as it came (the gate reads it as an MCP result).
 */
const readTextFile = createTool({
  id: "notes_read_text_file",
  description: "Read a text file.",
  inputSchema: z.object({ path: z.string() }),
  mcpMetadata: { serverName: "notes" },
  execute: async ({ path }) => client.callTool({ name: "read_text_file", arguments: { path } }),
});

/** What the model read: the tool result in the prompt of its second call. */
const read: string[] = [];
function step(prompt: LanguageModelV4Prompt): LanguageModelV4Content[] {
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      if (output.type === "text" || output.type === "error-text") read.push(output.value);
      else if (output.type === "content")
        read.push(output.value.map((p) => (p.type === "text" ? p.text : "")).join(""));
    }
  }
  if (read.length === 0)
    return [
      {
        type: "tool-call",
        toolCallId: "call-1",
        toolName: "notes_read_text_file",
        input: JSON.stringify({ path: note }),
      },
    ];
  return [{ type: "text", text: "Lentil soup on Friday." }];
}
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const mock = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const content = step(prompt);
    const unified = content[0]?.type === "tool-call" ? "tool-calls" : "stop";
    return { content, finishReason: { unified, raw: unified }, usage, warnings: [] };
  },
  doStream: async ({ prompt }) => {
    const content = step(prompt);
    const unified = content[0]?.type === "tool-call" ? "tool-calls" : "stop";
    const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
    for (const part of content) {
      if (part.type === "text") {
        parts.push(
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: part.text },
          { type: "text-end", id: "t" },
        );
      } else if (part.type === "tool-call") parts.push(part);
    }
    parts.push({ type: "finish", finishReason: { unified, raw: unified }, usage });
    return { stream: convertArrayToReadableStream(parts) };
  },
});
// Mastra's own copy of the model types may lag the provider package's; the model is the same at run time.
type AgentModel = ConstructorParameters<typeof Agent>[0]["model"];

const turn = new Turn();
try {
  const tools = gateTools({ notes_read_text_file: readTextFile }, catalog, {
    context: { turn },
    onOutcome: (outcome) => {
      if (outcome.ok && "data" in outcome) console.log(`the application's data: ${JSON.stringify(outcome.data)}`);
    },
  });
  const agent = new Agent({
    id: "lunch",
    name: "lunch",
    instructions: "Answer from the notes.",
    model: mock as unknown as AgentModel,
    tools,
  });
  const result = await agent.generate("What is for lunch on Friday?", { maxSteps: 3 });
  console.log(`the model read:\n${read.join("\n")}`);
  console.log(`answer: ${result.text}`);
  console.log(`turn: ${turn.report().contributions.length} gated call(s)`);
} finally {
  await client.close();
  await rm(notes, { recursive: true, force: true });
}
