/**
 * OpenAI Agents JS function tools whose values are gated: `gateTools` builds each tool with the SDK's own `tool()`
 * from its options, with an `execute` that admits the original's value (or its throw) with the tool's adapter and
 * returns the model's content. The SDK keeps what it does around `execute` (parsing the model's arguments and
 * telling it when they do not parse, guardrails, approval, timeouts).
 *
 * A built tool hides its `execute` inside `invoke`, behind its error function, which turns a throw into text the
 * gate could not tell from a value; so the gate takes the tool's options, not the built tool. This file imports the
 * SDK at run time, for `tool()` only.
 */
import { type FunctionTool, tool } from "@openai/agents";
import type { ToolCatalog } from "../gate/context.js";
import type { ModelPart } from "../stages/model-content.js";
import { parsedResult } from "../stages/receive/parsed-value.js";
import { adaptersFor, gateCall, readBackCall, type ToolCallInfo, thrownByTool } from "./gate-call.js";
import type { AgentsGateOptions } from "./openai-agents.js";

/** What the SDK passes `execute` besides the arguments: the call, with its id, and the run's abort signal. */
interface ExecuteDetails {
  toolCall?: { callId?: string };
  signal?: AbortSignal;
}

/**
 * The options of one `tool({...})`, as the gate reads them: its name (the catalog's name for it) and the `execute`
 * whose value is the raw result. Everything else goes to `tool()` as given, but `outputSchema`: the contract is the
 * output's schema, and what the tool returns to the SDK is the model's content.
 */
export interface GatedToolOptions {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the arguments as the tool's own parameters type them.
  execute(input: any, runContext?: any, details?: any): unknown;
  [option: string]: unknown;
}

/** What a gated function tool returns to the SDK: the text part, then each admitted image as the SDK maps images. */
export type GatedToolOutput = Array<{ type: "text"; text: string } | { type: "image"; image: string }>;

/**
 * The function tools of `tools` (each the options of a `tool({...})`), each value admitted with the adapter of the
 * catalog's tool of that name before the model reads it, plus the read-back tool when `options.readBack` is given.
 * A tool without a contract is refused ({@link UngatedToolError} naming each one), left out, or built as it is, as
 * `options.ungated` says. A throw from `execute` is the typed failure the model reads, never the error's text.
 *
 * The application gets each outcome, and the whole validated `data`, from `options.onOutcome`, or from the `Turn`
 * in `options.context` (one contribution per call); each outcome's `correlationId` is the SDK's call id.
 */
export function gateTools(
  tools: readonly GatedToolOptions[],
  catalog: ToolCatalog,
  options: AgentsGateOptions = {},
  // biome-ignore lint/suspicious/noExplicitAny: tools of any run context, as an `Agent`'s `tools` takes them.
): FunctionTool<any, any, any>[] {
  const adapters = adaptersFor(
    catalog,
    tools.map((given) => given.name),
    options,
  );
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const built: FunctionTool<any, any, any>[] = [];
  for (const given of tools) {
    const adapter = adapters.get(given.name);
    if (adapter === undefined) {
      if (options.ungated === "pass") built.push(tool(given as never));
      continue;
    }
    const { outputSchema: _schema, execute, ...rest } = given;
    const gatedExecute = async (input: unknown, runContext?: unknown, details?: ExecuteDetails) => {
      const call = callInfo(given.name, input, details);
      // The value is an in-process tool's JSON data; a throw is the tool's error (see `thrownByTool`).
      const raw = Promise.resolve()
        .then(() => execute(input, runContext, details))
        .then(parsedResult, thrownByTool);
      const gated = await gateCall(adapter, raw, call, options);
      try {
        options.onOutcome?.(gated.outcome, call);
      } catch {
        // The application's callback never changes what the model reads.
      }
      return toolOutput(gated.parts);
    };
    built.push(tool({ ...rest, execute: gatedExecute } as never));
  }
  const reader = options.readBack;
  if (reader !== undefined) {
    const { name, description, inputSchema } = reader.definition;
    const execute = async (input: unknown, _runContext?: unknown, details?: ExecuteDetails) =>
      (await readBackCall(reader, callInfo(name, input, details), options)).content;
    built.push(tool({ name, description, parameters: inputSchema, strict: false, execute } as never));
  }
  return built;
}

/** The call as the gate reads it: the tool, the parsed arguments, the SDK's call id and the run's signal. */
function callInfo(name: string, input: unknown, details: ExecuteDetails | undefined): ToolCallInfo {
  return { tool: name, args: input, callId: details?.toolCall?.callId, signal: details?.signal };
}

/**
 * The gated parts as a function tool's output: text, and images as data URLs (`input_image`). The SDK has no audio
 * input for a tool's output, so an audio block is left to its `<media …/>` line in the text.
 */
function toolOutput(parts: readonly ModelPart[]): GatedToolOutput {
  const output: GatedToolOutput = [];
  for (const part of parts) {
    if (part.type === "text") output.push({ type: "text", text: part.text });
    else if (part.type === "image") output.push({ type: "image", image: `data:${part.mimeType};base64,${part.data}` });
  }
  return output;
}
