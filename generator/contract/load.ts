/**
 * The load stage: find the contracts, parse them, check their shape and their `x-toolgate` block.
 *
 * A contract is one `*.tool.json` file in the MCP `Tool` shape (name, description, inputSchema, outputSchema) plus an
 * optional `x-toolgate` block, which is validated against the published `schemas/x-toolgate.schema.json`.
 *
 * A contract file is read bounded and only when it is a regular file (`files.ts`). A symbolic link named like a
 * contract is followed only when its real path lies inside the contracts folder or a project root; a link out of
 * them is a contract error, never skipped in silence. Links to folders are not searched.
 */
import { createHash } from "node:crypto";
import { readdir, realpath } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { isInside, readBoundedText, readFailure, realFolder } from "../files.js";
import { packageFile } from "../package.js";
import { isSchemaObject } from "../schema/guards.js";
import { canonicalJson } from "../schema/json.js";
import { escapePointerToken } from "../schema/pointer.js";
import type { JsonSchema, SchemaObject } from "../schema/shapes.js";
import { ContractError } from "./errors.js";
import { parsedInputHash } from "./input-hash.js";
import type { XToolgate } from "./x-toolgate.js";

/** A contract file as read and shape-checked. */
export interface LoadedContract {
  /** The file as shown to the user: relative to the working directory where possible. */
  file: string;
  /** Absolute path. */
  path: string;
  /** Path relative to the contracts folder, with `/` separators: stable on every machine. */
  relativePath: string;
  /** sha256 (hex) of the contract in canonical form (keys sorted, no white space): reformatting changes nothing. */
  sha256: string;
  /**
   * sha256 (hex) of the output schema in canonical form, as written (before any `x-toolgate.refine`): how an MCP
   * server's advertised schema is matched. Absent when the contract has no output schema (a text or content result).
   */
  outputSchemaSha256: string | undefined;
  /** The lock record's hash of the content read (`inputHashOf`, from the parsed value). */
  readSha256: string;
  /** The parsed file. */
  document: SchemaObject;
  name: string;
  description?: string | undefined;
  inputSchema?: JsonSchema | undefined;
  /** Absent for a result of the text or content kind, which has no schema. */
  outputSchema: JsonSchema | undefined;
  settings: XToolgate;
}

/** Whether a real path lies inside one of the folders (compared by their real paths too). */
async function insideSome(real: string, folders: readonly string[]): Promise<boolean> {
  for (const folder of folders) if (isInside(real, await realFolder(folder))) return true;
  return false;
}

/** The suffix that marks a contract file. */
export const CONTRACT_SUFFIX = ".tool.json";

/**
 * The contract files in a folder (and its subfolders), sorted so every machine sees the same order. Everything named
 * like a contract that is not a folder is listed (a symbolic link, a FIFO): the loader follows it or refuses it, so
 * none is skipped in silence.
 */
export async function findContracts(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory() && entry.name.endsWith(CONTRACT_SUFFIX))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort(compareText);
}

/**
 * Read and shape-check one contract file. Throws {@link ContractError} for anything the user must fix.
 * @param roots folders besides the contracts folder a linked contract may point into (the working directory by
 *   default)
 */
export async function loadContract(
  file: string,
  contractsDir: string,
  roots: readonly string[] = [process.cwd()],
): Promise<LoadedContract> {
  const absolute = path.resolve(file);
  const shown = displayPath(absolute);
  let text: string;
  try {
    const real = await realpath(absolute);
    if (real !== absolute && !(await insideSome(real, [contractsDir, ...roots]))) {
      throw new ContractError(
        shown,
        "",
        `a symbolic link to ${real}, outside the contracts folder and the project: toolgate reads contracts only inside them`,
      );
    }
    text = await readBoundedText(real);
  } catch (error) {
    if (error instanceof ContractError) throw error;
    throw new ContractError(shown, "", `cannot read the contract: ${readFailure(error)}`);
  }
  const parsed = parseJson(text, shown);
  const problem = shapeProblem(parsed);
  if (problem !== undefined) throw new ContractError(shown, problem.pointer, problem.message);
  const document = parsed as SchemaObject & { name: string };
  const name = document.name;

  const settings = document["x-toolgate"] ?? {};
  checkSettings(settings, shown);

  return {
    file: shown,
    path: absolute,
    relativePath: path.relative(contractsDir, absolute).split(path.sep).join("/"),
    sha256: sha256Of(document, shown, ""),
    outputSchemaSha256:
      document.outputSchema === undefined ? undefined : sha256Of(document.outputSchema, shown, "/outputSchema"),
    readSha256: parsedInputHash(document),
    document,
    name,
    description: document.description as string | undefined,
    inputSchema: document.inputSchema as JsonSchema | undefined,
    outputSchema: document.outputSchema as JsonSchema | undefined,
    settings: settings as XToolgate,
  };
}

/** What is wrong with the shape of a tool definition, by kind, so each command can word it for its reader. */
export interface ShapeProblem {
  kind: "not-an-object" | "name" | "description" | "no-output-schema" | "output-schema-unused" | "not-a-schema";
  /** The key at fault (`inputSchema` or `outputSchema` for `not-a-schema`). */
  key?: string;
  pointer: string;
  /** How a contract file's problem is worded. */
  message: string;
}

/**
 * The first thing wrong with the shape of a tool definition (an MCP `Tool` as a contract holds it), or nothing.
 * `loadContract` refuses a contract file for it and `import` refuses a server's definition. Whether an output schema
 * is needed depends on the result kind (`x-toolgate.result.kind`, see {@link declaredKind}): `structured` and
 * `json_text` results are checked against one, `text` and `content` results have none.
 */
export function shapeProblem(document: unknown): ShapeProblem | undefined {
  if (!isSchemaObject(document)) {
    return { kind: "not-an-object", pointer: "", message: "a contract is a JSON object (an MCP Tool)" };
  }
  const name = document.name;
  if (typeof name !== "string" || name.length === 0 || name.length > 128) {
    return { kind: "name", pointer: "/name", message: "`name` must be a string of 1 to 128 characters" };
  }
  if (document.description !== undefined && typeof document.description !== "string") {
    return { kind: "description", pointer: "/description", message: "`description` must be a string" };
  }
  const kind = declaredKind(document);
  if (document.outputSchema === undefined && (kind === "structured" || kind === "json_text")) {
    return {
      kind: "no-output-schema",
      pointer: "",
      message: `no \`outputSchema\`: a ${kind} result is checked against the output schema, so the contract must declare one (or say \`"result": { "kind": "text" }\` in \`x-toolgate\` to gate the result as text)`,
    };
  }
  if (document.outputSchema !== undefined && (kind === "text" || kind === "content")) {
    return {
      kind: "output-schema-unused",
      pointer: "/x-toolgate/result/kind",
      message: `a ${kind} result has no output schema, and this contract declares one: remove \`outputSchema\`, or choose the kind "structured" (or "json_text" when the schema is the client's own)`,
    };
  }
  for (const key of ["inputSchema", "outputSchema"] as const) {
    const schema = document[key];
    if (schema !== undefined && !isSchemaObject(schema) && typeof schema !== "boolean") {
      return { kind: "not-a-schema", key, pointer: `/${key}`, message: `\`${key}\` must be a JSON Schema (an object)` };
    }
  }
  return undefined;
}

/**
 * The result kind a definition declares in `x-toolgate.result.kind`, when it names one of the kinds; otherwise
 * nothing (the load stage's check of the block reports a wrong value).
 */
export function declaredKind(document: SchemaObject): "structured" | "json_text" | "text" | "content" | undefined {
  const block = document["x-toolgate"];
  const result = isSchemaObject(block) ? block.result : undefined;
  const kind = isSchemaObject(result) ? result.kind : undefined;
  return kind === "structured" || kind === "json_text" || kind === "text" || kind === "content" ? kind : undefined;
}

/**
 * sha256 (hex) of a value's canonical JSON (keys sorted, no white space): the same hash the runtime computes for a
 * schema an MCP server advertises, so the two can be matched.
 */
export function sha256Of(value: unknown, file: string, pointer: string): string {
  let text: string;
  try {
    text = canonicalJson(value);
  } catch {
    throw new ContractError(file, pointer, "nested too deeply: a contract may nest at most 1000 levels");
  }
  return createHash("sha256").update(text).digest("hex");
}

/** Parse JSON, turning a syntax error into a contract error with line and column. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as SyntaxError).message;
    const position = /position (\d+)/.exec(message)?.[1];
    let where = "";
    if (position !== undefined) {
      const before = text.slice(0, Number(position));
      const line = before.split("\n").length;
      const column = Number(position) - before.lastIndexOf("\n");
      where = ` at line ${line}, column ${column}`;
    }
    throw new ContractError(file, "", `invalid JSON${where}: ${message.replace(/^.*?: /, "").split(" in JSON")[0]}`);
  }
}

/** Code-unit order: the same on every machine and in every locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A path as the user should see it: relative to the working directory when it lies below it. */
export function displayPath(absolute: string): string {
  const relative = path.relative(process.cwd(), absolute);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)
    ? relative.split(path.sep).join("/")
    : absolute;
}

let validateSettings: ReturnType<Ajv2020["compile"]> | undefined;

/** Check an `x-toolgate` block against its published schema; the first error names its pointer. */
function checkSettings(settings: unknown, file: string): void {
  if (validateSettings === undefined) {
    // Loaded at the first contract, not with this module: a `--check` answered by the lock's record reads no contract.
    const { Ajv2020: Compiler } = createRequire(import.meta.url)(
      "ajv/dist/2020.js",
    ) as typeof import("ajv/dist/2020.js");
    const ajv = new Compiler({ allErrors: true, strict: true, ownProperties: true });
    validateSettings = ajv.compile(JSON.parse(packageFile("schemas/x-toolgate.schema.json")));
  }
  if (validateSettings(settings)) return;
  const error = validateSettings.errors?.[0];
  if (error === undefined) throw new ContractError(file, "/x-toolgate", "invalid `x-toolgate` block");
  let pointer = `/x-toolgate${error.instancePath}`;
  let message = `${error.message ?? "is invalid"}`;
  if (error.keyword === "additionalProperties") {
    const extra = String((error.params as { additionalProperty: string }).additionalProperty);
    pointer += `/${escapePointerToken(extra)}`;
    message = `unknown key ${JSON.stringify(extra)} in \`x-toolgate\` (see schemas/x-toolgate.schema.json)`;
  } else if (error.keyword === "enum") {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  throw new ContractError(file, pointer, message);
}
