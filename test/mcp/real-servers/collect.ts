/**
 * Call a started real server over stdio through the official SDK client, as a host does, and keep every raw result
 * (or the client's throw, turned into the MCP failure shape with `mcpCallFailure`).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  mcpCallFailure,
  mcpValidatorProvider,
  type OutputValidators,
} from "../../../runtime/integrations/mcp-validator.js";
import type { Args, StartedServer } from "./servers.js";

/** One call and what the server answered. */
export interface RawCall {
  tool: string;
  args: Args;
  raw: unknown;
}

/** Every legitimate and refused call of a server, answered. */
export interface RawCalls {
  /** The tools the server lists. */
  listed: string[];
  legitimate: RawCall[];
  refused: RawCall[];
}

/**
 * Start the server, list its tools, make every call in order, and close it. With `validators` (a generated
 * catalog's), the client checks structured results with the generated validators, as an application using the
 * catalog does; without, with the SDK's own.
 */
export async function callServer(started: StartedServer, validators?: OutputValidators): Promise<RawCalls> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: started.args,
    env: { ...(process.env as Record<string, string>), ...started.env },
    stderr: "pipe",
  });
  const client = new Client(
    { name: "toolgate-real-servers", version: "1.0.0" },
    validators === undefined ? {} : { jsonSchemaValidator: mcpValidatorProvider(validators) },
  );
  await client.connect(transport);
  const out: RawCalls = { listed: [], legitimate: [], refused: [] };
  try {
    out.listed = (await client.listTools()).tools.map((tool) => tool.name);
    const call = (tool: string, args: Args) =>
      client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 }).catch(mcpCallFailure);
    for (const [tool, args] of started.setup ?? []) {
      const raw = await call(tool, args);
      if ((raw as { isError?: unknown }).isError === true) throw new Error(`setup ${tool}: ${JSON.stringify(raw)}`);
    }
    for (const { tool, args } of started.calls) out.legitimate.push({ tool, args, raw: await call(tool, args) });
    for (const { tool, args } of started.errors) out.refused.push({ tool, args, raw: await call(tool, args) });
  } finally {
    await client.close();
  }
  return out;
}
