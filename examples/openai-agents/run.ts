/**
 * OpenAI Agents JS with the real filesystem server over stdio (`MCPServerStdio`), gated by `gateMcpServer`: the
 * agent's model reads each result as its delimited view, never the raw result. The model is scripted through the
 * SDK's own `Model` interface, so the SDK's agent loop runs as it does with a real model, without a network.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  MCPServerStdio,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  type StreamEvent,
  setTracingDisabled,
  Usage,
} from "@openai/agents";
import { Turn } from "@toolgate/runtime";
import { gateMcpServer } from "@toolgate/runtime/openai-agents";
import { catalog } from "./generated/index.js";

setTracingDisabled(true); // no network: traces would be exported to OpenAI

const notes = await mkdtemp(path.join(os.tmpdir(), "toolgate-openai-agents-example-"));
const note = path.join(notes, "oncall.md");
await writeFile(note, "On call this week: Ana (primary), Bo (secondary).\n");

/** A model that calls read_text_file once, then answers; it keeps the function-call outputs it was sent. */
class ScriptedModel implements Model {
  readonly outputs: string[] = [];

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input: AgentInputItem[] = typeof request.input === "string" ? [] : request.input;
    const results = input.filter((item) => item.type === "function_call_result");
    for (const item of results.slice(this.outputs.length)) {
      // The function-call output: text, or a list of parts whose text is what the model reads.
      const output = item.output as string | Array<{ text?: string }>;
      this.outputs.push(typeof output === "string" ? output : output.map((part) => part.text ?? "").join("\n"));
    }
    const next: AgentOutputItem =
      results.length === 0
        ? {
            type: "function_call",
            callId: "call_1",
            name: "read_text_file",
            arguments: JSON.stringify({ path: note }),
            status: "completed",
          }
        : {
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "Ana is on call." }],
          };
    return { usage: new Usage(), output: [next], responseId: `resp_${results.length}` };
  }

  // biome-ignore lint/correctness/useYield: this model never streams
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("not streamed in this example");
  }
}

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const turn = new Turn();
const gated = gateMcpServer(
  new MCPServerStdio({ name: "notes", command: process.execPath, args: [server, notes] }),
  catalog,
  {
    context: { turn },
    ungated: "hide", // the server's twelve other tools have no contract: not offered
    onOutcome: (outcome) => {
      if (outcome.ok) console.log(`the application's data: ${JSON.stringify(outcome.data)}`);
    },
  },
);
await gated.connect();
try {
  console.log(
    `tools the agent is offered: ${(await gated.listTools())
      .map((tool) => tool.name)
      .sort()
      .join(", ")}`,
  );
  const model = new ScriptedModel();
  const agent = new Agent({ name: "oncall", instructions: "Answer from the notes.", model, mcpServers: [gated] });
  const result = await run(agent, "Who is on call this week?");
  console.log(`the model read:\n${model.outputs.join("\n")}`);
  console.log(`answer: ${result.finalOutput}`);
  console.log(`turn: ${turn.report().contributions.length} gated call(s)`);
} finally {
  await gated.close();
  await rm(notes, { recursive: true, force: true });
}
