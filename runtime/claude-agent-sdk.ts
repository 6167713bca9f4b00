/**
 * `@toolgate/runtime/claude-agent-sdk`: gate the MCP tools of a Claude Agent SDK `query()` with its hooks, or in an
 * in-process server's handlers, and serve the read-back tool. Its own entry, so the main entry never imports
 * `@anthropic-ai/claude-agent-sdk` (an optional peer dependency).
 */
export {
  type ClaudeGateOptions,
  type ClaudeHookOptions,
  type GateHook,
  type GateHookMatcher,
  type GateHookOutput,
  type GateHooks,
  gateHooks,
  gateSdkTools,
  type SdkToolLike,
} from "./integrations/claude-agent-sdk.js";
export {
  READ_BACK_SERVER,
  type ReadBackServerOptions,
  readBackServer,
} from "./integrations/claude-agent-sdk-read-back.js";
