/**
 * A scripted LangChain chat model for the end-to-end tests: a real `BaseChatModel` the agent binds its tools to,
 * which records every prompt it receives (the messages and the names of the tools bound) and answers each from a
 * script that reads that prompt, as a model would.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";

/** One prompt the model received. */
export interface Prompt {
  messages: BaseMessage[];
  tools: string[];
}

/** The model's next answer, from the prompt it was sent and how many it received before. */
export type Script = (prompt: Prompt, step: number) => AIMessage;

/** Every text of a message's content (a string, or its text blocks). */
export function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

/** An answer calling one tool. */
export function callTool(name: string, args: Record<string, unknown>, id: string): AIMessage {
  return new AIMessage({ content: "", tool_calls: [{ name, args, id, type: "tool_call" }] });
}

export class ScriptedChatModel extends BaseChatModel {
  readonly prompts: Prompt[];
  readonly #script: Script;
  readonly #tools: string[];

  constructor(script: Script, prompts: Prompt[] = [], tools: string[] = []) {
    super({});
    this.#script = script;
    this.prompts = prompts;
    this.#tools = tools;
  }

  _llmType(): string {
    return "scripted";
  }

  /** The same script and record, with these tools bound (what the agent offers the model). */
  override bindTools(tools: readonly unknown[]): ScriptedChatModel {
    const names = tools.map((tool) => String((tool as { name?: unknown }).name));
    return new ScriptedChatModel(this.#script, this.prompts, names);
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const prompt = { messages: [...messages], tools: [...this.#tools] };
    const step = this.prompts.length;
    this.prompts.push(prompt);
    const message = this.#script(prompt, step);
    return { generations: [{ message, text: textOf(message) }] };
  }
}
