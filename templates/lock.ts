/**
 * `toolgate.lock.json`: per tool, what a review of a contract change needs to read. Keys sorted, no dates.
 */
import { createHash } from "node:crypto";
import type { ToolModel } from "../generator/model/index.js";
import { viewFields } from "../generator/model/view-fields.js";
import { canonicalJson, defineOwn, sortedJson } from "../generator/schema/json.js";

/**
 * The lock file's text: pretty JSON with sorted keys, ending in a newline.
 *
 * @param record what the run that wrote the lock saw (`generator/lock/record.ts`), under the key `record`; a lock
 *   without one is still a lock, only `--check` cannot answer from it.
 */
export function lockFile(tools: readonly ToolModel[], version: string, source: string, record?: object): string {
  const entries: Record<string, unknown> = {};
  for (const tool of tools) {
    defineOwn(entries, tool.name, {
      contract: tool.contract.relativePath,
      sha256: tool.contract.sha256,
      version: tool.version,
      // The schemas as resolved: a change in a file they reference changes these, not the contract's own hash.
      // `output` is the schema the gate enforces (refined); `advertised` the one as written, when they differ.
      schemas: {
        output: tool.result === undefined ? null : schemaHash(tool.result.bundled),
        ...(tool.advertised === undefined ? {} : { advertised: schemaHash(tool.advertised.bundled) }),
        input: tool.input === undefined ? null : schemaHash(tool.input.bundled),
      },
      result: tool.resultKind,
      formats: tool.formats,
      view: {
        omit: tool.contract.settings.view?.omit ?? [],
        arrays: tool.contract.settings.view?.arrays ?? {},
        strings: tool.contract.settings.view?.strings ?? {},
        maxStringChars: tool.view.maxStringChars,
        continuation: tool.view.continuation ?? null,
      },
      dialect: tool.result?.dialect ?? null,
      inputDialect: tool.input?.dialect ?? null,
      bounds: {
        maxBytes: tool.bounds.maxBytes,
        maxDepth: tool.bounds.maxDepth,
        findings: tool.bounds.findings.map((f) => ({ kind: f.kind, pointer: `/outputSchema${f.pointer}` })),
      },
      // The receive limits as declared or derived; whether the validator bounds values is the generator's to know.
      receive: { maxBytes: tool.limits.maxBytes, maxDepth: tool.limits.maxDepth, timeoutMs: tool.limits.timeoutMs },
      context: tool.context,
      oversize: tool.oversize,
      viewFields: viewFields(tool.view.plan),
      fields: tool.fields,
      exposeToolError: tool.exposeToolError,
    });
  }
  const lock = {
    "@generated": `by toolgate ${version} from ${source}. DO NOT EDIT.`,
    generator: version,
    tools: entries,
  };
  return `${sortedJson(record === undefined ? lock : { ...lock, record })}\n`;
}

/** sha256 (hex) of a schema's canonical JSON. */
function schemaHash(schema: unknown): string {
  return createHash("sha256").update(canonicalJson(schema, Number.POSITIVE_INFINITY)).digest("hex");
}
