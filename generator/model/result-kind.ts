/**
 * What the model stage derives from a contract's result kind (`x-toolgate.result`): the receive ceiling and depth,
 * the `result` entry of the generated `ToolSpec`, and the checks that only make sense for one kind.
 *
 * - `structured` and `json_text`: the ceiling is the declared one or the largest legitimate result the schema's
 *   bounds allow; a declared one below that is an error, and an unbounded schema needs one declared.
 * - `text` and `content`: there is no schema, so nothing to derive: the ceiling must be declared
 *   (`receive.maxBytes`; `toolgate import` writes 1 MiB), the depth is the default ceiling, and no setting may name
 *   a field of the result (view paths, field kinds, a continuation).
 */
import type { BoundsReport } from "../checks/index.js";
import { ContractError } from "../contract/errors.js";
import type { PreparedContract } from "../contract/index.js";
import { type ContentRules, DEFAULTS, type ResultKind } from "../contract/x-toolgate.js";

/** The `result` entry of a tool's generated spec: the runtime's `ResultSpec`. */
export interface ResultModel {
  kind: ResultKind;
  /** Text kind only. */
  text?: { maxLines: number; headShare: number } | undefined;
  content: ContentRules;
}

/** Whether a kind's result is JSON checked against an output schema. */
export function isSchemaKind(kind: ResultKind): boolean {
  return kind === "structured" || kind === "json_text";
}

/** The bounds report of a contract without an output schema: nothing to find, nothing derived. */
export const NO_SCHEMA_BOUNDS: BoundsReport = Object.freeze({ findings: [], maxBytes: null, maxDepth: null });

/** The receive ceiling and depth bound of a tool, checked against its bounds. Throws {@link ContractError}. */
export function receiveLimits(
  prepared: PreparedContract,
  bounds: BoundsReport,
): { maxBytes: number; maxDepth: number } {
  const { contract, settings } = prepared;
  const file = contract.file;
  const kind = settings.result.kind;
  const declaredBytes = settings.receive.maxBytes;
  if (!isSchemaKind(kind)) {
    if (declaredBytes === undefined) {
      throw new ContractError(
        file,
        "/x-toolgate/receive/maxBytes",
        `a ${kind} result has no schema to derive its receive ceiling from, so it must be declared (toolgate import writes 1048576, 1 MiB)`,
      );
    }
    return { maxBytes: declaredBytes, maxDepth: settings.receive.maxDepth ?? DEFAULTS.maxDepthCeiling };
  }
  if (declaredBytes === undefined && bounds.maxBytes === null) {
    throw new ContractError(
      file,
      "/x-toolgate/receive/maxBytes",
      "the output schema is not fully bounded (see the findings above), so the receive ceiling must be declared",
    );
  }
  if (declaredBytes !== undefined && bounds.maxBytes !== null && declaredBytes < bounds.maxBytes) {
    throw new ContractError(
      file,
      "/x-toolgate/receive/maxBytes",
      `the receive ceiling ${declaredBytes} is below the largest legitimate result, ${bounds.maxBytes} bytes as the ` +
        "schema's bounds allow: raise it, or tighten the bounds",
    );
  }
  const maxBytes = declaredBytes ?? (bounds.maxBytes as number);
  const maxDepth =
    settings.receive.maxDepth ?? Math.min(bounds.maxDepth ?? DEFAULTS.maxDepthCeiling, DEFAULTS.maxDepthCeiling);
  return { maxBytes, maxDepth };
}

/**
 * The `result` entry of the spec, after the checks that depend on the kind: `result.text` belongs to the text kind,
 * and a result without a schema has no fields for `view` paths, field kinds or a continuation to name.
 */
export function resultModel(prepared: PreparedContract): ResultModel {
  const { contract, settings } = prepared;
  const { kind, text, content } = settings.result;
  const file = contract.file;
  if (kind !== "text" && contract.settings.result?.text !== undefined) {
    throw new ContractError(
      file,
      "/x-toolgate/result/text",
      `\`result.text\` bounds a text result's lines, and this result is ${kind}`,
    );
  }
  if (!isSchemaKind(kind)) {
    const view = contract.settings.view ?? {};
    const named: Array<[string, boolean]> = [
      ["/x-toolgate/view/omit", (view.omit ?? []).length > 0],
      ["/x-toolgate/view/arrays", Object.keys(view.arrays ?? {}).length > 0],
      ["/x-toolgate/view/strings", Object.keys(view.strings ?? {}).length > 0],
      ["/x-toolgate/view/continuation", view.continuation !== undefined],
      ["/x-toolgate/fields", Object.keys(contract.settings.fields ?? {}).length > 0],
    ];
    const at = named.find(([, present]) => present)?.[0];
    if (at !== undefined) {
      throw new ContractError(
        file,
        at,
        `a ${kind} result has no fields to name: view paths, field kinds and a continuation need an output schema (the kind structured or json_text)`,
      );
    }
  }
  return text === undefined ? { kind, content } : { kind, text, content };
}
