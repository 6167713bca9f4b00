/**
 * The read-back tool as an in-process MCP server of the Claude Agent SDK, for `query()`'s `mcpServers`: the model
 * reads a spilled result back page by page (`mcp__toolgate__read_tool_result` by default). It builds the SDK's own
 * server (`createSdkMcpServer`, `tool()`), so this file imports the SDK and zod (the SDK's peer) at run time.
 */
import { createSdkMcpServer, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import type { ReadBack } from "../read-back/index.js";
import { type GateOptions, readBackCall } from "./gate-call.js";

/** Options of {@link readBackServer}: the server's name, and the context (tenant, session) reads are checked in. */
export interface ReadBackServerOptions extends GateOptions {
  /** The key of `mcpServers` it is given under; default `toolgate`. */
  name?: string | undefined;
}

/** The server's name when none is given. */
export const READ_BACK_SERVER = "toolgate";

/**
 * The read-back tool over `reader` as an SDK MCP server, always offered to the model (never deferred behind tool
 * search). Each call is read in the tenant and session `options.context` gives it, so a result spilled for one
 * tenant is never read in another's; a failed read answers as an error result with the typed failure.
 */
export function readBackServer(reader: ReadBack, options: ReadBackServerOptions = {}) {
  const { name, description, inputSchema, annotations } = reader.definition;
  // The model sees the definition's own JSON Schema, converted once to the zod shape the SDK's `tool()` takes.
  const shape = (z.fromJSONSchema(inputSchema) as z.ZodObject).shape;
  const read = tool(
    name,
    description,
    shape,
    async (args, extra) => {
      const { signal, _meta } = (extra ?? {}) as { signal?: AbortSignal; _meta?: Record<string, unknown> };
      const callId = typeof _meta?.["claudecode/toolUseId"] === "string" ? _meta["claudecode/toolUseId"] : undefined;
      const page = await readBackCall(reader, { tool: name, args, callId, signal }, options);
      // Claude Code shows the model a result's structured content in place of its text when it has one; the page's
      // text (inside the delimiter, with its range and the next page's arguments) is what the model should read.
      const { content, isError } = page.toolResult;
      return isError === true ? { content, isError } : { content };
    },
    { annotations },
  );
  return createSdkMcpServer({
    name: options.name ?? READ_BACK_SERVER,
    version: "1.0.0",
    tools: [read],
    alwaysLoad: true,
  });
}
