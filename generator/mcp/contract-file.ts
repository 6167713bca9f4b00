/**
 * What an imported contract file holds, as text: the definition's keys in a fixed order, and the `x-toolgate` block
 * import writes (the defaults, or the user's block kept) with the server's own tool name under a prefix.
 */
import { compareText } from "../contract/load.js";
import { DEFAULTS } from "../contract/x-toolgate.js";
import { isSchemaObject } from "../schema/guards.js";
import type { SchemaObject } from "../schema/shapes.js";

/** The receive ceiling written into a contract whose output schema has no derivable bound: 1 MiB, to be reviewed. */
export const DEFAULT_RECEIVE_BYTES = 1_048_576;

/** Top-level keys of a contract in the order they are written; others follow, sorted, then `x-toolgate`. */
const KEY_ORDER = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "execution",
  "icons",
  "_meta",
];

/** What a `--prefix` may be: a folder name and the start of a tool name on every system (MCP's tool name characters). */
export const PREFIX_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Most characters of a tool name (the load stage's limit, as MCP advises). */
export const MAX_NAME_LENGTH = 128;

/** The model-facing name of a server's tool under a prefix. */
export function prefixedName(prefix: string, tool: string): string {
  return `${prefix}_${tool}`;
}

/**
 * The model-facing name of each of a server's tools under a prefix, by the server's name. A name that already starts
 * with the prefix and `_` keeps it (a git server's `git_log` under `--prefix git` stays `git_log`, not
 * `git_git_log`), unless the server also lists the tool that prefixing would name so (`log` beside `git_log`): then
 * both are prefixed, so no two tools share a name. The names are distinct whenever the server's are. A tool the
 * project already has a contract for under the doubled name (`existing`, the names of its contracts), and none under
 * its own, keeps the doubled one: a re-import never renames a tool the project's code and model prompts know.
 */
export function prefixedNames(
  prefix: string,
  tools: readonly string[],
  existing: { has(name: string): boolean } = new Set(),
): Map<string, string> {
  const served = new Set(tools);
  const carried = `${prefix}_`;
  return new Map(
    tools.map((tool) => {
      const doubled = prefixedName(prefix, tool);
      const keeps =
        tool.startsWith(carried) &&
        !served.has(tool.slice(carried.length)) &&
        (existing.has(tool) || !existing.has(doubled));
      return [tool, keeps ? tool : doubled];
    }),
  );
}

/** The `x-toolgate` block an imported contract starts with. */
export function defaultSettings(receiveBytes: number | undefined): SchemaObject {
  return receiveBytes === undefined ? { version: "1" } : { version: "1", receive: { maxBytes: receiveBytes } };
}

/**
 * The `toolError` block an imported contract starts with: the default written out, so the contract itself says that
 * the model reads the tool's error text (cleaned, bounded, inside the typed failure) and the user sees where to turn
 * it off (`expose: false`) for a tool whose errors may hold what the model must not see.
 */
export function importedToolError(): SchemaObject {
  return { expose: DEFAULTS.toolErrorExpose, maxChars: DEFAULTS.toolErrorChars };
}

/**
 * The block with `mcp.name` set to the server's name in a prefixed import (even where the prefixed name is the
 * server's own, so a kept block's older `mcp.name` never sends the call to another tool), and in any import whose
 * contract name is not the server's: import owns that one key, and keeps every other key of the block as it is. Pure.
 */
export function withServerName(
  settings: SchemaObject,
  name: string,
  serverName: string,
  prefixed = name !== serverName,
): SchemaObject {
  if (!prefixed && name === serverName) return settings;
  const mcp = isSchemaObject(settings.mcp) ? ownCopy(settings.mcp) : {};
  mcp.name = serverName;
  const out = ownCopy(settings);
  out.mcp = mcp;
  return out;
}

/** A shallow copy made key by key, so a `__proto__` key stays a key. */
function ownCopy(object: SchemaObject): SchemaObject {
  const copy: SchemaObject = {};
  for (const key of Object.keys(object)) {
    Object.defineProperty(copy, key, { value: object[key], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** Whether an `x-toolgate` block declares a receive ceiling. */
export function hasCeiling(settings: SchemaObject): boolean {
  return isSchemaObject(settings.receive) && settings.receive.maxBytes !== undefined;
}

/** The `x-toolgate` block of an existing contract's text, when it has one. */
export function settingsOf(text: string): SchemaObject | undefined {
  try {
    const document = JSON.parse(text) as unknown;
    if (isSchemaObject(document) && isSchemaObject(document["x-toolgate"])) return document["x-toolgate"];
  } catch {
    // A contract that does not parse has no settings to keep; replacing it needs --force like any other change.
  }
  return undefined;
}

/**
 * The contract file's text: top-level keys in {@link KEY_ORDER}, then the rest sorted, then `x-toolgate`.
 * Written key by key, never through an object literal, so a `__proto__` key stays a key.
 */
export function contractText(definition: SchemaObject, settings: SchemaObject, name: string): string {
  const keys = Object.keys(definition).filter((key) => key !== "x-toolgate");
  const ordered = [
    ...KEY_ORDER.filter((key) => keys.includes(key)),
    ...keys.filter((key) => !KEY_ORDER.includes(key)).sort(compareText),
  ];
  const members = ordered
    .filter((key) => definition[key] !== undefined)
    .map((key) => [key, key === "name" ? name : definition[key]] as const)
    .concat([["x-toolgate", settings]]);
  const body = members.map(
    ([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value, null, 2).replaceAll("\n", "\n  ")}`,
  );
  return `{\n${body.join(",\n")}\n}\n`;
}
