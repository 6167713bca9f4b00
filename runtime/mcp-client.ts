/**
 * `@toolgate/runtime/mcp-client`: the MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`) behind the gate,
 * and its validator provider from the generated validators. Its own entry, so the main entry never imports it.
 */
export type { GateOptions, ToolCallInfo } from "./integrations/gate-call.js";
export { UngatedToolError } from "./integrations/gate-call.js";
export {
  type GatedClient,
  type GatedToolResult,
  gateClient,
  type McpCallOptions,
  type McpCallParams,
  type McpClientLike,
  type McpTool,
} from "./integrations/mcp-client.js";
export { mcpClientCallFailure, mcpClientValidator } from "./integrations/mcp-client-failure.js";
export { ANY_RESULT, MAX_CLIENT_TASKS, type TaskState } from "./integrations/mcp-client-tasks.js";
export {
  cleanInputParams,
  INPUT_MAX_DEPTH,
  INPUT_MAX_ENTRIES,
  INPUT_TEXT_MAX_CHARS,
  INPUT_TOTAL_MAX_CHARS,
  type InputRequired,
  inputRequiredOf,
} from "./integrations/mcp-input-request.js";
