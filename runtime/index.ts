/**
 * `@toolgate/runtime`: the gate generated adapters run, and the one symbol table generated code imports from.
 * Cheap to import: the tokenizer, OpenTelemetry and the file system are loaded only when used, and so are the
 * oversize policies, the text view and the read-back pages (each at the first result or read that needs it).
 */

export {
  type CatalogEntry,
  CatalogRefusedError,
  type CatalogWatch,
  type CatalogWatchOptions,
  type WatchedCatalog,
  watchCatalog,
} from "./catalog/watch.js";
export {
  codeForThrown,
  FAILURE_CODES,
  FAILURE_MESSAGES,
  isTransportFailure,
  RETRY_DEFAULTS,
  type TransportFailure,
  type TransportFailureKind,
  type TransportFailureOptions,
  transportFailure,
} from "./contract/failure.js";
export type * from "./contract/types.js";
// What generated validators call, from their own light entries (`@toolgate/runtime/formats`, `…/validators`).
export { formatValidators } from "./formats.js";
export { defineTool, lookupTool } from "./gate/adapter.js";
export type {
  AdmitContext,
  CatalogAdapter,
  GateHooks,
  InputCheck,
  RecallHook,
  RecallInfo,
  SemanticHook,
  SemanticInfo,
  SemanticVerdict,
  SemanticViolation,
  SummarizeHook,
  SummarizeInfo,
  ToolAdapter,
  ToolCatalog,
} from "./gate/context.js";
export {
  type McpClientWatch,
  type McpValidator,
  type McpValidatorOptions,
  type McpValidatorProvider,
  type McpValidatorResult,
  mcpCallFailure,
  mcpValidatorProvider,
  type OutputValidators,
  outputSchemaSha256,
  sha256HexSync,
  type WatchableMcpClient,
  watchMcpClient,
} from "./integrations/mcp-validator.js";
export { previewPlan } from "./policies/candidate.js";
export {
  FileSpillStore,
  getDefaultSpillStore,
  isSpillHandle,
  MEMORY_SPILL_LIMITS,
  MemorySpillStore,
  type MemorySpillStoreOptions,
  type SpillEntry,
  type SpillMeta,
  type SpillRecord,
  type SpillScope,
  type SpillStore,
  SpillStoreError,
  type SpillStoreErrorCode,
  type SpillStoreOptions,
  setDefaultSpillStore,
} from "./policies/spill-store.js";
export {
  type PageBody,
  READ_TOOL_RESULT,
  type ReadBack,
  type ReadBackArgs,
  type ReadBackContext,
  type ReadBackDefinition,
  type ReadBackErrorCode,
  type ReadBackOptions,
  type ReadBackOutcome,
  type ReadBackToolResult,
  readBack,
} from "./read-back/index.js";
export {
  type CounterSnapshot,
  deliver,
  EVENT_VERSION,
  type EventSink,
  fanOut,
  GateCounters,
  type GateEvent,
  gateCounters,
  getDefaultSink,
  jsonLinesSink,
  type PolicyMix,
  setDefaultSink,
} from "./record/events.js";
// How many payloads the gate has handed to its helper thread to hash: a process can check the thread is used.
export { threadJobs } from "./record/hash-thread.js";
export {
  type MeterLike,
  type OpenTelemetryApiLike,
  type OpenTelemetryTarget,
  openTelemetrySink,
  type SpanLike,
} from "./record/otel.js";
export { hashArguments, sha256Hex } from "./record/provenance.js";
export {
  type CallClaim,
  type Compaction,
  type ContextTotals,
  type Contribution,
  type ContributionReason,
  type ContributionStatus,
  describeUnread,
  MemoryTurnStore,
  type ToolShare,
  Turn,
  type TurnOptions,
  type TurnReport,
  type TurnStore,
  type TurnWindow,
  type WindowState,
} from "./record/turn.js";
export { viewKeyBytes } from "./stages/content-size.js";
export { locate } from "./stages/field-paths.js";
export { checkFieldRules, looksLikeInstructions, opaqueTokenProblem } from "./stages/fields.js";
export { DEFAULT_TOKENIZER, loadTokenizer, MAX_TOKEN_UNITS, type Measured, measureText } from "./stages/measure.js";
export {
  type ModelPart,
  markupSafeJson,
  markupSafeText,
  RESULT_TAG,
  toModelContent,
  toModelParts,
  toModelRefusal,
} from "./stages/model-content.js";
export {
  DEFAULT_MAX_STRING_CHARS,
  type ProjectOptions,
  pointerSegment,
  project,
  type ViewJsonType,
  viewPlanFits,
} from "./stages/project.js";
export {
  finishView,
  LEFT_OUT,
  startView,
  tallyOf,
  type ViewBuild,
  viewDefine,
  viewKeysFree,
  viewNode,
  viewPlanAt,
  viewString,
  viewText,
  viewValue,
} from "./stages/projector.js";
export type { McpCallToolResult } from "./stages/receive/mcp-result.js";
export { type ParsedResult, parsedResult } from "./stages/receive/parsed-value.js";
export { receive } from "./stages/receive/receive.js";
export type { RawKind } from "./stages/receive/received.js";
export { DEFAULT_CONTENT_RULES } from "./stages/result-kind.js";
export { ownedByTenant } from "./stages/tenancy.js";
export { boundText, cleanText, codePointLength, EXCERPT_MARK } from "./text/hygiene.js";
export {
  canonicalJson,
  guardParsedValue,
  isOverflowingNumberLiteral,
  isUnsafeIntegerLiteral,
  parseJsonText,
  scanJsonText,
} from "./text/json.js";
export { jsonEqual } from "./validators.js";
