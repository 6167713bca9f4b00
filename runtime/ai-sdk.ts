/**
 * `@toolgate/runtime/ai-sdk`: gates an AI SDK tool set (`gateTools`), so each tool's result reaches the model only
 * as its contract's view or a typed failure. Its own entry, so the main entry never depends on `ai` (an optional
 * peer dependency, which this entry never imports either: the AI SDK's shapes are typed structurally).
 */

export {
  type AiGateOptions,
  type AiTool,
  type AiToolCallOptions,
  type GatedMembers,
  type GatedTool,
  type GatedToolSet,
  gateTools,
  type OutcomeOf,
  type ReadBackTool,
} from "./integrations/ai-sdk.js";
export { type AiContentPart, type AiInputSchema, type AiToolOutput, outcomeOf } from "./integrations/ai-sdk-output.js";
export { type GateOptions, type ToolCallInfo, UngatedToolError } from "./integrations/gate-call.js";
