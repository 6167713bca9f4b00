/**
 * The proxy benchmark's MCP server (stdio), built with the MCP SDK's low-level `Server`: one tool, `list_issues`
 * (the bench contract's tool, bench/contracts/list_issues.tool.json), answering a result of about 64 KB as servers
 * send one: the value as structured content and its JSON as a text block. The result is built once at start (the
 * seeded payload every benchmark reads), so each call costs the server only what the SDK does to send it.
 *
 *   node bench/proxy-server.js     (bench/proxy.js starts it, directly and behind `toolgate proxy`)
 */
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { issuesPayload } from "./lib/payloads.js";

/** The size of the result's JSON, in bytes. */
const RESULT_BYTES = 64 * 1024;

const contract = JSON.parse(readFileSync(new URL("./contracts/list_issues.tool.json", import.meta.url), "utf8"));
const payload = issuesPayload(RESULT_BYTES);
const value = JSON.parse(payload.text);
const tool = {
  name: contract.name,
  description: contract.description,
  inputSchema: contract.inputSchema,
  outputSchema: contract.outputSchema,
};

const server = new Server({ name: "toolgate-proxy-bench", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name !== tool.name) return { content: [{ type: "text", text: "no such tool" }], isError: true };
  return { content: [{ type: "text", text: payload.text }], structuredContent: value };
});
await server.connect(new StdioServerTransport());
