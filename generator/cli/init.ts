/**
 * `toolgate init`: a project's first contract and the scripts that keep its generated adapters current.
 *
 *   toolgate init [--schemas DIR]
 *
 * Writes `DIR/get_weather.tool.json` (a small, fully bounded example tool; only when DIR holds no contract yet) and
 * adds two scripts to the project's `package.json`: one that runs `toolgate generate` and `check:contracts`
 * (`toolgate generate --check`). The first is `prebuild` when the project has a `build` script, so every build
 * generates first; a project without one gets `generate:contracts` instead (a `prebuild` with no `build` never runs)
 * and is told how to hook it into whatever compiles it. Nothing else in `package.json` changes: the entries are
 * spliced into its text, in its own indentation and line endings. An existing file is never overwritten, and a
 * script of either name that runs another command is refused (exit 1) before anything is written.
 */

import { readdir } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { lstatIfAny, MAX_CONFIG_BYTES, readBoundedText, readFailure, writeFileInside } from "../files.js";
import { readConfig } from "./config.js";
import { type Console, isParseArgsError, parseCommandArgs, reportUsage, UsageError } from "./console.js";
import { TOKENIZER_NOTE, tokenizerInstalled } from "./tokenizer-check.js";

/** What the scripts `init` adds run: the generator, and its check that the committed output is current. */
export const GENERATE_COMMAND = "toolgate generate";
export const CHECK_COMMAND = "toolgate generate --check";

/** The script that generates before every build, added when the project has a `build` script. */
export const PREBUILD_SCRIPT = "prebuild";
/** The script that generates on its own, added when the project has no `build` script for `prebuild` to precede. */
export const GENERATE_SCRIPT = "generate:contracts";

/**
 * The scripts `init` adds to a package whose current scripts are `scripts`, in this order: `prebuild` where npm runs
 * it (before `build`, or where it already runs the generator), else `generate:contracts`; then `check:contracts`.
 */
export function initScripts(scripts: Readonly<Record<string, unknown>> | undefined): Array<readonly [string, string]> {
  const hooked = scripts?.build !== undefined || scripts?.[PREBUILD_SCRIPT] === GENERATE_COMMAND;
  return [
    [hooked ? PREBUILD_SCRIPT : GENERATE_SCRIPT, GENERATE_COMMAND],
    ["check:contracts", CHECK_COMMAND],
  ];
}

/** The example contract's file name in the contracts folder. */
export const EXAMPLE_FILE = "get_weather.tool.json";

/** The flags of `toolgate init`. */
export const INIT_OPTIONS = { schemas: { type: "string" }, help: { type: "boolean", short: "h" } } as const;

export const INIT_HELP = `  toolgate init [--schemas DIR]
      Start a project: write a first contract, ${EXAMPLE_FILE}, into DIR (default schemas/) when it holds
      none, and add to package.json "prebuild" (toolgate generate; "generate:contracts" when there is no
      "build" script) and "check:contracts" (toolgate generate --check). Never overwrites a file; exit 1 when
      a script of that name runs another command.`;

/** A project `init` will not change: what is wrong, in one line. Nothing has been written. */
export class InitError extends Error {
  override readonly name = "InitError";
}

/** A small tool whose result is fully bounded: every string has a `maxLength`, every object is closed. */
const EXAMPLE_CONTRACT = {
  name: "get_weather",
  title: "Current weather for a city",
  description: "The current conditions in one city: temperature, sky and a short summary.",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string", minLength: 1, maxLength: 80 } },
    required: ["city"],
    additionalProperties: false,
  },
  outputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      city: { type: "string", maxLength: 80 },
      temperatureC: { type: "number", minimum: -100, maximum: 100 },
      sky: { enum: ["clear", "cloudy", "rain", "snow", "fog", "storm"] },
      summary: { type: "string", maxLength: 280, description: "Free text from the weather service." },
    },
    required: ["city", "temperatureC", "sky"],
    additionalProperties: false,
  },
  "x-toolgate": {
    version: "1",
    context: { unit: "bytes", max: 2048 },
    fields: { "/summary": { kind: "text", onInstruction: "flag" } },
  },
};

/** Run `toolgate init`; resolves to the exit code. */
export async function runInit(argv: readonly string[], io: Console, cwd: string = process.cwd()): Promise<number> {
  let values: { schemas?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseInitArgs(argv));
  } catch (error) {
    if (!isParseArgsError(error) && !(error instanceof UsageError)) throw error;
    return reportUsage(io, new UsageError(error.message, `Usage:\n${INIT_HELP}`));
  }
  if (values.help) {
    io.out(`Usage:\n${INIT_HELP}`);
    return 0;
  }
  try {
    const config = await readConfig(cwd);
    const schemas = path.resolve(cwd, values.schemas ?? config.schemas ?? "schemas");
    const plan = await planInit(cwd, schemas);
    if (plan.contract !== undefined) {
      await writeFileInside(schemas, EXAMPLE_FILE, `${JSON.stringify(EXAMPLE_CONTRACT, null, 2)}\n`);
    }
    if (plan.packageText !== undefined) await writeFileInside(cwd, "package.json", plan.packageText);
    for (const line of plan.report) io.out(line);
    if (!tokenizerInstalled(cwd)) io.out(TOKENIZER_NOTE);
    io.out("Next: npx toolgate generate");
    return 0;
  } catch (error) {
    if (error instanceof InitError) {
      io.err(`toolgate init: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

function parseInitArgs(argv: readonly string[]) {
  const parsed = parseCommandArgs(argv, INIT_OPTIONS);
  if (parsed.positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
  return parsed;
}

/** What `init` will write, decided before anything is: the contract's path, package.json's new text, the report. */
interface InitPlan {
  contract: string | undefined;
  packageText: string | undefined;
  report: string[];
}

async function planInit(cwd: string, schemas: string): Promise<InitPlan> {
  const report: string[] = [];
  const where = (file: string) => path.relative(cwd, file) || ".";

  const manifest = path.join(cwd, "package.json");
  let text: string;
  try {
    text = await readBoundedText(manifest, MAX_CONFIG_BYTES);
  } catch (error) {
    throw new InitError(`cannot read package.json in ${cwd} (${readFailure(error)}): run \`npm init\` first`);
  }
  const scripts = initScripts(currentScripts(text));
  const packageText = withScripts(text, scripts);
  for (const [name, command] of scripts) {
    report.push(
      packageText.added.includes(name)
        ? `package.json: added the script "${name}": ${command}`
        : `package.json: the script "${name}" already runs ${command}`,
    );
  }
  if (scripts[0]?.[0] === GENERATE_SCRIPT) {
    report.push(
      `package.json has no "build" script for a "prebuild" to run before: run \`npm run ${GENERATE_SCRIPT}\` ` +
        `before compiling, or start your build with it ("build": "npm run ${GENERATE_SCRIPT} && tsc")`,
    );
  }

  let contract: string | undefined = path.join(schemas, EXAMPLE_FILE);
  const folder = await lstatIfAny(schemas);
  if (folder !== undefined && !folder.isDirectory()) throw new InitError(`${where(schemas)} is not a folder`);
  const existing = folder === undefined ? [] : await contractsIn(schemas);
  if (existing.length > 0) {
    report.push(`${where(schemas)}/ already holds ${existing.length} contract(s): no example added`);
    contract = undefined;
  } else if ((await lstatIfAny(contract)) !== undefined) {
    report.push(`${where(contract)} exists: left as it is`);
    contract = undefined;
  } else {
    report.push(`${where(contract)}: a first contract (a small, fully bounded example tool)`);
  }
  return { contract, packageText: packageText.added.length > 0 ? packageText.text : undefined, report };
}

/** The `scripts` of a package.json's text, when it parses to an object that has them; {@link withScripts} judges the rest. */
function currentScripts(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
    return isPlainObject(parsed) && isPlainObject(parsed.scripts) ? parsed.scripts : undefined;
  } catch {
    return undefined;
  }
}

async function contractsIn(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.endsWith(".tool.json")).sort();
}

/**
 * `text` (a package.json) with `scripts` added, changing nothing else: each entry is spliced into the text in the
 * file's own indentation and line endings. A script already running the same command is left; one running another
 * command is an {@link InitError}.
 */
export function withScripts(
  text: string,
  scripts: ReadonlyArray<readonly [name: string, command: string]>,
): { text: string; added: string[] } {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = text.slice(bom.length);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new InitError(`package.json is not JSON (${(error as Error).message.slice(0, 200)})`);
  }
  if (!isPlainObject(parsed)) throw new InitError("package.json does not hold a JSON object");
  const current = parsed.scripts;
  if (current !== undefined && !isPlainObject(current)) throw new InitError('package.json: "scripts" is not an object');
  const missing: Array<readonly [string, string]> = [];
  for (const [name, command] of scripts) {
    const present = current?.[name];
    if (present === undefined) missing.push([name, command]);
    else if (present !== command) {
      throw new InitError(
        `package.json already has a script "${name}" that runs ${JSON.stringify(present).slice(0, 200)}, not ` +
          `"${command}": add \`${command}\` to it yourself (nothing was written)`,
      );
    }
  }
  if (missing.length === 0) return { text, added: [] };

  const newline = body.includes("\r\n") ? "\r\n" : "\n";
  const top = topLevelMembers(body);
  const unit = indentBefore(body, top.members[0]?.keyStart) ?? "  ";
  const entries = (indent: string) => missing.map(([name, command]) => `${indent}${quote(name)}: ${quote(command)}`);
  const scriptsMember = top.members.findLast((member) => member.key === "scripts");
  let edited: string;
  if (scriptsMember === undefined) {
    const block = `${quote("scripts")}: {${newline}${entries(unit + unit).join(`,${newline}`)}${newline}${unit}}`;
    edited = insertMember(body, top.open, top.close, top.members.at(-1)?.valueEnd, block, unit, newline);
  } else {
    const inner = topLevelMembers(body, scriptsMember.valueStart);
    const first = inner.members[0];
    const multiline = first === undefined || body.slice(inner.open, first.keyStart).includes("\n");
    if (multiline) {
      const indent =
        indentBefore(body, first?.keyStart) ?? `${indentBefore(body, scriptsMember.keyStart) ?? ""}${unit}`;
      const block = entries(indent).join(`,${newline}`);
      edited =
        first === undefined
          ? `${body.slice(0, inner.open + 1)}${newline}${block}${newline}${indentBefore(body, scriptsMember.keyStart) ?? ""}${body.slice(inner.close)}`
          : `${body.slice(0, inner.members.at(-1)?.valueEnd)},${newline}${block}${body.slice(inner.members.at(-1)?.valueEnd)}`;
    } else {
      const block = entries("").join(", ");
      edited = `${body.slice(0, inner.members.at(-1)?.valueEnd)}, ${block}${body.slice(inner.members.at(-1)?.valueEnd)}`;
    }
  }
  const expected = { ...parsed, scripts: { ...current, ...Object.fromEntries(missing) } };
  if (!isDeepStrictEqual(JSON.parse(edited), expected)) {
    throw new InitError("package.json could not be edited in place: add the scripts yourself");
  }
  return { text: `${bom}${edited}`, added: missing.map(([name]) => name) };
}

/** A new member after the object's last one (or in an empty object), on a line of its own. */
function insertMember(
  body: string,
  open: number,
  close: number,
  lastEnd: number | undefined,
  member: string,
  unit: string,
  newline: string,
): string {
  if (lastEnd === undefined)
    return `${body.slice(0, open + 1)}${newline}${unit}${member}${newline}${body.slice(close)}`;
  return `${body.slice(0, lastEnd)},${newline}${unit}${member}${body.slice(lastEnd)}`;
}

const quote = (text: string) => JSON.stringify(text);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The white space that opens the line `at` is on, when only white space stands before `at` on that line. */
function indentBefore(text: string, at: number | undefined): string | undefined {
  if (at === undefined) return undefined;
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const before = text.slice(lineStart, at);
  return /^[ \t]*$/.test(before) && lineStart > 0 ? before : undefined;
}

interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

/**
 * The members of the JSON object whose `{` is the first one at or after `from` in `text` (valid JSON, as
 * `JSON.parse` accepted it): each key, where it starts, and where its value starts and ends; and the object's braces.
 */
function topLevelMembers(text: string, from = 0): { open: number; close: number; members: Member[] } {
  const open = text.indexOf("{", from);
  const members: Member[] = [];
  let i = open + 1;
  const skipSpace = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  for (;;) {
    skipSpace();
    if (text[i] === "}") return { open, close: i, members };
    if (text[i] === ",") {
      i++;
      skipSpace();
    }
    const keyStart = i;
    i = stringEnd(text, i);
    const key = JSON.parse(text.slice(keyStart, i)) as string;
    skipSpace();
    i++; // the colon
    skipSpace();
    const valueStart = i;
    i = valueEnd(text, i);
    members.push({ key, keyStart, valueStart, valueEnd: i });
  }
}

/** Where the JSON string starting at `start` (its opening quote) ends, past its closing quote. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}

/** Where the JSON value starting at `start` ends. */
function valueEnd(text: string, start: number): number {
  if (text[start] === '"') return stringEnd(text, start);
  if (text[start] !== "{" && text[start] !== "[") {
    let i = start;
    while (i < text.length && !/[\s,\]}]/.test(text[i] as string)) i++;
    return i;
  }
  let depth = 0;
  let i = start;
  for (;;) {
    const char = text[i];
    if (char === '"') {
      i = stringEnd(text, i);
      continue;
    }
    if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
}
