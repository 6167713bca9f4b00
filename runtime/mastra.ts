/**
 * `@toolgate/runtime/mastra`: Mastra tools whose results the model reads only through the gate. Its own entry, so
 * the main entry never imports `@mastra/core` (an optional peer dependency).
 */
export {
  type GatedMastraTool,
  gateTool,
  gateTools,
  type MastraGateOptions,
  type MastraModelOutput,
  type MastraReadBackTool,
  type MastraRequestContext,
  type MastraTool,
  type MastraToolCall,
  mastraModelOutput,
  outcomeOf,
  readBackTool,
} from "./integrations/mastra.js";
