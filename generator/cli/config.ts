/**
 * `toolgate.config.json`: the defaults every command reads from the working directory, by one rule. The file is
 * read bounded (a regular file of 1 MiB at most); every key must be known and hold a value of its type, so a typo
 * is reported rather than ignored.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { ContractError } from "../contract/errors.js";
import { MAX_CONFIG_BYTES, readBoundedText, readFailure } from "../files.js";
import { isSchemaObject } from "../schema/guards.js";
import { escapePointerToken } from "../schema/pointer.js";

/** The config file's name, in the working directory. */
export const CONFIG_FILE = "toolgate.config.json";

/** What `toolgate.config.json` may say. */
export interface Config {
  /** The contracts folder. */
  schemas?: string;
  /** The output folder of `generate`. */
  out?: string;
  /** URI prefixes of referenced schemas → local folders. */
  refs?: Record<string, string>;
  /** Folders besides the working directory that local references may read. */
  roots?: string[];
}

/** Each key and the check its value must pass, with what the error says when it does not. */
const KEYS: Record<keyof Config, [check: (value: unknown) => boolean, what: string]> = {
  schemas: [(value) => typeof value === "string", "`schemas` is a folder path"],
  out: [(value) => typeof value === "string", "`out` is a folder path"],
  refs: [
    (value) => isSchemaObject(value) && Object.values(value).every((folder) => typeof folder === "string"),
    "`refs` maps URI prefixes to folder paths",
  ],
  roots: [
    (value) => Array.isArray(value) && value.every((root) => typeof root === "string"),
    "`roots` is an array of folder paths",
  ],
};

/**
 * The config in `cwd`, or `{}` when there is none. Throws a {@link ContractError} on the file
 * (`toolgate.config.json#/key`) for anything wrong with it; each command reports it its own way.
 */
export async function readConfig(cwd: string): Promise<Config> {
  const file = path.join(cwd, CONFIG_FILE);
  if (!existsSync(file)) return {};
  let text: string;
  try {
    text = await readBoundedText(file, MAX_CONFIG_BYTES);
  } catch (error) {
    throw new ContractError(CONFIG_FILE, "", `cannot read the config: ${readFailure(error)}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new ContractError(CONFIG_FILE, "", `invalid JSON: ${(error as Error).message}`);
  }
  if (!isSchemaObject(config)) throw new ContractError(CONFIG_FILE, "", "the config is a JSON object");
  for (const key of Object.keys(config)) {
    const rule = Object.hasOwn(KEYS, key) ? KEYS[key as keyof Config] : undefined;
    if (rule === undefined) {
      throw new ContractError(CONFIG_FILE, `/${escapePointerToken(key)}`, `unknown key ${JSON.stringify(key)}`);
    }
    if (!rule[0](config[key])) throw new ContractError(CONFIG_FILE, `/${escapePointerToken(key)}`, rule[1]);
  }
  return config as Config;
}

/** The config's folders, resolved against `cwd`. */
export function configFolders(
  config: Config,
  cwd: string,
): {
  remotes: Array<readonly [prefix: string, folder: string]>;
  roots: string[];
} {
  return {
    remotes: Object.entries(config.refs ?? {}).map(([prefix, folder]) => [prefix, path.resolve(cwd, folder)] as const),
    roots: (config.roots ?? []).map((folder) => path.resolve(cwd, folder)),
  };
}
