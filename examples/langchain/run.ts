/**
 * LangChain.js: `createAgent` with the real filesystem server's tools from `@langchain/mcp-adapters` over stdio, and
 * `gateMiddleware`, which admits each tool's result by its contract and leaves the model a `ToolMessage` holding
 * only the view. The chat model is a scripted `BaseChatModel` (LangChain's own base for a chat model): it calls
 * read_text_file once, then answers.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { Turn } from "@toolgate/runtime";
import { gateMiddleware, outcomeOf } from "@toolgate/runtime/langchain";
import { createAgent, HumanMessage } from "langchain";
import { catalog } from "./generated/index.js";

const notes = await mkdtemp(path.join(os.tmpdir(), "toolgate-langchain-example-"));
const note = path.join(notes, "release.md");
await writeFile(note, "Release 2.3 ships on Thursday; the freeze starts Tuesday.\n");

/** The scripted chat model: a tool call while its prompt holds no tool result, then an answer. */
class ScriptedChatModel extends BaseChatModel {
  _llmType(): string {
    return "scripted";
  }
  override bindTools(): ScriptedChatModel {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const read = messages.find((message) => ToolMessage.isInstance(message));
    const message = read
      ? new AIMessage("Release 2.3 ships on Thursday.")
      : new AIMessage({
          content: "",
          tool_calls: [{ name: "read_text_file", args: { path: note }, id: "call-1", type: "tool_call" }],
        });
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const client = new MultiServerMCPClient({
  mcpServers: { notes: { transport: "stdio", command: process.execPath, args: [server, notes], stderr: "ignore" } },
});
const turn = new Turn();
try {
  const agent = createAgent({
    model: new ScriptedChatModel({}),
    tools: await client.getTools(),
    // The server's twelve other tools have no contract: taken away from the model.
    middleware: [gateMiddleware(catalog, { context: { turn }, ungated: "hide" })],
  });
  const { messages } = await agent.invoke({ messages: [new HumanMessage("When does release 2.3 ship?")] });
  for (const message of messages) {
    if (!ToolMessage.isInstance(message)) continue;
    console.log(`the model read (${message.name}):\n${message.content}`);
    const outcome = outcomeOf(message);
    if (outcome?.ok) console.log(`the application's data: ${JSON.stringify(outcome.data)}`);
  }
  console.log(`answer: ${messages.at(-1)?.content}`);
  console.log(`turn: ${turn.report().contributions.length} gated call(s)`);
} finally {
  await client.close();
  await rm(notes, { recursive: true, force: true });
}
