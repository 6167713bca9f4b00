/**
 * `@toolgate/runtime/openai-agents`: MCP servers for OpenAI Agents JS (`@openai/agents`) whose tool results are
 * gated before the agent's model reads them. Its own entry, so the main entry never carries it; it imports nothing
 * from the SDK at run time (an optional peer dependency).
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
