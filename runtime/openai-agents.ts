/**
 * `@toolgate/runtime/openai-agents`: MCP servers and function tools for OpenAI Agents JS (`@openai/agents`) whose
 * results are gated before the agent's model reads them. Its own entry, so the main entry never carries it or the
 * SDK (an optional peer dependency, imported at run time only to build function tools with its `tool()`).
 */

export { type GateOptions, type ToolCallInfo, UngatedToolError } from "./integrations/gate-call.js";
export {
  type AgentsGateOptions,
  type AgentsMcpCallOptions,
  type AgentsMcpCallResult,
  type AgentsMcpContent,
  type AgentsMcpServer,
  type AgentsMcpTool,
  type GatedMcpServer,
  gateMcpServer,
} from "./integrations/openai-agents.js";
export {
  type GatedToolOptions,
  type GatedToolOutput,
  gateTools,
} from "./integrations/openai-agents-tool.js";
