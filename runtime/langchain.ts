/**
 * `@toolgate/runtime/langchain`: LangChain.js's `createAgent` middleware that gates every tool call, the read-back
 * tool as a LangChain tool, and the `@langchain/mcp-adapters` hook. Its own entry, so the main entry never imports
 * `@langchain/core` (an optional peer dependency).
 */
export {
  type GatedArtifact,
  type GateMiddleware,
  gateMiddleware,
  type LangChainGateOptions,
  type LangChainModelRequest,
  type LangChainToolCallRequest,
  outcomeOf,
  readBackTool,
} from "./integrations/langchain.js";
export type { LangChainBlock, ToolMessageLike } from "./integrations/langchain-content.js";
export {
  type GateMcpHooks,
  gateMcpHooks,
  type McpHookAnswer,
  type McpToolCallResult,
} from "./integrations/langchain-mcp.js";
