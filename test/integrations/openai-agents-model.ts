/**
 * The scripted model the OpenAI Agents tests drive the SDK's agent loop with: it implements the SDK's `Model`
 * interface, keeps every request it is sent (the prompt and the tools the agent's model receives) and calls tools as
 * a model would, from what its prompt says.
 */
import type { AgentInputItem, AgentOutputItem, Model, ModelRequest, ModelResponse, StreamEvent } from "@openai/agents";
import { Usage } from "@openai/agents";
import { spillHandle, TOOL, type Variant } from "./fixture.js";

export const READ_TOOL = "read_tool_result";

/** What the scripted model was sent once: the input items (its prompt), the names of the tools offered, and how. */
export interface SentRequest {
  input: AgentInputItem[];
  tools: string[];
  streamed: boolean;
}

/** A model that keeps every request it is sent and answers each with what `next` decides from that request. */
export class ScriptedModel implements Model {
  readonly requests: SentRequest[] = [];
  readonly #next: (input: AgentInputItem[]) => AgentOutputItem;

  constructor(next: (input: AgentInputItem[]) => AgentOutputItem) {
    this.#next = next;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    return this.#answer(request, false);
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const response = this.#answer(request, true);
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    // The SDK's stream protocol types its output items apart from `AgentOutputItem`; the items are the same.
    const output = response.output as Extract<StreamEvent, { type: "response_done" }>["response"]["output"];
    yield { type: "response_done", response: { id: response.responseId ?? "resp", usage, output } };
  }

  #answer(request: ModelRequest, streamed: boolean): ModelResponse {
    const input: AgentInputItem[] =
      typeof request.input === "string"
        ? [{ role: "user", content: request.input }]
        : JSON.parse(JSON.stringify(request.input));
    this.requests.push({ input, tools: request.tools.map((tool) => tool.name), streamed });
    return { usage: new Usage(), output: [this.#next(input)], responseId: `resp_${this.requests.length}` };
  }
}

/** A function call the model makes. */
function callTool(name: string, args: Record<string, unknown>, step: number): AgentOutputItem {
  return { type: "function_call", callId: `call_${step}`, name, arguments: JSON.stringify(args), status: "completed" };
}

/** The model's final answer. */
function answer(text: string): AgentOutputItem {
  return { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] };
}

/** The function-call outputs in a prompt, in order: the tool's name and all the text the model reads of it. */
export function toolOutputs(input: readonly AgentInputItem[]): Array<{ name: string; text: string }> {
  const outputs: Array<{ name: string; text: string }> = [];
  for (const item of input) {
    if (item.type !== "function_call_result") continue;
    const output = item.output as unknown;
    const parts: unknown[] = Array.isArray(output) ? output : [output];
    const text = parts
      .map((part) => (typeof part === "string" ? part : ((part as { text?: string }).text ?? JSON.stringify(part))))
      .join("\n");
    outputs.push({ name: item.name, text });
  }
  return outputs;
}

/**
 * The scripted model for one call of `list_orders` answering `variant`: call it; after a spilled answer, read it
 * back by the handle in the prompt; then answer.
 */
export function ordersModel(variant: Variant): ScriptedModel {
  return new ScriptedModel((input) => {
    const outputs = toolOutputs(input);
    const last = outputs.at(-1);
    if (last === undefined) return callTool(TOOL, { customer: "acme", variant }, 1);
    const handle = last.name === TOOL ? spillHandle(last.text) : undefined;
    if (handle !== undefined) return callTool(READ_TOOL, { handle, pointer: "/orders" }, 2);
    return answer("done");
  });
}
