/**
 * Every path to the model goes through the view: for generated values holding a field the view omits, properties
 * the schema does not declare and invisible characters (bidi controls, zero-width and tag characters), nothing
 * omitted, undeclared or invisible reaches what a model or a framework's tool output receives, over the read-back
 * pages (content and structured result) and the real agent loops of the AI SDK, Mastra, OpenAI Agents (function
 * tools) and LangChain (`createAgent` with the middleware), each driven by a scripted model: every prompt, and every
 * tool result the framework keeps (for LangChain, the tool messages whole, `artifact` included: LangChain sends no
 * artifact to a model, but a stream or a checkpointer carries it on). The positive control beside it: every person the view
 * declares reaches the model by its cleaned name, in the view or on the pages read back.
 */

import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { tool as langchainTool } from "@langchain/core/tools";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Agent as OpenAiAgent, run, setTracingDisabled } from "@openai/agents";
import { convertToModelMessages, generateText, isStepCount, jsonSchema, tool } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import fc from "fast-check";
import { createAgent, HumanMessage, AIMessage as LangChainAIMessage } from "langchain";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { gateTools as gateAiTools } from "../../runtime/ai-sdk.js";
import type { ToolCatalog } from "../../runtime/gate/context.js";
import { MemorySpillStore, type ReadBack, type ReadBackArgs, readBack, toModelContent } from "../../runtime/index.js";
import { gateMiddleware } from "../../runtime/langchain.js";
import { gateTools as gateMastraTools } from "../../runtime/mastra.js";
import { gateTools as gateOpenAiTools } from "../../runtime/openai-agents.js";
import { cleanText, hasInvisible } from "../../runtime/text/hygiene.js";
import { ensureRuntimeBuilt, generateCatalog, scratchFolder } from "../mcp/fixture-catalog.js";
import { spillHandle } from "./fixture.js";
import { callTool as langchainCall, ScriptedChatModel, textOf } from "./langchain-model.js";
import { ScriptedModel, toolOutputs } from "./openai-agents-model.js";

const TOOL = "find_people";
const OMITTED = "OMITTED-3b7e51";
const UNDECLARED = "UNDECLARED-e0c2d9";
const INVISIBLES = ["\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u{e0041}", "\u{e007f}", "\u00ad"];

/** A contract whose people take undeclared properties (bounded), with a private `notes` the view omits. */
const contract = {
  name: TOOL,
  description: "People matching a query.",
  inputSchema: { type: "object", properties: { q: { type: "string", maxLength: 64 } }, additionalProperties: false },
  outputSchema: {
    type: "object",
    properties: {
      people: {
        type: "array",
        maxItems: 60,
        items: {
          type: "object",
          properties: { name: { type: "string", maxLength: 80 }, bio: { type: "string", maxLength: 600 } },
          required: ["name"],
          maxProperties: 6,
          additionalProperties: { type: "string", maxLength: 100 },
        },
      },
      notes: { type: "string", maxLength: 200 },
    },
    required: ["people"],
    maxProperties: 4,
    additionalProperties: { type: "string", maxLength: 100 },
  },
  "x-toolgate": {
    version: "1",
    context: { unit: "bytes", max: 1000 },
    receive: { maxBytes: 1048576 },
    view: { omit: ["/notes"], arrays: { "/people": { take: 8 } } },
    oversize: ["spill", "drop"],
    spill: { preview: 3 },
  },
};

let catalog: ToolCatalog;
beforeAll(async () => {
  setTracingDisabled(true);
  await ensureRuntimeBuilt();
  const scratch = await scratchFolder("model-paths");
  await writeFile(path.join(scratch, `${TOOL}.tool.json`), JSON.stringify(contract));
  catalog = (await generateCatalog(scratch, path.join(scratch, "generated"))).index.catalog as ToolCatalog;
}, 120_000);

/** Text of plain letters with invisible characters among them. */
const hiddenText = (max: number) =>
  fc
    .array(fc.oneof(fc.constantFrom(..."abcdefgh xyz"), fc.constantFrom(...INVISIBLES)), {
      maxLength: max,
      size: "max",
    })
    .map((chars) => chars.join(""));

interface Person {
  name: string;
  bio?: string;
  [undeclared: string]: string | undefined;
}

/** A valid value: people with invisible characters and undeclared properties, a private note, an undeclared top. */
const people = fc
  .record({
    people: fc.array(
      fc.record({
        name: hiddenText(30),
        bio: fc.option(hiddenText(500), { nil: undefined }),
        extra: fc.boolean(),
      }),
      { maxLength: 40, size: "max" },
    ),
    topExtra: fc.boolean(),
  })
  .map(({ people: list, topExtra }) => ({
    people: list.map(
      ({ name, bio, extra }, i): Person => ({
        name: `p${i}-${name}`,
        ...(bio === undefined ? {} : { bio }),
        ...(extra ? { hidden: `${UNDECLARED} ${i}` } : {}),
      }),
    ),
    notes: `${OMITTED}: staff only`,
    ...(topExtra ? { undeclared: `${UNDECLARED} top` } : {}),
  }));

/** Asserts that `text` holds nothing omitted, undeclared or invisible. */
function expectKeptOut(text: string, where: string): void {
  expect(text, where).not.toContain(OMITTED);
  expect(text, where).not.toContain(UNDECLARED);
  expect(hasInvisible(text), `${where}: an invisible character`).toBe(false);
}

/** Every page of `/people` from the spill `handle`, following each page's `next`. */
async function allPages(reader: ReadBack, handle: string) {
  const pages = [];
  let args: ReadBackArgs | undefined = { handle, pointer: "/people" };
  while (args !== undefined) {
    const page = await reader.handle(args);
    pages.push(page);
    args = page.ok ? page.page.next : undefined;
  }
  return pages;
}

/** The names the model must be able to read: each person's, cleaned. */
const names = (value: { people: Person[] }) => value.people.map((person) => cleanText(person.name));

describe("nothing omitted, undeclared or invisible reaches a model or a tool output", () => {
  it("through the gate and every read-back page, content and structured result", async () => {
    let spilled = 0;
    await fc.assert(
      fc.asyncProperty(people, async (value) => {
        const reader = readBack(new MemorySpillStore(), { budget: { unit: "bytes", max: 3000 } });
        const adapter = (catalog[TOOL] as { adapter: { admit: (raw: unknown, ctx: unknown) => Promise<never> } })
          .adapter;
        const outcome = (await adapter.admit(JSON.stringify(value), reader.context)) as Parameters<
          typeof toModelContent
        >[0];
        const content = toModelContent(outcome);
        expectKeptOut(content, "model content");
        expect(outcome.ok).toBe(true);
        const handle = outcome.ok ? outcome.spill?.handle : undefined;
        if (handle === undefined) {
          // Positive control: the view shows the first people by their cleaned names.
          for (const name of names(value).slice(0, 8)) expect(content).toContain(name);
          return;
        }
        spilled++;
        const pages = await allPages(reader, handle);
        const everything = pages.map((p) => `${p.content}\n${JSON.stringify(p.toolResult)}`).join("\n");
        expectKeptOut(everything, "read-back pages");
        // Positive control: every person, by the cleaned name, on the pages and in their structured results.
        const read = pages.flatMap((p) => (p.ok ? (p.page.items ?? []) : [])) as Array<{ name: string }>;
        expect(read.map((person) => person.name)).toEqual(names(value));
      }),
      { numRuns: 60 },
    );
    // Both ways were taken: values whose view fits, and values spilled and read back.
    expect(spilled).toBeGreaterThan(0);
    expect(spilled).toBeLessThan(60);
  });

  it("through the AI SDK's loop: prompts, steps' tool results, and the history converted without the tools", async () => {
    await fc.assert(
      fc.asyncProperty(people, async (value) => {
        const reader = readBack(new MemorySpillStore(), { budget: { unit: "bytes", max: 3000 } });
        const model = new MockLanguageModelV3({ doGenerate: async ({ prompt }) => aiAnswer(prompt) });
        const tools = gateAiTools(
          { [TOOL]: tool({ inputSchema: jsonSchema({ type: "object" }), execute: async () => value }) },
          catalog,
          { readBack: reader },
        );
        const result = await generateText({ model, tools, prompt: "Find people.", stopWhen: isStepCount(4) });
        const prompts = JSON.stringify(model.doGenerateCalls.map((call) => call.prompt));
        expectKeptOut(prompts, "AI SDK prompts");
        const outputs = JSON.stringify(result.steps.map((step) => step.toolResults));
        expectKeptOut(outputs, "AI SDK tool results");
        // The history as a client stores it (UI messages whose tool parts hold each output), converted without tools.
        const parts = result.steps.flatMap((step) =>
          step.toolResults.map((r) => ({
            type: `tool-${r.toolName}`,
            toolCallId: r.toolCallId,
            state: "output-available",
            input: r.input,
            output: r.output,
          })),
        );
        const messages = [{ id: "a1", role: "assistant", parts }];
        const history = JSON.stringify(await convertToModelMessages(messages as never));
        expectKeptOut(history, "AI SDK history without tools");
        // Positive control: the first person reaches the model by name.
        if (value.people.length > 0) expect(prompts).toContain(names(value)[0]);
      }),
      { numRuns: 25 },
    );
  });

  it("through Mastra's agent loop: prompts and the tool results it keeps", async () => {
    await fc.assert(
      fc.asyncProperty(people, async (value) => {
        const reader = readBack(new MemorySpillStore(), { budget: { unit: "bytes", max: 3000 } });
        const found = createTool({
          id: TOOL,
          description: "People.",
          inputSchema: z.object({ q: z.string().optional() }),
          execute: async () => value,
        });
        const { model, calls } = mastraModel();
        const tools = gateMastraTools({ [TOOL]: found }, catalog, { readBack: reader });
        const agent = new Agent({ id: "people", name: "people", instructions: "Find people.", model, tools });
        const result = await agent.generate("Find people.", { maxSteps: 4 });
        const prompts = JSON.stringify(calls.map((call) => call.prompt));
        expectKeptOut(prompts, "Mastra prompts");
        expectKeptOut(JSON.stringify([result.toolResults, result.steps]), "Mastra tool results");
        if (value.people.length > 0) expect(prompts).toContain(names(value)[0]);
      }),
      { numRuns: 15 },
    );
  });
});

describe("nothing omitted, undeclared or invisible reaches a model: the other agent loops", () => {
  it("through an OpenAI Agents run with gated function tools: every request the model is sent", async () => {
    await fc.assert(
      fc.asyncProperty(people, async (value) => {
        const reader = readBack(new MemorySpillStore(), { budget: { unit: "bytes", max: 3000 } });
        const found = {
          name: TOOL,
          description: "People.",
          parameters: contract.inputSchema,
          strict: false,
          execute: async () => value,
        };
        const model = new ScriptedModel((input) => {
          const outputs = toolOutputs(input);
          const last = outputs.at(-1);
          const call = (name: string, args: unknown, step: number) => ({
            type: "function_call" as const,
            callId: `call_${step}`,
            name,
            arguments: JSON.stringify(args),
            status: "completed" as const,
          });
          if (last === undefined) return call(TOOL, { q: "all" }, 1);
          const handle = last.name === TOOL ? spillHandle(last.text) : undefined;
          if (handle !== undefined) return call("read_tool_result", { handle, pointer: "/people" }, 2);
          return {
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "done" }],
          };
        });
        const tools = gateOpenAiTools([found as never], catalog, { readBack: reader });
        const agent = new OpenAiAgent({ name: "people", instructions: "Find people.", model, tools });
        const result = await run(agent, "Find people.");
        const requests = JSON.stringify(model.requests.map((request) => request.input));
        expectKeptOut(requests, "OpenAI Agents requests");
        expectKeptOut(JSON.stringify(result.newItems.map((item) => item.rawItem)), "OpenAI Agents run items");
        if (value.people.length > 0) expect(requests).toContain(names(value)[0]);
      }),
      { numRuns: 15 },
    );
  });

  it("through a LangChain agent with the middleware: every prompt, and the tool messages whole", async () => {
    await fc.assert(
      fc.asyncProperty(people, async (value) => {
        const reader = readBack(new MemorySpillStore(), { budget: { unit: "bytes", max: 3000 } });
        const found = langchainTool(async () => value, {
          name: TOOL,
          description: "People.",
          schema: z.object({ q: z.string().optional() }),
        });
        const model = new ScriptedChatModel((prompt, step) => {
          if (step === 0) return langchainCall(TOOL, { q: "all" }, "call-people");
          const last = prompt.messages.at(-1);
          const handle = last === undefined ? undefined : spillHandle(textOf(last));
          if (step === 1 && handle !== undefined) {
            return langchainCall("read_tool_result", { handle, pointer: "/people" }, "call-read");
          }
          return new LangChainAIMessage("done");
        });
        const middleware = [gateMiddleware(catalog, { readBack: reader })];
        const agent = createAgent({ model, tools: [found], middleware });
        const result = await agent.invoke({ messages: [new HumanMessage("Find people.")] });
        const prompts = model.prompts.map((p) => p.messages.map((m) => JSON.stringify(m.content)).join("\n"));
        expectKeptOut(prompts.join("\n"), "LangChain prompts");
        const kept = result.messages.map((m) => ({
          content: m.content,
          artifact: (m as { artifact?: unknown }).artifact,
        }));
        expectKeptOut(JSON.stringify(kept), "LangChain messages, content and artifact");
        expectKeptOut(JSON.stringify(result.messages), "LangChain messages as serialized");
        if (value.people.length > 0) expect(prompts.join("\n")).toContain(names(value)[0]);
      }),
      { numRuns: 15 },
    );
  });
});

/** The tool results' text in the last message of an AI SDK prompt. */
function lastToolText(prompt: LanguageModelV3CallOptions["prompt"]): string {
  const last = prompt.at(-1);
  return last?.role === "tool" ? JSON.stringify(last.content) : "";
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** Call the tool, then read a spill back once when there is one, then answer. */
function aiAnswer(prompt: LanguageModelV3CallOptions["prompt"]): LanguageModelV3GenerateResult {
  const step = prompt.filter((message) => message.role === "tool").length;
  const call = (toolName: string, input: unknown): LanguageModelV3GenerateResult => ({
    content: [{ type: "tool-call", toolCallId: `c${step}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  });
  if (step === 0) return call(TOOL, { q: "all" });
  const handle = spillHandle(lastToolText(prompt).replaceAll('\\"', '"'));
  if (step === 1 && handle !== undefined) return call("read_tool_result", { handle, pointer: "/people" });
  return {
    content: [{ type: "text", text: "done" }],
    finishReason: { unified: "stop", raw: "stop" },
    usage,
    warnings: [],
  };
}

/** A Mastra model: the same script, over the AI SDK's V4 mock, keeping every call. */
function mastraModel() {
  const calls: Array<{ prompt: LanguageModelV3CallOptions["prompt"] }> = [];
  const answer = (options: { prompt: unknown }) => {
    const prompt = options.prompt as LanguageModelV3CallOptions["prompt"];
    calls.push({ prompt });
    return aiAnswer(prompt);
  };
  const mock = new MockLanguageModelV4({
    doGenerate: async (options) => answer(options) as never,
    doStream: async (options) => {
      const { content, finishReason, usage: used } = answer(options);
      const parts: unknown[] = [{ type: "stream-start", warnings: [] }];
      for (const part of content) {
        if (part.type === "text") {
          parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: part.text });
          parts.push({ type: "text-end", id: "t" });
        } else parts.push(part);
      }
      parts.push({ type: "finish", finishReason, usage: used });
      return { stream: convertArrayToReadableStream(parts as never[]) };
    },
  });
  return { model: mock as unknown as ConstructorParameters<typeof Agent>[0]["model"], calls };
}
