/**
 * `toolgate.lock.json`: per tool, what a review of a contract change needs to read. Keys sorted, no dates.
 */
import { createHash } from "node:crypto";
import type { ToolModel } from "../generator/model.js";
import type { TypedPlan } from "../generator/view-plan.js";
import { canonicalJson } from "../runtime/json-text.js";

/**
 * The lock file's text: pretty JSON with sorted keys, ending in a newline.
 *
 * @param record what the run that wrote the lock saw (`generator/record.ts`), under the key `record`; a lock
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
      schemas: {
        output: schemaHash(tool.result.bundled),
        input: tool.input === undefined ? null : schemaHash(tool.input.bundled),
      },
      formats: tool.formats,
      view: {
        omit: tool.contract.settings.view?.omit ?? [],
        arrays: tool.contract.settings.view?.arrays ?? {},
        strings: tool.contract.settings.view?.strings ?? {},
        maxStringChars: tool.view.maxStringChars,
        continuation: tool.view.continuation ?? null,
      },
      dialect: tool.result.dialect,
      inputDialect: tool.input?.dialect ?? null,
      bounds: {
        maxBytes: tool.bounds.maxBytes,
        maxDepth: tool.bounds.maxDepth,
        findings: tool.bounds.findings.map((f) => ({ kind: f.kind, pointer: `/outputSchema${f.pointer}` })),
      },
      receive: tool.limits,
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

/** The instance paths that reach the model view (`*` for every item of an array). */
export function viewFields(plan: TypedPlan, path = ""): string[] {
  switch (plan.kind) {
    case "object":
      return Object.keys(plan.properties)
        .sort()
        .flatMap((name) => {
          const child = `${path}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
          return [
            child,
            ...viewFields((plan.properties[name] as { plan: TypedPlan }).plan, child).filter((p) => p !== child),
          ];
        });
    case "array":
      return viewFields(plan.items, `${path}/*`);
    case "tuple":
      return [
        ...new Set([...plan.items, ...(plan.rest ? [plan.rest] : [])].flatMap((p) => viewFields(p, `${path}/*`))),
      ].sort();
    case "union":
      return [...new Set(plan.options.flatMap((p) => viewFields(p, path)))].sort();
    default:
      return path === "" ? [] : [path];
  }
}

/** JSON with keys sorted at every level, two-space indented. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort())
    if (record[key] !== undefined) defineOwn(out, key, sortKeys(record[key]));
  return out;
}

/** Set an own, enumerable property: a key such as `__proto__` (a tool may be named so) must not set a prototype. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
