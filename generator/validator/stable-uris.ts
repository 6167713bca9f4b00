/**
 * Machine-independent names for local schema files.
 *
 * The resolve stage names the contract and the local files it references by absolute `file:` URIs. Ajv may copy
 * the URIs it compiles with into its output, and generated files must be byte-identical on every machine, so the
 * validator stage compiles with `file:` URIs rewritten relative to the deepest folder holding all of them:
 * `file:///home/me/project/schemas/a.tool.json` becomes `file:///schemas/a.tool.json` when a referenced file sits
 * in `/home/me/project/shared/`. Relative references between the files resolve exactly as before.
 */
import type { JsonSchema, ResolvedSchema } from "../schema/shapes.js";

const FILE_SCHEME = "file://";

function folderOf(uri: string): string {
  const path = uri.split("#")[0] as string;
  return path.slice(0, path.lastIndexOf("/") + 1);
}

function commonFolder(folders: readonly string[]): string {
  let common = folders[0] ?? "";
  for (const folder of folders) {
    while (!folder.startsWith(common)) common = common.slice(0, common.slice(0, -1).lastIndexOf("/") + 1);
  }
  return common;
}

/** A copy of the resolved schema whose `file:` URIs are relative to the folder that holds them all. */
export function stableUris(schema: ResolvedSchema): ResolvedSchema {
  const fileUris = [schema.baseUri, ...Object.keys(schema.documents)].filter((u) => u.startsWith(FILE_SCHEME));
  if (fileUris.length === 0) return schema;
  const common = commonFolder(fileUris.map(folderOf));
  if (common === `${FILE_SCHEME}/` || !common.startsWith(`${FILE_SCHEME}/`)) return schema;
  const rename = (uri: string): string => (uri.startsWith(common) ? `${FILE_SCHEME}/${uri.slice(common.length)}` : uri);
  const documents: Record<string, JsonSchema> = {};
  for (const [uri, document] of Object.entries(schema.documents)) documents[rename(uri)] = document;
  return { ...schema, baseUri: rename(schema.baseUri), documents };
}
